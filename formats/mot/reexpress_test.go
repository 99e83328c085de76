package mot

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// Expected results here come from the layouts of docs/formats/mot.md §7–§9,
// written out by hand: the bytes of the record Convert should write, and values
// computed as the format defines them.

// le builds little-endian record data from u8, u16, f32 and f64→f32 fields.
func le(fields ...any) []byte {
	var b bytes.Buffer
	for _, f := range fields {
		if err := binary.Write(&b, binary.LittleEndian, f); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

// convertOne converts a motion of one record to Bayonetta 1 (Readable), writes
// and strictly re-parses it, and returns the record and its report.
func convertOne(t *testing.T, from Family, typ int8, count, frames int, data []byte) (Record, []float64, []Reexpressed) {
	t.Helper()
	m := &Motion{Family: from, Order: binary.LittleEndian, Frames: frames,
		Records: []Record{{Bone: 3, Track: 4, Type: typ, Count: count, Data: data}}}
	c, re, err := m.Convert(Bayo1, binary.LittleEndian, nil, Readable)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseWithOrder(b, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	v, err := back.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	return back.Records[0], v[0], re
}

func bitsEqual(t *testing.T, got, want []float64) {
	t.Helper()
	for x := range want {
		if math.Float64bits(got[x]) != math.Float64bits(want[x]) {
			t.Fatalf("frame %d: %v (%#x), want %v (%#x)", x, got[x], math.Float64bits(got[x]), want[x], math.Float64bits(want[x]))
		}
	}
}

// Per-frame quantized values (Bayonetta 2 types 2 and 3, Bayonetta 1 types 3
// and 5) become keys on every frame, P + dP·cp of the same P, dP and cp, with
// zero tangents: type 4 for float32 headers, type 6 for pghalf ones; or plain
// float32 values (type 1) when every value is one.
func TestReexpressQuantizedPerFrame(t *testing.T) {
	P, dP := float32(0.1), float32(0.001)
	cps := []uint16{0, 1000, 65535, 7}
	want := make([]float64, len(cps))
	for i, c := range cps {
		want[i] = float64(P) + float64(dP)*float64(c)
	}
	const z = float32(0)
	keys4 := le(P, dP, z, z, z, z,
		uint16(0), uint16(0), uint16(0), uint16(0),
		uint16(1), uint16(1000), uint16(0), uint16(0),
		uint16(2), uint16(65535), uint16(0), uint16(0),
		uint16(3), uint16(7), uint16(0), uint16(0))

	t.Run("bayo2 type 2", func(t *testing.T) {
		r, v, re := convertOne(t, Bayo2, 2, 4, 4, le(P, dP, cps))
		if r.Type != 4 || r.Count != 4 || !bytes.Equal(r.Data, keys4) {
			t.Fatalf("type %d, count %d, data % x; want type 4, 4 keys, % x", r.Type, r.Count, r.Data, keys4)
		}
		bitsEqual(t, v, want)
		if len(re) != 1 || re[0] != (Reexpressed{Record: 0, Bone: 3, Track: 4, From: 2, Direct: 3, To: 4, DirectSize: 8 + 2*4, Size: 24 + 8*4}) {
			t.Fatalf("report %+v", re)
		}
	})
	t.Run("bayo1 type 3", func(t *testing.T) {
		r, v, re := convertOne(t, Bayo1, 3, 4, 4, le(P, dP, cps))
		if r.Type != 4 || !bytes.Equal(r.Data, keys4) || len(re) != 1 || re[0].From != 3 || re[0].Diff != 0 {
			t.Fatalf("type %d, data % x, report %+v", r.Type, r.Data, re)
		}
		bitsEqual(t, v, want)
	})
	t.Run("bayo1 type 5", func(t *testing.T) {
		r, v, _ := convertOne(t, Bayo1, 5, 3, 3, le(P, dP, []uint8{0, 200, 255}))
		wantData := le(P, dP, z, z, z, z,
			uint16(0), uint16(0), uint16(0), uint16(0),
			uint16(1), uint16(200), uint16(0), uint16(0),
			uint16(2), uint16(255), uint16(0), uint16(0))
		if r.Type != 4 || !bytes.Equal(r.Data, wantData) {
			t.Fatalf("type %d, data % x; want type 4, % x", r.Type, r.Data, wantData)
		}
		bitsEqual(t, v, []float64{float64(P), float64(P) + float64(dP)*200, float64(P) + float64(dP)*255})
	})
	t.Run("bayo2 type 3", func(t *testing.T) {
		// pghalf 0x5E00 is 1 and 0x0E00 is 2^(7−47) = 2^−40 (§3): 1 + 3·2^−40
		// needs 41 bits, no float32.
		r, v, re := convertOne(t, Bayo2, 3, 3, 3, le(uint16(0x5E00), uint16(0x0E00), []uint8{0, 3, 255}))
		wantData := le([]uint16{0x5E00, 0x0E00, 0, 0, 0, 0}, []uint8{0, 0, 0, 0, 1, 3, 0, 0, 1, 255, 0, 0})
		if r.Type != 6 || !bytes.Equal(r.Data, wantData) {
			t.Fatalf("type %d, data % x; want type 6, % x", r.Type, r.Data, wantData)
		}
		bitsEqual(t, v, []float64{1, 1 + 3*math.Ldexp(1, -40), 1 + 255*math.Ldexp(1, -40)})
		if len(re) != 1 || re[0].Direct != 5 || re[0].DirectSize != 8+3 || re[0].Size != 12+4*3 || re[0].Diff != 0 {
			t.Fatalf("report %+v", re)
		}
	})
	t.Run("float32 values", func(t *testing.T) {
		// 0x4C00 is 2^(38−47) = 1/512: 1 + k/512 is a float32.
		r, v, _ := convertOne(t, Bayo2, 3, 3, 5, le(uint16(0x5E00), uint16(0x4C00), []uint8{0, 1, 2}))
		wantData := le(float32(1), float32(1+1.0/512), float32(1+2.0/512))
		if r.Type != 1 || r.Count != 3 || !bytes.Equal(r.Data, wantData) {
			t.Fatalf("type %d, count %d, data % x; want type 1, % x", r.Type, r.Count, r.Data, wantData)
		}
		bitsEqual(t, v, []float64{1, 1 + 1.0/512, 1 + 2.0/512, 1 + 2.0/512, 1 + 2.0/512})
	})
}

// hermiteRef is §9's cubic, written out here from the format's definition.
func hermiteRef(t, p0, m0, p1, m1 float64) float64 {
	return (2*t*t*t-3*t*t+1)*p0 + (t*t*t-2*t*t+t)*m0 + (-2*t*t*t+3*t*t)*p1 + (t*t*t-t*t)*m1
}

// Float Hermite keys (Bayonetta 2 type 4, Bayonetta 1 type 2) become quantized
// keys when a grid holds every key exactly, and float32 values per frame
// otherwise, with the largest difference reported.
func TestReexpressFloatKeys(t *testing.T) {
	floatKeys := func(frames []uint16, p, m0, m1 []float32) []byte {
		var b []byte
		for i := range frames {
			b = append(b, le(frames[i], uint16(0), p[i], m0[i], m1[i])...)
		}
		return b
	}
	t.Run("on a grid", func(t *testing.T) {
		z := []float32{0, 0, 0}
		r, v, re := convertOne(t, Bayo2, 4, 3, 25, floatKeys([]uint16{0, 10, 20}, []float32{0.5, 1, 1.5}, z, z))
		// pghalf 0.5 is 0x5C00; keys at relative frames 0, 10, 10, cp 0, 1, 2.
		wantData := le([]uint16{0x5C00, 0x5C00, 0, 0, 0, 0}, []uint8{0, 0, 0, 0, 10, 1, 0, 0, 10, 2, 0, 0})
		if r.Type != 6 || !bytes.Equal(r.Data, wantData) {
			t.Fatalf("type %d, data % x; want type 6, % x", r.Type, r.Data, wantData)
		}
		if len(re) != 1 || re[0].From != 4 || re[0].Direct != 2 || re[0].DirectSize != 48 || re[0].Size != 24 || re[0].Diff != 0 {
			t.Fatalf("report %+v", re)
		}
		if v[5] != 0.75 || v[15] != 1.25 || v[24] != 1.5 {
			t.Fatalf("values %v", v)
		}
	})
	t.Run("off any grid", func(t *testing.T) {
		frames := []uint16{0, 7, 19}
		p, m0, m1 := []float32{0.1, 0.7, 0.3}, []float32{0.2, -0.4, 0.1}, []float32{0.3, 0.05, 0}
		r, v, re := convertOne(t, Bayo2, 4, 3, 25, floatKeys(frames, p, m0, m1))
		if r.Type != 1 || r.Count != 20 { // the values after the last key repeat it
			t.Fatalf("type %d, count %d; want type 1 with 20 values", r.Type, r.Count)
		}
		worst := 0.0
		for x := range 25 {
			exact := float64(p[2])
			for i := 0; i+1 < len(frames); i++ {
				if f0, f1 := int(frames[i]), int(frames[i+1]); x >= f0 && x < f1 {
					tt := float64(x-f0) / float64(f1-f0)
					exact = hermiteRef(tt, float64(p[i]), float64(m1[i]), float64(p[i+1]), float64(m0[i+1]))
				}
			}
			if v[x] != float64(float32(exact)) {
				t.Fatalf("frame %d: %v, want the float32 %v of %v", x, v[x], float32(exact), exact)
			}
			d := math.Abs(v[x] - exact)
			ulp := float64(math.Nextafter32(float32(math.Abs(exact)), float32(math.Inf(1))) - float32(math.Abs(exact)))
			if d > ulp/2 {
				t.Fatalf("frame %d: difference %g over half a float32 step %g", x, d, ulp/2)
			}
			worst = max(worst, d)
		}
		if worst == 0 || len(re) != 1 || re[0].Diff != worst || re[0].To != 1 || re[0].Size != 80 || re[0].DirectSize != 48 {
			t.Fatalf("report %+v, measured largest difference %g", re, worst)
		}
	})
}

// With AllTypes the layouts are kept: Bayonetta 2 types 2, 3, 4 become
// Bayonetta 1 types 3, 5, 2 with nothing reported.
func TestConvertAllTypesKeepsLayouts(t *testing.T) {
	m := &Motion{Family: Bayo2, Order: binary.LittleEndian, Frames: 2, Records: []Record{
		{Bone: 0, Track: 0, Type: 2, Count: 2, Data: le(float32(1), float32(0.5), []uint16{0, 3})},
		{Bone: 0, Track: 1, Type: 3, Count: 2, Data: le(uint16(0x5E00), uint16(0x4C00), []uint8{0, 3})},
		{Bone: 0, Track: 2, Type: 4, Count: 1, Data: le(uint16(1), uint16(0), float32(0.25), float32(0), float32(0))},
	}}
	c, re, err := m.Convert(Bayo1, binary.LittleEndian, nil, AllTypes)
	if err != nil || len(re) != 0 {
		t.Fatal(err, re)
	}
	want := []struct {
		typ  int8
		data []byte
	}{
		{3, le(float32(1), float32(0.5), []uint16{0, 3})},
		{5, le(float32(1), float32(1.0/512), []uint8{0, 3})},
		{2, le(uint16(1), uint16(0), float32(0.25), float32(0), float32(0))},
	}
	for i, w := range want {
		if r := c.Records[i]; r.Type != w.typ || !bytes.Equal(r.Data, w.data) {
			t.Errorf("record %d: type %d, % x; want type %d, % x", i, r.Type, r.Data, w.typ, w.data)
		}
	}
	if _, _, err := m.Convert(Bayo1, binary.LittleEndian, nil, TypeSet(7)); err == nil {
		t.Error("an unknown type set was accepted")
	}
}
