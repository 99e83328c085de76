package mot

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
	"github.com/bonebake/bonebake/internal/regfile"
)

// Rules of this format beyond format's shared ones; FormatError.Rule is one of
// them or a shared one.
const (
	RuleByteOrder  = "byte-order"  // a Bayonetta 1 file consistent in neither or both byte orders
	RuleRecordType = "record-type" // a type the family does not have
	RuleKeyCount   = "key-count"   // a negative, zero or oversized count
	RuleKeyOrder   = "key-order"   // key frames decreasing
	RuleTerminator = "terminator"  // the terminator record missing or not as written
	RuleReserved   = "reserved"    // record field 0x06, or the Bayonetta 2 header's 0x14-0x17, not as written
)

// Open reads the file at path and parses it; errors name the path.
func Open(path string, opts ...formats.Option) (*Motion, error) {
	b, err := regfile.ReadFile(path) // a pipe or device is refused (formats.ErrNotRegular)
	if err != nil {
		return nil, err
	}
	return Parse(b, append(opts[:len(opts):len(opts)], formats.Name(path))...)
}

// Parse decodes b, telling the family and byte order from the header (§1, §14).
// The Motion copies what it keeps: records that point at the same bytes share
// one copy, decoded and checked once (Data is read-only), and records whose data
// partly overlap are refused, so that memory and time stay in proportion to the
// file (docs/formats/mot.md §15). A lenient parse lets strict-only problems pass
// (a missing terminator, non-zero pad bytes, a layout other than the canonical
// one); strictly valid files are exactly those Write gives back byte for byte.
func Parse(b []byte, opts ...formats.Option) (*Motion, error) {
	o := formats.Apply(opts)
	fam, order, err := detect(b, o)
	if err != nil {
		return nil, err
	}
	return validate(b, fam, order, o)
}

// ParseWithOrder is Parse with a Bayonetta 1 file's byte order given instead of
// detected, for files consistent either way (§14). A Bayonetta 2 family file names
// its own byte order, which wins.
func ParseWithOrder(b []byte, order binary.ByteOrder, opts ...formats.Option) (*Motion, error) {
	o := formats.Apply(opts)
	fam, detected, err := detect(b, o)
	var ve *formats.ValidationError
	if err != nil && !(fam == Bayo1 && errors.As(err, &ve) && ve.HasRule(RuleByteOrder)) {
		return nil, err
	}
	if detected != nil && fam == Bayo2 {
		order = detected
	}
	return validate(b, fam, order, o)
}

// detect tells the family and byte order (§1; for Bayonetta 1 the rule of §14).
// With a Bayonetta 1 file that is ambiguous it returns the family and an error.
func detect(b []byte, o formats.Options) (Family, binary.ByteOrder, error) {
	fail := func(rule string, off uint64, detail string, args ...any) error {
		c := binfmt.NewChecker(b, binary.LittleEndian, o)
		c.Fail(rule, off, -1, detail, args...)
		return c.Err("mot")
	}
	if len(b) < Bayo1Header {
		return 0, nil, fail(formats.RuleTruncated, uint64(len(b)), "file is %d bytes; a motion header alone is %d", len(b), Bayo1Header)
	}
	if string(b[:4]) != Magic {
		return 0, nil, fail(formats.RuleMagic, 0, "starts with %q, not %q: not a motion file", b[:4], Magic)
	}
	for _, ord := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
		if ord.Uint32(b[4:]) == Bayo2Tag {
			if len(b) < Bayo2Header {
				return Bayo2, nil, fail(formats.RuleTruncated, uint64(len(b)), "file is %d bytes; a Bayonetta 2 motion header alone is %d", len(b), Bayo2Header)
			}
			return Bayo2, ord, nil
		}
	}
	var ok []binary.ByteOrder
	var inFile []binary.ByteOrder
	for _, ord := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		off, n := uint64(ord.Uint32(b[8:])), uint64(ord.Uint32(b[12:]))
		if off < Bayo1Header || n == 0 || off > uint64(len(b)) || n > (uint64(len(b))-off)/RecordSize {
			continue
		}
		inFile = append(inFile, ord)
		last := off + RecordSize*(n-1)
		if ord.Uint16(b[last:]) == TerminatorBone {
			ok = append(ok, ord)
		}
	}
	switch {
	case len(ok) == 1:
		return Bayo1, ok[0], nil
	case len(ok) == 2:
		return Bayo1, nil, fail(RuleByteOrder, 8, "Bayonetta 1 header is consistent in both byte orders; give the byte order")
	case len(inFile) == 1:
		return Bayo1, inFile[0], nil // no terminator: validation says so
	case len(inFile) == 2:
		return Bayo1, nil, fail(RuleByteOrder, 8, "Bayonetta 1 header has its record table inside the file in both byte orders and a terminator in neither; give the byte order")
	}
	return Bayo1, nil, fail(RuleByteOrder, 8, "Bayonetta 1 record table (offset, count at 0x08, 0x0C) lies outside the %d-byte file in both byte orders", len(b))
}

// validate reads b as a motion of family fam in byte order order.
func validate(b []byte, fam Family, order binary.ByteOrder, o formats.Options) (*Motion, error) {
	c := binfmt.NewChecker(b, order, o)
	v := validator{Checker: &c, m: &Motion{Family: fam, Order: order}}
	v.run()
	if err := c.Err("mot"); err != nil {
		return nil, err
	}
	v.m.warnings = c.SortedWarnings()
	return v.m, nil
}

type validator struct {
	*binfmt.Checker
	m *Motion
	// Records pointing at the same bytes share them (§15): spans seen, with
	// their copy, and the spans already checked as a given type and count.
	data    map[span][]byte
	checked map[checkedSpan]bool
	overlap map[span]int // spans that partly overlap another: the other's record
}

type span struct{ at, size uint64 }

type checkedSpan struct {
	span
	typ   int8
	count int
}

func (v *validator) u16(off uint64) uint16 { return v.Order.Uint16(v.B[off:]) }

func (v *validator) run() {
	m := v.m
	var tableOff, count uint64
	headerSize := uint64(Bayo1Header)
	if m.Family == Bayo1 {
		m.Flags = v.u16(4)
		fc := int16(v.u16(6))
		if fc < 0 {
			v.Fail(formats.RuleFrameCount, 6, -1, "frame_count %d is negative", fc)
		}
		m.Frames = max(0, int(fc))
		tableOff, count = uint64(v.U32(8)), uint64(v.U32(12))
	} else {
		headerSize = Bayo2Header
		m.Flags, m.Frames = v.u16(8), int(v.u16(10))
		tableOff, count = uint64(v.U32(12)), uint64(v.U32(16))
		if rate := v.B[0x14:0x18]; !bytes.Equal(rate, rateBytes[:]) {
			v.Strict(RuleReserved, 0x14, -1, "header bytes 0x14-0x17 are % x, not 00 3c 00 00 (60 fps)", rate)
		}
		name := v.B[0x18 : 0x18+NameSize]
		end := bytes.IndexByte(name, 0)
		if end < 0 {
			end = NameSize
		}
		m.Name = string(name[:end])
		v.Zeros(0x18+uint64(end), 0x18+NameSize, "header", -1, "name padding")
	}
	field := uint64(8)
	if m.Family == Bayo2 {
		field = 12
	}
	if tableOff < headerSize {
		v.Fail(formats.RuleBounds, field, -1, "record table offset %d is inside the %d-byte header", tableOff, headerSize)
		return
	}
	table := v.Section("record table", field, tableOff, count, RecordSize)
	if !table.OK {
		return
	}
	if tableOff != headerSize {
		v.Strict(formats.RuleLayout, field, -1, "record table is at %d; the canonical layout puts it at %d", tableOff, headerSize)
	}
	v.Zeros(headerSize, tableOff, "header", -1, "gap")
	n := int(count)
	if m.Family == Bayo1 {
		if n == 0 || v.u16(tableOff+RecordSize*(count-1)) != TerminatorBone {
			v.Strict(RuleTerminator, table.End, -1, "the last counted record is not the terminator (bone 0x7fff)")
		} else {
			v.terminator(int(count-1), tableOff+RecordSize*(count-1))
			n--
		}
	} else {
		end := table.End
		if end+RecordSize > v.Size {
			v.Strict(RuleTerminator, end, -1, "no room for the terminator record after the %d counted records", count)
		} else {
			v.terminator(n, end)
		}
	}
	m.Records = make([]Record, 0, n)
	v.findOverlaps(tableOff, n)
	next := binfmt.AlignUp(table.End+RecordSize*b2u64(m.Family == Bayo2), 4)
	for i := range n {
		v.record(i, tableOff+RecordSize*uint64(i), &next)
	}
	if next > v.Size {
		next = v.Size
	}
	if v.Size > next {
		v.Strict(formats.RuleTrailingBytes, next, -1, "%d bytes after the last record's data", v.Size-next)
	}
}

func b2u64(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// terminator checks the terminator record at off (§6).
func (v *validator) terminator(i int, off uint64) {
	want := make([]byte, RecordSize)
	if v.m.Family == Bayo1 {
		v.Order.PutUint16(want, TerminatorBone)
		want[3] = 0xFF
		v.Order.PutUint16(want[6:], 0xFFFF)
	} else {
		v.Order.PutUint16(want, TerminatorBone)
	}
	if !bytes.Equal(v.B[off:off+RecordSize], want) {
		v.Strict(RuleTerminator, off, i, "record %d is not a terminator as the family writes it (% x, want % x)", i, v.B[off:off+RecordSize], want)
	}
}

// record reads record i at off. next is where the canonical layout puts the next
// record's data; it advances past this record's.
func (v *validator) record(i int, off uint64, next *uint64) {
	m := v.m
	r := Record{Bone: int16(v.u16(off)), Track: v.B[off+2], Type: int8(v.B[off+3])}
	cnt := int16(v.u16(off + 4))
	name := fmt.Sprintf("record %d (bone %d, track %d, type %d)", i, r.Bone, r.Track, r.Type)
	reserved := int16(v.u16(off + 6))
	if want := int16(map[Family]int16{Bayo1: -1, Bayo2: 0}[m.Family]); reserved != want {
		v.Strict(RuleReserved, off+6, i, "%s: field 0x06 is %d, not %d", name, reserved, want)
	}
	s := shapeOf(m.Family, r.Type)
	switch {
	case r.Bone == TerminatorBone:
		v.Fail(RuleTerminator, off, i, "%s: a terminator before the end of the %d counted records", name, len(m.Records))
		return
	case s == shNone:
		v.Fail(RuleRecordType, off+3, i, "%s: type %d is not a %s record type", name, r.Type, m.Family)
		return
	case s == shConst:
		r.Value = v.F32(off + 8)
		if cnt != 0 {
			v.Strict(RuleKeyCount, off+4, i, "%s: a constant with count %d, not 0", name, cnt)
		}
		m.Records = append(m.Records, r)
		return
	case cnt <= 0:
		v.Fail(RuleKeyCount, off+4, i, "%s: count %d; a type %d record needs at least one value", name, cnt, r.Type)
		return
	}
	r.Count = int(cnt)
	data := uint64(v.U32(off + 8))
	if m.Family == Bayo2 {
		data += off
	}
	size, _ := Layout(m.Family, r.Type, r.Count)
	if data > v.Size || uint64(size) > v.Size-data {
		v.Fail(formats.RuleBounds, off+8, i, "%s: data at %d, %d bytes for %d values, %s", name, data, size, cnt, binfmt.PastEnd(data, uint64(size), v.Size))
		return
	}
	if data != *next {
		v.Strict(formats.RuleLayout, off+8, i, "%s: data at %d; the canonical layout puts it at %d", name, data, *next)
	} else {
		v.Zeros(data+uint64(size), min(binfmt.AlignUp(data+uint64(size), 4), v.Size), "record", i, "data padding")
	}
	*next = binfmt.AlignUp(max(*next, data+uint64(size)), 4)
	sp := span{data, uint64(size)}
	if other, ok := v.overlap[sp]; ok {
		v.Fail(formats.RuleOverlap, off+8, i, "%s: data at %d, %d bytes, partly overlaps record %d's; records share data only whole", name, data, size, other)
		return
	}
	if v.data == nil {
		v.data, v.checked = map[span][]byte{}, map[checkedSpan]bool{}
	}
	if r.Data = v.data[sp]; r.Data == nil {
		r.Data = append([]byte(nil), v.B[data:data+uint64(size)]...)
		v.data[sp] = r.Data[:len(r.Data):len(r.Data)]
	}
	if cs := (checkedSpan{sp, r.Type, r.Count}); !v.checked[cs] {
		fd := decodeFields(s, v.Order, r.Count, r.Data)
		if k, ok := fd.keysOrdered(); !ok {
			v.Fail(RuleKeyOrder, data, i, "%s: key %d is at frame %d, before key %d's frame %d", name, k, fd.frames[k], k-1, fd.frames[k-1])
			return
		}
		v.checked[cs] = true
	}
	m.Records = append(m.Records, r)
}

// findOverlaps finds the data spans of the n records at tableOff that partly
// overlap another record's (sharing some bytes without being the same span),
// for record to refuse: each span is then copied and decoded once (§15).
func (v *validator) findOverlaps(tableOff uint64, n int) {
	type rec struct {
		span
		i int
	}
	var spans []rec
	for i := range n {
		off := tableOff + RecordSize*uint64(i)
		typ, cnt := int8(v.B[off+3]), int16(v.u16(off+4))
		s := shapeOf(v.m.Family, typ)
		if s == shNone || s == shConst || cnt <= 0 {
			continue
		}
		data := uint64(v.U32(off + 8))
		if v.m.Family == Bayo2 {
			data += off
		}
		size, _ := Layout(v.m.Family, typ, int(cnt))
		if size > 0 && data <= v.Size && uint64(size) <= v.Size-data {
			spans = append(spans, rec{span{data, uint64(size)}, i})
		}
	}
	slices.SortFunc(spans, func(a, b rec) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.size, b.size))
	})
	var end uint64
	last := -1
	for k, s := range spans {
		if k > 0 && s.span == spans[k-1].span {
			continue
		}
		if last >= 0 && s.at < end {
			if v.overlap == nil {
				v.overlap = map[span]int{}
			}
			v.overlap[s.span] = spans[last].i
			continue
		}
		end, last = s.at+s.size, k
	}
}

// keysOrdered reports whether key frames never decrease, else the first key
// that does not follow its predecessor.
func (fd *fields) keysOrdered() (int, bool) {
	for k := 1; k < len(fd.frames); k++ {
		if fd.frames[k] < fd.frames[k-1] {
			return k, false
		}
	}
	return 0, true
}

// Curve decodes record i's values (§9).
func (m *Motion) Curve(i int) (Curve, error) {
	r := &m.Records[i]
	s := shapeOf(m.Family, r.Type)
	if s == shNone {
		return Curve{}, fmt.Errorf("record %d: type %d is not a %s record type", i, r.Type, m.Family)
	}
	if s == shConst {
		return Curve{Values: []float64{float64(r.Value)}}, nil
	}
	size, _ := Layout(m.Family, r.Type, r.Count)
	if r.Count <= 0 || len(r.Data) != size {
		return Curve{}, fmt.Errorf("record %d: %d bytes of data for %d values of type %d; want %d", i, len(r.Data), r.Count, r.Type, size)
	}
	fd := decodeFields(s, m.Order, r.Count, r.Data)
	if k, ok := fd.keysOrdered(); !ok {
		return Curve{}, fmt.Errorf("record %d: key %d at frame %d is before key %d's frame %d", i, k, fd.frames[k], k-1, fd.frames[k-1])
	}
	return fd.curve(), nil
}

// MaxEvaluated bounds Evaluate's output (256 MB of float64): a few hundred bytes
// of constant records can declare 65,535 frames each, and the values of all of
// them at once are not worth exhausting memory for. Curve evaluates one record.
const MaxEvaluated = 1 << 25

// Evaluate returns every record's values at frames 0 … Frames−1, in record order;
// more than MaxEvaluated values in all is an error.
func (m *Motion) Evaluate() ([][]float64, error) {
	if n := len(m.Records) * m.Frames; n > MaxEvaluated {
		return nil, fmt.Errorf("%d records × %d frames is %d values, more than the %d Evaluate returns at once; evaluate records one at a time with Curve", len(m.Records), m.Frames, n, MaxEvaluated)
	}
	out := make([][]float64, len(m.Records))
	flat := make([]float64, len(m.Records)*m.Frames)
	for i := range m.Records {
		c, err := m.Curve(i)
		if err != nil {
			return nil, err
		}
		out[i] = flat[i*m.Frames : (i+1)*m.Frames : (i+1)*m.Frames]
		c.Eval(out[i])
	}
	return out, nil
}
