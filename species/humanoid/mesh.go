package humanoid

import (
	"math"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species/meshgen"
)

// joints returns every bone's model-space position in the bind pose.
func (b *body) joints() [boneCount]vec {
	var j [boneCount]vec
	for i := 0; i < boneCount; i++ {
		if p := boneParents[i]; p >= 0 {
			j[i] = j[p].Add(b.rest[i])
		} else {
			j[i] = b.rest[i]
		}
	}
	return j
}

// torsoSkin skins the trunk: pelvis, spine and chest by height, and the lowest
// outer part of the pelvis into the thighs.
func (b *body) torsoSkin(j [boneCount]vec) meshgen.Skin {
	yP, yS, yC := j[Pelvis][1], j[Spine][1], j[Chest][1]
	return func(p vec) []meshgen.Weight {
		var ws []meshgen.Weight
		switch {
		case p[1] <= yS:
			w := rig.Smoothstep((p[1] - (yP - 0.01*b.s)) / (yS - yP + 0.03*b.s))
			ws = []meshgen.Weight{{Bone: Spine, W: w}, {Bone: Pelvis, W: 1 - w}}
			if d := yP - p[1]; d > 0 {
				hip := HipR
				if p[0] > 0 {
					hip = HipL
				}
				h := 0.5 * rig.Smoothstep(d/(0.09*b.s)) * rig.Smoothstep(math.Abs(p[0])/(0.07*b.s))
				ws[1].W *= 1 - h
				ws = append(ws, meshgen.Weight{Bone: hip, W: h})
			}
		default:
			w := rig.Smoothstep((p[1] - (yS + 0.02*b.s)) / (yC - yS + 0.02*b.s))
			ws = []meshgen.Weight{{Bone: Chest, W: w}, {Bone: Spine, W: 1 - w}}
		}
		return ws
	}
}

// buildMesh builds the profile's skinned mesh around the bind pose.
func (b *body) buildMesh() *mesh.Skinned {
	if b.prof.Outfit == OutfitBones {
		return b.boneMesh()
	}
	return b.fleshMesh()
}

func (b *body) fleshMesh() *mesh.Skinned {
	s, k := b.s, b.prof.Build
	j := b.joints()
	var m meshgen.Builder
	torso := b.torsoSkin(j)
	o := b.prof.Outfit
	upper, lower := meshgen.RoleCloth, meshgen.RoleCloth

	// Trunk: hips, belly, ribcage, shoulders' mass.
	m.EllipsoidSkin(torso, j[Pelvis].Add(vec{0, -0.025 * s, -0.005 * s}), vec{0.165 * s * k, 0.115 * s, 0.115 * s * k}, 12, 7, lower)
	m.EllipsoidSkin(torso, j[Spine].Add(vec{0, 0.04 * s, 0.005 * s}), vec{0.145 * s * k, 0.14 * s, 0.1 * s * k}, 12, 7, upper)
	m.EllipsoidSkin(torso, j[Chest].Add(vec{0, 0.06 * s, 0.01 * s}), vec{0.17 * s * k, 0.16 * s, 0.11 * s * k}, 12, 8, upper)
	switch o {
	case OutfitSoldier: // breastplate and belt
		m.EllipsoidSkin(torso, j[Chest].Add(vec{0, 0.05 * s, 0.018 * s}), vec{0.172 * s * k, 0.15 * s, 0.116 * s * k}, 12, 7, meshgen.RoleMetal)
		m.EllipsoidSkin(torso, j[Pelvis].Add(vec{0, 0.07 * s, 0}), vec{0.158 * s * k, 0.032 * s, 0.11 * s * k}, 12, 4, meshgen.RoleLeather)
	case OutfitSpearman: // padded skirt
		skirt := func(p vec) []meshgen.Weight { return torso(p.Add(vec{0, 0.04 * s, 0})) }
		m.EllipsoidSkin(skirt, j[Pelvis].Add(vec{0, -0.07 * s, 0}), vec{0.175 * s * k, 0.13 * s, 0.13 * s * k}, 12, 6, meshgen.RoleCloth)
		m.EllipsoidSkin(torso, j[Pelvis].Add(vec{0, 0.07 * s, 0}), vec{0.152 * s * k, 0.03 * s, 0.106 * s * k}, 12, 4, meshgen.RoleLeather)
	default:
		m.EllipsoidSkin(torso, j[Pelvis].Add(vec{0, 0.07 * s, 0}), vec{0.15 * s * k, 0.025 * s, 0.104 * s * k}, 12, 4, meshgen.RoleLeather)
	}

	// Neck and head.
	m.Tube(Chest, Neck, j[Neck].Add(vec{0, -0.04 * s, 0}), j[Head].Add(vec{0, 0.03 * s, 0.005 * s}), 0.055*s*k, 0.05*s*k, 8, 2, meshgen.RoleSkin)
	hc := j[Head].Add(vec{0, 0.085 * s, 0.015 * s})
	m.Ellipsoid(Head, hc, vec{0.085 * s, 0.11 * s, 0.1 * s}, 12, 8, meshgen.RoleSkin)
	m.Ellipsoid(Head, hc.Add(vec{0, -0.01 * s, 0.1 * s}), vec{0.016 * s, 0.024 * s, 0.02 * s}, 6, 4, meshgen.RoleSkin) // nose
	for _, sx := range []float64{1, -1} {
		m.Ellipsoid(Head, hc.Add(vec{sx * 0.033 * s, 0.015 * s, 0.085 * s}), vec{0.013 * s, 0.011 * s, 0.01 * s}, 6, 4, meshgen.RoleEye)
		m.Ellipsoid(Head, hc.Add(vec{sx * 0.085 * s, 0, 0.005 * s}), vec{0.012 * s, 0.025 * s, 0.018 * s}, 6, 4, meshgen.RoleSkin) // ears
	}
	switch o {
	case OutfitSoldier, OutfitSpearman: // helmet
		m.Ellipsoid(Head, hc.Add(vec{0, 0.035 * s, -0.005 * s}), vec{0.098 * s, 0.09 * s, 0.11 * s}, 12, 6, meshgen.RoleMetal)
		if o == OutfitSoldier { // nasal guard
			m.Box(Head, hc.Add(vec{0, 0.02 * s, 0.106 * s}), vec{0.008 * s, 0.035 * s, 0.006 * s}, meshgen.RoleMetal)
		}
	default: // hair
		m.Ellipsoid(Head, hc.Add(vec{0, 0.03 * s, -0.015 * s}), vec{0.092 * s, 0.09 * s, 0.1 * s}, 12, 6, meshgen.RoleHair)
	}

	// Arms, hands.
	for _, sd := range []int{left, right} {
		sx := side(sd)
		sh, ua, fa, hd := ShoulderL, UpperArmL, ForearmL, HandL
		if sd == right {
			sh, ua, fa, hd = ShoulderR, UpperArmR, ForearmR, HandR
		}
		m.EllipsoidSkin(meshgen.Along(sh, ua, j[ua], j[ua].Add(vec{sx * 0.1 * s, 0, 0}), 0.6),
			j[ua].Add(vec{sx * 0.01 * s, -0.01 * s, 0}), vec{0.075 * s * k, 0.065 * s * k, 0.065 * s * k}, 10, 6, upper)
		if o == OutfitSoldier {
			m.EllipsoidSkin(meshgen.Along(sh, ua, j[ua], j[ua].Add(vec{sx * 0.1 * s, 0, 0}), 0.6),
				j[ua].Add(vec{sx * 0.015 * s, 0.01 * s, 0}), vec{0.085 * s * k, 0.06 * s * k, 0.075 * s * k}, 10, 5, meshgen.RoleMetal)
		}
		m.Limb(sh, []int{ua, fa}, []vec{j[ua].Add(vec{sx * 0.02 * s, 0, 0}), j[fa], j[hd]},
			[]float64{0.05 * s * k, 0.04 * s * k, 0.031 * s * k}, 8, 3, upper)
		m.Ellipsoid(hd, j[hd].Add(vec{sx * 0.065 * s, -0.005 * s, 0}), vec{0.062 * s, 0.024 * s, 0.045 * s}, 8, 5, meshgen.RoleSkin)
		m.Ellipsoid(hd, j[hd].Add(vec{sx * 0.035 * s, -0.005 * s, 0.045 * s}), vec{0.03 * s, 0.015 * s, 0.015 * s}, 6, 4, meshgen.RoleSkin) // thumb
	}

	// Legs, feet.
	for _, sd := range []int{left, right} {
		hp, kn, ft := HipL, KneeL, FootL
		if sd == right {
			hp, kn, ft = HipR, KneeR, FootR
		}
		m.Limb(Pelvis, []int{hp, kn}, []vec{j[hp].Add(vec{0, 0.03 * s, 0}), j[kn], j[ft].Add(vec{0, 0.01 * s, 0})},
			[]float64{0.085 * s * k, 0.056 * s * k, 0.043 * s * k}, 8, 3, lower)
		m.Tube(kn, ft, j[ft].Add(vec{0, 0.1 * s, 0}), j[ft].Add(vec{0, -0.02 * s, 0}), 0.05*s*k, 0.05*s*k, 8, 1, meshgen.RoleLeather) // boot top
		m.Box(ft, j[ft].Add(vec{0, -0.0425 * s, 0.06 * s}), vec{0.045 * s * k, 0.0375 * s, 0.11 * s}, meshgen.RoleLeather)
	}
	return m.Mesh()
}

// boneMesh is a skeleton: skull, spine, ribs, pelvis and thin limb bones.
func (b *body) boneMesh() *mesh.Skinned {
	s := b.s
	j := b.joints()
	var m meshgen.Builder
	bone := meshgen.RoleBone

	// Skull, jaw, eye sockets.
	hc := j[Head].Add(vec{0, 0.09 * s, 0.01 * s})
	m.Ellipsoid(Head, hc, vec{0.078 * s, 0.095 * s, 0.094 * s}, 12, 8, bone)
	m.Box(Head, hc.Add(vec{0, -0.075 * s, 0.045 * s}), vec{0.045 * s, 0.018 * s, 0.04 * s}, bone)
	for _, sx := range []float64{1, -1} {
		m.Ellipsoid(Head, hc.Add(vec{sx * 0.03 * s, 0.005 * s, 0.082 * s}), vec{0.02 * s, 0.018 * s, 0.012 * s}, 6, 4, meshgen.RoleEye)
	}
	// Spine column through pelvis, chest and neck.
	m.Limb(Pelvis, []int{Spine, Chest, Neck}, []vec{j[Spine].Add(vec{0, -0.08 * s, -0.03 * s}), j[Chest].Add(vec{0, 0, -0.04 * s}), j[Neck], j[Head].Add(vec{0, 0.02 * s, 0})},
		[]float64{0.024 * s, 0.022 * s, 0.018 * s, 0.016 * s}, 6, 2, bone)
	// Pelvis bowl, and the rotten belt and loincloth it still wears.
	m.Ellipsoid(Pelvis, j[Pelvis].Add(vec{0, -0.02 * s, 0}), vec{0.13 * s, 0.06 * s, 0.07 * s}, 10, 5, bone)
	m.Ellipsoid(Pelvis, j[Pelvis].Add(vec{0, 0.035 * s, 0}), vec{0.125 * s, 0.02 * s, 0.085 * s}, 10, 3, meshgen.RoleLeather)
	m.BoxSkin(b.torsoSkin(j), j[Pelvis].Add(vec{0, -0.1 * s, 0.075 * s}), vec{0.06 * s, 0.1 * s, 0.008 * s}, meshgen.RoleCloth)
	// Ribs: arcs from the spine round each side to the sternum.
	for r := 0; r < 5; r++ {
		y := j[Chest][1] - 0.08*s + 0.05*s*float64(r)
		ax := 0.14 * s * (1 - 0.06*math.Abs(float64(r)-2.5))
		az := 0.09 * s
		for _, sx := range []float64{1, -1} {
			var pts []vec
			for i := 0; i <= 5; i++ {
				th := 0.25 + 2.55*float64(i)/5
				pts = append(pts, vec{sx * ax * math.Sin(th), y - 0.025*s*math.Sin(th/2), -az * math.Cos(th)})
			}
			bones := make([]int, len(pts)-1)
			for i := range bones {
				bones[i] = Chest
			}
			if y < j[Chest][1] {
				for i := range bones {
					bones[i] = Spine
				}
			}
			radii := make([]float64, len(pts))
			for i := range radii {
				radii[i] = 0.011 * s
			}
			m.Limb(-1, bones, pts, radii, 5, 1, bone)
		}
	}
	m.Box(Chest, j[Chest].Add(vec{0, 0.02 * s, 0.09 * s}), vec{0.018 * s, 0.1 * s, 0.01 * s}, bone) // sternum

	for _, sd := range []int{left, right} {
		sx := side(sd)
		sh, ua, fa, hd := ShoulderL, UpperArmL, ForearmL, HandL
		hp, kn, ft := HipL, KneeL, FootL
		if sd == right {
			sh, ua, fa, hd = ShoulderR, UpperArmR, ForearmR, HandR
			hp, kn, ft = HipR, KneeR, FootR
		}
		m.Tube(sh, sh, j[sh], j[ua], 0.014*s, 0.014*s, 5, 1, bone)                                          // clavicle
		m.Ellipsoid(ua, j[ua].Add(vec{sx * 0.01 * s, 0, 0}), vec{0.03 * s, 0.03 * s, 0.03 * s}, 6, 4, bone) // shoulder ball
		m.Limb(sh, []int{ua, fa}, []vec{j[ua], j[fa], j[hd]}, []float64{0.022 * s, 0.017 * s, 0.015 * s}, 6, 2, bone)
		m.Ellipsoid(hd, j[hd].Add(vec{sx * 0.06 * s, -0.005 * s, 0}), vec{0.055 * s, 0.012 * s, 0.035 * s}, 6, 4, bone)
		m.Limb(Pelvis, []int{hp, kn}, []vec{j[hp].Add(vec{-sx * 0.02 * s, 0.02 * s, 0}), j[kn], j[ft]}, []float64{0.028 * s, 0.022 * s, 0.019 * s}, 6, 2, bone)
		m.Ellipsoid(kn, j[kn].Add(vec{0, 0, 0.025 * s}), vec{0.025 * s, 0.028 * s, 0.015 * s}, 6, 4, bone) // knee cap
		m.Box(ft, j[ft].Add(vec{0, -0.06 * s, 0.06 * s}), vec{0.035 * s, 0.02 * s, 0.1 * s}, bone)
	}
	return m.Mesh()
}
