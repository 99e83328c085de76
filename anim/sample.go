package anim

import (
	"math"
	"sync"

	"github.com/bonebake/bonebake/rig"
)

// Sampler evaluates a clip at successive times. It remembers, per track, the key
// interval it used last, so sampling frame after frame with increasing times costs
// a comparison or two per track instead of a search; backward jumps and big leaps
// fall back to binary search. The result never depends on that memory: any
// sequence of calls gives the same poses as fresh samplers would.
//
// A Sampler is not safe for concurrent use; give each goroutine its own. The clip
// must pass Validate for the skeleton the pose belongs to (Sample may panic on a
// malformed clip), and must not change while the sampler is in use: NewSampler
// prepares rotation keys from it.
type Sampler struct {
	*Prepared
	cursor []int   // per time group: the index k of the last interval [t_k, t_k+1) used
	at     []keyAt // per time group: where the time being sampled falls
}

// keyAt is what find says of a time among a track's keys.
type keyAt struct {
	k      int
	u      float64
	inside bool
}

// Prepared is a clip made ready for sampling. It is read-only once made, so one
// Prepared serves any number of goroutines, each with its own Sampler.
type Prepared struct {
	clip *Animation
	rot  []rotTrack // per track: prepared rotation keys (empty unless STEP/LINEAR rotation)
	// Track indices by the code path Sample takes for them; see groupTracks.
	lin3, linRot, other []int
	// Tracks keyed at the same times (the same slice: a glTF file usually
	// points every sampler of an animation at one input accessor) share a time
	// group, and Sample finds where t falls once per group: timeGroup[i] is
	// track i's group (-1 for a track without keys), groupTimes[g] its times.
	timeGroup  []int
	groupTimes [][]float32
}

// rotTrack is a STEP or LINEAR rotation track prepared for sampling: its keys
// normalized once, and for LINEAR the slerp constants of each key interval, so a
// sample costs one Sincos and a few multiplications.
type rotTrack struct {
	keys []rig.Quat  // normalized keys
	span []slerpSpan // LINEAR: one per interval between keys k and k+1
}

// slerpSpan holds what Slerp derives from the two keys of an interval.
type slerpSpan struct {
	cos    float64 // cos θ = |a·b|, θ the angle between the keys on the 4-sphere
	theta  float64
	invSin float64 // 1/sin θ; 0 when the keys are nearly parallel (normalized lerp)
	sign   float64 // -1 when b is negated to take the shorter arc, else 1
}

// slerpParallel matches rig.Slerp: above this key dot product the interval is
// blended with a normalized lerp.
const slerpParallel = 1 - 1e-6

// NewSampler returns a sampler for c: Prepare(c).NewSampler(). Make one per clip and
// goroutine and reuse it for every frame.
func NewSampler(c *Animation) *Sampler { return Prepare(c).NewSampler() }

// NewSampler returns a new sampler (its own key cursors) over the prepared clip.
func (p *Prepared) NewSampler() *Sampler {
	return &Sampler{Prepared: p, cursor: make([]int, len(p.groupTimes)), at: make([]keyAt, len(p.groupTimes))}
}

// Prepare readies c for sampling: rotation tracks get normalized keys and
// per-interval slerp constants (about 64 bytes a key).
func Prepare(c *Animation) *Prepared { return PrepareShared(c, nil) }

// KeyCache lets clips share their prepared rotation keys: tracks whose times and
// values are the same slices (a glTF file may point hundreds of samplers at one
// accessor) are prepared once. Safe for concurrent use.
type KeyCache struct {
	mu sync.Mutex
	m  map[keySource]rotTrack
}

// keySource identifies a track's keys by the slices that hold them.
type keySource struct {
	times, values *float32
	n             int
	interp        Interpolation
}

// PrepareShared is Prepare, taking rotation tracks prepared before from kc (nil:
// none) and leaving the ones it prepares there.
func PrepareShared(c *Animation, kc *KeyCache) *Prepared {
	s := &Prepared{
		clip: c,
		rot:  make([]rotTrack, len(c.Tracks)),
	}
	if kc != nil {
		kc.mu.Lock()
		defer kc.mu.Unlock()
		if kc.m == nil {
			kc.m = map[keySource]rotTrack{}
		}
	}
	source := func(tr *Track) keySource {
		return keySource{&tr.Times[0], &tr.Values[0], len(tr.Times), tr.Interpolation}
	}
	// first[src]: the track of this clip that prepares the keys src names;
	// the others share its result. Counting each source once keeps what a
	// clip of many tracks on one sampler reserves to that sampler's keys, not
	// tracks × keys.
	first := map[keySource]int{}
	nkeys, nspans := 0, 0
	for i := range c.Tracks {
		tr := &c.Tracks[i]
		if !preparable(tr) {
			continue
		}
		src := source(tr)
		if kc != nil {
			if r, ok := kc.m[src]; ok {
				s.rot[i] = r
				continue
			}
		}
		if _, ok := first[src]; ok {
			continue
		}
		first[src] = i
		nkeys += len(tr.Times)
		if tr.Interpolation == Linear {
			nspans += len(tr.Times) - 1
		}
	}
	keys := make([]rig.Quat, nkeys)
	spans := make([]slerpSpan, nspans)
	for i := range c.Tracks {
		tr := &c.Tracks[i]
		if !preparable(tr) {
			continue
		}
		src := source(tr)
		f, ok := first[src]
		if !ok {
			continue // taken from kc above
		}
		r := &s.rot[i]
		if f != i {
			*r = s.rot[f]
			continue
		}
		n := len(tr.Times)
		r.keys, keys = keys[:n:n], keys[n:]
		for k := range r.keys {
			r.keys[k] = quat(tr.Values[4*k:]).Normalize()
		}
		if tr.Interpolation == Linear {
			r.span, spans = spans[:n-1:n-1], spans[n-1:]
			for k := range r.span {
				r.span[k] = newSpan(r.keys[k], r.keys[k+1])
			}
		}
		if kc != nil {
			kc.m[src] = *r
		}
	}
	s.groupTracks()
	s.groupTimesOf()
	return s
}

// groupTimesOf puts the tracks keyed at the same times slice in one time group.
func (p *Prepared) groupTimesOf() {
	type timesKey struct {
		first *float32
		n     int
	}
	ids := map[timesKey]int{}
	p.timeGroup = make([]int, len(p.clip.Tracks))
	for i := range p.clip.Tracks {
		times := p.clip.Tracks[i].Times
		if len(times) == 0 {
			p.timeGroup[i] = -1
			continue
		}
		key := timesKey{&times[0], len(times)}
		g, ok := ids[key]
		if !ok {
			g = len(p.groupTimes)
			ids[key] = g
			p.groupTimes = append(p.groupTimes, times)
		}
		p.timeGroup[i] = g
	}
}

// groupTracks sorts the track indices by the code path Sample takes: well-formed
// LINEAR translations and scales (lin3), prepared LINEAR rotations (linRot), and
// the rest (other), in clip order within each. Runs of one path keep the CPU's
// branch predictions right; the usual interleaving of translation, rotation and
// scale tracks through one general loop costs about a third more. When two tracks
// animate the same property of the same bone (glTF forbids it), every track goes
// to other, in clip order, so that the later track wins as it would in one loop.
func (p *Prepared) groupTracks() {
	tracks := p.clip.Tracks
	type target struct {
		bone int
		path Path
	}
	seen := make(map[target]bool, len(tracks))
	dup := false
	for i := range tracks {
		tg := target{tracks[i].Bone, tracks[i].Path}
		dup = dup || seen[tg]
		seen[tg] = true
	}
	for i := range tracks {
		tr := &tracks[i]
		switch {
		case dup:
			p.other = append(p.other, i)
		case tr.Interpolation == Linear && (tr.Path == Translation || tr.Path == Scale) &&
			len(tr.Times) > 0 && len(tr.Values) == 3*len(tr.Times):
			p.lin3 = append(p.lin3, i)
		case p.rot[i].span != nil:
			p.linRot = append(p.linRot, i)
		default:
			p.other = append(p.other, i)
		}
	}
}

// preparable reports whether NewSampler prepares tr: a well-formed STEP or LINEAR
// rotation track.
func preparable(tr *Track) bool {
	return tr.Path == Rotation && (tr.Interpolation == Step || tr.Interpolation == Linear) &&
		len(tr.Times) > 0 && len(tr.Values) == 4*len(tr.Times)
}

func newSpan(a, b rig.Quat) slerpSpan {
	sp := slerpSpan{cos: a.Dot(b), sign: 1}
	if sp.cos < 0 {
		sp.cos, sp.sign = -sp.cos, -1
	}
	if sp.cos <= slerpParallel {
		sp.theta = math.Acos(sp.cos)
		sp.invSin = 1 / math.Sqrt(1-sp.cos*sp.cos)
	}
	return sp
}

// sincosQuarter returns sin x and cos x for x in [0, π/2], the only angles a
// shortest-path slerp needs (θ ≤ π/2 because the key dot product is made ≥ 0).
// Taylor series to x¹³ and x¹⁴ (truncation error below 1e-9 on that range, far
// under float32 resolution), evaluated in Estrin form so the multiplications run
// side by side instead of as one long dependent chain.
func sincosQuarter(x float64) (sin, cos float64) {
	y := x * x
	y2 := y * y
	y4 := y2 * y2
	const (
		s1, s2, s3, s4, s5, s6 = -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800
		c1, c2, c3, c4, c5, c6 = -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600
		c7                     = -1.0 / 87178291200
	)
	sin = x * ((1 + s1*y) + y2*(s2+s3*y) + y4*((s4+s5*y)+y2*s6))
	cos = (1 + c1*y) + y2*(c2+c3*y) + y4*((c4+c5*y)+y2*(c6+c7*y))
	return sin, cos
}

// slerp writes into dst the blend of the prepared keys a (u = 0) and b (u = 1) of
// span sp: the arithmetic of rig.Slerp, then normalization.
func (sp *slerpSpan) slerp(dst, a, b *rig.Quat, u float64) {
	var wa, wb float64
	if sp.invSin == 0 {
		wa, wb = 1-u, u*sp.sign
	} else {
		su, cu := sincosQuarter(u * sp.theta)
		wa = cu - sp.cos*su*sp.invSin
		wb = su * sp.invSin * sp.sign
	}
	x := wa*a[0] + wb*b[0]
	y := wa*a[1] + wb*b[1]
	z := wa*a[2] + wb*b[2]
	w := wa*a[3] + wb*b[3]
	// Normalize as rig.Quat.Normalize does. A slerp of unit keys is unit to within
	// rounding, so the first branch is the usual one; a lerp of unit keys at most
	// 0.2° apart has n close to 1, never near 0.
	n := x*x + y*y + z*z + w*w
	var f float64
	if d := n - 1; d > -1e-9 && d < 1e-9 {
		f = 1 - d/2
	} else {
		f = 1 / math.Sqrt(n)
	}
	*dst = rig.Quat{x * f, y * f, z * f, w * f}
}

// slerpBatch is up to four prepared rotations to blend: keys a and b of span
// sp at fraction u, into dst. slerp4's assembly reads it by these offsets.
type slerpBatch struct {
	a, b [4]*rig.Quat
	sp   [4]*slerpSpan
	u    [4]float64
	dst  [4]*rig.Quat
}

// finish blends the batch's first n rotations one at a time.
func (b *slerpBatch) finish(n int) {
	for j := range n {
		b.sp[j].slerp(b.dst[j], b.a[j], b.b[j], b.u[j])
	}
}

// Clip returns the clip being sampled.
func (p *Prepared) Clip() *Animation { return p.clip }

// Sample writes the value of every track at time t (seconds) into the animated
// property of pose[track.Bone], leaving the other properties alone: seed pose with
// the rest pose first. The semantics are glTF 2.0's: before the first key a track
// holds the first key's value, at or after the last key the last value; STEP holds
// key k on [t_k, t_k+1); LINEAR interpolates translations and scales linearly and
// rotations spherically along the shorter arc; CUBICSPLINE is the Hermite spline
// with tangents scaled by the key interval. Every sampled rotation is normalized
// (key rotations are normalized before a spherical blend too). A NaN t counts as
// before the first key. Arithmetic is float64. Sample does not allocate.
func (s *Sampler) Sample(t float64, pose []rig.Transform) {
	tracks := s.clip.Tracks
	rot := s.rot[:len(tracks)]
	group := s.timeGroup[:len(tracks)]
	at := s.at[:len(s.groupTimes)]
	for g, times := range s.groupTimes {
		a := &at[g]
		a.k, a.u, a.inside = find(times, t, &s.cursor[g])
	}
	for _, i := range s.lin3 {
		tr := &tracks[i]
		a := &at[group[i]]
		k, u, inside := a.k, a.u, a.inside
		var p [3]float64
		if inside {
			v := tr.Values[3*k : 3*k+6]
			w := 1 - u
			p = [3]float64{
				w*float64(v[0]) + u*float64(v[3]),
				w*float64(v[1]) + u*float64(v[4]),
				w*float64(v[2]) + u*float64(v[5]),
			}
		} else {
			p = vec3(tr.Values[3*k:])
		}
		if tr.Path == Scale {
			pose[tr.Bone].Scale = p
		} else {
			pose[tr.Bone].Translation = p
		}
	}
	// With AVX the blends are gathered and done four at a time (slerp4); the
	// tracks write different bones, so the order they land in does not matter.
	var batch slerpBatch
	n := 0
	for _, i := range s.linRot {
		tr := &tracks[i]
		r := &rot[i]
		a := &at[group[i]]
		k, u, inside := a.k, a.u, a.inside
		switch {
		case !inside:
			pose[tr.Bone].Rotation = r.keys[k]
		case !useAVX:
			r.span[k].slerp(&pose[tr.Bone].Rotation, &r.keys[k], &r.keys[k+1], u)
		default:
			batch.a[n], batch.b[n], batch.sp[n], batch.u[n], batch.dst[n] = &r.keys[k], &r.keys[k+1], &r.span[k], u, &pose[tr.Bone].Rotation
			if n++; n == 4 {
				slerp4(&batch)
				n = 0
			}
		}
	}
	batch.finish(n)
	for _, i := range s.other {
		tr := &tracks[i]
		if len(tr.Times) == 0 {
			continue
		}
		dst := &pose[tr.Bone]
		r := &rot[i]
		a := &at[group[i]]
		k, u, inside := a.k, a.u, a.inside
		switch {
		case r.span != nil && inside:
			r.span[k].slerp(&dst.Rotation, &r.keys[k], &r.keys[k+1], u)
		case r.keys != nil:
			dst.Rotation = r.keys[k]
		case !inside || tr.Interpolation == Step:
			setKey(tr, dst, k)
		case tr.Interpolation == Linear:
			linear(tr, dst, k, u)
		default:
			cubic(tr, dst, k, u, float64(tr.Times[k+1])-float64(tr.Times[k]))
		}
	}
}

// find says where t falls among times (at least one key). Strictly between the
// first and last key it returns inside = true, the interval k with
// times[k] ≤ t < times[k+1], and the fraction u of the way through it, updating
// the cursor. Otherwise it returns inside = false and the key k whose value holds:
// the first at or before it (or for NaN), the last at or after the last key.
func find(times []float32, t float64, cursor *int) (k int, u float64, inside bool) {
	n := len(times)
	if !(t > float64(times[0])) {
		return 0, 0, false
	}
	if t >= float64(times[n-1]) {
		return n - 1, 0, false
	}
	k = locate(times, t, *cursor)
	*cursor = k
	t0, t1 := float64(times[k]), float64(times[k+1])
	return k, (t - t0) / (t1 - t0), true
}

// SampleAt samples c once at time t into pose, like Sampler.Sample. It allocates a
// sampler each call; use a Sampler to sample many times.
func (c *Animation) SampleAt(t float64, pose []rig.Transform) {
	NewSampler(c).Sample(t, pose)
}

// forwardSteps is how many intervals locate walks forward from the remembered
// one before it gives up and searches.
const forwardSteps = 4

// locate returns k with times[k] ≤ t < times[k+1], given times[0] < t < times[n-1]
// (so n ≥ 2 and 0 ≤ k ≤ n-2). It tries the interval hint first, then the next few,
// then binary search.
func locate(times []float32, t float64, hint int) int {
	n := len(times)
	if k := hint; uint(k) < uint(n-1) && float64(times[k]) <= t {
		for range forwardSteps {
			// k ≤ n-2 here: times[n-1] > t ends the walk at the last interval.
			if t < float64(times[k+1]) {
				return k
			}
			k++
		}
	}
	return search(times, t)
}

// search is locate's binary search: the last k with times[k] ≤ t.
func search(times []float32, t float64) int {
	lo, hi := 0, len(times)-1 // times[lo] ≤ t < times[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if float64(times[mid]) <= t {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// valueAt returns the offset in tr.Values of key k's value (skipping the
// in-tangent of a cubic key).
func valueAt(tr *Track, k, width int) int {
	if tr.Interpolation == CubicSpline {
		return (3*k + 1) * width
	}
	return k * width
}

func vec3(v []float32) [3]float64 {
	v = v[:3]
	return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
}

func quat(v []float32) rig.Quat {
	v = v[:4]
	return rig.Quat{float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])}
}

// set stores a 3-float value into the track's property of dst.
func set3(tr *Track, dst *rig.Transform, v [3]float64) {
	if tr.Path == Scale {
		dst.Scale = v
	} else {
		dst.Translation = v
	}
}

// setKey writes key k's value.
func setKey(tr *Track, dst *rig.Transform, k int) {
	if tr.Path == Rotation {
		dst.Rotation = quat(tr.Values[valueAt(tr, k, 4):]).Normalize()
		return
	}
	set3(tr, dst, vec3(tr.Values[valueAt(tr, k, 3):]))
}

// linear writes the LINEAR blend of keys k and k+1 at fraction u. Rotation
// tracks normally take the prepared path in Sample; this one serves a rotation
// track whose values NewSampler could not prepare.
func linear(tr *Track, dst *rig.Transform, k int, u float64) {
	if tr.Path == Rotation {
		a := quat(tr.Values[4*k:]).Normalize()
		b := quat(tr.Values[4*k+4:]).Normalize()
		dst.Rotation = rig.Slerp(a, b, u).Normalize()
		return
	}
	v := tr.Values[3*k : 3*k+6]
	w := 1 - u
	p := [3]float64{
		w*float64(v[0]) + u*float64(v[3]),
		w*float64(v[1]) + u*float64(v[4]),
		w*float64(v[2]) + u*float64(v[5]),
	}
	if tr.Path == Scale {
		dst.Scale = p
	} else {
		dst.Translation = p
	}
}

// cubic writes the CUBICSPLINE value between keys k and k+1 at fraction u of an
// interval dt seconds long.
func cubic(tr *Track, dst *rig.Transform, k int, u, dt float64) {
	u2 := u * u
	u3 := u2 * u
	hv0 := 2*u3 - 3*u2 + 1      // weight of v_k
	hb0 := (u3 - 2*u2 + u) * dt // weight of b_k, the out-tangent of key k
	hv1 := -2*u3 + 3*u2         // weight of v_k+1
	ha1 := (u3 - u2) * dt       // weight of a_k+1, the in-tangent of key k+1
	width := tr.Path.Width()
	base := 3 * k * width // key k: in-tangent, value, out-tangent; then key k+1
	vals := tr.Values[base : base+6*width]
	v0, b0 := vals[width:], vals[2*width:]
	a1, v1 := vals[3*width:], vals[4*width:]
	if width == 4 {
		var q rig.Quat
		for c := range 4 {
			q[c] = hv0*float64(v0[c]) + hb0*float64(b0[c]) + hv1*float64(v1[c]) + ha1*float64(a1[c])
		}
		dst.Rotation = q.Normalize()
		return
	}
	var p [3]float64
	for c := range 3 {
		p[c] = hv0*float64(v0[c]) + hb0*float64(b0[c]) + hv1*float64(v1[c]) + ha1*float64(a1[c])
	}
	set3(tr, dst, p)
}
