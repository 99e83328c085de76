package mot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
)

// tracksOf returns m's evaluated tracks, the encoder's input.
func tracksOf(t testing.TB, m *Motion) []Track {
	vals, err := m.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Track, len(m.Records))
	for i, r := range m.Records {
		out[i] = Track{Bone: r.Bone, Track: r.Track, Values: vals[i]}
	}
	return out
}

// checkEncoded writes and re-parses the encoded motion and checks every decoded
// value against the input, independently of the encoder's own error report.
func checkEncoded(t *testing.T, enc *Motion, choices []Choice, in []Track, tol float64) []byte {
	t.Helper()
	b, err := enc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer // WriteTo writes what Marshal returns
	if n, err := enc.WriteTo(&w); err != nil || n != int64(len(b)) || !bytes.Equal(w.Bytes(), b) {
		t.Fatalf("WriteTo: %d bytes, %v; Marshal: %d bytes", n, err, len(b))
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := back.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range in {
		worst := 0.0
		for x, v := range tr.Values {
			worst = max(worst, math.Abs(v-vals[i][x]))
		}
		if worst > tol {
			t.Errorf("track %d (bone %d, track %d, type %d): error %g > %g", i, tr.Bone, tr.Track, choices[i].Type, worst, tol)
		}
		if worst != choices[i].Error {
			t.Errorf("track %d: reported error %g, measured %g", i, choices[i].Error, worst)
		}
	}
	return b
}

// The game's own file is an encoding of the same values by the game's own
// encoder, with no error at all: the encoder, within 1e-3, searches the record
// types the game used, so it must do at least as well, in every family, the
// Bayonetta 1 default set included.
func TestEncodeRealFile(t *testing.T) {
	p := shared(t, "pl000f_0a25.wiiu-be.mot")
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	in := tracksOf(t, m)
	const tol = 1e-3
	for _, c := range []struct {
		f     Family
		types TypeSet
	}{{Bayo2, Readable}, {Bayo1, Readable}, {Bayo1, AllTypes}} {
		enc, choices, err := Encode(c.f, binary.BigEndian, m.Frames, in, tol, c.types)
		if err != nil {
			t.Fatal(err)
		}
		b := checkEncoded(t, enc, choices, in, tol)
		if c.f == Bayo1 && c.types == Readable {
			checkReadableTypes(t, enc)
		}
		t.Logf("%s (type set %d): original %d bytes, encoded %d bytes", c.f, c.types, len(orig), len(b))
		if len(b) > len(orig) {
			t.Errorf("%s (type set %d): encoded %d bytes, more than the game's %d", c.f, c.types, len(b), len(orig))
		}
	}
}

// encodeTargets are the families and type sets the encoder is tried with.
var encodeTargets = []struct {
	f     Family
	types TypeSet
}{{Bayo1, Readable}, {Bayo1, AllTypes}, {Bayo2, Readable}}

// Every family and several tolerances over the synthetic tracks; a zero
// tolerance must still be met (plain floats hold float32 input exactly).
func TestEncodeSynthetic(t *testing.T) {
	for _, name := range goldenFiles[1:] {
		m, err := Open(shared(t, "../mot/"+name))
		if err != nil {
			t.Fatal(err)
		}
		in := tracksOf(t, m)
		for _, ft := range encodeTargets {
			f := ft.f
			for _, tol := range []float64{1e-2, 1e-4, 0} {
				if tol == 0 {
					// Hermite values are not float32: round them so that exact is possible.
					for i := range in {
						for x := range in[i].Values {
							in[i].Values[x] = float64(float32(in[i].Values[x]))
						}
					}
				}
				enc, choices, err := Encode(f, binary.LittleEndian, m.Frames, in, tol, ft.types)
				if err != nil {
					t.Fatal(err)
				}
				checkEncoded(t, enc, choices, in, tol)
				if f == Bayo1 && ft.types == Readable {
					checkReadableTypes(t, enc)
				}
			}
		}
	}
}

// A constant track is type 0; a straight line fits two keys.
func TestEncodeChoosesSmallTypes(t *testing.T) {
	n := 100
	flat, line := make([]float64, n), make([]float64, n)
	for x := range n {
		flat[x] = 0.25
		line[x] = float64(x) / float64(n-1) * 255 / 256 // both ends exact with dP = 1/256
	}
	_, ch, err := Encode(Bayo2, binary.LittleEndian, n, []Track{{0, 0, flat}, {0, 1, line}}, 1e-3, Readable)
	if err != nil {
		t.Fatal(err)
	}
	if ch[0].Type != 0 || ch[0].Error != 0 {
		t.Errorf("constant: %+v", ch[0])
	}
	if ch[1].Type != 7 || ch[1].Size != 12+4*2 {
		t.Errorf("line: %+v, want type 7 with 2 keys", ch[1])
	}
}

// checkReadableTypes checks that a Bayonetta 1 motion holds only the types that
// bayonetta_tools opens (its MOTFile.interpolation_type_selector: 0, 1, 4, 6, 7).
func checkReadableTypes(t *testing.T, m *Motion) {
	t.Helper()
	for i, r := range m.Records {
		switch r.Type {
		case 0, 1, 4, 6, 7:
		default:
			t.Errorf("record %d (bone %d, track %d): Bayonetta 1 type %d, which bayonetta_tools does not open", i, r.Bone, r.Track, r.Type)
		}
	}
}

// Tracks encode in parallel: the motion's bytes and the choices are those of a
// single worker, whatever the number of workers, in every family and type set,
// for the real motion and the synthetic ones.
func TestEncodeParallelSameBytes(t *testing.T) {
	files := goldenFiles
	if testing.Short() {
		files = files[1:] // the synthetic motions only: the real one takes a second
	}
	for _, name := range files {
		m, err := Open(shared(t, "../mot/"+name))
		if err != nil {
			t.Fatal(err)
		}
		in := tracksOf(t, m)
		for _, ft := range encodeTargets {
			one, oneChoices, err := encode(ft.f, binary.BigEndian, m.Frames, in, 1e-3, ft.types, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := one.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{2, 3, 8, len(in) + 5} {
				par, choices, err := encode(ft.f, binary.BigEndian, m.Frames, in, 1e-3, ft.types, workers, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := par.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) || !slices.Equal(choices, oneChoices) {
					t.Fatalf("%s, family %v, types %v: %d workers encode differently from one", name, ft.f, ft.types, workers)
				}
			}
		}
	}
}

// Values sampled from a piecewise cubic give its knots back: a Hermite curve
// with keys at 0, 7, 20 and 31 (tangents arbitrary), sampled at every frame.
func TestKnotFrames(t *testing.T) {
	keys := []int{0, 7, 20, 31}
	p := []float64{0.5, -1.25, 2, 0.75}
	m := []float64{0.1, 0.9, -0.4, 0.3}
	v := make([]float64, 32)
	for k := 0; k+1 < len(keys); k++ {
		f0, f1 := keys[k], keys[k+1]
		d := float64(f1 - f0)
		for f := f0; f <= f1; f++ {
			u := float64(f-f0) / d
			h00, h10 := 2*u*u*u-3*u*u+1, u*u*u-2*u*u+u
			h01, h11 := -2*u*u*u+3*u*u, u*u*u-u*u
			v[f] = h00*p[k] + h10*d*m[k] + h01*p[k+1] + h11*d*m[k+1]
		}
	}
	if got := knotFrames(v); fmt.Sprint(got) != fmt.Sprint(keys) {
		t.Errorf("knots %v, want %v", got, keys)
	}
	noisy := append([]float64(nil), v...)
	for f := range noisy {
		noisy[f] += float64(f%3) * 0.01
	}
	if got := knotFrames(noisy); got != nil {
		t.Errorf("noise gave knots %v, want none", got)
	}
}
