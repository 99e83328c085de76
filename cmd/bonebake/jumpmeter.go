package main

import (
	"math"
	"math/bits"
	goruntime "runtime"
	"slices"
	"sync"
	"unsafe"

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
	pairs   []pairPath  // per pairKey's clips, at pairOffOf[species] + clip·clips + other
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

	// pairKey's tables per species id (for wordArgs.tests too): its clips
	// (0: none) and where its pairs start in pairs.
	clipsOf, pairOffOf [256]int32
	// Per worker, units' copy of the batch's last word: here, not on the
	// stack that each step's goroutine would grow for it.
	tails []wordTail
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
	return tablePairKey(&m.clipsOf, &m.pairOffOf, s, c, other)
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

// newJumpMeter returns a meter for n units.
func newJumpMeter(reg *registry.Registry, n int) *jumpMeter {
	// The columns' room is whole words of 64 units, which units reads.
	w64 := (n + 63) &^ 63
	m := &jumpMeter{reg: reg, prev: make([]unitPose, n), key: make([]uint32, n, w64), phase: make([]float32, n, w64), w0: make([]float32, n, w64), w1: make([]float32, n, w64), allowed: make([]float32, n, w64), workers: goruntime.GOMAXPROCS(0)}
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
		m.clipsOf[i], m.pairOffOf[i] = int32(len(sp.clips)), int32(len(m.pairs))
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
			ls[f] = limit{most: -1, step: -1, allowed: -1} // no most yet
		}
		m.limits = append(m.limits, ls)
		ps := make([]limit, len(m.pairs))
		for f := range ps {
			ps[f] = limit{most: -1, step: -1, allowed: -1}
		}
		m.plimits = append(m.plimits, ps)
	}
	for range m.workers {
		m.bufs = append(m.bufs, make([]float32, 3*bones))
	}
	m.kept, m.keptStep, m.keptAt, m.step = make([][2][]float32, m.workers), make([]uint32, n), make([]int32, n), 1
	m.tails = make([]wordTail, m.workers)
	return m
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
			r := meterRun{m: m, b: b, w: w, most: found, limits: m.limits[w], plimits: m.plimits[w]}
			r.units(lo, hi)
			m.most[w], m.posed[w] = r.most, m.posed[w]+r.posed
		}()
	}
	wg.Wait()
}

// meterRun is one worker's measure of its units.
type meterRun struct {
	m               *jumpMeter
	b               *crowd.Batch
	w               int
	most            float64 // the largest squared move: max takes its root
	posed           int
	limits, plimits []limit
}

// units measures units lo to hi−1, 64 at a time: of each word of the batch's
// bits, the units showing one clip, then the speed blends, then the fades, so
// that each loop's tests mostly go the way they went for the unit before (a
// unit's kind taken in unit order, a quarter of them blending, was a branch
// mispredicted as often as not).
func (r *meterRun) units(lo, hi int) {
	m, b := r.m, r.b
	gclip, gw := b.GaitColumns()
	tail := &m.tails[r.w]
	wa := &wordArgs{clips: &m.clipsOf, pairOff: &m.pairOffOf, steady: steadyWeights}
	for wd := lo >> 6; wd<<6 < hi; wd++ {
		base := wd << 6
		span := ^uint64(0) // the word's units in [lo, hi)
		if base < lo {
			span <<= lo - base
		}
		if hi-base < 64 {
			span &= 1<<(hi-base) - 1
		}
		on, live := b.BlendWord(wd)
		r.prefetchFades(wd+1, hi)
		// The word's columns, indexed by a unit's bit: no bounds to check.
		key, phase, w0, w1, allowed := (*[64]uint32)(m.key[base:base+64]), (*[64]float32)(m.phase[base:base+64]), (*[64]float32)(m.w0[base:base+64]), (*[64]float32)(m.w1[base:base+64]), (*[64]float32)(m.allowed[base:base+64])
		species, clip, phases := word(b.Species, base, &tail.species), word(b.Clip, base, &tail.clip), word(b.Phase, base, &tail.phase)
		// The common cases first, from the columns (wordArgs.tests): one
		// clip at full weight then and now (noKey is no unit's oneKey), or a
		// speed blend, its sides SpeedBlend's (its clip at 1 − w, the other
		// gait's at w, read from the gait columns), the same at the same
		// weights, within its allowed step; then the others, one by one.
		one, pairs := span&^on, span&on&^live
		wa.key, wa.species, wa.clip, wa.now, wa.phase, wa.w0, wa.w1, wa.allowed = key, species, clip, phases, phase, w0, w1, allowed
		if pairs != 0 {
			wa.other, wa.weight = word(gclip, base, &tail.other), word(gw, base, &tail.weight)
		}
		left := wa.tests(one, pairs)
		for u := left & one; u != 0; u &= u - 1 {
			j := bits.TrailingZeros64(u) & 63
			if key[j] == oneKey(species[j], clip[j]) {
				// A looping clip's phase that wrapped steps 1 − d the
				// shorter way round, as oneClip takes it.
				if d := math.Abs(float64(phases[j]) - float64(phase[j])); d > 0.5 && d < 1 && 1-d <= float64(allowed[j]) && m.flat[m.off[species[j]]+int(clip[j])].loops {
					phase[j] = phases[j]
					continue
				}
				if r.oneClip(base + j) {
					continue
				}
			}
			r.slow(base + j)
		}
		for u := left & pairs; u != 0; u &= u - 1 {
			j := bits.TrailingZeros64(u) & 63
			other, weight := wa.other, wa.weight
			if k := key[j]; k&pairBit != 0 && k != noKey && k == m.pairKey(species[j], clip[j], other[j]) {
				b0, b1 := 1-weight[j], weight[j]
				step := math.Abs(float64(phases[j]) - float64(phase[j]))
				steady := b0 == w0[j] && b1 == w1[j] && math.Abs(float64(b0))+math.Abs(float64(b1)) <= steadyWeights
				if r.pair(base+j, k&^pairBit, other[j], b0, b1, step, steady) {
					continue
				}
			}
			r.slow(base + j)
		}
		for u := span & on & live; u != 0; u &= u - 1 {
			r.slow(base + bits.TrailingZeros64(u))
		}
	}
}

// prefetchFades asks for the cache lines slow will read of word wd's fading
// units below hi (theirs in prev, and the Blend, fade entry and gait clip
// SidesTo reads), a word ahead of reading them: those units are spread over
// the batch, and slow waited on each line in turn.
func (r *meterRun) prefetchFades(wd, hi int) {
	m, b := r.m, r.b
	if wd<<6 >= hi {
		return
	}
	on, live := b.BlendWord(wd)
	for u := on & live; u != 0; u &= u - 1 {
		i := wd<<6 + bits.TrailingZeros64(u)
		if i >= hi {
			return
		}
		p := unsafe.Pointer(&m.prev[i])
		prefetch(p, unsafe.Add(p, unsafe.Sizeof(m.prev[i])-1))
		b.PrefetchSides(i)
	}
}

// wordTail holds the batch's columns of its last word where the batch ends
// inside it (word).
type wordTail struct {
	species       [64]unit.SpeciesID
	clip, other   [64]unit.ClipID
	phase, weight [64]float32
}

// word is col's 64 entries from base, or, where col ends before them, those
// it has copied into tail (the others are no unit's: no bit selects them).
func word[T any](col []T, base int, tail *[64]T) *[64]T {
	if base+64 <= len(col) {
		return (*[64]T)(col[base:])
	}
	if base < len(col) {
		copy(tail[:], col[base:])
	}
	return tail
}

// oneClip reports whether unit i, showing the clip it showed at the last step
// at full weight, cannot beat the largest move, or has been posed: its limit
// at the largest move now, quick's bound, then farther's tight bound and the
// posing from the columns too (false: a species not loaded, for slow).
func (r *meterRun) oneClip(i int) bool {
	m, b, phase := r.m, r.b, r.m.phase
	s, cl, ph := b.Species[i], b.Clip[i], b.Phase[i]
	f := m.off[s] + int(cl)
	l := &r.limits[f]
	if l.most != r.most {
		*l = m.flat[f].limit(r.most)
	}
	m.allowed[i] = l.allowed
	was, now := float64(phase[i]), float64(ph)
	if l.oneShot { // quick's reach clamps a one-shot's phases
		was, now = min(max(was, 0), 1), min(max(now, 0), 1)
	}
	d := math.Abs(now - was)
	if !l.oneShot && d > 0.5 && d < 1 {
		// A looping clip's phase wrapped: its step the shorter way round,
		// 1 − d phases, as quick takes a step under half a phase.
		d = 1 - d
	}
	if d <= l.step {
		phase[i] = ph
		return true
	}
	// A looping clip's limit is quick's own test (the step's frames times
	// its fastest step), so quick only for a one-shot, whose reach clamps.
	if l.oneShot {
		if d := m.flat[f].quick(phase[i], ph); d*d <= r.most {
			phase[i] = ph
			return true
		}
	}
	// farther's tight bound and the posing from the columns too: the sides
	// they would read are these.
	if m.reg.Species(s) == nil {
		return false
	}
	// Each phase resolved once, for the bound and the posing.
	sp, c := &m.paths[s], m.flat[f]
	was32 := phase[i]
	ra, rb := bpat.Resolve(float64(was32), c.count, c.loops), bpat.Resolve(float64(ph), c.count, c.loops)
	if d := sp.oneBound(c.pathOf(ra, rb)); !(d*d <= r.most) {
		k := 3 * sp.bones
		a, b := c.posed(rb, 1, k), c.posed(ra, 1, k)
		r.posed++
		r.most = c.farthestHot(&a, &b, c.span(was32, ph), r.most)
	}
	phase[i] = ph
	return true
}

// pair reports whether unit i, showing the speed blend of pair pk it showed
// at the last step, now with weights b0 and b1 after a phase step of step
// (steady: its weights unchanged), cannot beat the largest move: the pair's
// limit at the largest move now, then twoClips' bounds from the columns.
func (r *meterRun) pair(i int, pk uint32, other unit.ClipID, b0, b1 float32, step float64, steady bool) bool {
	m, phase, w0, w1 := r.m, r.m.phase, r.m.w0, r.m.w1
	cl, ph := r.b.Clip[i], r.b.Phase[i]
	l := &r.plimits[pk]
	if l.most != r.most {
		*l = m.pairs[pk].limit(r.most)
	}
	if m.allowed[i] = l.allowed; steady && step <= l.step {
		phase[i] = ph
		return true
	}
	d, ok := m.pairs[pk].bound(w0[i], w1[i], b0, b1, phase[i], ph)
	if !ok || !(d*d <= r.most) { // farther's tight bound, from the columns too
		d, ok = m.paths[r.b.Species[i]].speedTight(cl, other, w0[i], w1[i], b0, b1, phase[i], ph)
	}
	if ok && d*d <= r.most {
		phase[i], w0[i], w1[i] = ph, b0, b1
		return true
	}
	return false
}

// slow measures unit i from its sides then and now, the way for every pose:
// prev's pose brought up to date from the columns, farther's and boneBound's
// bounds, then the posing.
func (r *meterRun) slow(i int) {
	m, b := r.m, r.b
	key, phase, w0, w1 := m.key, m.phase, m.w0, m.w1
	p := &m.prev[i]
	switch k := key[i]; {
	case k == noKey:
	case k&pairBit == 0:
		p.sides[0].Phase = phase[i]
	default:
		p.sides[0].Phase, p.sides[1].Phase, p.sides[0].Weight, p.sides[1].Weight = phase[i], phase[i], w0[i], w1[i]
	}
	cur := unitPose{species: b.Species[i], has: true}
	b.SidesTo(i, &cur.sides)
	// Its key changes below: its limit is to be found again.
	m.allowed[i] = -1
	if m.reg.Species(cur.species) == nil || int(cur.species) >= len(m.paths) { // a species not loaded: nothing drawn
		p.has, key[i] = false, noKey
		return
	}
	sp := &m.paths[cur.species]
	same := p.has && p.species == cur.species
	if same && m.ruledOut(sp, p, &cur, r.most) {
		*p = cur
		key[i], phase[i], w0[i], w1[i] = m.keyOf(p), p.sides[0].Phase, p.sides[0].Weight, p.sides[1].Weight
		return
	}
	var now, was [3]posedSide
	nNow, ok := sp.resolve(&cur.sides, &now)
	if !ok {
		p.has, key[i] = false, noKey
		return
	}
	if same {
		if nWas, ok := sp.resolve(&p.sides, &was); ok {
			r.posed++
			r.most = m.farthestFrom(r.w, i, sp, p, &cur, now[:nNow], was[:nWas], r.most)
		}
	}
	*p = cur
	key[i], phase[i], w0[i], w1[i] = m.keyOf(p), p.sides[0].Phase, p.sides[0].Weight, p.sides[1].Weight
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

// ruledOut reports whether the bounds rule out that a unit moving from pose p
// to cur moves a bone farther than √most: farther's, reach's then tight, and
// then boneBound's. A pose showing a clip twice (a fade into a speed blend of
// the clip it fades from, most of the fading units) skips farther, which finds
// no bound for it (showsTwice).
func (m *jumpMeter) ruledOut(sp *speciesPaths, p, cur *unitPose, most float64) bool {
	if !showsTwice(&cur.sides) && (!m.farther(cur, p, most, false) || !m.farther(cur, p, most, true)) {
		return true
	}
	return sp.boneRules(p, cur, most)
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

// max is the largest move measured: the square root of the largest squared one
// (the root is monotonic, so this is the largest root bit for bit).
func (m *jumpMeter) max() float64 { return math.Sqrt(slices.Max(m.most)) }
