package main

import (
	"cmp"
	"math"
	goruntime "runtime"
	"slices"
	"sync"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
)

// jumpMeter finds the largest move of any bone's model-space origin from one
// step to the next, over all units, on all cores. It keeps each unit's pose of
// the last step as its sides (crowd.Batch.Sides: a few words, not an origin per
// bone) and poses both steps' origins again only for a unit that might beat the
// largest move found so far: a unit that shows one clip in both steps moves each
// bone along the clip's baked path, so no bone moves farther than the path
// between the two phases, as long as its fastest bone's (clipPath.quick). Of a
// unit it poses it looks only at the bones that could (farthestFrom). The
// largest move is the one the meter posing every unit finds, bit for bit
// (TestJumpMeterAsBefore).
type jumpMeter struct {
	reg   *registry.Registry
	paths []speciesPaths // per species id
	prev  []unitPose     // per unit, its pose at the last step
	// The common cases' columns, per unit: the species and clip of a unit that
	// showed one clip at full weight at the last step (oneKey), or its two
	// clips if it showed a speed blend (pairKey), noKey if neither, and its
	// phase then and the speed blend's weights, which prev's lag behind while
	// the unit stays in its case.
	key    []uint32
	phase  []float32
	w0, w1 []float32
	// allowed is, per unit, a phase step its key's limit allowed at some
	// largest move so far (−1: none yet). The largest move only grows, so it
	// stays allowed: most units are ruled out by it and their phases alone.
	allowed []float32
	pairs   []pairPath // per pairKey's clips, at pairOff[species] + clip·clips + other
	pairOff []int
	flat    []*clipPath // per oneKey's clip, its path: at off[species] + clip
	off     []int
	most    []float64   // per worker, the largest squared move
	posed   []int       // per worker, units posed (tests)
	bufs    [][]float32 // per worker, a pose's origins: 3 × the most bones of any species
	// The blends posed, kept for the next step: per worker, the origins of
	// those posed at the last step and this one (by the step's parity), and
	// per unit, the step it was last posed at and where its origins are.
	kept     [][2][]float32
	keptStep []uint32
	keptAt   []int32
	step     uint32    // measure's calls, from 2: keptStep's 0 is no step
	limits   [][]limit // per worker, per flat clip: how far the phase may step for quick to pass
	plimits  [][]limit // per worker, per pair: how far a steady speed blend's phase may step
	workers  int
}

// unitPose is what a unit showed at a step.
type unitPose struct {
	species unit.SpeciesID
	sides   [3]registry.Side
	has     bool
}

// noKey is the key of a unit showing neither one clip at full weight nor a
// speed blend; a pairKey has pairBit set.
const (
	noKey   = ^uint32(0)
	pairBit = uint32(1) << 31
)

// oneKey is the key of a unit of species s showing clip c.
func oneKey(s unit.SpeciesID, c unit.ClipID) uint32 { return uint32(s)<<16 | uint32(c) }

// pairKey is the key of a unit of species s showing a speed blend of clips c
// and other (noKey if either is not the species').
func (m *jumpMeter) pairKey(s unit.SpeciesID, c, other unit.ClipID) uint32 {
	n := len(m.paths[s].clips)
	if int(c) >= n || int(other) >= n {
		return noKey
	}
	return pairBit | uint32(m.pairOff[s]+int(c)*n+int(other))
}

// keyOf is the key of a unit showing pose u.
func (m *jumpMeter) keyOf(u *unitPose) uint32 {
	s := &u.sides
	switch {
	case !u.has:
		return noKey
	case s[0].Weight == 1 && s[1].Weight == 0 && s[2].Weight == 0 && int(s[0].Clip) < len(m.paths[u.species].clips):
		return oneKey(u.species, s[0].Clip)
	case s[2] == registry.Side{} && s[0].Phase == s[1].Phase && s[0].Weight != 0 && s[1].Weight != 0 && s[0].Clip != s[1].Clip:
		return m.pairKey(u.species, s[0].Clip, s[1].Clip)
	}
	return noKey
}

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

// speciesPaths are a species' clips' paths; box[c][x] is the farthest any bone
// of clip c is from the same bone of clip x (its boxes' farthest corners), big
// the largest coordinate of any origin.
type speciesPaths struct {
	clips   []clipPath
	box     [][]float64
	boneBox [][]float64 // per clips c and x (at c·clips + x), per bone, box's farthest for that bone alone
	big     float64
	bones   int
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

// newJumpMeter returns a meter for n units.
func newJumpMeter(reg *registry.Registry, n int) *jumpMeter {
	m := &jumpMeter{reg: reg, prev: make([]unitPose, n), key: make([]uint32, n), phase: make([]float32, n), w0: make([]float32, n), w1: make([]float32, n), allowed: make([]float32, n), workers: goruntime.GOMAXPROCS(0)}
	for i := range m.key {
		m.key[i], m.allowed[i] = noKey, -1
	}
	m.most, m.posed = make([]float64, m.workers), make([]int, m.workers)
	bones := 0
	for _, s := range reg.All() {
		bones = max(bones, s.File.BoneCount())
		id := int(s.ID)
		for len(m.paths) <= id {
			m.paths = append(m.paths, speciesPaths{})
		}
		sp := &m.paths[id]
		sp.bones = s.File.BoneCount()
		for c := range s.Clips {
			sp.clips = append(sp.clips, newClipPath(s, c))
			sp.big = max(sp.big, sp.clips[c].big)
		}
		sp.box = make([][]float64, len(sp.clips))
		for c, pc := range sp.clips {
			sp.box[c] = make([]float64, len(sp.clips))
			for x, px := range sp.clips {
				bb := make([]float64, len(pc.lo))
				for k := range pc.lo {
					var d2 float64
					for a := range 3 {
						d := max(pc.hi[k][a]-px.lo[k][a], px.hi[k][a]-pc.lo[k][a])
						d2 += d * d
					}
					bb[k] = math.Sqrt(d2)
					sp.box[c][x] = max(sp.box[c][x], bb[k])
				}
				sp.boneBox = append(sp.boneBox, bb)
			}
		}
	}
	for i := range m.paths {
		sp := &m.paths[i]
		m.off = append(m.off, len(m.flat))
		for c := range sp.clips {
			m.flat = append(m.flat, &sp.clips[c])
		}
		m.pairOff = append(m.pairOff, len(m.pairs))
		for c, p0 := range sp.clips {
			for x, p1 := range sp.clips {
				m.pairs = append(m.pairs, pairPath{n0: float64(p0.frames), f0: p0.fastest, n1: float64(p1.frames), f1: p1.fastest,
					box: sp.box[x][c], big: sp.big, loops: p0.loops && p1.loops && p0.frames > 1 && p1.frames > 1 && c != x})
			}
		}
	}
	for range m.workers {
		ls := make([]limit, len(m.flat))
		for f := range ls {
			ls[f] = limit{most: -1, step: -1} // no most yet
		}
		m.limits = append(m.limits, ls)
		ps := make([]limit, len(m.pairs))
		for f := range ps {
			ps[f] = limit{most: -1, step: -1}
		}
		m.plimits = append(m.plimits, ps)
	}
	for range m.workers {
		m.bufs = append(m.bufs, make([]float32, 3*bones))
	}
	m.kept, m.keptStep, m.keptAt, m.step = make([][2][]float32, m.workers), make([]uint32, n), make([]int32, n), 1
	return m
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
	pa, pb := bpat.Resolve(float64(a), p.frames, p.loops), bpat.Resolve(float64(b), p.frames, p.loops)
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

// measure compares every unit's pose now with its pose at the last call.
func (m *jumpMeter) measure(b *crowd.Batch) {
	n := b.Len()
	// Every worker rules units out against the largest move any has found: a
	// unit that cannot beat it cannot change max.
	found := slices.Max(m.most)
	m.step++
	var wg sync.WaitGroup
	for w := range m.workers {
		lo, hi := n*w/m.workers, n*(w+1)/m.workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.kept[w][m.step&1] = m.kept[w][m.step&1][:0]
			limits, plimits := m.limits[w], m.plimits[w]
			most, posed := found, 0 // the largest squared move: max takes its root
			key, phase, w0, w1, allowed := m.key[lo:hi], m.phase[lo:hi], m.w0[lo:hi], m.w1[lo:hi], m.allowed[lo:hi]
			species, clip, phases := b.Species[lo:hi], b.Clip[lo:hi], b.Phase[lo:hi]
			for j := range key {
				i := lo + j
				// The common cases first, from the columns: one clip at full
				// weight then and now (noKey is no unit's oneKey), or the same
				// speed blend.
				if k := key[j]; !b.Blending(i) {
					if k != oneKey(species[j], clip[j]) {
						goto slow
					}
					// Unclamped, a one-shot's step is no shorter than clamped.
					if math.Abs(float64(phases[j])-float64(phase[j])) <= float64(allowed[j]) {
						phase[j] = phases[j]
						continue
					}
					f := m.off[species[j]] + int(clip[j])
					l := &limits[f]
					if l.most != most {
						*l = m.flat[f].limit(most)
					}
					allowed[j] = below32(l.step)
					was, now := float64(phase[j]), float64(phases[j])
					if l.oneShot { // quick's reach clamps a one-shot's phases
						was, now = min(max(was, 0), 1), min(max(now, 0), 1)
					}
					if math.Abs(now-was) <= l.step {
						phase[j] = phases[j]
						continue
					}
					if d := m.flat[f].quick(phase[j], phases[j]); d*d <= most {
						phase[j] = phases[j]
						continue
					}
					// farther's tight bound and the posing from the columns too:
					// the sides they would read are these.
					if m.reg.Species(species[j]) == nil {
						goto slow
					}
					sp, c := &m.paths[species[j]], m.flat[f]
					from, to := [3]registry.Side{{Clip: clip[j], Phase: phase[j], Weight: 1}}, [3]registry.Side{{Clip: clip[j], Phase: phases[j], Weight: 1}}
					if d, _ := sp.oneClip(&from, &to, true); !(d*d <= most) {
						var a, b [3]posedSide
						sp.resolve(&to, &a)
						sp.resolve(&from, &b)
						posed++
						most = c.farthestHot(&a[0], &b[0], c.span(from[0].Phase, to[0].Phase), most)
					}
					phase[j] = phases[j]
					continue
				} else if k&pairBit != 0 && k != noKey {
					if other, b0, b1, ok := b.SpeedBlend(i); ok && k == m.pairKey(species[j], clip[j], other) {
						// A steady speed blend first: its limit alone.
						step := math.Abs(float64(phases[j]) - float64(phase[j]))
						steady := b0 == w0[j] && b1 == w1[j] && math.Abs(float64(b0))+math.Abs(float64(b1)) <= steadyWeights
						if steady && step <= float64(allowed[j]) {
							phase[j] = phases[j]
							continue
						}
						pk := k &^ pairBit
						l := &plimits[pk]
						if l.most != most {
							*l = m.pairs[pk].limit(most)
						}
						if allowed[j] = below32(l.step); steady && step <= l.step {
							phase[j] = phases[j]
							continue
						}
						d, ok := m.pairs[pk].bound(w0[j], w1[j], b0, b1, phase[j], phases[j])
						if !ok || !(d*d <= most) { // farther's tight bound, from the columns too
							was := [3]registry.Side{{Clip: clip[j], Phase: phase[j], Weight: w0[j]}, {Clip: other, Phase: phase[j], Weight: w1[j]}}
							now := [3]registry.Side{{Clip: clip[j], Phase: phases[j], Weight: b0}, {Clip: other, Phase: phases[j], Weight: b1}}
							d, ok = m.paths[species[j]].twoClips(&was, &now, true)
						}
						if ok && d*d <= most {
							phase[j], w0[j], w1[j] = phases[j], b0, b1
							continue
						}
					}
				}
			slow:
				p := &m.prev[i]
				switch k := key[j]; {
				case k == noKey:
				case k&pairBit == 0:
					p.sides[0].Phase = phase[j]
				default:
					p.sides[0].Phase, p.sides[1].Phase, p.sides[0].Weight, p.sides[1].Weight = phase[j], phase[j], w0[j], w1[j]
				}
				cur := unitPose{species: b.Species[i], has: true}
				b.SidesTo(i, &cur.sides)
				// Its key changes below: its limit is to be found again.
				allowed[j] = -1
				if m.reg.Species(cur.species) == nil || int(cur.species) >= len(m.paths) { // a species not loaded: nothing drawn
					p.has, key[j] = false, noKey
					continue
				}
				sp := &m.paths[cur.species]
				same := p.has && p.species == cur.species
				if same && (!m.farther(&cur, p, most, false) || !m.farther(&cur, p, most, true) || sp.boneRules(p, &cur, most)) {
					*p = cur
					key[j], phase[j], w0[j], w1[j] = m.keyOf(p), p.sides[0].Phase, p.sides[0].Weight, p.sides[1].Weight
					continue
				}
				var now, was [3]posedSide
				nNow, ok := sp.resolve(&cur.sides, &now)
				if !ok {
					p.has, key[j] = false, noKey
					continue
				}
				if same {
					if nWas, ok := sp.resolve(&p.sides, &was); ok {
						posed++
						most = m.farthestFrom(w, i, sp, p, &cur, now[:nNow], was[:nWas], most)
					}
				}
				*p = cur
				key[j], phase[j], w0[j], w1[j] = m.keyOf(p), p.sides[0].Phase, p.sides[0].Weight, p.sides[1].Weight
			}
			m.most[w], m.posed[w] = most, m.posed[w]+posed
		}()
	}
	wg.Wait()
}

// below32 is x as a float32 no greater than it, or −1 for x < 0.
func below32(x float64) float32 {
	if x < 0 {
		return -1
	}
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, -1)
	}
	return f
}

// farthestFrom is max(most, farthest's move) for unit i, posed by worker w from
// p to cur, posing as little as it can. Of one clip at full weight both times
// it looks at a bone only while the bone's own fastest step could beat most
// (clipPath.farthestHot). A blend's pose now is kept for the next step, and its
// pose then read from what the last step kept, if it posed the unit: the same
// sides give the same origins.
func (m *jumpMeter) farthestFrom(w, i int, sp *speciesPaths, p, cur *unitPose, now, was []posedSide, most float64) float64 {
	if len(now) == 1 && len(was) == 1 && now[0].wgt == 1 && was[0].wgt == 1 {
		if a, b := p.sides[0], cur.sides[0]; a.Weight == 1 && b.Weight == 1 && a.Clip == b.Clip {
			c := &sp.clips[a.Clip]
			return c.farthestHot(&now[0], &was[0], c.span(a.Phase, b.Phase), most)
		}
		return max(most, farthestOne(&now[0], &was[0]))
	}
	k3 := 3 * sp.bones
	kept := &m.kept[w][m.step&1]
	at := len(*kept)
	*kept = slices.Grow(*kept, k3)[:at+k3]
	o := (*kept)[at:]
	pose(o, now)
	var q []float32
	if m.keptStep[i] == m.step-1 {
		q = m.kept[w][(m.step-1)&1][m.keptAt[i]:][:k3]
	} else {
		q = m.bufs[w][:k3]
		pose(q, was)
	}
	m.keptStep[i], m.keptAt[i] = m.step, int32(at)
	return max(most, farthestPosed(o, q))
}

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
		r := bpat.Resolve(float64(sd.Phase), c.count, c.loops)
		k := 3 * sp.bones
		dst[n] = posedSide{f0: c.origin[r.Frame*k : (r.Frame+1)*k], f1: c.origin[r.Next*k : (r.Next+1)*k], lerp: r.Lerp, wgt: sd.Weight}
		n++
	}
	return n, true
}

// farthest returns the largest squared move of any bone's origin from pose
// was to pose now. Each origin is what Species.OriginsOf writes, in the same
// float32 operations in the same order: sides added one by one to zero, each
// its weight times the lerp of its two frames (o and q: room for each
// pose's origins).
func (sp *speciesPaths) farthest(now, was []posedSide, o, q []float32) float64 {
	if len(now) == 1 && len(was) == 1 && now[0].wgt == 1 && was[0].wgt == 1 {
		return farthestOne(&now[0], &was[0])
	}
	k3 := 3 * sp.bones
	o, q = o[:k3], q[:k3]
	pose(o, now)
	pose(q, was)
	return farthestPosed(o, q)
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
// clip-wide bound does not.
func (sp *speciesPaths) boneRules(p, cur *unitPose, most float64) bool {
	b, ok := sp.boneBound(&p.sides, &cur.sides)
	return ok && b*b <= most
}

// farther reports whether a unit moving from pose p to cur might move a bone
// farther than √most. With X the origin of a bone in p's first clip, a pose's
// origin is Σ w·O_c over its clips c, and
//
//	Σ w′·O′ − Σ w·O = Σ_both w′_c·(O′_c − O_c) + Σ_both (w′_c − w_c)·(O_c − X)
//	                + Σ_new w′_c·(O′_c − X) − Σ_old w_c·(O_c − X) + (Σ w′ − Σ w)·X
//
// where O′_c − O_c is no longer than the clip's path between the phases and
// O_c − X no farther than the clips' boxes. Rounding: a posed coordinate is
// within 8 float32 units in the last place of the species' biggest per unit of
// weight (a lerp, then the weighted sum), √3 that for a point, both poses'
// together under 4e-6·big per unit of weight.
//
// Each clip's path is first taken as reach gives it, then, with tight, as path
// does (slower, and shorter where the fastest step is not between the phases).
func (m *jumpMeter) farther(cur, p *unitPose, most float64, tight bool) bool {
	if int(cur.species) >= len(m.paths) {
		return true
	}
	sp := &m.paths[cur.species]
	a, b := &p.sides, &cur.sides
	if bound, ok := sp.oneClip(a, b, tight); ok {
		return !(bound*bound <= most)
	}
	if bound, ok := sp.twoClips(a, b, tight); ok {
		return !(bound*bound <= most)
	}
	bound, ok := sp.bound(a, b, tight)
	return !ok || !(bound*bound <= most)
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
	var r float64
	if tight {
		r = c.path(a[0].Phase, b[0].Phase)
	} else {
		r = c.reach(a[0].Phase, b[0].Phase)
	}
	return (r + 8e-6*sp.big) * (1 + 1e-6), true
}

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

// boneBound is bound (reach's form) taken bone by bone, its sides matched by
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
func (sp *speciesPaths) boneBound(p, cur *[3]registry.Side) (float64, bool) {
	n := unit.ClipID(len(sp.clips))
	x := p[0].Clip
	if p[0].Weight == 0 || x >= n {
		return 0, false
	}
	// The terms: up to six weights, each of a per-bone vector.
	var coef [6]float64
	var vec [6][]float64
	t := 0
	add := func(w float64, v []float64) {
		if w != 0 {
			coef[t], vec[t] = w, v
			t++
		}
	}
	box := func(c unit.ClipID) []float64 { return sp.boneBox[int(c)*len(sp.clips)+int(x)] }
	var sumOld, sumNew, weights float64
	for i := range 3 {
		o, c := p[i], cur[i]
		if (o.Weight != 0 && o.Clip >= n) || (c.Weight != 0 && c.Clip >= n) {
			return 0, false
		}
		sumOld, sumNew = sumOld+float64(o.Weight), sumNew+float64(c.Weight)
		weights += math.Abs(float64(o.Weight)) + math.Abs(float64(c.Weight))
		if o.Weight != 0 && c.Weight != 0 && o.Clip == c.Clip {
			cp := &sp.clips[c.Clip]
			add(math.Abs(float64(c.Weight))*cp.span(o.Phase, c.Phase), cp.boneStep)
			if i > 0 {
				add(math.Abs(float64(c.Weight)-float64(o.Weight)), box(c.Clip))
			}
			continue
		}
		if c.Weight != 0 {
			add(math.Abs(float64(c.Weight)), box(c.Clip))
		}
		if o.Weight != 0 && i > 0 {
			add(math.Abs(float64(o.Weight)), box(o.Clip))
		}
	}
	rest := math.Abs(sumNew-sumOld)*math.Sqrt(3)*sp.big + 4e-6*sp.big*weights
	var most float64
	for k := range sp.bones {
		b := rest
		for i := range t {
			b += coef[i] * vec[i][k]
		}
		most = max(most, b)
	}
	return most * (1 + 1e-6), true
}

// max is the largest move measured: the square root of the largest squared one
// (the root is monotonic, so this is the largest root bit for bit).
func (m *jumpMeter) max() float64 { return math.Sqrt(slices.Max(m.most)) }

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
