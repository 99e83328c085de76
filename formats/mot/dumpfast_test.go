package mot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestAppendDumpRecord holds appendDumpRecord to json.MarshalIndent byte for
// byte: values at the edges of encoding/json's exponent form (1e-6, 1e21), the
// smallest and largest floats, negative zero, random bit patterns, and the
// integer fields' extremes; NaN and infinities fail as they do for MarshalIndent.
func TestAppendDumpRecord(t *testing.T) {
	values := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 1e-6, math.Nextafter(1e-6, 0), -1e-7, 1.234e-9, 1e21, math.Nextafter(1e21, 0),
		-1e21, 1e20, 123456789012345678, 5e-324, math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1e-300, 3.14159, 2.5e-8}
	rng := rand.New(rand.NewPCG(46, 1))
	for len(values) < 20000 {
		v := math.Float64frombits(rng.Uint64())
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		values = append(values, v)
		values = append(values, float64(float32(rng.NormFloat64()))) // the floats motions hold
	}
	records := []DumpRecord{
		{Bone: -1, Track: 255, Type: -128, Values: values},
		{Bone: 32767, Track: 0, Type: 127, Values: []float64{}},
		{Bone: -32768, Track: 7, Type: 0, Values: nil},
		{Bone: 3, Track: 1, Type: 6, Values: []float64{42}},
	}
	for _, r := range records {
		want, err := json.MarshalIndent(r, "    ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendDumpRecord([]byte("x"), r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[1:], want) || got[0] != 'x' {
			i := 0
			for i < min(len(got)-1, len(want)) && got[1+i] == want[i] {
				i++
			}
			t.Fatalf("record (bone %d): differs from MarshalIndent at byte %d: %q against %q", r.Bone, i, got[1+i:min(len(got), i+41)], want[i:min(len(want), i+40)])
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := json.MarshalIndent(DumpRecord{Values: []float64{1, v}}, "    ", "  "); err == nil {
			t.Fatalf("MarshalIndent takes %v", v)
		}
		if _, err := appendDumpRecord(nil, DumpRecord{Values: []float64{1, v}}); err == nil {
			t.Errorf("appendDumpRecord takes %v", v)
		} else {
			t.Log(err)
		}
	}
}

// TestWriteDumpAsBefore: WriteDump writes every test motion's dump as the
// MarshalIndent writer did (writeDumpBefore), byte for byte.
func TestWriteDumpAsBefore(t *testing.T) {
	n := 0
	for _, name := range testfiles.All("mot", ".mot") {
		m, err := Open(name)
		if err != nil {
			continue // the hostile ones
		}
		var got, want bytes.Buffer
		if err := WriteDump(&got, m); err != nil {
			t.Fatal(err)
		}
		if err := writeDumpBefore(&want, m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%s: the dump differs from the MarshalIndent writer's (%d and %d bytes)", name, got.Len(), want.Len())
		}
		n++
	}
	if n == 0 {
		t.Skip("no test motions")
	}
	t.Logf("%d motions", n)
}

// writeDumpBefore is WriteDump as it was before issue 46, each record written by
// json.MarshalIndent.
func writeDumpBefore(w io.Writer, m *Motion) error {
	head, err := json.MarshalIndent(struct {
		Family     string `json:"family"`
		ByteOrder  string `json:"byte_order"`
		FrameCount int    `json:"frame_count"`
		Flags      uint16 `json:"flags"`
		Name       string `json:"name"`
	}{m.Family.String(), OrderName(m.Order), m.Frames, m.Flags, m.Name}, "", "  ")
	if err != nil {
		return err
	}
	head = bytes.TrimSuffix(head, []byte("\n}"))
	if len(m.Records) == 0 {
		_, err = fmt.Fprintf(w, "%s,\n  \"records\": []\n}\n", head)
		return err
	}
	if _, err := fmt.Fprintf(w, "%s,\n  \"records\": [", head); err != nil {
		return err
	}
	type shared struct {
		data        *byte
		size, count int
		typ         int8
	}
	curves := map[shared]Curve{}
	values := make([]float64, m.Frames)
	for i, r := range m.Records {
		key := shared{nil, len(r.Data), r.Count, r.Type}
		if len(r.Data) > 0 {
			key.data = &r.Data[0]
		}
		c, ok := curves[key]
		if !ok || key.data == nil {
			if c, err = m.Curve(i); err != nil {
				return err
			}
			if key.data != nil {
				curves[key] = c
			}
		}
		c.Eval(values)
		rec, err := json.MarshalIndent(DumpRecord{r.Bone, r.Track, r.Type, values}, "    ", "  ")
		if err != nil {
			return err
		}
		sep := ","
		if i == 0 {
			sep = ""
		}
		if _, err := fmt.Fprintf(w, "%s\n    %s", sep, rec); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "\n  ]\n}\n")
	return err
}
