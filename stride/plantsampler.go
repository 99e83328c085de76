// The planted clip played (Plan.Sampler): the feet moved by their offsets,
// the legs bent to them by rig's two-bone IK and the body lowered.

package stride

import (
	"math"

	"github.com/bonebake/bonebake/rig"
)

// Sampler returns s played with the plan's feet pinned. Like every sampler it
// is for one goroutine; the bones it turns are put back as s left them before
// s samples again, so that a bone s does not animate keeps no turn.
func (p *Plan) Sampler(s Sampler) Sampler {
	pl := &planted{Plan: p, inner: s, short: make([][2]int, len(p.legs)), miss: make([][2]float64, len(p.legs))}
	var ends []int
	for _, lg := range p.legs {
		ends = append(ends, lg.end)
		switch {
		case lg.shin:
			ends = append(ends, lg.lower)
			pl.edits = append(pl.edits, lg.upper, lg.lower, lg.end)
		case lg.upper >= 0:
			pl.edits = append(pl.edits, lg.upper, lg.lower, lg.end)
		default:
			pl.edits = append(pl.edits, lg.end)
		}
	}
	if p.pelvis >= 0 {
		pl.edits = append(pl.edits, p.pelvis)
	}
	pl.placed = p.sk.Chain(ends)
	pl.global = make([]rig.Mat4, p.sk.Len())
	pl.saved = make([]rig.Transform, len(pl.edits))
	pl.legSk = rig.Skeleton{Parents: []int{-1, 0, 1, 2}, Names: make([]string, 4), Rest: make([]rig.Transform, 4)}
	return pl
}

type planted struct {
	*Plan
	inner  Sampler
	placed []int
	global []rig.Mat4
	edits  []int           // the bones the legs change
	saved  []rig.Transform // their transforms as inner left them
	dirty  bool
	legSk  rig.Skeleton     // bendShin's skeleton of four
	leg4   [4]rig.Transform // and its pose
	short  [][2]int         // samples at which each leg fell short of its pin by over ShortOf·H, on the ground and in its swing (leg.ground)
	miss   [][2]float64     // by how far at most
}

func (p *planted) Sample(t float64, pose []rig.Transform) {
	if p.dirty { // inner may not write a bone it does not animate
		for j, b := range p.edits {
			pose[b] = p.saved[j]
		}
	}
	p.inner.Sample(t, pose)
	for j, b := range p.edits {
		p.saved[j] = pose[b]
	}
	p.dirty = true
	// The offsets at t, between the plan's samples.
	x := (t - p.start) / p.dt
	k := int(math.Floor(x))
	k = max(0, min(p.n-1, k))
	a := rig.Clamp01(x - float64(k))
	p.sk.ModelSpaceOf(pose, p.global, p.placed)
	drop := 0.0
	if p.pelvis >= 0 {
		// The body lowered first: the legs bend from where it is.
		drop = p.drop[k]*(1-a) + p.drop[k+1]*a
		d := rig.Vec3{0, -drop, 0}
		if up := p.sk.Parents[p.pelvis]; up >= 0 {
			if inv, ok := p.global[up].Inverse(); ok {
				d = inv.TransformVector(d)
			}
		}
		pose[p.pelvis].Translation = pose[p.pelvis].Translation.Add(d)
		p.sk.ModelSpaceOf(pose, p.global, p.placed)
	}
	for j, lg := range p.legs {
		d := lg.off[k].Scale(1 - a).Add(lg.off[k+1].Scale(a))
		d[1] += lg.lift[k]*(1-a) + lg.lift[k+1]*a + drop // the ankle came down with the body
		if d == (rig.Vec3{}) {
			continue
		}
		if lg.upper < 0 || lg.shin {
			// A foot hanging from the body moves itself: d in its parent's space.
			if inv, ok := p.global[p.sk.Parents[lg.end]].Inverse(); ok {
				pose[lg.end].Translation = pose[lg.end].Translation.Add(inv.TransformVector(d))
			}
			if lg.shin {
				p.bendShin(pose, lg, p.global[lg.end].Translation().Add(d))
			}
			continue
		}
		ankle := p.global[lg.end].Translation()
		target := ankle.Add(d)
		// The knee stays on the side the animation bends it to, and a leg held
		// straight bends to the side the clip bends it most.
		knee := p.global[lg.lower].Translation()
		hip := p.global[lg.upper].Translation()
		l1, l2 := knee.Sub(hip).Len(), ankle.Sub(knee).Len()
		pinned := target
		target = softReach(hip, target, ankle.Sub(hip).Len(), l1+l2)
		bias := lg.bend
		if q := p.sk.Parents[lg.upper]; q >= 0 {
			bias = p.global[q].TransformVector(bias)
		}
		if b := bias.Len(); b > 0 {
			bias = bias.Scale(0.1 * (l1 + l2) / b)
		}
		pole := knee.Add(bias)
		ru, rl := pose[lg.upper].Rotation, pose[lg.lower].Rotation
		reached := p.sk.TwoBoneIK(pose, lg.upper, lg.lower, lg.end, target, pole)
		// Near or out of reach the foot lies short of its pin: by softReach's
		// difference, or (folded) by the limb's.
		miss := pinned.Sub(target).Len()
		if !reached {
			d := target.Sub(hip).Len()
			miss = math.Max(miss, math.Abs(l1-l2)-d)
		}
		if miss > ShortOf*p.height {
			g := 1
			if lg.ground != nil && lg.ground[max(0, min(p.n, int(math.Round(x))))] {
				g = 0
			}
			p.short[j][g]++
			p.miss[j][g] = math.Max(p.miss[j][g], miss)
		}
		// The foot keeps its animated orientation in model space: its parent
		// turned by (ru'·rl')⁻¹·(ru·rl).
		nu, nl := pose[lg.upper].Rotation, pose[lg.lower].Rotation
		turn := nu.Mul(nl).Conjugate().Mul(ru.Normalize().Mul(rl.Normalize()))
		pose[lg.end].Rotation = turn.Mul(pose[lg.end].Rotation).Normalize()
	}
}

// softReach returns the target the leg from hip (its reach l, the ankle d0
// from the hip as animated) bends to for the foot's pin at target. Within
// SoftReach·l of the straight leg the target's distance from the hip is eased
// toward the reach along the line from the hip (soft IK): a knee that two-bone
// IK would snap straight as its pin moves a few millimetres (ybot's walking:
// 156° to 180° in a frame, where the animation turns it 14.6° at most)
// straightens gradually, and the foot lies a little short of its pin instead.
// Where the animated ankle is further, the leg is eased from there, so that a
// pin blending in from nothing does not bend a straight leg.
func softReach(hip, target rig.Vec3, d0, l float64) rig.Vec3 {
	a := math.Max(d0, (1-SoftReach)*l)
	v := target.Sub(hip)
	d := v.Len()
	if !(a < l) || !(d > a) {
		return target
	}
	e := a + (l-a)*(1-math.Exp(-(d-a)/(l-a)))
	return hip.Add(v.Scale(e / d))
}

// bendShin turns a leg whose lower bone is a leaf so that the point of it where
// the foot stood (as animated) lies at target: rig's TwoBoneIK on a skeleton of
// four, the leg's parent in model space, the two bones and that point.
func (p *planted) bendShin(pose []rig.Transform, lg leg, target rig.Vec3) {
	base := rig.Transform{Rotation: rig.IdentityQuat(), Scale: rig.Vec3{1, 1, 1}}
	if up := p.sk.Parents[lg.upper]; up >= 0 {
		t, ok := rig.Decompose(p.global[up])
		if !ok {
			return
		}
		base = t
	}
	inv, ok := p.global[lg.lower].Inverse()
	if !ok {
		return
	}
	tip := rig.Transform{Translation: inv.TransformPoint(p.global[lg.end].Translation()), Rotation: rig.IdentityQuat(), Scale: rig.Vec3{1, 1, 1}}
	p.leg4[0], p.leg4[1], p.leg4[2], p.leg4[3] = base, pose[lg.upper], pose[lg.lower], tip
	p.legSk.TwoBoneIK(p.leg4[:], 1, 2, 3, target, p.global[lg.lower].Translation())
	pose[lg.upper].Rotation, pose[lg.lower].Rotation = p.leg4[1].Rotation, p.leg4[2].Rotation
}
