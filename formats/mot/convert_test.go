package mot

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"testing"
)

// sameValues checks that a and b decode to the same values, bit for bit, record by
// record (b may lack a's camera records).
func sameValues(t *testing.T, a, b *Motion) {
	t.Helper()
	va, err := a.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	vb, err := b.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	j := 0
	for i, r := range a.Records {
		if IsCamera(a.Family, r.Bone) && (j >= len(b.Records) || b.Records[j].Bone != r.Bone) {
			continue
		}
		if b.Records[j].Bone != r.Bone || b.Records[j].Track != r.Track {
			t.Fatalf("record %d: bone/track %d/%d became %d/%d", i, r.Bone, r.Track, b.Records[j].Bone, b.Records[j].Track)
		}
		for x := range va[i] {
			if math.Float64bits(va[i][x]) != math.Float64bits(vb[j][x]) {
				t.Fatalf("record %d (type %d → %d) frame %d: %v became %v", i, r.Type, b.Records[j].Type, x, va[i][x], vb[j][x])
			}
		}
		j++
	}
	if j != len(b.Records) {
		t.Fatalf("%d records matched of %d", j, len(b.Records))
	}
}

// TestConvertThereAndBack converts every file to every family and byte order, and
// back, through a write and a strict parse each time, keeping every value.
func TestConvertThereAndBack(t *testing.T) {
	orders := []binary.ByteOrder{binary.LittleEndian, binary.BigEndian}
	for _, name := range goldenFiles {
		t.Run(name, func(t *testing.T) {
			m, err := Open(shared(t, name))
			if err != nil {
				t.Fatal(err)
			}
			g := readGolden(t, shared(t, name))
			for _, f := range []Family{Bayo1, Bayo2} {
				for _, o := range orders {
					c, _ := roundTrip(t, m, f, o, AllTypes)
					checkGolden(t, c, g)
					back, _ := roundTrip(t, c, m.Family, m.Order, AllTypes)
					checkGolden(t, back, g)
					sameValues(t, m, back)
				}
			}
		})
	}
}

func roundTrip(t *testing.T, m *Motion, f Family, o binary.ByteOrder, types TypeSet) (*Motion, []Reexpressed) {
	t.Helper()
	c, re, err := m.Convert(f, o, nil, types)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseWithOrder(b, o)
	if err != nil {
		t.Fatalf("%s %s: %v", f, OrderName(o), err)
	}
	if p.Family != f {
		t.Fatalf("family %s, want %s", p.Family, f)
	}
	return p, re
}

// With AllTypes, Bayonetta 2 types 2, 3 and 4 become Bayonetta 1 types 3, 5 and
// 2, which no synthetic file has: their values after conversion must equal the
// golden values of the Bayonetta 2 originals.
func TestBayo1OnlyTypesThroughConversion(t *testing.T) {
	m, err := Open(shared(t, "synthetic/bayo2_le.mot"))
	if err != nil {
		t.Fatal(err)
	}
	c, re, err := m.Convert(Bayo1, binary.BigEndian, nil, AllTypes)
	if err != nil || len(re) != 0 {
		t.Fatal(err, re)
	}
	seen := map[int8]bool{}
	for _, r := range c.Records {
		seen[r.Type] = true
	}
	for _, ty := range []int8{2, 3, 5} {
		if !seen[ty] {
			t.Errorf("no Bayonetta 1 type %d after conversion", ty)
		}
	}
	checkGolden(t, c, readGolden(t, shared(t, "synthetic/bayo2_le.mot")))
}

func TestConvertCamera(t *testing.T) {
	m, err := Open(shared(t, "synthetic/bayo2_le.mot"))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := m.Convert(Bayo1, binary.LittleEndian, nil, Readable)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Records) != len(m.Records)-1 {
		t.Fatalf("%d records from %d: the camera record should be dropped", len(c.Records), len(m.Records))
	}
	c, _, err = m.Convert(Bayo1, binary.LittleEndian, map[int16]int16{0x7000: 0x0F60}, Readable)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Records[len(c.Records)-1]; len(c.Records) != len(m.Records) || r.Bone != 0x0F60 || r.Value != 0.75 {
		t.Fatalf("camera record %+v", r)
	}
	// Within one family the cameras are numbered alike: a change of byte order
	// keeps them without a mapping.
	c, _, err = m.Convert(Bayo2, binary.BigEndian, nil, Readable)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Records[len(c.Records)-1]; len(c.Records) != len(m.Records) || r.Bone != 0x7000 || r.Value != 0.75 {
		t.Fatalf("byte order only: %d records from %d, last %+v", len(c.Records), len(m.Records), r)
	}
}

// TestConvertCameraFlag: pl000f_0a25 is a camera motion (header flag bit 1)
// whose 11 camera records are bones 0x7000 and 0x7001. Converted to Bayonetta 1
// without a camera mapping they are all dropped, and the result, which moves no
// camera, must not say it is a camera motion (it kept the flag); with them
// mapped, or with the byte order alone changed, the flag stays.
func TestConvertCameraFlag(t *testing.T) {
	m, err := Open(shared(t, "pl000f_0a25.wiiu-be.mot"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Flags&FlagCamera == 0 {
		t.Fatalf("flags %#x: want the camera flag in the input", m.Flags)
	}
	for _, c := range []struct {
		what   string
		f      Family
		camera map[int16]int16
		want   uint16
	}{
		{"to Bayonetta 1, cameras dropped", Bayo1, nil, 0},
		{"to Bayonetta 1, cameras mapped", Bayo1, map[int16]int16{0x7000: 0x0F60, 0x7001: 0x0F61}, FlagCamera},
		{"byte order alone", Bayo2, nil, FlagCamera},
	} {
		out, _, err := m.Convert(c.f, binary.LittleEndian, c.camera, Readable)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Flags & FlagCamera; got != c.want {
			t.Errorf("%s: camera flag %#x, want %#x", c.what, got, c.want)
		}
		if out.Flags&^FlagCamera != m.Flags&^FlagCamera {
			t.Errorf("%s: flags %#x from %#x: only the camera flag may change", c.what, out.Flags, m.Flags)
		}
	}
}

// By default a Bayonetta 1 result holds only the types bayonetta_tools opens, and
// every value is the golden one (the community decoder's on the original) bit for
// bit, except on the tracks reported with a difference: float Hermite keys
// written as float32 values, which are within half a float32 step of it, the
// largest difference being the one reported.
func TestConvertReadable(t *testing.T) {
	orders := []binary.ByteOrder{binary.LittleEndian, binary.BigEndian}
	lossy, ran := 0, 0
	for _, name := range goldenFiles {
		t.Run(name, func(t *testing.T) {
			path := shared(t, name) // skips when the file is not there
			ran++
			m, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			g := readGolden(t, path)
			for _, f := range []Family{Bayo1, Bayo2} {
				for _, o := range orders {
					p, re := roundTrip(t, m, f, o, Readable)
					if f == Bayo1 {
						checkReadableTypes(t, p)
					} else if len(re) != 0 {
						t.Fatalf("re-expressed tracks in the Bayonetta 2 family: %+v", re)
					}
					diff := map[string]float64{}
					for _, x := range re {
						diff[fmt.Sprintf("%d/%d", x.Bone, x.Track)] = x.Diff
						if x.Diff != 0 {
							lossy++
						}
					}
					checkGoldenWithin(t, p, g, diff)
				}
			}
		})
	}
	// The check over all files means something only when they were there
	// (../shared/testdata absent: every subtest skipped, and so does this).
	if ran == 0 {
		t.Skip("none of the golden motion files is here")
	}
	if lossy == 0 {
		t.Error("no float Hermite track was re-expressed: the test data should hold some (Bayonetta 2 type 4)")
	}
}

// checkGoldenWithin is checkGolden allowing, on the tracks of diff with a
// non-zero difference, half a float32 step from the golden value, and checking
// that the largest difference is the one given.
func checkGoldenWithin(t *testing.T, m *Motion, g golden, diff map[string]float64) {
	t.Helper()
	vals, err := m.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range m.Records {
		key := fmt.Sprintf("%d/%d", r.Bone, r.Track)
		want, ok := g.Frame[key]
		if !ok {
			continue // camera records; checkGolden covers the rest
		}
		worst := 0.0
		for x, h := range want {
			w, err := strconv.ParseUint(h, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			wf := math.Float64frombits(w)
			d := math.Abs(vals[i][x] - wf)
			if diff[key] == 0 {
				if math.Float64bits(vals[i][x]) != w {
					t.Fatalf("%s (type %d) frame %d: %v, golden %v", key, r.Type, x, vals[i][x], wf)
				}
				continue
			}
			a := float32(math.Abs(wf))
			if half := float64(math.Nextafter32(a, float32(math.Inf(1)))-a) / 2; d > half {
				t.Fatalf("%s (type %d) frame %d: %v is %g from golden %v, over half a float32 step", key, r.Type, x, vals[i][x], d, wf)
			}
			worst = max(worst, d)
		}
		if worst != diff[key] {
			t.Errorf("%s: reported difference %g, measured %g", key, diff[key], worst)
		}
	}
}
