package mot

import (
	"fmt"
	"io"
	"math"
)

// Marshal writes m in the canonical layout (every file seen is in it): header,
// record table with its terminator, then each record's data in record order,
// each block starting on a multiple of 4 with zero padding. A file that parses
// strictly comes back byte for byte. Records that share their data (the same
// bytes, as the reader gives records pointing at one span) point at one copy,
// written where the first of them puts it: the file stays the size of what it
// holds (docs/formats/mot.md §15).
func (m *Motion) Marshal() ([]byte, error) {
	o := m.Order
	if o == nil {
		return nil, fmt.Errorf("mot: no byte order")
	}
	var header uint64
	switch m.Family {
	case Bayo1:
		header = Bayo1Header
		if m.Frames > math.MaxInt16 {
			return nil, fmt.Errorf("mot: %d frames do not fit a Bayonetta 1 header (at most %d)", m.Frames, math.MaxInt16)
		}
		if m.Name != "" {
			return nil, fmt.Errorf("mot: a Bayonetta 1 header has no name (%q)", m.Name)
		}
	case Bayo2:
		header = Bayo2Header
		if m.Frames > math.MaxUint16 {
			return nil, fmt.Errorf("mot: %d frames do not fit 16 bits", m.Frames)
		}
		if len(m.Name) > NameSize {
			return nil, fmt.Errorf("mot: name %q is over %d bytes", m.Name, NameSize)
		}
	default:
		return nil, fmt.Errorf("mot: unknown family %d", m.Family)
	}
	if m.Frames < 0 {
		return nil, fmt.Errorf("mot: %d frames", m.Frames)
	}
	n := uint64(len(m.Records)) + 1 // with the terminator
	if n > math.MaxUint32 {
		return nil, fmt.Errorf("mot: %d records", len(m.Records))
	}
	size := header + RecordSize*n
	type block struct {
		data *byte
		size int
	}
	placed := map[block]uint64{} // shared data: where its one copy goes
	for i, r := range m.Records {
		want, ok := Layout(m.Family, r.Type, r.Count)
		switch {
		case !ok:
			return nil, fmt.Errorf("mot: record %d: type %d is not a %s record type", i, r.Type, m.Family)
		case r.Type == 0:
			continue
		case r.Count < 1 || r.Count > math.MaxInt16:
			return nil, fmt.Errorf("mot: record %d: count %d is not 1 … %d", i, r.Count, math.MaxInt16)
		case len(r.Data) != want:
			return nil, fmt.Errorf("mot: record %d: %d bytes of data for %d values of type %d; want %d", i, len(r.Data), r.Count, r.Type, want)
		case r.Bone == TerminatorBone:
			return nil, fmt.Errorf("mot: record %d: bone 0x7fff is the terminator", i)
		}
		if k := (block{&r.Data[0], len(r.Data)}); placed[k] == 0 {
			size = alignUp(size, 4)
			placed[k] = size
			size += uint64(want)
		}
	}
	if size > math.MaxUint32 {
		return nil, fmt.Errorf("mot: %d bytes do not fit 32-bit offsets", size)
	}
	b := make([]byte, size)
	copy(b, Magic)
	count := uint32(n)
	if m.Family == Bayo1 {
		o.PutUint16(b[4:], m.Flags)
		o.PutUint16(b[6:], uint16(m.Frames))
		o.PutUint32(b[8:], uint32(header))
		o.PutUint32(b[12:], count)
	} else {
		o.PutUint32(b[4:], Bayo2Tag)
		o.PutUint16(b[8:], m.Flags)
		o.PutUint16(b[10:], uint16(m.Frames))
		o.PutUint32(b[12:], uint32(header))
		o.PutUint32(b[16:], count-1)
		copy(b[0x14:], rateBytes[:])
		copy(b[0x18:], m.Name)
	}
	next := header + RecordSize*n
	for i, r := range m.Records {
		e := b[header+RecordSize*uint64(i):]
		o.PutUint16(e, uint16(r.Bone))
		e[2], e[3] = r.Track, byte(r.Type)
		if m.Family == Bayo1 {
			o.PutUint16(e[6:], 0xFFFF)
		}
		if r.Type == 0 {
			o.PutUint32(e[8:], math.Float32bits(r.Value))
			continue
		}
		o.PutUint16(e[4:], uint16(r.Count))
		at := placed[block{&r.Data[0], len(r.Data)}]
		if at >= next { // the first record of this data: write it
			next = at + uint64(copy(b[at:], r.Data))
		}
		off := at
		if m.Family == Bayo2 {
			off -= header + RecordSize*uint64(i)
		}
		o.PutUint32(e[8:], uint32(off))
	}
	t := b[header+RecordSize*uint64(len(m.Records)):]
	o.PutUint16(t, TerminatorBone)
	if m.Family == Bayo1 {
		t[3] = 0xFF
		o.PutUint16(t[6:], 0xFFFF)
	}
	return b, nil
}

// WriteTo writes m as Marshal does.
func (m *Motion) WriteTo(w io.Writer) (int64, error) {
	b, err := m.Marshal()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// rateBytes are the Bayonetta 2 header's bytes 0x14-0x17: 60 (fps) as the games
// write it, in either byte order (§5, §11).
var rateBytes = [4]byte{0, 0x3C, 0, 0}

func alignUp(v, a uint64) uint64 { return (v + a - 1) / a * a }
