// The bone-jump meter's bounds on how far a bone moves between two poses of a
// unit, and the posing of the two when no bound decides.

package main

import (
	"math"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
)

// posedSide is a side of a pose with its frames found: the origins of the
// two frames it lies between and its lerp and weight.
type posedSide struct {
	f0, f1    []float32
	lerp, wgt float32
}

// resolve finds the frames of sides' sides of weight other than 0 (the ones
// Species.OriginsOf poses) and returns how many there are, or false when one
// is of no clip of the species (OriginsOf's error).
func (sp *speciesPaths) resolve(sides *[3]registry.Side, dst *[3]posedSide) (int, bool) {
	n := 0
	for _, sd := range sides {
		if sd.Weight == 0 {
			continue
		}
		if int(sd.Clip) >= len(sp.clips) {
			return 0, false
		}
		c := &sp.clips[sd.Clip]
		dst[n] = c.posed(bpat.Resolve(float64(sd.Phase), c.count, c.loops), sd.Weight, 3*sp.bones)
		n++
	}
	return n, true
}

// posed is a side of clip p at weight w, its phase resolved to r (bpat.Resolve,
// of the clip's frames as stored), of a species of k/3 bones.
func (p *clipPath) posed(r bpat.Playback, w float32, k int) posedSide {
	return posedSide{f0: p.origin[r.Frame*k : (r.Frame+1)*k], f1: p.origin[r.Next*k : (r.Next+1)*k], lerp: r.Lerp, wgt: w}
}

// farthestPosed returns the largest squared move of any bone from origins q to
// origins o.
func farthestPosed(o, q []float32) float64 {
	q = q[:len(o)]
	var most float64
	for k := 0; k+2 < len(o); k += 3 {
		dx, dy, dz := float64(o[k]-q[k]), float64(o[k+1]-q[k+1]), float64(o[k+2]-q[k+2])
		most = max(most, dx*dx+dy*dy+dz*dz)
	}
	return most
}

// pose writes the origins of sides into o, as Species.OriginsOf does.
func pose(o []float32, sides []posedSide) {
	clear(o)
	for _, s := range sides {
		f0, f1 := s.f0[:len(o)], s.f1[:len(o)]
		for k := range o {
			o[k] += s.wgt * (f0[k] + (f1[k]-f0[k])*s.lerp)
		}
	}
}

// farthestOne is farthest for two poses of one clip at full weight, the
// common case: 0 + 1·v is v (−0 turned +0, which no difference tells apart).
func farthestOne(now, was *posedSide) float64 {
	n0, n1, w0, w1, ln, lw := now.f0, now.f1, was.f0, was.f1, now.lerp, was.lerp
	n1, w0, w1 = n1[:len(n0)], w0[:len(n0)], w1[:len(n0)]
	var most float64
	for k := 0; k+2 < len(n0); k += 3 {
		dx := float64((n0[k] + (n1[k]-n0[k])*ln) - (w0[k] + (w1[k]-w0[k])*lw))
		dy := float64((n0[k+1] + (n1[k+1]-n0[k+1])*ln) - (w0[k+1] + (w1[k+1]-w0[k+1])*lw))
		dz := float64((n0[k+2] + (n1[k+2]-n0[k+2])*ln) - (w0[k+2] + (w1[k+2]-w0[k+2])*lw))
		most = max(most, dx*dx+dy*dy+dz*dz)
	}
	return most
}

// farthestHot is max(most, farthestOne(now, was)) for two poses of clip p span
// frames apart: it looks at the bones in hot's order and stops at the first
// whose fastest step times span, with the rounding quick allows for, cannot
// beat the largest move so far; nor can any after it.
func (p *clipPath) farthestHot(now, was *posedSide, span, most float64) float64 {
	n0, n1, w0, w1, ln, lw := now.f0, now.f1, was.f0, was.f1, now.lerp, was.lerp
	n1, w0, w1 = n1[:len(n0)], w0[:len(n0)], w1[:len(n0)]
	for x, k := range p.hot {
		if b := (span*p.hotStep[x] + p.margin) * (1 + 1e-6); b*b <= most {
			break
		}
		k *= 3
		dx := float64((n0[k] + (n1[k]-n0[k])*ln) - (w0[k] + (w1[k]-w0[k])*lw))
		dy := float64((n0[k+1] + (n1[k+1]-n0[k+1])*ln) - (w0[k+1] + (w1[k+1]-w0[k+1])*lw))
		dz := float64((n0[k+2] + (n1[k+2]-n0[k+2])*ln) - (w0[k+2] + (w1[k+2]-w0[k+2])*lw))
		most = max(most, dx*dx+dy*dy+dz*dz)
	}
	return most
}

// boneRules reports whether boneBound rules out that a unit moving from p to
// cur moves a bone farther than √most: blends (a fade's three sides) whose
// clip-wide bound does not. Its terms taken as one bone (wide) first.
func (sp *speciesPaths) boneRules(p, cur *unitPose, most float64) bool {
	var bt boneTerms
	if !sp.terms(&p.sides, &cur.sides, &bt) {
		return false
	}
	if b := bt.wide(); b*b <= most {
		return true
	}
	b := bt.perBone(sp.bones)
	return b*b <= most
}

// oneClip is bound for the most common pose, one clip at full weight both
// times (ok: it is). bound's sum comes to the clip's path and 8e-6·big, bit
// for bit (8e-6 is 2 × 4e-6 in floating point too; TestJumpMeterShortcuts).
func (sp *speciesPaths) oneClip(a, b *[3]registry.Side, tight bool) (float64, bool) {
	if !(a[0].Weight == 1 && b[0].Weight == 1 && a[1].Weight == 0 && a[2].Weight == 0 && b[1].Weight == 0 && b[2].Weight == 0 &&
		a[0].Clip == b[0].Clip && int(a[0].Clip) < len(sp.clips)) {
		return 0, false
	}
	c := &sp.clips[a[0].Clip]
	if tight {
		return sp.oneBound(c.path(a[0].Phase, b[0].Phase)), true
	}
	return sp.oneBound(c.reach(a[0].Phase, b[0].Phase)), true
}

// oneBound is oneClip's bound from the clip's path r between the phases.
func (sp *speciesPaths) oneBound(r float64) float64 { return (r + 8e-6*sp.big) * (1 + 1e-6) }

// twoClips is bound for the next most common pose, a speed blend or a fade from
// one clip: the same two clips in the same places both times (ok: they are). It
// is bound's sum term for term, so the same bound bit for bit
// (TestJumpMeterShortcuts), without bound's search for each side's match.
func (sp *speciesPaths) twoClips(a, b *[3]registry.Side, tight bool) (float64, bool) {
	if !sp.twoShape(a, b) {
		return 0, false
	}
	c0, c1 := &sp.clips[a[0].Clip], &sp.clips[a[1].Clip]
	var r0, r1 float64
	if tight {
		r0, r1 = c0.path(a[0].Phase, b[0].Phase), c1.path(a[1].Phase, b[1].Phase)
	} else {
		r0, r1 = c0.reach(a[0].Phase, b[0].Phase), c1.reach(a[1].Phase, b[1].Phase)
	}
	return twoBound(float64(a[0].Weight), float64(a[1].Weight), float64(b[0].Weight), float64(b[1].Weight), r0, r1, sp.box[a[1].Clip][a[0].Clip], sp.big), true
}

// speedTight is twoClips' tight bound, bit for bit, for a speed blend of
// clips c0 and c1 from weights a0, a1 at phase pa to b0, b1 at phase pb (ok:
// no weight 0, twoShape's test of what a pairKey does not tell), from these
// alone rather than from sides (TestJumpMeterShortcuts).
func (sp *speciesPaths) speedTight(c0, c1 unit.ClipID, a0, a1, b0, b1, pa, pb float32) (float64, bool) {
	if a0 == 0 || a1 == 0 || b0 == 0 || b1 == 0 {
		return 0, false
	}
	return twoBound(float64(a0), float64(a1), float64(b0), float64(b1), sp.clips[c0].path(pa, pb), sp.clips[c1].path(pa, pb), sp.box[c1][c0], sp.big), true
}

// twoShape reports whether a and b are poses of the same two clips in the same
// places (twoClips' case).
func (sp *speciesPaths) twoShape(a, b *[3]registry.Side) bool {
	n := unit.ClipID(len(sp.clips))
	return a[2].Weight == 0 && b[2].Weight == 0 && a[0].Weight != 0 && a[1].Weight != 0 && b[0].Weight != 0 && b[1].Weight != 0 &&
		a[0].Clip == b[0].Clip && a[1].Clip == b[1].Clip && a[0].Clip != a[1].Clip && a[0].Clip < n && a[1].Clip < n
}

// twoBound is twoClips' bound from the sides' weights, their clips' paths r0
// and r1, the distance box between the clips and the species' biggest
// coordinate.
func twoBound(a0, a1, b0, b1, r0, r1, box, big float64) float64 {
	bound := math.Abs(b0) * r0
	bound += math.Abs(b1) * r1
	bound += math.Abs(b1-a1) * box
	weights := math.Abs(a0) + math.Abs(a1) + math.Abs(b0) + math.Abs(b1)
	bound += math.Abs((b0+b1)-(a0+a1))*math.Sqrt(3)*big + 4e-6*big*weights
	return bound * (1 + 1e-6)
}

// showsTwice reports whether pose s shows a clip in two sides of weight not 0,
// as bound refuses it (it compares a later side with s[0] whatever s[0]'s
// weight). Neither oneClip nor twoClips takes such a pose either: farther finds
// no bound for a unit moving to it (TestJumpMeterShortcuts).
func showsTwice(s *[3]registry.Side) bool {
	return s[1].Weight != 0 && s[1].Clip == s[0].Clip ||
		s[2].Weight != 0 && (s[2].Clip == s[0].Clip || s[1].Weight != 0 && s[2].Clip == s[1].Clip)
}

// bound is the bound farther's comment works out on any two poses p and cur
// of a species (ok false where it finds none: a clip the species lacks, or
// twice in a pose).
func (sp *speciesPaths) bound(p, cur *[3]registry.Side, tight bool) (float64, bool) {
	n := unit.ClipID(len(sp.clips))
	x := p[0].Clip
	if p[0].Weight == 0 || x >= n {
		return 0, false
	}
	var bound, sumOld, sumNew float64
	var matched [3]bool
	for i, c := range cur {
		if c.Weight == 0 {
			continue
		}
		if c.Clip >= n || (i > 0 && c.Clip == cur[0].Clip) || (i == 2 && c.Clip == cur[1].Clip && cur[1].Weight != 0) {
			return 0, false // a clip twice in a pose: sides are not matched so simply
		}
		w := math.Abs(float64(c.Weight))
		sumNew += float64(c.Weight)
		j := -1
		for k, o := range p {
			if o.Weight != 0 && o.Clip == c.Clip {
				if j >= 0 {
					return 0, false
				}
				j = k
			}
		}
		if j < 0 {
			bound += w * sp.box[c.Clip][x]
			continue
		}
		matched[j] = true
		o := p[j]
		if tight {
			bound += w * sp.clips[c.Clip].path(o.Phase, c.Phase)
		} else {
			bound += w * sp.clips[c.Clip].reach(o.Phase, c.Phase)
		}
		if c.Clip != x {
			bound += math.Abs(float64(c.Weight)-float64(o.Weight)) * sp.box[c.Clip][x]
		}
	}
	weights := 0.0
	for k, o := range p {
		if o.Weight == 0 {
			continue
		}
		if o.Clip >= n {
			return 0, false
		}
		sumOld += float64(o.Weight)
		weights += math.Abs(float64(o.Weight))
		if !matched[k] && o.Clip != x {
			bound += math.Abs(float64(o.Weight)) * sp.box[o.Clip][x]
		}
	}
	for _, c := range cur {
		weights += math.Abs(float64(c.Weight))
	}
	bound += math.Abs(sumNew-sumOld)*math.Sqrt(3)*sp.big + 4e-6*sp.big*weights
	return bound * (1 + 1e-6), true
}

// The bone-by-bone bound (boneBound, in jumpref_test.go) is bound (reach's
// form) taken bone by bone, its sides matched by
// place rather than by clip, so that a pose may show a clip twice (a fade into
// a speed blend of the clip it fades from). With X the bone's origin in p's
// first side and O_i, O′_i the sides' in p and cur,
//
//	Σ w′·O′ − Σ w·O = Σ_same w′_i·(O′_i − O_i) + Σ_same (w′_i − w_i)·(O_i − X)
//	                + Σ_new w′_i·(O′_i − X) − Σ_old w_i·(O_i − X) + (Σ w′ − Σ w)·X
//
// where a side is the same in both if it shows one clip in both places; a
// clip's path is span times the bone's own fastest step, O − X no farther than
// the bone's boxes in the two clips (O_0 − X is 0), and rounding as bound's. The
// bound is the largest over the bones (ok false: a clip the species lacks).
//
// boneTerms are boneBound's terms: up to six weights (coef), each of a
// per-bone vector (vec) and its largest entry (top: the clip's fastest step,
// the clips' box), and what every bone adds (rest).
type boneTerms struct {
	coef, top [6]float64
	vec       [6][]float64
	t         int
	rest      float64
}

// terms works out boneBound's terms from p to cur (false: a clip the species
// lacks).
func (sp *speciesPaths) terms(p, cur *[3]registry.Side, bt *boneTerms) bool {
	n := unit.ClipID(len(sp.clips))
	x := p[0].Clip
	if p[0].Weight == 0 || x >= n {
		return false
	}
	add := func(w float64, v []float64, top float64) {
		if w != 0 {
			bt.coef[bt.t], bt.vec[bt.t], bt.top[bt.t] = w, v, top
			bt.t++
		}
	}
	box := func(c unit.ClipID) ([]float64, float64) { return sp.boneBox[int(c)*len(sp.clips)+int(x)], sp.box[c][x] }
	var sumOld, sumNew, weights float64
	for i := range 3 {
		o, c := p[i], cur[i]
		if (o.Weight != 0 && o.Clip >= n) || (c.Weight != 0 && c.Clip >= n) {
			return false
		}
		sumOld, sumNew = sumOld+float64(o.Weight), sumNew+float64(c.Weight)
		weights += math.Abs(float64(o.Weight)) + math.Abs(float64(c.Weight))
		if o.Weight != 0 && c.Weight != 0 && o.Clip == c.Clip {
			cp := &sp.clips[c.Clip]
			add(math.Abs(float64(c.Weight))*cp.span(o.Phase, c.Phase), cp.boneStep, cp.fastest)
			if i > 0 {
				v, top := box(c.Clip)
				add(math.Abs(float64(c.Weight)-float64(o.Weight)), v, top)
			}
			continue
		}
		if c.Weight != 0 {
			v, top := box(c.Clip)
			add(math.Abs(float64(c.Weight)), v, top)
		}
		if o.Weight != 0 && i > 0 {
			v, top := box(o.Clip)
			add(math.Abs(float64(o.Weight)), v, top)
		}
	}
	bt.rest = math.Abs(sumNew-sumOld)*math.Sqrt(3)*sp.big + 4e-6*sp.big*weights
	return true
}

// perBone is boneBound: the largest over the bones of the terms' sum.
func (bt *boneTerms) perBone(bones int) float64 {
	var most float64
	for k := range bones {
		b := bt.rest
		for i := range bt.t {
			b += bt.coef[i] * bt.vec[i][k]
		}
		most = max(most, b)
	}
	return most * (1 + 1e-6)
}

// wide is the terms' sum with each vector's largest entry, as one bone: no
// less than perBone, bit for bit too (every coefficient is ≥ 0, and rounding
// keeps the order of sums and products of larger operands), so that a unit it
// rules out perBone rules out as well, without a pass over the bones.
func (bt *boneTerms) wide() float64 {
	b := bt.rest
	for i := range bt.t {
		b += bt.coef[i] * bt.top[i]
	}
	return b * (1 + 1e-6)
}
