package meshopt

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// vectorDir holds streams encoded by meshoptimizer's encoder and what its own
// decoder made of them (testdata/gltf/meshopt/make.sh): the independent truth.
const vectorDir = "../../../testdata/gltf/meshopt/vectors"

type vector struct {
	Name   string `json:"name"`
	Mode   Mode   `json:"mode"`
	Filter Filter `json:"filter"`
	Count  int    `json:"count"`
	Stride int    `json:"stride"`
	enc    []byte
	dec    []byte
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorDir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	for i := range vs {
		v := &vs[i]
		if v.enc, err = os.ReadFile(filepath.Join(vectorDir, v.Name+".enc")); err != nil {
			t.Fatal(err)
		}
		if v.dec, err = os.ReadFile(filepath.Join(vectorDir, v.Name+".dec")); err != nil {
			t.Fatal(err)
		}
	}
	if len(vs) < 90 {
		t.Fatalf("only %d vectors", len(vs))
	}
	return vs
}

func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			got := make([]byte, v.Count*v.Stride)
			if err := Decode(got, v.Count, v.Stride, v.enc, v.Mode, v.Filter); err != nil {
				t.Fatal(err)
			}
			if v.Filter == None || v.Filter == Exponential {
				if !bytes.Equal(got, v.dec) {
					i := firstDiff(got, v.dec)
					t.Fatalf("byte %d (element %d) = %d, meshoptimizer decodes %d", i, i/v.Stride, got[i], v.dec[i])
				}
				return
			}
			// Integer filters: a rounding tie may go the other way (see round).
			size := v.Stride / 4
			off := 0
			for i := 0; i < len(got); i += size {
				g, w := component(got[i:], size), component(v.dec[i:], size)
				if g != w {
					off++
					if g-w > 1 || w-g > 1 {
						t.Fatalf("component %d (element %d) = %d, meshoptimizer decodes %d", i/size, i/v.Stride, g, w)
					}
				}
			}
			if off > 1 {
				t.Errorf("%d components differ by one unit from meshoptimizer's, want at most 1", off)
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// component reads a signed little-endian component of 1 or 2 bytes.
func component(b []byte, size int) int {
	if size == 1 {
		return int(int8(b[0]))
	}
	return int(int16(uint16(b[0]) | uint16(b[1])<<8))
}

// Every truncation and every single-byte change of a valid stream either
// decodes or fails with an *Error; a truncated stream always fails, because the
// codecs' data must end exactly where their tail begins.
func TestCorruptVectors(t *testing.T) {
	// With -short, every cut and change in a stream's first and last 64 bytes
	// (headers, tails) and every 13th in between.
	skip := func(i, n int) bool { return testing.Short() && i >= 64 && i < n-64 && i%13 != 0 }
	for _, v := range loadVectors(t) {
		if len(v.enc) > 4000 {
			continue
		}
		dst := make([]byte, v.Count*v.Stride)
		for n := 0; n < len(v.enc); n++ {
			if skip(n, len(v.enc)) {
				continue
			}
			err := Decode(dst, v.Count, v.Stride, v.enc[:n], v.Mode, v.Filter)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s cut to %d bytes: error %v, want an *Error", v.Name, n, err)
			}
		}
		bad := bytes.Clone(v.enc)
		for i := range bad {
			if skip(i, len(bad)) {
				continue
			}
			bad[i] ^= 0x5a
			if err := Decode(dst, v.Count, v.Stride, bad, v.Mode, v.Filter); err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s byte %d changed: %v", v.Name, i, err)
				}
			}
			bad[i] ^= 0x5a
		}
	}
}

func TestErrors(t *testing.T) {
	vs := loadVectors(t)
	find := func(name string) vector {
		for _, v := range vs {
			if v.Name == name {
				return v
			}
		}
		t.Fatalf("no vector %s", name)
		return vector{}
	}
	pos := find("vertex_v0_l2_pos_300x12")
	tri := find("triangles_grid_2")
	seq := find("indices_grid_4")
	extra := func(b []byte) []byte { return append(bytes.Clone(b[:len(b)-1]), 0, b[len(b)-1]) }
	for _, c := range []struct {
		name          string
		src           []byte
		count, stride int
		mode          Mode
		filter        Filter
		want          string
	}{
		{"vertex header", append([]byte{0xa2}, pos.enc[1:]...), 300, 12, Attributes, None, "byte 0: not vertex codec data"},
		{"vertex stride", pos.enc, 300, 6, Attributes, None, "vertex size 6 is not a multiple of 4"},
		{"vertex short", pos.enc[:20], 300, 12, Attributes, None, "too short for the 32-byte tail"},
		{"vertex truncated", append(bytes.Clone(pos.enc[:100]), pos.enc[len(pos.enc)-32:]...), 300, 12, Attributes, None, "run past the data"},
		{"vertex trailing", extra(pos.enc), 300, 12, Attributes, None, "the block data ends here but the tail starts at byte"},
		{"index header", append([]byte{0xe5}, tri.enc[1:]...), tri.Count, 2, Triangles, None, "not index codec data"},
		{"index count", tri.enc, 10, 2, Triangles, None, "index count 10 is not a whole number of triangles"},
		{"index size", tri.enc, tri.Count, 3, Triangles, None, "index size 3 is not 2 or 4"},
		{"index trailing", append(bytes.Clone(tri.enc[:len(tri.enc)-16]), append([]byte{7}, tri.enc[len(tri.enc)-16:]...)...), tri.Count, 2, Triangles, None, "the index data ends here"},
		{"sequence header", append([]byte{0xa0}, seq.enc[1:]...), seq.Count, 4, Indices, None, "not index sequence data"},
		{"sequence short", seq.enc[:10], seq.Count, 4, Indices, None, "too short for"},
		{"filter mode", tri.enc, tri.Count, 2, Triangles, Octahedral, "filter OCTAHEDRAL applies only to mode ATTRIBUTES"},
		{"filter stride", pos.enc, 300, 12, Attributes, Quaternion, "filter QUATERNION needs 8-byte elements, not 12"},
		{"filter unknown", pos.enc, 300, 12, Attributes, "SHINY", `unknown filter "SHINY"`},
		{"mode unknown", pos.enc, 300, 12, "POINTS", None, `unknown mode "POINTS"`},
	} {
		dst := make([]byte, c.count*c.stride)
		err := Decode(dst, c.count, c.stride, c.src, c.mode, c.filter)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestMinEncodedSize(t *testing.T) {
	// Every valid vector is at least as long as the bound says.
	for _, v := range loadVectors(t) {
		if m := MinEncodedSize(v.Mode, v.Count, v.Stride); m < 0 || len(v.enc) < m {
			t.Errorf("%s: %d bytes, MinEncodedSize says at least %d", v.Name, len(v.enc), m)
		}
	}
	if MinEncodedSize(Attributes, 10, 6) != -1 || MinEncodedSize(Triangles, 10, 2) != -1 || MinEncodedSize("X", 1, 4) != -1 {
		t.Error("MinEncodedSize accepts impossible parameters")
	}
}
