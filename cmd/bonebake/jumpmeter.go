package main

import (
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
// between the two phases, as long as its fastest bone's (clipPath.bound). The
// largest move is the one the meter posing every unit finds, bit for bit
// (TestJumpMeterAsBefore).
type jumpMeter struct {
	reg   *registry.Registry
	paths []speciesPaths // per species id
	prev  []unitPose     // per unit, its pose at the last step
	// The common case's columns, per unit: the species and clip of a unit that
	// showed one clip at full weight at the last step (oneKey; noKey if it
	// did not) and its phase then, which prev's lags behind while the unit
	// stays in the common case.
	key     []uint32
	phase   []float32
	flat    []*clipPath // per oneKey's clip, its path: at off[species] + clip
	off     []int
	most    []float64   // per worker, the largest squared move
	posed   []int       // per worker, units posed (tests)
	bufs    [][]float32 // per worker, two poses' origins: 3 × the most bones of any species
	limits  [][]limit   // per worker, per flat clip: how far the phase may step for quick to pass
	workers int
}

// unitPose is what a unit showed at a step.
type unitPose struct {
	species unit.SpeciesID
	sides   [3]registry.Side
	has     bool
}

// noKey is the key of a unit not showing one clip at full weight.
const noKey = ^uint32(0)

// oneKey is the key of a unit of species s showing clip c.
func oneKey(s unit.SpeciesID, c unit.ClipID) uint32 { return uint32(s)<<16 | uint32(c) }

// keyOf is the key of a unit showing pose u.
func (m *jumpMeter) keyOf(u *unitPose) uint32 {
	if !u.has || u.sides[0].Weight != 1 || u.sides[1].Weight != 0 || u.sides[2].Weight != 0 || int(u.sides[0].Clip) >= len(m.paths[u.species].clips) {
		return noKey
	}
	return oneKey(u.species, u.sides[0].Clip)
}

// speciesPaths are a species' clips' paths; box[c][x] is the farthest any bone
// of clip c is from the same bone of clip x (its boxes' farthest corners), big
// the largest coordinate of any origin.
type speciesPaths struct {
	clips []clipPath
	box   [][]float64
	big   float64
	bones int
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
	// What posing reads: the clip's frame count as stored (for bpat.Resolve) and
	// each frame's origins, x, y, z per bone, copied from the palettes'
	// translation column.
	count  int
	origin []float32
}

// newJumpMeter returns a meter for n units.
func newJumpMeter(reg *registry.Registry, n int) *jumpMeter {
	m := &jumpMeter{reg: reg, prev: make([]unitPose, n), key: make([]uint32, n), phase: make([]float32, n), workers: goruntime.GOMAXPROCS(0)}
	for i := range m.key {
		m.key[i] = noKey
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
				for k := range pc.lo {
					var d2 float64
					for a := range 3 {
						d := max(pc.hi[k][a]-px.lo[k][a], px.hi[k][a]-pc.lo[k][a])
						d2 += d * d
					}
					sp.box[c][x] = max(sp.box[c][x], math.Sqrt(d2))
				}
			}
		}
	}
	for i := range m.paths {
		m.off = append(m.off, len(m.flat))
		for c := range m.paths[i].clips {
			m.flat = append(m.flat, &m.paths[i].clips[c])
		}
	}
	for range m.workers {
		ls := make([]limit, len(m.flat))
		for f := range ls {
			ls[f] = limit{most: -1, step: -1} // no most yet
		}
		m.limits = append(m.limits, ls)
	}
	for range 2 * m.workers {
		m.bufs = append(m.bufs, make([]float32, 3*bones))
	}
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
		}
		p.along[f+1] = p.along[f] + p.step[f]
		p.fastest = max(p.fastest, p.step[f])
	}
	p.perPhase = p.fastest * float64(p.frames)
	p.margin = 1e-6*p.fastest + 8e-6*p.big
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
}

// limit works out how far the phase may step, either way (a one-shot clip's
// phases clamped to [0, 1] first, as reach clamps them), for quick's bound to
// pass against most. A looping clip's step s, at most half a phase, gives
// (s·perPhase + margin)·(1 + 1e-6), a one-shot's ((s·(frames − 1) + 1e-6)·fastest
// + margin)·(1 + 1e-6); each of those operations, rounded, never falls as s
// grows, so a step no longer than one that passes passes too
// (TestJumpMeterLimit).
func (p *clipPath) limit(most float64) limit {
	l := limit{most: most, step: -1}
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
	for range 8 { // rounding: a few steps down
		if s < 0 {
			return l
		}
		if b := bound(s); b*b <= most {
			l.step = s
			return l
		}
		s = math.Nextafter(s, -1) * (1 - 1e-12)
	}
	return l
}

// reach is path's quick form: the frames between the phases (the shorter way
// round a looping clip, a millionth of a frame more for the rounding of
// bpat.Resolve's lerp and of the floors' absence) times the fastest step.
func (p *clipPath) reach(a, b float32) float64 {
	if p.frames <= 1 {
		return 0
	}
	pa, pb := float64(a), float64(b)
	var d float64
	if d := pb - pa; p.loops && d <= 0.5 && d >= -0.5 {
		// Under half a phase apart, as between steps: n·|b − a| frames, the
		// shorter way round, without the floors (quick's form).
		return (math.Abs(d)*float64(p.frames) + 1e-6) * p.fastest
	}
	if p.loops {
		n := float64(p.frames)
		d = math.Abs((pb-math.Floor(pb))*n - (pa-math.Floor(pa))*n)
		d = min(d, n-d)
	} else {
		d = math.Abs(min(max(pb, 0), 1)-min(max(pa, 0), 1)) * float64(p.frames-1)
	}
	return (d + 1e-6) * p.fastest
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
	var wg sync.WaitGroup
	for w := range m.workers {
		lo, hi := n*w/m.workers, n*(w+1)/m.workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, q := m.bufs[2*w], m.bufs[2*w+1]
			limits := m.limits[w]
			most, posed := found, 0 // the largest squared move: max takes its root
			key, phase := m.key[lo:hi], m.phase[lo:hi]
			species, clip, phases := b.Species[lo:hi], b.Clip[lo:hi], b.Phase[lo:hi]
			for j := range key {
				i := lo + j
				// The common case first, from the columns alone: one clip at
				// full weight then and now (noKey is no unit's oneKey).
				if key[j] == oneKey(species[j], clip[j]) && !b.Blending(i) {
					f := m.off[species[j]] + int(clip[j])
					l := &limits[f]
					if l.most != most {
						*l = m.flat[f].limit(most)
					}
					was, now := float64(phase[j]), float64(phases[j])
					if !m.flat[f].loops { // quick's reach clamps a one-shot's phases
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
				}
				p := &m.prev[i]
				if key[j] != noKey {
					p.sides[0].Phase = phase[j]
				}
				cur := unitPose{species: b.Species[i], has: true}
				b.SidesTo(i, &cur.sides)
				if m.reg.Species(cur.species) == nil || int(cur.species) >= len(m.paths) { // a species not loaded: nothing drawn
					p.has, key[j] = false, noKey
					continue
				}
				if p.has && p.species == cur.species && (!m.farther(&cur, p, most, false) || !m.farther(&cur, p, most, true)) {
					*p = cur
					key[j], phase[j] = m.keyOf(p), p.sides[0].Phase
					continue
				}
				sp := &m.paths[cur.species]
				var now, was [3]posedSide
				nNow, ok := sp.resolve(&cur.sides, &now)
				if !ok {
					p.has, key[j] = false, noKey
					continue
				}
				if p.has && p.species == cur.species {
					if nWas, ok := sp.resolve(&p.sides, &was); ok {
						posed++
						most = max(most, sp.farthest(now[:nNow], was[:nWas], o, q))
					}
				}
				*p = cur
				key[j], phase[j] = m.keyOf(p), p.sides[0].Phase
			}
			m.most[w], m.posed[w] = most, m.posed[w]+posed
		}()
	}
	wg.Wait()
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
	var most float64
	for k := 0; k+2 < k3; k += 3 {
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
	n := unit.ClipID(len(sp.clips))
	if !(a[2].Weight == 0 && b[2].Weight == 0 && a[0].Weight != 0 && a[1].Weight != 0 && b[0].Weight != 0 && b[1].Weight != 0 &&
		a[0].Clip == b[0].Clip && a[1].Clip == b[1].Clip && a[0].Clip != a[1].Clip && a[0].Clip < n && a[1].Clip < n) {
		return 0, false
	}
	c0, c1 := &sp.clips[a[0].Clip], &sp.clips[a[1].Clip]
	var r0, r1 float64
	if tight {
		r0, r1 = c0.path(a[0].Phase, b[0].Phase), c1.path(a[1].Phase, b[1].Phase)
	} else {
		r0, r1 = c0.reach(a[0].Phase, b[0].Phase), c1.reach(a[1].Phase, b[1].Phase)
	}
	a0, a1, b0, b1 := float64(a[0].Weight), float64(a[1].Weight), float64(b[0].Weight), float64(b[1].Weight)
	bound := math.Abs(b0) * r0
	bound += math.Abs(b1) * r1
	bound += math.Abs(b1-a1) * sp.box[a[1].Clip][a[0].Clip]
	weights := math.Abs(a0) + math.Abs(a1) + math.Abs(b0) + math.Abs(b1)
	bound += math.Abs((b0+b1)-(a0+a1))*math.Sqrt(3)*sp.big + 4e-6*sp.big*weights
	return bound * (1 + 1e-6), true
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

// max is the largest move measured: the square root of the largest squared one
// (the root is monotonic, so this is the largest root bit for bit).
func (m *jumpMeter) max() float64 { return math.Sqrt(slices.Max(m.most)) }
