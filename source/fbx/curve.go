package fbx

import (
	"math"
	"slices"

	fbxfile "github.com/bonebake/bonebake/formats/fbx"
)

// curve is one AnimationCurve (docs/formats/fbx.md §11): key times in ticks,
// values, and how each segment (key i to key i+1) runs.
type curve struct {
	times  []int64
	values []float64
	// seg[i] is segment i's interpolation; nil: every segment linear.
	seg []segment
	// velocity: some key sets a tangent velocity; bias: some time-dependent
	// auto key a bias. Neither is applied.
	velocity, bias bool
}

// segment is how a curve runs from one key to the next: its kind, and for a
// cubic one the slopes (value per second) leaving the first key and reaching
// the second, with the weights of their Bézier handles (fractions of the
// segment's duration; 1/3 for an unweighted Hermite).
type segment struct {
	kind      byte // segLinear, segConstant, segConstantNext or segCubic
	out, in   float64
	wOut, wIn float64
}

const (
	segLinear = iota
	segConstant
	segConstantNext
	segCubic
)

// at evaluates the curve at tick t (§11).
func (c *curve) at(t float64) float64 {
	n := len(c.times)
	if t <= float64(c.times[0]) {
		return c.values[0]
	}
	if t >= float64(c.times[n-1]) {
		return c.values[n-1]
	}
	i, _ := slices.BinarySearchFunc(c.times, t, func(a int64, t float64) int {
		switch {
		case float64(a) < t:
			return -1
		case float64(a) > t:
			return 1
		}
		return 0
	})
	if float64(c.times[i]) == t {
		return c.values[i]
	}
	k := i - 1
	v0, v1 := c.values[k], c.values[k+1]
	t0, t1 := float64(c.times[k]), float64(c.times[k+1])
	x := (t - t0) / (t1 - t0)
	if c.seg == nil {
		return v0 + (v1-v0)*x
	}
	s := c.seg[k]
	switch s.kind {
	case segConstant:
		return v0
	case segConstantNext:
		return v1
	case segCubic:
		return s.cubic(v0, v1, (t1-t0)/TicksPerSecond, x)
	}
	return v0 + (v1-v0)*x
}

// cubic is the segment's Bézier in (time, value) at the fraction x of its
// duration dt (seconds): control values v0 + out·wOut·dt and v1 − in·wIn·dt at
// times wOut·dt and (1−wIn)·dt. With both weights 1/3 time runs linearly in
// the curve parameter and this is the Hermite of the two slopes; otherwise
// the parameter whose time is x is found first.
func (s segment) cubic(v0, v1, dt, x float64) float64 {
	p1 := v0 + s.out*s.wOut*dt
	p2 := v1 - s.in*s.wIn*dt
	u := x
	if math.Abs(s.wOut-1.0/3) > 1e-6 || math.Abs(s.wIn-1.0/3) > 1e-6 {
		u = bezierParam(s.wOut, 1-s.wIn, x)
	}
	m := 1 - u
	return m*m*m*v0 + 3*m*m*u*p1 + 3*m*u*u*p2 + u*u*u*v1
}

// bezierParam solves x(u) = x for the time Bézier 0, a, b, 1 (0 ≤ a, b ≤ 1,
// so x(u) rises monotonically) by bisection: 52 halvings reach float64's
// precision.
func bezierParam(a, b, x float64) float64 {
	lo, hi := 0.0, 1.0
	for range 52 {
		u := (lo + hi) / 2
		m := 1 - u
		if 3*m*m*u*a+3*m*u*u*b+u*u*u < x {
			lo = u
		} else {
			hi = u
		}
	}
	return (lo + hi) / 2
}

// Key attribute flags (FbxAnimCurveDef): interpolation, tangent mode, weights
// and velocity (§11).
const (
	keyConstant       = 0x00000002
	keyLinear         = 0x00000004
	keyCubic          = 0x00000008
	keyConstantNext   = 0x00000100 // with keyConstant: hold the next key's value
	tangentAuto       = 0x00000100
	tangentTCB        = 0x00000200
	tangentUser       = 0x00000400
	tangentBreak      = 0x00000800
	tangentClamp      = 0x00001000
	tangentTimeIndep  = 0x00002000
	tangentClampProg  = 0x00004000
	weightedRight     = 0x01000000
	weightedNextLeft  = 0x02000000
	velocityRight     = 0x10000000
	velocityNextLeft  = 0x20000000
	defaultWeight     = 1.0 / 3
	weightScale       = 10000 // a weight is stored as a 16-bit fixed-point number of four decimals
	minWeight         = 1e-4
	keyAttrDataStride = 4
)

// keyAttr is one key's attributes: its flags and its four data floats (right
// slope, next-left slope, weights, velocities; TCB keys: tension,
// continuity, bias).
type keyAttr struct {
	flags int64
	data  [keyAttrDataStride]float64
}

func (s *scene) readCurve(id int64) (*curve, error) {
	o := s.sc.ByID[id]
	if o == nil || o.Class != "AnimationCurve" {
		return nil, nil
	}
	c := &curve{}
	if n := o.Node.Child("KeyTime"); n != nil && len(n.Props) > 0 {
		c.times = n.Props[0].IntArray()
	}
	if n := o.Node.Child("KeyValueFloat"); n != nil && len(n.Props) > 0 {
		c.values = n.Props[0].FloatArray()
	}
	if len(c.times) != len(c.values) {
		return nil, s.fail(RuleCurve, "animation curve %d has %d key times but %d values", id, len(c.times), len(c.values))
	}
	for i := 1; i < len(c.times); i++ {
		if c.times[i] < c.times[i-1] {
			return nil, s.fail(RuleCurve, "animation curve %d: key %d's time %d comes before key %d's %d", id, i, c.times[i], i-1, c.times[i-1])
		}
	}
	for i, v := range c.values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, s.fail(RuleCurve, "animation curve %d: key %d's value is %v", id, i, v)
		}
	}
	if len(c.times) == 0 {
		return nil, nil
	}
	attrs, err := s.keyAttrs(id, o.Node.Child("KeyAttrFlags"), o.Node.Child("KeyAttrDataFloat"), o.Node.Child("KeyAttrRefCount"), len(c.times))
	if err != nil || attrs == nil {
		return c, err
	}
	c.seg = make([]segment, len(c.times)-1)
	for i := range c.seg {
		c.seg[i] = c.segmentAt(i, attrs)
		a := attrs[i]
		c.velocity = c.velocity || a.flags&keyCubic != 0 && a.flags&(velocityRight|velocityNextLeft) != 0
		c.bias = c.bias || a.computed() && a.flags&(tangentTCB|tangentTimeIndep) == 0 && (a.data[0] != 0 || a.data[1] != 0)
	}
	return c, nil
}

// keyAttrs expands the shared key attributes: KeyAttrFlags[j] and
// KeyAttrDataFloat[4j:4j+4] apply to KeyAttrRefCount[j] keys in turn. A
// curve without flags is linear (nil). A cubic key whose tangents need data
// the curve does not hold is refused.
func (s *scene) keyAttrs(id int64, fl, data, rc *fbxfile.Node, keys int) ([]keyAttr, error) {
	if fl == nil || rc == nil || len(fl.Props) == 0 || len(rc.Props) == 0 {
		return nil, nil
	}
	flags, refs := fl.Props[0].IntArray(), rc.Props[0].IntArray()
	if len(flags) != len(refs) {
		return nil, s.fail(RuleCurve, "animation curve %d has %d KeyAttrFlags but %d KeyAttrRefCount", id, len(flags), len(refs))
	}
	var d []float64
	if data != nil && len(data.Props) > 0 {
		d = data.Props[0].FloatArray()
	}
	out := make([]keyAttr, 0, keys)
	for j, f := range flags {
		a := keyAttr{flags: f, data: [4]float64{0, 0, 0, 0}}
		switch {
		case len(d) >= keyAttrDataStride*(j+1):
			copy(a.data[:], d[keyAttrDataStride*j:])
			for _, v := range a.data {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, s.fail(RuleCurve, "animation curve %d: key attribute %d's data holds %v", id, j, v)
				}
			}
		case f&keyCubic != 0 && f&(tangentUser|tangentBreak|tangentTCB) != 0:
			return nil, s.fail(RuleCurve, "animation curve %d: key attribute %d is cubic with user or TCB tangents (flags %#x) but KeyAttrDataFloat holds no data for it", id, j, f)
		}
		for r := int64(0); r < refs[j] && len(out) < keys; r++ {
			out = append(out, a)
		}
	}
	if len(out) < keys {
		return nil, s.fail(RuleCurve, "animation curve %d: KeyAttrRefCount covers %d of its %d keys", id, len(out), keys)
	}
	return out, nil
}

// segmentAt is how segment i runs: key i's interpolation; for a cubic key its
// outgoing slope by its own tangent mode and the incoming slope at key i+1 by
// that key's mode (an auto or TCB key computes its own; a user or break key's
// is key i's next-left slope); weights when flagged, else 1/3.
func (c *curve) segmentAt(i int, attrs []keyAttr) segment {
	a := attrs[i]
	switch {
	case a.flags&keyConstant != 0:
		if a.flags&keyConstantNext != 0 {
			return segment{kind: segConstantNext}
		}
		return segment{kind: segConstant}
	case a.flags&keyCubic == 0:
		return segment{kind: segLinear}
	}
	s := segment{kind: segCubic}
	s.wOut, s.wIn = a.weights()
	s.out = c.slope(i, attrs, true)
	if next := attrs[i+1]; next.computed() {
		s.in = c.slope(i+1, attrs, false)
	} else {
		s.in = a.data[1]
	}
	if s.wOut+s.wIn > 1 { // handles that cross: scaled to meet
		f := 1 / (s.wOut + s.wIn)
		s.wOut, s.wIn = s.wOut*f, s.wIn*f
	}
	return s
}

// computed says a key's slopes are worked out from its neighbours (auto and
// TCB cubic keys), not stored.
func (a keyAttr) computed() bool {
	return a.flags&keyCubic != 0 && a.flags&(tangentAuto|tangentTCB) != 0 && a.flags&tangentUser == 0
}

// weights are the key's right and next-left handle weights: 1/3 unless the
// key is weighted, when data 2 holds them as two 16-bit fixed-point numbers of
// four decimals (right in the low half) in the bits of a float32, which an
// ASCII file may print as the integer of those bits (a whole number ≥ 1 is
// read so: no float of two weights is one).
func (a keyAttr) weights() (right, nextLeft float64) {
	right, nextLeft = defaultWeight, defaultWeight
	bits := math.Float32bits(float32(a.data[2]))
	if w := a.data[2]; w >= 1 && w == math.Trunc(w) && w <= math.MaxUint32 {
		bits = uint32(w)
	}
	if a.flags&weightedRight != 0 {
		right = clampWeight(float64(bits&0xffff) / weightScale)
	}
	if a.flags&weightedNextLeft != 0 {
		nextLeft = clampWeight(float64(bits>>16) / weightScale)
	}
	return right, nextLeft
}

func clampWeight(w float64) float64 { return min(max(w, minWeight), 1) }

// clampEqual is how close a neighbour's value must be for a clamped auto key
// to lie flat.
const clampEqual = 1e-5

// slope is key i's tangent (value per second), leaving it (out) or reaching
// it (§11): a user or break key's stored right slope; an auto key's from its
// neighbours, with clamping; a TCB key's Kochanek–Bartels tangent.
func (c *curve) slope(i int, attrs []keyAttr, out bool) float64 {
	a := attrs[i]
	if !a.computed() {
		return a.data[0]
	}
	n := len(c.times)
	sec := func(j int) float64 { return float64(c.times[j]) / TicksPerSecond }
	v := c.values[i]
	// The chords to the neighbouring keys: their slopes and time spans.
	var dPrev, dNext, tPrev, tNext float64
	hasPrev := i > 0 && sec(i) > sec(i-1)
	hasNext := i < n-1 && sec(i+1) > sec(i)
	if hasPrev {
		tPrev = sec(i) - sec(i-1)
		dPrev = (v - c.values[i-1]) / tPrev
	}
	if hasNext {
		tNext = sec(i+1) - sec(i)
		dNext = (c.values[i+1] - v) / tNext
	}
	if a.flags&tangentTCB != 0 {
		t, co, b := a.data[0], a.data[1], a.data[2]
		f := 0.5 // the two chords' mean; at an end, the one chord
		if !hasPrev || !hasNext {
			f = 1
		}
		if out {
			return f * ((1-t)*(1+co)*(1+b)*dPrev + (1-t)*(1-co)*(1-b)*dNext)
		}
		return f * ((1-t)*(1-co)*(1+b)*dPrev + (1-t)*(1+co)*(1-b)*dNext)
	}
	clamp := a.flags&tangentClamp != 0
	progressive := a.flags&tangentClampProg != 0
	if !hasPrev || !hasNext { // an end: the chord to its one neighbour
		d, dv := dPrev+dNext, (dPrev+dNext)*(tPrev+tNext)
		if progressive || clamp && math.Abs(dv) <= clampEqual {
			return 0
		}
		return d
	}
	vp, vn := c.values[i-1], c.values[i+1]
	if clamp && min(math.Abs(v-vp), math.Abs(vn-v)) <= clampEqual {
		return 0
	}
	s := (vn - vp) / (tPrev + tNext) // the cardinal spline's
	if a.flags&tangentTimeIndep == 0 {
		// Time-dependent: averaged with the chords, each weighted by the
		// other's share of the span (the same slope when keys are evenly spaced).
		d := tPrev / (tPrev + tNext)
		s = s/2 + (dPrev*(1-d)+dNext*d)/2
	}
	if progressive {
		// No handle past a neighbour's value: a peak or valley lies flat, and
		// a steep slope is cut to what reaches the nearer neighbour.
		_, wLeft := attrs[i-1].weights()
		wRight, _ := a.weights()
		sign := 1.0
		if s < 0 {
			sign = -1
		}
		maxLeft := sign * (v - vp) / (wLeft * tPrev)
		maxRight := sign * (vn - v) / (wRight * tNext)
		s = sign * max(0, min(sign*s, maxLeft, maxRight))
	}
	return s
}
