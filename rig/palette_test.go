package rig

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAnyNonFinite checks the branch-free test against math.IsNaN/IsInf on every
// exponent and the values around the edges.
func TestAnyNonFinite(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0x7fffffff), math.Float32frombits(0xff800001)}
	for e := range uint32(256) {
		vals = append(vals, math.Float32frombits(e<<23|0x12345), math.Float32frombits(1<<31|e<<23))
	}
	// Every position in slices of 1 to 40 floats, aligned and not (the word path,
	// its unrolled steps, the tail and the odd float).
	buf := make([]float32, 48)
	for _, v := range vals {
		want := math.IsNaN(float64(v)) || math.IsInf(float64(v), 0)
		for _, off := range []int{0, 1} {
			for n := 1; n <= 40; n++ {
				p := buf[off : off+n]
				for k := range p {
					clear(buf)
					p[k] = v
					if got := anyNonFinite(p); got != want {
						t.Fatalf("%v (%#08x) at %d of %d (offset %d): anyNonFinite %v, want %v", v, math.Float32bits(v), k, n, off, got, want)
					}
				}
			}
		}
	}
}

// paletteFloats are float64 values at the edges of float32: its largest, what
// rounds to it and what rounds past it to infinity, its subnormals and the
// halfway points between neighbours, zeros of both signs, infinities and NaNs.
var paletteFloats = []float64{0, math.Copysign(0, -1), 1, -1, math.MaxFloat32, -math.MaxFloat32,
	math.MaxFloat32 * (1 + 0x1p-25), math.MaxFloat32 * (1 + 0x1p-24), -math.MaxFloat32 * (1 + 0x1p-23), 1e39, -1e300, math.MaxFloat64,
	math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat32 / 2, math.SmallestNonzeroFloat32 * 1.5, 1e-46, 5e-324, -1e-40,
	1 + 0x1p-24, 1 + 0x1p-24 + 0x1p-52, 1 + 3*0x1p-24, 0.1, 1.0 / 3,
	math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8_0000_dead_beef)}

// PutPalette writes what PutFloat32 writes, bit for bit (NaNs included: both
// convert with the same instruction semantics), for random matrices and ones
// full of float32's edge values, through any bone mapping (repeats, any order);
// it reports a non-finite float exactly when one was written.
func TestPutPalette(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 32))
	for k := range 3000 {
		global := make([]Mat4, 1+rng.IntN(30))
		for i := range global {
			for e := range global[i] {
				switch {
				case k%2 == 1 && rng.IntN(10) == 0:
					global[i][e] = paletteFloats[rng.IntN(len(paletteFloats))]
				default:
					global[i][e] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
				}
			}
		}
		bones := make([]int, rng.IntN(40))
		for i := range bones {
			bones[i] = rng.IntN(len(global))
		}
		want := make([]float32, 16*len(bones))
		wantFinite := true
		for i, b := range bones {
			global[b].PutFloat32(want[16*i:])
			for _, v := range want[16*i : 16*i+16] {
				wantFinite = wantFinite && !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
			}
		}
		for name, f := range map[string]func([]float32, []Mat4, []int) bool{"PutPalette": PutPalette, "putPaletteGo": putPaletteGo} {
			got := make([]float32, 16*len(bones)+1)
			got[len(got)-1] = 7 // past the palette: must stay
			finite := f(got[:16*len(bones)], global, bones)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					b := bones[i/16]
					t.Fatalf("case %d, %s: float %d (bone %d's %v) is %#08x, PutFloat32 gives %#08x", k, name, i, b, global[b][i%16], math.Float32bits(got[i]), math.Float32bits(want[i]))
				}
			}
			if got[len(got)-1] != 7 {
				t.Fatalf("case %d, %s wrote past the palette", k, name)
			}
			if finite != wantFinite {
				t.Fatalf("case %d, %s: finite %v, want %v", k, name, finite, wantFinite)
			}
		}
	}
}

// PutPalette refuses a palette too short for its bones and a bone outside the
// matrices, as Go indexing would.
func TestPutPalettePanics(t *testing.T) {
	global := make([]Mat4, 3)
	for _, c := range []struct {
		name  string
		dst   int
		bones []int
	}{{"short", 31, []int{0, 1}}, {"past", 32, []int{0, 3}}, {"negative", 32, []int{-1, 0}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			PutPalette(make([]float32, c.dst), global, c.bones)
		}()
	}
}

// BenchmarkPutPalette packs a 24-bone palette, by both ways.
func BenchmarkPutPalette(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	global := make([]Mat4, 24)
	bones := make([]int, 24)
	for i := range global {
		global[i] = randTransform(rng).Matrix()
		bones[i] = i
	}
	dst := make([]float32, 16*24)
	for _, pass := range []struct {
		name string
		f    func([]float32, []Mat4, []int) bool
	}{{"dispatch", PutPalette}, {"go", putPaletteGo}} {
		b.Run(pass.name, func(b *testing.B) {
			for b.Loop() {
				pass.f(dst, global, bones)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/24, "ns/bone")
		})
	}
}
