package quadruped

import (
	"math"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
	"github.com/bonebake/bonebake/species/meshgen"
)

// detail is a mesh's resolution: sides around a big part (torso, head) and a limb,
// ellipsoid rings, rings per limb segment, and whether small parts (eyes, ears,
// saddle, mane) are drawn.
type detail struct {
	big, limb, rings, seg int
	small                 bool
}

var (
	fullDetail    = detail{big: 16, limb: 10, rings: 10, seg: 4, small: true}
	minimalDetail = detail{big: 8, limb: 4, rings: 4, seg: 1}
)

// restJoints returns the model-space rest position of every bone.
func (p *plan) restJoints() []rig.Vec3 {
	ms := p.skel.RestModelSpace()
	out := make([]rig.Vec3, len(ms))
	for i, m := range ms {
		out[i] = m.Translation()
	}
	return out
}

// dress gives s its full and minimal meshes, built by build, and records the
// full mesh's vertices for onGround.
func (p *plan) dress(s *species.Creature, build func(*plan, detail) *mesh.Skinned) {
	s.Mesh, s.Minimal = build(p, fullDetail), build(p, minimalDetail)
	p.setContacts(s.Mesh)
}

// horseMesh builds the horse around its bind pose: a barrel with withers and
// croup, a neck and a long head, legs ending in hooves, mane and tail. The
// minimal mesh keeps the silhouette with one barrel and four-sided limbs.
func horseMesh(p *plan, d detail) *mesh.Skinned {
	j := p.restJoints()
	const body, neck, head = 1, 14, 15
	skin, hair, hoof := meshgen.RoleSkin, meshgen.RoleHair, meshgen.RoleBone
	thin := max(d.limb/2, 3)
	var b meshgen.Builder

	if d.small {
		b.Ellipsoid(body, rig.Vec3{0, 1.17, -0.02}, rig.Vec3{0.29, 0.28, 0.90}, d.big, d.rings, skin)
		b.Ellipsoid(body, rig.Vec3{0, 1.30, 0.52}, rig.Vec3{0.23, 0.30, 0.36}, d.big, d.rings, skin)
		b.Ellipsoid(body, rig.Vec3{0, 1.21, -0.58}, rig.Vec3{0.28, 0.28, 0.36}, d.big, d.rings, skin)
	} else {
		b.Ellipsoid(body, rig.Vec3{0, 1.20, -0.02}, rig.Vec3{0.29, 0.31, 0.95}, d.big, d.rings, skin)
	}
	// The neck, from the withers to the poll, and the head down to the muzzle.
	b.Tube(body, neck, rig.Vec3{0, 1.40, 0.60}, j[head], 0.20, 0.11, d.limb, d.seg, skin)
	b.Tube(head, head, j[head].Add(rig.Vec3{0, 0.03, -0.02}), rig.Vec3{0, 1.56, 1.46}, 0.11, 0.075, d.limb, d.seg, skin)
	for leg, l := range p.legs {
		top, r0, r1 := 0.14, 0.11, 0.065
		if !front(leg) {
			top, r0, r1 = 0.18, 0.14, 0.07
		}
		hip := j[l.shoulder]
		if d.small {
			b.Limb(body, []int{l.shoulder, l.shoulder, l.knee},
				[]rig.Vec3{hip.Add(rig.Vec3{0, top, 0}), hip, j[l.knee], j[l.foot]},
				[]float64{r0 * 1.1, r0, r1, 0.05}, d.limb, d.seg, skin)
		} else {
			b.Limb(body, []int{l.shoulder, l.knee}, []rig.Vec3{hip, j[l.knee], j[l.foot]},
				[]float64{r0, r1, 0.05}, d.limb, d.seg, skin)
		}
		// The hoof: its domed sole just touches the ground.
		b.Tube(l.foot, l.foot, j[l.foot].Add(rig.Vec3{0, 0.03, 0}), rig.Vec3{j[l.foot][0], 0.4 * 0.065, j[l.foot][2] + 0.01}, 0.05, 0.065, d.limb, 1, hoof)
	}
	if d.small {
		for _, lr := range []float64{-1, 1} {
			b.Tube(head, head, rig.Vec3{0.06 * lr, 1.93, 1.02}, rig.Vec3{0.08 * lr, 2.05, 0.98}, 0.03, 0.008, 5, 1, skin)
			b.Ellipsoid(head, rig.Vec3{0.085 * lr, 1.80, 1.17}, rig.Vec3{0.025, 0.025, 0.025}, 6, 4, meshgen.RoleEye)
		}
		b.Ellipsoid(body, rig.Vec3{0, 1.45, 0.08}, rig.Vec3{0.25, 0.05, 0.27}, d.big, 4, meshgen.RoleLeather)
	}
	// The mane along the top of the neck, the tail from the croup.
	b.TubeSkin(meshgen.Along(body, neck, rig.Vec3{0, 1.58, 0.58}, rig.Vec3{0, 2.0, 1.0}, 0), rig.Vec3{0, 1.58, 0.56}, rig.Vec3{0, 1.99, 0.98}, 0.05, 0.035, thin, d.seg, hair)
	b.Limb(-1, []int{body, body}, []rig.Vec3{{0, 1.36, -0.92}, {0, 1.05, -1.08}, {0, 0.62, -1.05}}, []float64{0.06, 0.085, 0.05}, thin, d.seg, hair)
	return b.Mesh()
}

// elephantMesh builds the elephant around its bind pose: a massive barrel with a
// high shoulder, pillar legs with round pads, a domed head with ears and tusks,
// the trunk and the tail.
func elephantMesh(p *plan, d detail) *mesh.Skinned {
	j := p.restJoints()
	const body, head, trunk = 1, 14, 15
	skin, tusk, hair := meshgen.RoleSkin, meshgen.RoleBone, meshgen.RoleHair
	thin := max(d.limb/2, 3)
	var b meshgen.Builder

	if d.small {
		b.Ellipsoid(body, rig.Vec3{0, 2.2, -0.1}, rig.Vec3{0.85, 0.82, 2.0}, d.big, d.rings, skin)
		b.Ellipsoid(body, rig.Vec3{0, 2.35, 0.9}, rig.Vec3{0.80, 0.75, 0.95}, d.big, d.rings, skin)
		b.Ellipsoid(head, rig.Vec3{0, 2.62, 2.1}, rig.Vec3{0.52, 0.62, 0.55}, d.big, d.rings, skin)
	} else {
		b.Ellipsoid(body, rig.Vec3{0, 2.25, 0}, rig.Vec3{0.85, 0.85, 2.05}, d.big, d.rings, skin)
		b.Ellipsoid(head, rig.Vec3{0, 2.62, 2.1}, rig.Vec3{0.52, 0.62, 0.55}, 6, 3, skin)
	}
	for _, l := range p.legs {
		hip := j[l.shoulder]
		if d.small {
			b.Limb(body, []int{l.shoulder, l.shoulder, l.knee},
				[]rig.Vec3{hip.Add(rig.Vec3{0, 0.3, 0}), hip, j[l.knee], j[l.foot]},
				[]float64{0.38, 0.34, 0.27, 0.26}, d.big, d.seg, skin)
			// The pad: its domed sole just touches the ground.
			b.Tube(l.foot, l.foot, j[l.foot].Add(rig.Vec3{0, 0.02, 0}), rig.Vec3{j[l.foot][0], 0.4 * 0.30, j[l.foot][2] + 0.02}, 0.27, 0.30, d.big, 1, skin)
		} else {
			b.Limb(body, []int{l.shoulder, l.knee}, []rig.Vec3{hip, j[l.knee], rig.Vec3{j[l.foot][0], 0.4 * 0.28, j[l.foot][2]}},
				[]float64{0.34, 0.27, 0.28}, d.limb, d.seg, skin)
		}
	}
	ear := rig.Vec3{0.36, 0.55, 0.07}
	for _, lr := range []float64{-1, 1} {
		// Ears, flat discs beside the head; tusks curving forward and up.
		if d.small {
			b.Ellipsoid(head, rig.Vec3{0.62 * lr, 2.55, 1.85}, ear, d.big, d.rings/2+2, skin)
			b.Limb(head, []int{head, head}, []rig.Vec3{{0.24 * lr, 2.25, 2.35}, {0.30 * lr, 1.90, 2.62}, {0.28 * lr, 1.80, 2.95}}, []float64{0.08, 0.06, 0.02}, thin, d.seg, tusk)
			b.Ellipsoid(head, rig.Vec3{0.36 * lr, 2.70, 2.42}, rig.Vec3{0.04, 0.04, 0.04}, 6, 4, meshgen.RoleEye)
		} else {
			b.Ellipsoid(head, rig.Vec3{0.62 * lr, 2.55, 1.85}, ear, 5, 3, skin)
			b.Tube(head, head, rig.Vec3{0.24 * lr, 2.25, 2.35}, rig.Vec3{0.28 * lr, 1.80, 2.95}, 0.08, 0.02, 3, 1, tusk)
		}
	}
	// The trunk: its upper half moves with the head, its lower half with TrunkTip.
	b.Limb(head, []int{head, trunk}, []rig.Vec3{{0, 2.45, 2.45}, j[trunk], j[trunk].Add(rig.Vec3{0, -0.9, 0.05})}, []float64{0.22, 0.14, 0.07}, d.limb, d.seg+1, skin)
	b.Limb(-1, []int{body, body}, []rig.Vec3{{0, 2.7, -2.05}, {0, 2.1, -2.3}, {0, 1.6, -2.32}}, []float64{0.07, 0.05, 0.03}, thin, d.seg, skin)
	if d.small {
		b.Ellipsoid(body, rig.Vec3{0, 1.48, -2.33}, rig.Vec3{0.05, 0.14, 0.05}, 6, 4, hair)
	}
	return b.Mesh()
}

// contact is a mesh vertex as its bones see it: the lowest of these decides how
// high a lying body must rest.
type contact struct {
	n     int
	bone  [4]int
	w     [4]float64
	local [4]rig.Vec3 // the vertex in each bone's frame (bind rotations are the identity)
}

// setContacts records m's vertices for onGround.
func (p *plan) setContacts(m *mesh.Skinned) {
	j := p.restJoints()
	p.contacts = make([]contact, 0, len(m.Positions))
	for v, pos := range m.Positions {
		var c contact
		for k := range 4 {
			if m.Weights[v][k] == 0 {
				continue
			}
			b := int(m.Joints[v][k])
			c.bone[c.n], c.w[c.n] = b, float64(m.Weights[v][k])
			c.local[c.n] = rig.Vec3{float64(pos[0]), float64(pos[1]), float64(pos[2])}.Sub(j[b])
			c.n++
		}
		p.contacts = append(p.contacts, c)
	}
}

// onGround writes bp, and raises the body if that pose would push any vertex of
// the mesh below the ground, so a falling or lying creature rests on it.
func (p *plan) onGround(bp *bodyPose, pose []rig.Transform) {
	p.write(bp, pose)
	var buf [16]rig.Mat4
	ms := buf[:]
	if n := p.skel.Len(); n > len(buf) {
		ms = make([]rig.Mat4, n)
	}
	p.skel.ModelSpace(pose, ms)
	low := math.Inf(1)
	for i := range p.contacts {
		c := &p.contacts[i]
		y := 0.0
		for k := 0; k < c.n; k++ {
			m, l := &ms[c.bone[k]], c.local[k]
			y += c.w[k] * (m[4]*l[0] + m[5]*l[1] + m[6]*l[2] + m[7])
		}
		low = math.Min(low, y)
	}
	if low < 0 {
		bp.Body.Translation[1] -= low
		p.write(bp, pose)
	}
}
