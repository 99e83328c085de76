package mot

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Track is one bone's track as values at frames 0 … n−1, the encoder's input.
type Track struct {
	Bone   int16
	Track  uint8
	Values []float64
}

// Choice is what the encoder did with one track: the record type it chose, the
// record's data size, and the largest difference between the input and what the
// record decodes to.
type Choice struct {
	Bone  int16
	Track uint8
	Type  int8
	Size  int
	Error float64
}

// Encode builds a motion of family f and byte order o from tracks, all of
// frames values. Per track it picks the smallest record whose decoded values stay
// within tol of the input: a constant (type 0), then the per-frame quantized and
// the quantized Hermite types, whose keys are placed greedily where the error is
// largest and whose tangents are a least-squares fit. A track no type holds within
// tol gets plain floats (type 1), and its Choice says how far off that is. A
// Bayonetta 1 motion takes its types from types: with Readable, only 0, 1, 4 and 6
// (docs/formats/mot.md §15).
func Encode(f Family, o binary.ByteOrder, frames int, tracks []Track, tol float64, types TypeSet) (*Motion, []Choice, error) {
	return EncodeWithProgress(f, o, frames, tracks, tol, types, nil)
}

// EncodeWithProgress is Encode, calling progress (when not nil) with (tracks
// done, tracks in all) as tracks are encoded, from the encoding goroutines: it
// must be safe for concurrent use.
func EncodeWithProgress(f Family, o binary.ByteOrder, frames int, tracks []Track, tol float64, types TypeSet, progress func(done, total int)) (*Motion, []Choice, error) {
	if f != Bayo1 && f != Bayo2 {
		return nil, nil, fmt.Errorf("mot: unknown family %d", f)
	}
	if types != Readable && types != AllTypes {
		return nil, nil, fmt.Errorf("mot: unknown type set %d", types)
	}
	if !(tol >= 0) {
		return nil, nil, fmt.Errorf("mot: tolerance %v is not ≥ 0", tol)
	}
	if frames < 1 || f == Bayo1 && frames > math.MaxInt16 || frames > math.MaxUint16 {
		return nil, nil, fmt.Errorf("mot: %d frames; a %s motion has 1 … %d", frames, f, map[Family]int{Bayo1: math.MaxInt16, Bayo2: math.MaxUint16}[f])
	}
	return encode(f, o, frames, tracks, tol, types, runtime.GOMAXPROCS(0), progress)
}

// encode is Encode on workers goroutines. Tracks are independent: each worker
// takes the next track not yet taken and puts its record and choice at the
// track's index, so the motion is the same, byte for byte, whatever the number
// of workers.
func encode(f Family, o binary.ByteOrder, frames int, tracks []Track, tol float64, types TypeSet, workers int, progress func(done, total int)) (*Motion, []Choice, error) {
	for i, tr := range tracks {
		if len(tr.Values) != frames {
			return nil, nil, fmt.Errorf("mot: track %d (bone %d, track %d) has %d values for %d frames", i, tr.Bone, tr.Track, len(tr.Values), frames)
		}
		if tr.Bone == TerminatorBone {
			return nil, nil, fmt.Errorf("mot: track %d: bone 0x7fff is the terminator", i)
		}
		for x, v := range tr.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
				return nil, nil, fmt.Errorf("mot: track %d (bone %d, track %d) frame %d: %v is not a finite float32", i, tr.Bone, tr.Track, x, v)
			}
		}
	}
	m := &Motion{Family: f, Order: o, Frames: frames, Records: make([]Record, len(tracks))}
	choices := make([]Choice, len(tracks))
	var (
		next, done atomic.Int64
		wg         sync.WaitGroup
	)
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= len(tracks) {
				return
			}
			m.Records[i], choices[i] = encodeTrack(f, o, tracks[i], tol, types)
			if progress != nil {
				progress(int(done.Add(1)), len(tracks))
			}
		}
	}
	for range min(workers, len(tracks)) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	return m, choices, nil
}

// candidate shapes in the order tried; the smallest fitting one wins. Bayonetta
// 1 per-frame quantized values (types 3 and 5) are for AllTypes only.
var perFrameShapes = map[Family][]shape{Bayo1: {shQ8F, shQ16, shF32}, Bayo2: {shQ8H, shQ16, shF32}}
var keyedShapes = []shape{shHKeysRel, shQKeys}

func encodeTrack(f Family, o binary.ByteOrder, tr Track, tol float64, types TypeSet) (Record, Choice) {
	v := tr.Values
	lo, hi := minMax(v)
	c := float32((lo + hi) / 2)
	if e := maxErrConst(v, float64(c)); e <= tol {
		return Record{Bone: tr.Bone, Track: tr.Track, Type: 0, Value: c}, Choice{tr.Bone, tr.Track, 0, 0, e}
	}
	var best *fields
	bestErr, bestSize := math.Inf(1), math.MaxInt
	consider := func(fd *fields) {
		if fd == nil {
			return
		}
		h, k := fd.shape.sizes()
		size := h + k*fd.count()
		e := fd.maxErr(v)
		if e <= tol && size < bestSize || best == nil || bestErr > tol && e < bestErr {
			best, bestErr, bestSize = fd, e, size
		}
	}
	for _, s := range perFrameShapes[f] {
		if f == Bayo1 && types == Readable && !readableBayo1[s] {
			continue
		}
		consider(quantizePerFrame(s, v))
	}
	knots := knotFrames(v)
	for _, s := range keyedShapes {
		consider(fitKeys(s, v, tol, 4*len(v))) // pruned keys can end under a size the greedy rounds pass
		// Values that came from a Hermite curve (a decoded motion, re-encoded)
		// reveal its keys: fitting on them finds the original's encoding, or a
		// smaller one, where the greedy rounds may settle for more keys.
		if knots != nil {
			if fd := buildKeys(s, v, knots); fd != nil {
				consider(pruneKeys(s, v, tol, knots, fd))
			}
		}
	}
	data, err := best.encode(o)
	if err != nil {
		panic("mot: encoder built unencodable fields: " + err.Error()) // the fits keep every field in range
	}
	r := Record{Bone: tr.Bone, Track: tr.Track, Type: typeOf(f, best.shape), Count: best.count(), Data: data}
	return r, Choice{tr.Bone, tr.Track, r.Type, len(data), bestErr}
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func maxErrConst(v []float64, c float64) float64 {
	e := 0.0
	for _, x := range v {
		e = max(e, math.Abs(x-c))
	}
	return e
}

// maxErr is the largest difference between v and what fd decodes to.
func (fd *fields) maxErr(v []float64) float64 {
	c := fd.curve()
	got := make([]float64, len(v))
	c.Eval(got)
	e := 0.0
	for x := range v {
		e = max(e, math.Abs(v[x]-got[x]))
	}
	return e
}

// quant is a header pair P, dP (as stored: float32 bits or pghalf codes) and the
// codes of values quantized with it.
type quant struct {
	half    bool
	levels  int
	p, dp   uint32
	pf, dpf float64
}

// newQuant chooses P and dP, in the header's precision, for quantizing vals to
// levels+1 codes. For pghalf headers, whose coarse dP would compound over 255
// steps, it tries the codes around the exact choice and keeps the one with the
// smallest worst-case error.
func newQuant(vals []float64, half bool, levels int) quant {
	lo, hi := minMax(vals)
	q := quant{half: half, levels: levels}
	if !half {
		p := float32(lo)
		if float64(p) > lo {
			p = math.Nextafter32(p, float32(math.Inf(-1)))
		}
		dp := float32((hi - float64(p)) / float64(levels))
		for float64(p)+float64(dp)*float64(levels) < hi {
			dp = math.Nextafter32(dp, float32(math.Inf(1)))
		}
		q.p, q.dp, q.pf, q.dpf = math.Float32bits(p), math.Float32bits(dp), float64(p), float64(dp)
		return q
	}
	p0 := FloatToHalf(lo)
	best, bestErr := q, math.Inf(1)
	for _, p := range []uint16{p0, halfBelow(p0), halfAbove(p0)} {
		pf := HalfToFloat64(p)
		d0 := FloatToHalf((hi - pf) / float64(levels))
		for _, dp := range []uint16{d0, halfBelow(d0), halfAbove(d0), halfAbove(halfAbove(d0))} {
			c := quant{half: true, levels: levels, p: uint32(p), dp: uint32(dp), pf: pf, dpf: HalfToFloat64(dp)}
			if c.dpf < 0 || math.IsInf(c.dpf, 0) || math.IsNaN(c.dpf) || math.IsInf(pf, 0) {
				continue
			}
			e := 0.0
			for _, v := range vals {
				e = max(e, math.Abs(v-(c.pf+c.dpf*float64(c.code(v)))))
			}
			if e < bestErr {
				best, bestErr = c, e
			}
		}
	}
	return best
}

// halfAbove is the next pghalf code toward +∞ from a finite code.
func halfAbove(h uint16) uint16 {
	switch {
	case h == 0x8000:
		return 1
	case h&0x8000 != 0:
		return h - 1
	}
	return h + 1
}

// halfBelow is the next pghalf code toward −∞ from a finite code.
func halfBelow(h uint16) uint16 {
	switch {
	case h == 0:
		return 0x8001
	case h&0x8000 != 0:
		return h + 1
	}
	return h - 1
}

func (q quant) code(v float64) uint16 {
	if q.dpf == 0 {
		return 0
	}
	c := math.Round((v - q.pf) / q.dpf)
	return uint16(max(0, min(float64(q.levels), c)))
}

func quantizePerFrame(s shape, v []float64) *fields {
	// Trailing repeats of the last value need not be stored (§9).
	n := len(v)
	for n > 1 && v[n-2] == v[n-1] {
		n--
	}
	fd := &fields{shape: s}
	if s == shF32 {
		fd.f[0] = make([]float32, n)
		for i := range n {
			fd.f[0][i] = float32(v[i])
		}
		return fd
	}
	levels := 255
	if s == shQ16 {
		levels = 65535
	}
	q := newQuant(v[:n], s == shQ8H, levels)
	if q.half && (q.dp>>9)&63 == 63 {
		return nil // range beyond pghalf
	}
	fd.hdr[0], fd.hdr[1] = q.p, q.dp
	fd.q[0] = make([]uint16, n)
	for i := range n {
		fd.q[0][i] = q.code(v[i])
	}
	return fd
}

// fitKeys places keys greedily: first and last frame, then, each round, one
// more in every segment at the frame where the decoded curve is furthest from v,
// until the error is within tol, every frame holds a key, or the record would be
// larger than budget bytes (plain floats are smaller). Splitting every bad
// segment at once keeps the rounds few on long tracks; pruneKeys then drops the
// keys that later rounds made redundant.
func fitKeys(s shape, v []float64, tol float64, budget int) *fields {
	n := len(v)
	keys := []int{0}
	for f := 255; f < n-1; f += 255 { // relative u8 steps reach 255 frames at most
		keys = append(keys, f)
	}
	if n > 1 {
		keys = append(keys, n-1)
	}
	h, k := s.sizes()
	got := make([]float64, n)
	for {
		fd := buildKeys(s, v, keys)
		if fd == nil {
			return nil
		}
		c := fd.curve()
		c.Eval(got)
		var added []int
		for i := 0; i+1 < len(keys); i++ {
			worst, at := tol, -1
			for x := keys[i] + 1; x < keys[i+1]; x++ {
				if e := math.Abs(v[x] - got[x]); e > worst {
					worst, at = e, x
				}
			}
			if at >= 0 {
				added = append(added, at)
			}
		}
		if len(added) == 0 {
			return pruneKeys(s, v, tol, keys, fd) // within tol between keys; maxErr says how far at keys
		}
		if h+k*(len(keys)+len(added)) > budget {
			return fd // over budget: a smaller type already fits
		}
		keys = mergeSorted(keys, added)
	}
}

// knotFrames returns the frames where v, sampled from a piecewise cubic, changes
// cubic: within one cubic the third difference v[f+3] − 3v[f+2] + 3v[f+1] − v[f]
// is constant, so a run of equal differences ending at window f and the next run
// starting at window g put a knot at g (the frame both cubics share). The first
// and last frames are keys too. Nil when v does not look piecewise cubic (a run
// shorter than two windows, or more knots than a third of the frames).
func knotFrames(v []float64) []int {
	n := len(v)
	if n < 8 {
		return nil
	}
	scale := 0.0
	for _, x := range v {
		scale = max(scale, math.Abs(x))
	}
	eps := 1e-9 * max(scale, 1e-9)
	d3 := make([]float64, n-3)
	for f := range d3 {
		d3[f] = v[f+3] - 3*v[f+2] + 3*v[f+1] - v[f]
	}
	same := func(a, b float64) bool { return math.Abs(a-b) <= eps }
	keys := []int{0}
	for f := 0; f < len(d3); {
		g := f + 1
		for g < len(d3) && same(d3[g], d3[f]) {
			g++
		}
		if g-f < 2 && f > 0 {
			return nil // not a cubic's steady run
		}
		if g >= len(d3) {
			break
		}
		// The next steady run starts at the knot: skip the (at most two) windows
		// that straddle it.
		h := g
		for h < len(d3) && h < g+3 && !(h+1 < len(d3) && same(d3[h], d3[h+1])) {
			h++
		}
		if h >= len(d3) {
			break
		}
		if h > keys[len(keys)-1] {
			keys = append(keys, h)
		}
		f = h
	}
	if keys[len(keys)-1] != n-1 {
		keys = append(keys, n-1)
	}
	if len(keys) > n/3+2 {
		return nil
	}
	return keys
}

// pruneWork bounds the work pruneKeys does on one track (keys × frames).
const pruneWork = 1 << 24

// pruneKeys drops the keys, tried one at a time from the first, without which
// the fit stays within tol: a round of fitKeys splits segments at their worst
// frame, and keys found in later rounds (often where the curve's own keys were)
// make some of the earlier ones redundant. fd is the fit on keys; it is returned
// as is when it is not within tol or pruning would cost too much.
func pruneKeys(s shape, v []float64, tol float64, keys []int, fd *fields) *fields {
	if len(keys)*len(v) > pruneWork || fd.maxErr(v) > tol {
		return fd
	}
	for j := 1; j+1 < len(keys); {
		if s == shHKeysRel && keys[j+1]-keys[j-1] > 255 { // relative frames are u8
			j++
			continue
		}
		fewer := append(append([]int(nil), keys[:j]...), keys[j+1:]...)
		if f := buildKeys(s, v, fewer); f != nil && f.maxErr(v) <= tol {
			keys, fd = fewer, f
			continue
		}
		j++
	}
	return fd
}

// mergeSorted merges two sorted lists of distinct frames.
func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i] < b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	return out
}

// buildKeys fits Hermite tangents per segment by least squares (the values at
// keys are the input's) and quantizes values and tangents.
func buildKeys(s shape, v []float64, keys []int) *fields {
	k := len(keys)
	p := make([]float64, k)
	for i, f := range keys {
		p[i] = v[f]
	}
	half, levels := s != shQKeys, 255
	if !half {
		levels = 65535
	}
	qp := newQuant(p, half, levels)
	pq := make([]float64, k)
	for i := range p {
		pq[i] = qp.pf + qp.dpf*float64(qp.code(p[i]))
	}
	m0, m1 := make([]float64, k), make([]float64, k) // incoming, outgoing
	for i := 0; i+1 < k; i++ {
		m1[i], m0[i+1] = fitSegment(v, keys[i], keys[i+1], pq[i], pq[i+1])
	}
	q0 := newQuant(m0, half, levels)
	q1 := newQuant(m1, half, levels)
	for _, q := range []quant{qp, q0, q1} {
		if half && ((q.p>>9)&63 == 63 || (q.dp>>9)&63 == 63) {
			return nil
		}
	}
	fd := &fields{shape: s, frames: append([]int(nil), keys...)}
	fd.hdr = [6]uint32{qp.p, qp.dp, q0.p, q0.dp, q1.p, q1.dp}
	for j, q := range []quant{qp, q0, q1} {
		src := [][]float64{p, m0, m1}[j]
		fd.q[j] = make([]uint16, k)
		for i := range src {
			fd.q[j][i] = q.code(src[i])
		}
	}
	return fd
}

// fitSegment returns the tangents (outgoing at f0, incoming at f1) whose Hermite
// curve from p0 to p1 is closest to v over the frames between, in least squares.
// A faint pull toward the straight line keeps short segments determined.
func fitSegment(v []float64, f0, f1 int, p0, p1 float64) (m0, m1 float64) {
	line := p1 - p0
	const ridge = 1e-6
	saa, sab, sbb := ridge, 0.0, ridge
	sar, sbr := ridge*line, ridge*line
	l := float64(f1 - f0)
	for x := f0 + 1; x < f1; x++ {
		t := float64(x-f0) / l
		t2, t3 := t*t, t*t*t
		a, b := t3-2*t2+t, t3-t2
		r := v[x] - (2*t3-3*t2+1)*p0 - (-2*t3+3*t2)*p1
		saa, sab, sbb = saa+a*a, sab+a*b, sbb+b*b
		sar, sbr = sar+a*r, sbr+b*r
	}
	det := saa*sbb - sab*sab
	if det == 0 {
		return line, line
	}
	return (sar*sbb - sbr*sab) / det, (saa*sbr - sab*sar) / det
}
