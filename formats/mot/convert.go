package mot

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Convert returns m in family f and byte order o, losslessly (docs/formats/mot.md
// §10): every value m decodes to, the result decodes to bit for bit. Record types
// change where the families number them differently, and widen where the target
// family has no type of the same layout. camera maps camera bone ids of m's family
// to ids of f's; when the family changes, camera records whose bone it does not map
// are dropped (all of them when camera is nil), and within one family they are
// kept as they are. A Bayonetta 1 result has no name.
func (m *Motion) Convert(f Family, o binary.ByteOrder, camera map[int16]int16) (*Motion, error) {
	if f != Bayo1 && f != Bayo2 {
		return nil, fmt.Errorf("mot: unknown family %d", f)
	}
	if f == Bayo1 && m.Frames > math.MaxInt16 {
		return nil, fmt.Errorf("mot: %d frames do not fit a Bayonetta 1 header (at most %d)", m.Frames, math.MaxInt16)
	}
	out := &Motion{Family: f, Order: o, Flags: m.Flags, Frames: m.Frames}
	if f == Bayo2 {
		out.Name = m.Name
	}
	out.Records = make([]Record, 0, len(m.Records))
	for i, r := range m.Records {
		if IsCamera(m.Family, r.Bone) {
			to, ok := camera[r.Bone]
			switch {
			case ok:
				r.Bone = to
			case f != m.Family: // the other family numbers its cameras otherwise
				continue
			}
		}
		nr, err := convertRecord(r, m.Family, m.Order, f, o)
		if err != nil {
			return nil, fmt.Errorf("mot: record %d (bone %d, track %d, type %d): %w", i, r.Bone, r.Track, r.Type, err)
		}
		out.Records = append(out.Records, nr)
	}
	return out, nil
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

func convertRecord(r Record, from Family, fo binary.ByteOrder, to Family, o binary.ByteOrder) (Record, error) {
	s := shapeOf(from, r.Type)
	if s == shNone {
		return r, fmt.Errorf("type %d is not a %s record type", r.Type, from)
	}
	ts := targetShape(s, to)
	r.Type = typeOf(to, ts)
	if s == shConst {
		return r, nil
	}
	size, _ := Layout(from, typeOf(from, s), r.Count)
	if r.Count <= 0 || len(r.Data) != size {
		return r, fmt.Errorf("%d bytes of data for %d values; want %d", len(r.Data), r.Count, size)
	}
	if ts == s && fo == o {
		r.Data = append([]byte(nil), r.Data...)
		return r, nil
	}
	fd := decodeFields(s, fo, r.Count, r.Data)
	if s == shQ8H && ts == shQ8F {
		for i := range 2 {
			fd.hdr[i] = math.Float32bits(HalfToFloat32(uint16(fd.hdr[i])))
		}
	}
	fd.shape = ts
	data, err := fd.encode(o)
	if err != nil {
		return r, err
	}
	r.Data = data
	return r, nil
}
