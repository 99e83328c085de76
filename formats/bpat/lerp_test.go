package bpat

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// TestLerpMatchesScalar compares Lerp (vectorized where the platform allows) with
// the plain float32 formula bit for bit, for every length up to 70 and odd t.
func TestLerpMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 70; n++ {
		a, b, dst := make([]float32, n), make([]float32, n), make([]float32, n+1)
		for i := range a {
			a[i] = float32(rng.NormFloat64() * 100)
			b[i] = float32(rng.NormFloat64() * 100)
		}
		for _, tt := range []float32{0, 0.3, 0.999, 1, -0.5} {
			dst[n] = 42
			Lerp(dst, a, b, tt)
			for i := range a {
				want := a[i] + float32((b[i]-a[i])*tt) // rounded after the product, like the SSE loop
				if math.Float32bits(dst[i]) != math.Float32bits(want) {
					t.Fatalf("n=%d t=%v i=%d: %v, want %v", n, tt, i, dst[i], want)
				}
			}
			if dst[n] != 42 {
				t.Fatalf("n=%d: wrote past len(a)", n)
			}
		}
	}
}

// TestDecodingPath runs the reader and writer as they run on a big-endian host
// (explicit decoding, no zero-copy views) and checks they agree with the fast path.
func TestDecodingPath(t *testing.T) {
	c := testContents(0, 3, []int{4, 2}, true, []Socket{{"s", 2, [3]float32{1, 2, 3}}})
	fast := write(t, c)
	binfmt.LittleEndianHost = false
	defer func() { binfmt.LittleEndianHost = true }()
	slow := write(t, c)
	if string(fast) != string(slow) {
		t.Fatal("the converting writer differs from the direct one")
	}
	f, err := Parse(slow)
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Clips {
		for fr := 0; fr < len(c.Palettes[i])/48; fr++ {
			if !equalFloats(f.Palette(i, fr), c.Palettes[i][fr*48:(fr+1)*48]) {
				t.Fatalf("clip %d frame %d differs on the decoding path", i, fr)
			}
		}
	}
}
