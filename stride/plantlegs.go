// The legs that move the planted feet: each foot's chain of bending joints
// (Rig.leg) and the side its knee bends to (bends).

package stride

import (
	"fmt"
	"math"
	"slices"

	"github.com/bonebake/bonebake/rig"
)

// leg is a foot and the chain that moves it.
type leg struct {
	foot int // the bone pinned (one of Rig.Feet)
	// end is the foot's joint that the leg places (the ankle: the foot
	// itself or an ancestor), lower and upper the joints above it that bend;
	// upper < 0: the foot hangs from the body (no leg bends to it) and is
	// moved itself. shin: the foot hangs from the body beside a leg whose
	// lower bone is a leaf ending at it (the three.js robot's): the foot is
	// moved itself, and upper and lower bend to keep the leg's end on it.
	end, lower, upper int
	shin              bool
	// bend is the side the knee bends to over the clip, a unit vector in the
	// space of upper's parent: it steers a leg the animation holds straight.
	bend rig.Vec3
	off  []rig.Vec3 // the horizontal offset of the foot at each sample, 0..n
	runs [][2]int   // its contacts (contacts), shortened to its reach (reach)
	lift []float64  // how high the foot is raised at each sample, 0..n (lifts)
	// ground says, at each sample 0..n, that the foot is pinned (in one of
	// runs): a foot short of its pin there is short on the ground, seen;
	// elsewhere it is short of a blended offset in its swing.
	ground []bool
}

// leg finds the chain that moves foot f: of the foot and its two ancestors, the
// joint whose bone and whose parent's bone are longest (the shorter of the two
// the longest: an ankle under a shin and a thigh, not a toe under a foot), both
// at least LegBone·H, on the foot's own limb (the upper joint holds no other
// foot). A foot that hangs from the body (its parent holds another foot) is
// moved itself. It returns why when neither fits.
func (r *Rig) leg(f int) (leg, string) {
	sk := r.Skeleton
	rest := sk.RestModelSpace()
	bone := func(b int) float64 {
		p := sk.Parents[b]
		if p < 0 {
			return 0
		}
		return rest[b].Translation().Sub(rest[p].Translation()).Len()
	}
	holdsOther := func(a int) bool {
		for _, g := range r.Feet {
			if g == f {
				continue
			}
			for b := g; b >= 0; b = sk.Parents[b] {
				if b == a {
					return true
				}
			}
		}
		return false
	}
	best := leg{foot: f, end: -1, upper: -1}
	bestLen := LegBone * r.Height
	for e, step := f, 0; e >= 0 && step < 3; e, step = sk.Parents[e], step+1 {
		lo := sk.Parents[e]
		if lo < 0 || sk.Parents[lo] < 0 || holdsOther(sk.Parents[lo]) {
			break
		}
		if l := math.Min(bone(e), bone(lo)); l >= bestLen {
			best.end, best.lower, best.upper, bestLen = e, lo, sk.Parents[lo], l
		}
	}
	if best.end >= 0 {
		return best, ""
	}
	if p := sk.Parents[f]; p >= 0 && holdsOther(p) {
		best.end, best.lower = f, -1
		// A leg beside it whose lower bone is a leaf (no joint at the ankle):
		// the nearest such leaf to the foot at rest, its bone and its reach
		// to the foot each LegBone·H or more, the shin no longer than twice
		// the thigh. Bones of the body only: Blender's NAME_end below the
		// shin is no ankle (the robot exported with them bent no leg).
		parent := make([]bool, sk.Len())
		for b, q := range sk.Parents {
			if q >= 0 && r.body(b) {
				parent[q] = true
			}
		}
		near := math.Inf(1)
		for l := range sk.Len() {
			up := sk.Parents[l]
			if parent[l] || !r.body(l) || l == f || slices.Contains(r.Feet, l) || up < 0 || sk.Parents[up] < 0 || holdsOther(up) {
				continue
			}
			thigh := bone(l)
			shin := rest[f].Translation().Sub(rest[l].Translation()).Len()
			if thigh >= LegBone*r.Height && shin >= LegBone*r.Height && shin <= 2*thigh && shin < near {
				near, best.lower, best.upper, best.shin = shin, l, up, true
			}
		}
		return best, ""
	}
	return best, fmt.Sprintf("foot %s: no two bones of its leg, each %.2g·H long or more (%s), bend to it: left as animated", sk.Names[f], LegBone, r.hIs())
}

// bends finds each leg's bend: the mean, over the plan's samples of s, of the
// knee's offset from the line from the hip to the ankle, in the space of the
// hip's parent.
func (p *Plan) bends(s Sampler) {
	sk := p.sk
	pose := sk.RestPose()
	global := make([]rig.Mat4, sk.Len())
	var ends []int
	for _, lg := range p.legs {
		ends = append(ends, lg.end, lg.lower)
	}
	placed := sk.Chain(ends)
	for k := 0; k <= p.n; k++ {
		s.Sample(p.start+float64(k)*p.dt, pose)
		sk.ModelSpaceOf(pose, global, placed)
		for j := range p.legs {
			lg := &p.legs[j]
			if lg.upper < 0 {
				continue
			}
			hip, knee, end := global[lg.upper].Translation(), global[lg.lower].Translation(), global[lg.end].Translation()
			off := knee.Sub(hip).Reject(end.Sub(hip).Normalize())
			if q := sk.Parents[lg.upper]; q >= 0 {
				if inv, ok := global[q].Inverse(); ok {
					off = inv.TransformVector(off)
				}
			}
			lg.bend = lg.bend.Add(off)
		}
	}
	for j := range p.legs {
		if l := p.legs[j].bend.Len(); l > 0 {
			p.legs[j].bend = p.legs[j].bend.Scale(1 / l)
		}
	}
}
