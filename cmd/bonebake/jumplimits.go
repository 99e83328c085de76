// The bone-jump meter's quick tests: how far a unit's phase may step on one clip,
// or on a steady speed blend of two, before any bone could move farther than the
// largest move seen, so that most unit-steps are decided without posing.

package main

import (
	"cmp"
	"math"
	"slices"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/formats/bpat"
)

// pairPath is what a speed blend's bound reads of its clips (twoClips' a[0]
// and a[1]): each one's frames and fastest step, the farthest their bones are
// apart, the species' biggest coordinate; loops: both loop, over more than one
// frame each, and are not one clip.
type pairPath struct {
	n0, f0, n1, f1, box, big float64
	loops                    bool
}

// steadyWeights is the most a steady speed blend's weights may add up to
// (their absolute values) for pairPath.limit to hold: 1 and a little, as
// 1 − w and w do in float32.
const steadyWeights = 1 + 1e-6

// limit is how far, either way, the phase of a steady speed blend of its clips
// (weights a0 = b0, a1 = b1, not 0, |b0| + |b1| ≤ steadyWeights) may step for
// bound to pass against most. With the weights unchanged, bound is (|b0|·r0
// + |b1|·r1 + 4e-6·big·2(|b0| + |b1|))·(1 + 1e-6), no more than
// steadyWeights·(max(r0, r1) + 8e-6·big)·(1 + 1e-6), which never falls as the
// step grows (TestJumpMeterLimit).
func (pp *pairPath) limit(most float64) limit {
	l := limit{most: most, step: -1}
	if !pp.loops || !(most > 0) {
		return l
	}
	bound := func(s float64) float64 {
		return steadyWeights * (max((s*pp.n0+1e-6)*pp.f0, (s*pp.n1+1e-6)*pp.f1) + 8e-6*pp.big) * (1 + 1e-6)
	}
	s, room := 0.5, math.Sqrt(most)/(1+1e-6)/steadyWeights-8e-6*pp.big
	if fast := max(pp.n0*pp.f0, pp.n1*pp.f1); fast > 0 {
		s = min(s, (room-1e-6*max(pp.f0, pp.f1))/fast)
	}
	if s := stepWithin(s, most, bound); s >= 0 {
		l.step = s
	}
	l.allowed = below32(l.step)
	return l
}

// bound is twoClips' first bound (reach's), bit for bit, for a speed blend of
// its clips from weights a0, a1 at phase pa to b0, b1 at pb (a0 and a1 not 0),
// with both phases' distance taken once (ok: a step of under half a phase, to
// weights not 0).
func (pp *pairPath) bound(a0, a1, b0, b1, pa, pb float32) (float64, bool) {
	d := float64(pb) - float64(pa)
	if !pp.loops || d > 0.5 || d < -0.5 || b0 == 0 || b1 == 0 {
		return 0, false
	}
	d = math.Abs(d) // as span takes it
	return twoBound(float64(a0), float64(a1), float64(b0), float64(b1), (d*pp.n0+1e-6)*pp.f0, (d*pp.n1+1e-6)*pp.f1, pp.box, pp.big), true
}

// clipPath is how far a clip's bones travel: step[f] is the farthest any bone's
// origin moves from frame f to the frame bpat.Resolve blends it with, along[f] the
// sum of step before frame f, and slack covers float32 rounding in the poses.
type clipPath struct {
	frames      int
	loops       bool
	step, along []float64
	fastest     float64      // the largest step
	perPhase    float64      // fastest × the frames a phase of 1 spans
	margin      float64      // what quick adds for rounding
	lo, hi      [][3]float64 // per bone, the box its origin stays in
	big         float64      // the largest coordinate of any origin
	// The bones by their fastest step, fastest first (hot), and those steps
	// (hotStep): posing one clip looks at a bone only while its own step could
	// beat the largest move.
	hot      []int32
	hotStep  []float64
	boneStep []float64 // per bone, its fastest step
	// What posing reads: the clip's frame count as stored (for bpat.Resolve) and
	// each frame's origins, x, y, z per bone, copied from the palettes'
	// translation column.
	count  int
	origin []float32
}

// newClipPath measures clip c of species s.
func newClipPath(s *registry.Species, c int) clipPath {
	cl := &s.Clips[c]
	p := clipPath{frames: max(cl.FrameCount, 1), loops: cl.Loops, count: cl.FrameCount}
	p.step, p.along = make([]float64, p.frames), make([]float64, p.frames+1)
	bones := s.File.BoneCount()
	p.origin = make([]float32, 0, 3*bones*p.frames)
	p.lo, p.hi = make([][3]float64, bones), make([][3]float64, bones)
	boneStep := make([]float64, bones)
	p.boneStep = boneStep
	for k := range bones {
		p.lo[k], p.hi[k] = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	}
	for f := range p.frames {
		next := 0 // a clip of one frame: frame 0 with itself
		if cl.FrameCount > 1 {
			next = min(f+1, cl.FrameCount-1)
			if cl.Loops && f+1 == cl.FrameCount {
				next = 0
			}
		}
		f0, f1 := s.File.Palette(c, f), s.File.Palette(c, next)
		for k := range bones {
			var d2 float64
			for a := range 3 {
				e := k*bpat.FloatsPerBone + 4*a + 3
				p.origin = append(p.origin, f0[e])
				v := float64(f0[e])
				d := float64(f1[e]) - v
				d2 += d * d
				p.big = max(p.big, math.Abs(v))
				p.lo[k][a], p.hi[k][a] = min(p.lo[k][a], v), max(p.hi[k][a], v)
			}
			p.step[f] = max(p.step[f], math.Sqrt(d2))
			boneStep[k] = max(boneStep[k], math.Sqrt(d2))
		}
		p.along[f+1] = p.along[f] + p.step[f]
		p.fastest = max(p.fastest, p.step[f])
	}
	p.perPhase = p.fastest * float64(p.frames)
	p.margin = 1e-6*p.fastest + 8e-6*p.big
	for k := range bones {
		p.hot = append(p.hot, int32(k))
	}
	slices.SortStableFunc(p.hot, func(a, b int32) int { return cmp.Compare(boneStep[b], boneStep[a]) })
	for _, k := range p.hot {
		p.hotStep = append(p.hotStep, boneStep[k])
	}
	return p
}

// quick is reach with the pose's rounding (as farther's bound for one clip at
// full weight: 8e-6·big) and the phases' distance taken without a floor while it
// is under half a phase, as it is between steps.
func (p *clipPath) quick(a, b float32) float64 {
	d := float64(b) - float64(a)
	if !p.loops || d > 0.5 || d < -0.5 {
		return (p.reach(a, b) + p.margin) * (1 + 1e-6)
	}
	// A looping clip: frames apart (n·|b − a|, the shorter way round as it is
	// under half), as reach gives them.
	return (math.Abs(d)*p.perPhase + p.margin) * (1 + 1e-6)
}

// limit is the largest phase step for which quick passes against most: a
// quick test for the common case that decides as quick does.
type limit struct {
	most, step float64 // step −1: none
	allowed    float32 // step as a float32 no greater (below32): the loop's first test
	oneShot    bool    // the phases are clamped to [0, 1] first
}

// limit works out how far the phase may step, either way (a one-shot clip's
// phases clamped to [0, 1] first, as reach clamps them), for quick's bound to
// pass against most. A looping clip's step s, at most half a phase, gives
// (s·perPhase + margin)·(1 + 1e-6), a one-shot's ((s·(frames − 1) + 1e-6)·fastest
// + margin)·(1 + 1e-6); each of those operations, rounded, never falls as s
// grows, so a step no longer than one that passes passes too
// (TestJumpMeterLimit).
func (p *clipPath) limit(most float64) limit {
	l := limit{most: most, step: -1, oneShot: !p.loops}
	if !(most > 0) {
		return l
	}
	bound := func(s float64) float64 {
		if p.loops {
			return (s*p.perPhase + p.margin) * (1 + 1e-6)
		}
		if p.frames <= 1 {
			return p.margin * (1 + 1e-6)
		}
		return ((s*float64(p.frames-1)+1e-6)*p.fastest + p.margin) * (1 + 1e-6)
	}
	s, room := 1.0, math.Sqrt(most)/(1+1e-6)-p.margin
	if p.loops {
		s = 0.5
		if p.perPhase > 0 {
			s = min(s, room/p.perPhase)
		}
	} else if p.frames > 1 && p.fastest > 0 {
		s = min(s, (room/p.fastest-1e-6)/float64(p.frames-1))
	}
	if s := stepWithin(s, most, bound); s >= 0 {
		l.step = s
	}
	l.allowed = below32(l.step)
	return l
}

// reach is path's quick form: the frames between the phases (span) times the
// fastest step.
func (p *clipPath) reach(a, b float32) float64 { return p.span(a, b) * p.fastest }

// span is how many frames apart phases a and b lie, the shorter way round a
// looping clip, a millionth of a frame more for the rounding of bpat.Resolve's
// lerp and of the floors' absence; 0 for a clip of one frame. No bone's path
// between them is longer than span times its fastest step.
func (p *clipPath) span(a, b float32) float64 {
	if p.frames <= 1 {
		return 0
	}
	pa, pb := float64(a), float64(b)
	var d float64
	if d := pb - pa; p.loops && d <= 0.5 && d >= -0.5 {
		// Under half a phase apart, as between steps: n·|b − a| frames, the
		// shorter way round, without the floors (quick's form).
		return math.Abs(d)*float64(p.frames) + 1e-6
	}
	if p.loops {
		n := float64(p.frames)
		d = math.Abs((pb-math.Floor(pb))*n - (pa-math.Floor(pa))*n)
		d = min(d, n-d)
	} else {
		d = math.Abs(min(max(pb, 0), 1)-min(max(pa, 0), 1)) * float64(p.frames-1)
	}
	return d + 1e-6
}

// path returns a length no bone's path from phase a to phase b exceeds, in
// exact arithmetic on the baked origins.
func (p *clipPath) path(a, b float32) float64 {
	if p.frames <= 1 {
		return 0
	}
	return p.pathOf(bpat.Resolve(float64(a), p.frames, p.loops), bpat.Resolve(float64(b), p.frames, p.loops))
}

// pathOf is path between two phases already resolved (bpat.Resolve, of the
// clip's frames), for a caller that poses them too.
func (p *clipPath) pathOf(pa, pb bpat.Playback) float64 {
	if p.frames <= 1 {
		return 0
	}
	fa, la, fb, lb := pa.Frame, float64(pa.Lerp), pb.Frame, float64(pb.Lerp)
	if fa > fb || (fa == fb && la > lb) {
		fa, la, fb, lb = fb, lb, fa, la
	}
	// Along the path from a to b, or for a looping clip from b on round to a:
	// every bone's path between two poses is no longer than the fastest one's.
	var path float64
	if fa == fb {
		path = (lb - la) * p.step[fa]
	} else {
		path = (1-la)*p.step[fa] + (p.along[fb] - p.along[fa+1]) + lb*p.step[fb]
	}
	if p.loops {
		round := la*p.step[fa] + p.along[fa] + (p.along[p.frames] - p.along[fb+1]) + (1-lb)*p.step[fb]
		path = min(path, round)
	}
	return path
}

// stepWithin is the largest step at most s, in a few steps down from it for
// rounding, whose bound(step)² is within most, or -1 when none is.
func stepWithin(s, most float64, bound func(float64) float64) float64 {
	for range 8 {
		if s < 0 {
			return -1
		}
		if b := bound(s); b*b <= most {
			return s
		}
		s = math.Nextafter(s, -1) * (1 - 1e-12)
	}
	return -1
}
