package mot

import (
	"encoding/binary"
	"fmt"
	"github.com/bonebake/bonebake/internal/words"
	"math"
	"slices"
)

// TypeSet chooses the record types a Bayonetta 1 result may hold
// (docs/formats/mot.md §10). The Bayonetta 2 family has one set: every reader
// known opens all its types.
type TypeSet uint8

const (
	// Readable is Bayonetta 1 types 0, 1, 4, 6 and 7, the types every known
	// reader opens: the community's reader, bayonetta_tools, opens no others,
	// and the files the games ship use no others. The default.
	Readable TypeSet = iota
	// AllTypes adds Bayonetta 1 types 2, 3 and 5, which the community's wiki
	// documents but bayonetta_tools refuses ("Unknown interpolation type").
	// With them, conversion keeps every value bit for bit.
	AllTypes
)

// readableBayo1 are the shapes of Bayonetta 1 types 0, 1, 4, 6 and 7.
var readableBayo1 = map[shape]bool{shConst: true, shF32: true, shQKeys: true, shHKeysRel: true, shHKeys16Pad: true}

// Reexpressed is a record that Convert wrote, for Bayonetta 1 readers, in a type
// other than the one of its own layout (docs/formats/mot.md §10).
type Reexpressed struct {
	Record int // index in the input's records
	Bone   int16
	Track  uint8
	From   int8 // the input's type
	Direct int8 // the Bayonetta 1 type of the same layout (2, 3 or 5), which AllTypes writes
	To     int8 // the type written
	// DirectSize and Size are the record's data bytes in the Direct type and as
	// written.
	DirectSize, Size int
	// Diff is the largest difference between the input's values and the
	// result's, over the motion's frames, measured on the written record; 0 when
	// every value is identical bit for bit.
	Diff float64
}

// Converting keeps what a file costs in proportion to it (docs/formats/mot.md
// §15): records sharing data are converted once and share the result, and the
// record data written may come to at most MaxConvertGrowth times the input's
// bytes, or MaxConvertFloor, whichever is more.
const (
	MaxConvertGrowth = 64
	MaxConvertFloor  = 16 << 20
)

// dataKey is a record's data as the records sharing it see it: the same bytes
// (the reader gives records that point at one span one copy) read as the same
// type and count.
type dataKey struct {
	data  *byte
	size  int
	typ   int8
	count int
}

func keyOf(r Record) dataKey {
	if len(r.Data) == 0 {
		return dataKey{}
	}
	return dataKey{&r.Data[0], len(r.Data), r.Type, r.Count}
}

// Convert returns m in family f and byte order o (docs/formats/mot.md §10).
// Record types change where the families number them differently, and widen
// where the target family has no type of the same layout: every value m decodes
// to, the result decodes to bit for bit. The one exception is a Bayonetta 1
// result with the Readable types: tracks whose layout only types 2, 3 and 5 have
// are re-expressed in types 1, 4, 6 or 7 (per-frame quantized values exactly,
// float Hermite keys exactly where a quantized grid holds them and otherwise as
// float32 values per frame), and each is reported with the largest difference
// it made. camera maps camera bone ids of m's family to ids of f's; when the
// family changes, camera records whose bone it does not map are dropped (all of
// them when camera is nil), and within one family they are kept as they are; a
// result whose camera records were all dropped loses the camera-motion flag. A
// Bayonetta 1 result has no name.
func (m *Motion) Convert(f Family, o binary.ByteOrder, camera map[int16]int16, types TypeSet) (*Motion, []Reexpressed, error) {
	if f != Bayo1 && f != Bayo2 {
		return nil, nil, fmt.Errorf("mot: unknown family %d", f)
	}
	if types != Readable && types != AllTypes {
		return nil, nil, fmt.Errorf("mot: unknown type set %d", types)
	}
	if f == Bayo1 && m.Frames > math.MaxInt16 {
		return nil, nil, fmt.Errorf("mot: %d frames do not fit a Bayonetta 1 header (at most %d)", m.Frames, math.MaxInt16)
	}
	out := &Motion{Family: f, Order: o, Flags: m.Flags, Frames: m.Frames}
	if f == Bayo2 {
		out.Name = m.Name
	}
	out.Records = make([]Record, 0, len(m.Records))
	var re []Reexpressed
	// What the input holds (its table and each distinct block of data once)
	// bounds what the output may.
	header := uint64(Bayo2Header)
	if m.Family == Bayo1 {
		header = Bayo1Header
	}
	in := header + RecordSize*uint64(len(m.Records)+1)
	seen := map[dataKey]bool{}
	for _, r := range m.Records {
		if k := keyOf(r); k.data != nil && !seen[k] {
			seen[k] = true
			in += alignUp(uint64(len(r.Data)), 4)
		}
	}
	limit := max(uint64(MaxConvertFloor), MaxConvertGrowth*in)
	written := uint64(0)
	type converted struct {
		r Record
		x *Reexpressed
	}
	done := map[dataKey]converted{}
	dropped, kept := 0, 0 // camera records
	for i, r := range m.Records {
		if IsCamera(m.Family, r.Bone) {
			to, ok := camera[r.Bone]
			switch {
			case ok:
				r.Bone = to
			case f != m.Family: // the other family numbers its cameras otherwise
				dropped++
				continue
			}
			kept++
		}
		key := keyOf(r)
		var nr Record
		var x *Reexpressed
		if c, ok := done[key]; ok && key.data != nil {
			// Data another record shares, converted already: share the result.
			nr = r
			nr.Type, nr.Count, nr.Data = c.r.Type, c.r.Count, c.r.Data
			if c.x != nil {
				y := *c.x
				y.Bone, y.Track = r.Bone, r.Track
				x = &y
			}
		} else {
			var err error
			if nr, x, err = convertRecord(r, m.Family, m.Order, f, o, m.Frames, types); err != nil {
				return nil, nil, fmt.Errorf("mot: record %d (bone %d, track %d, type %d): %w", i, r.Bone, r.Track, r.Type, err)
			}
			if key.data != nil {
				done[key] = converted{nr, x}
			}
			if written += alignUp(uint64(len(nr.Data)), 4); written > limit {
				return nil, nil, fmt.Errorf("mot: record %d (bone %d, track %d, type %d): the converted record data pass the %s allowed (%d times the input's %s, at least %s; docs/formats/mot.md §15)",
					i, r.Bone, r.Track, r.Type, words.Bytes(int64(limit)), MaxConvertGrowth, words.Bytes(int64(in)), words.Bytes(MaxConvertFloor))
			}
		}
		if x != nil {
			x.Record = i
			re = append(re, *x)
		}
		out.Records = append(out.Records, nr)
	}
	if dropped > 0 && kept == 0 {
		out.Flags &^= FlagCamera // no camera left to move: not a camera motion
	}
	return out, re, nil
}

// targetShape is the shape of family f that holds shape s's values exactly.
func targetShape(s shape, f Family) shape {
	if typeOf(f, s) >= 0 {
		return s
	}
	switch s {
	case shQ8H:
		return shQ8F // pghalf P, dP widen exactly to f32
	case shQ8F:
		return shQ16 // u8 quanta widen to u16
	case shHKeysAbs8, shHKeys16BE:
		return shHKeys16Pad
	case shHKeys16Pad:
		return shHKeys16BE
	}
	return shNone
}

func convertRecord(r Record, from Family, fo binary.ByteOrder, to Family, o binary.ByteOrder, frames int, types TypeSet) (Record, *Reexpressed, error) {
	s := shapeOf(from, r.Type)
	if s == shNone {
		return r, nil, fmt.Errorf("type %d is not a %s record type", r.Type, from)
	}
	ts := targetShape(s, to)
	orig := r.Type
	r.Type = typeOf(to, ts)
	if s == shConst {
		return r, nil, nil
	}
	size, _ := Layout(from, typeOf(from, s), r.Count)
	if r.Count <= 0 || len(r.Data) != size {
		return r, nil, fmt.Errorf("%d bytes of data for %d values; want %d", len(r.Data), r.Count, size)
	}
	if ts == s && fo == o && (to != Bayo1 || types == AllTypes || readableBayo1[ts]) {
		r.Data = append([]byte(nil), r.Data...)
		return r, nil, nil
	}
	fd := decodeFields(s, fo, r.Count, r.Data)
	if k, ok := fd.keysOrdered(); !ok {
		return r, nil, fmt.Errorf("key %d at frame %d is before key %d's frame %d", k, fd.frames[k], k-1, fd.frames[k-1])
	}
	var x *Reexpressed
	if to == Bayo1 && types == Readable && !readableBayo1[ts] {
		direct, _ := Layout(to, r.Type, r.Count)
		nfd, diff := reexpress(&fd, max(frames, 1))
		x = &Reexpressed{Bone: r.Bone, Track: r.Track, From: orig, Direct: r.Type, To: typeOf(to, nfd.shape), DirectSize: direct, Diff: diff}
		fd = *nfd
		ts = fd.shape
		r.Type, r.Count = x.To, fd.count()
	}
	if s == shQ8H && ts == shQ8F {
		for i := range 2 {
			fd.hdr[i] = math.Float32bits(HalfToFloat32(uint16(fd.hdr[i])))
		}
	}
	fd.shape = ts
	data, err := fd.encode(o)
	if err != nil {
		return r, nil, err
	}
	r.Data = data
	if x != nil {
		x.Size = len(data)
	}
	return r, x, nil
}

// reexpress writes fd, of a shape Bayonetta 1 readers lack (per-frame quantized
// values, float Hermite keys), in the smallest of types 1, 4, 6 and 7 that holds
// its values over frames frames bit for bit, or else as float32 values per frame,
// and returns the largest difference measured.
func reexpress(fd *fields, frames int) (*fields, float64) {
	want := make([]float64, frames)
	c := fd.curve()
	c.Eval(want)
	var cands []*fields
	switch fd.shape {
	case shQ16, shQ8F, shQ8H:
		// Keys on every frame, each P + dP·cp of the same P, dP and cp.
		n := fd.count()
		keys := make([]int, n)
		for i := range keys {
			keys[i] = i
		}
		h := [6]float64{fd.header(0), fd.header(1)}
		cands = append(cands, perFrameF32(c.Values, true), keyedFields(keys, h, [3][]uint16{fd.q[0], make([]uint16, n), make([]uint16, n)}))
	case shFloatKeys:
		var h [6]float64
		var q [3][]uint16
		ok := true
		for j := range 3 {
			v := make([]float64, len(fd.f[j]))
			for i, x := range fd.f[j] {
				v[i] = float64(x)
			}
			var good bool
			h[2*j], h[2*j+1], q[j], good = grid(v)
			ok = ok && good
		}
		if ok {
			cands = append(cands, keyedFields(fd.frames, h, q))
		}
		cands = append(cands, perFrameF32(trimRepeats(want), true))
	}
	var best *fields
	bestSize := math.MaxInt
	got := make([]float64, frames)
	for _, cand := range cands { // identical means bit for bit, ±0 too
		if cand == nil {
			continue
		}
		h, k := cand.shape.sizes()
		if size := h + k*cand.count(); size < bestSize && maxDiff(cand, want, got) == 0 && identical(want, got) {
			best, bestSize = cand, size
		}
	}
	if best == nil {
		best = perFrameF32(trimRepeats(want), false)
	}
	return best, maxDiff(best, want, got)
}

// perFrameF32 is type 1 holding v rounded to float32; nil when exact is set and
// a value is not a float32.
func perFrameF32(v []float64, exact bool) *fields {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
		if exact && math.Float64bits(float64(f[i])) != math.Float64bits(x) {
			return nil
		}
	}
	fd := &fields{shape: shF32}
	fd.f[0] = f
	return fd
}

// trimRepeats drops trailing repeats of the last value, which a per-frame track
// need not store (§9).
func trimRepeats(v []float64) []float64 {
	n := len(v)
	for n > 1 && math.Float64bits(v[n-2]) == math.Float64bits(v[n-1]) {
		n--
	}
	return v[:n]
}

// maxDiff evaluates fd into got and returns the largest difference from want.
func maxDiff(fd *fields, want, got []float64) float64 {
	c := fd.curve()
	c.Eval(got)
	d := 0.0
	for x := range want {
		d = max(d, math.Abs(want[x]-got[x]))
	}
	return d
}

func identical(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// keyedFields holds Hermite keys at frames, with header values h (P, dP, M0, dM0,
// M1, dM1) and codes q (cp, cm0, cm1), in the smallest Bayonetta 1 keyed shape
// whose fields hold them exactly: pghalf with relative u8 frames (type 6), with
// u16 frames (type 7), or float32 (type 4). Nil when none does.
func keyedFields(frames []int, h [6]float64, q [3][]uint16) *fields {
	for _, s := range []shape{shHKeysRel, shHKeys16Pad, shQKeys} {
		fd := &fields{shape: s, frames: frames, q: q}
		ok := true
		for i, x := range h {
			if s == shQKeys {
				f := float32(x)
				ok = ok && math.Float64bits(float64(f)) == math.Float64bits(x)
				fd.hdr[i] = math.Float32bits(f)
			} else {
				c := FloatToHalf(x)
				ok = ok && math.Float64bits(HalfToFloat64(c)) == math.Float64bits(x)
				fd.hdr[i] = uint32(c)
			}
		}
		if !ok {
			continue
		}
		if _, err := fd.encode(binary.LittleEndian); err == nil { // frames and codes fit
			return fd
		}
	}
	return nil
}

// grid finds float32 P and dP and u16 codes c with P + dP·c equal to each of v
// (float32 values) bit for bit, computed as a decoder does (in float64). It tries
// the smallest value for P and the smallest gap between values for dP.
func grid(v []float64) (p, dp float64, codes []uint16, ok bool) {
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	lo, gap := sorted[0], sorted[len(sorted)-1]-sorted[0]
	for i := 1; i < len(sorted); i++ {
		if d := sorted[i] - sorted[i-1]; d > 0 && d < gap {
			gap = d
		}
	}
	p, dp = lo, float64(float32(gap))
	codes = make([]uint16, len(v))
	for i, x := range v {
		c := 0.0
		if dp > 0 {
			c = math.Round((x - p) / dp)
		}
		if !(c >= 0 && c <= math.MaxUint16) {
			return 0, 0, nil, false
		}
		codes[i] = uint16(c)
		if math.Float64bits(p+dp*c) != math.Float64bits(x) {
			return 0, 0, nil, false
		}
	}
	return p, dp, codes, true
}
