package mot

import (
	"math"
	"math/big"
	"testing"
)

// halfRef evaluates the §3 table with exact big arithmetic, independently of the
// bit manipulation in HalfToFloat32.
func halfRef(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e := int(h>>9) & 63
	m := int64(h & 511)
	switch e {
	case 63:
		if m == 0 {
			return math.Inf(int(s))
		}
		return math.NaN()
	case 0:
		f := new(big.Float).SetMantExp(big.NewFloat(float64(m)), -55)
		v, _ := f.Float64()
		return s * v
	}
	f := new(big.Float).SetMantExp(big.NewFloat(float64(512+m)), e-47-9)
	v, _ := f.Float64()
	return s * v
}

func TestHalfDecodeAllCodes(t *testing.T) {
	for c := range 1 << 16 {
		h := uint16(c)
		got, want := HalfToFloat64(h), halfRef(h)
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Fatalf("%#04x: %v, want NaN", h, got)
			}
			continue
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%#04x: %v, want %v", h, got, want)
		}
	}
}

func TestHalfRoundTripAllCodes(t *testing.T) {
	for c := range 1 << 16 {
		h := uint16(c)
		v := HalfToFloat64(h)
		got := FloatToHalf(v)
		if math.IsNaN(v) {
			if !math.IsNaN(HalfToFloat64(got)) {
				t.Fatalf("NaN %#04x encoded to %#04x", h, got)
			}
			continue
		}
		if got != h {
			t.Fatalf("%#04x (%v) encodes to %#04x", h, v, got)
		}
	}
}

// TestHalfRoundingAllMidpoints checks ties-to-even and the nearest rule at every
// midpoint between adjacent finite codes of the same sign, and just either side.
func TestHalfRoundingAllMidpoints(t *testing.T) {
	for c := 0; c < 0x7DFF; c++ { // positive finite codes whose successor is finite
		lo, hi := uint16(c), uint16(c+1)
		a, b := HalfToFloat64(lo), HalfToFloat64(hi)
		mid := (a + b) / 2 // exact: both have ≤ 10 significant bits
		even := lo
		if lo&1 == 1 {
			even = hi
		}
		if got := FloatToHalf(mid); got != even {
			t.Fatalf("midpoint of %#04x and %#04x: %#04x, want %#04x", lo, hi, got, even)
		}
		if got := FloatToHalf(math.Nextafter(mid, 0)); got != lo {
			t.Fatalf("just under the midpoint of %#04x and %#04x: %#04x", lo, hi, got)
		}
		if got := FloatToHalf(math.Nextafter(mid, 1e9)); got != hi {
			t.Fatalf("just over the midpoint of %#04x and %#04x: %#04x", lo, hi, got)
		}
		if got := FloatToHalf(-mid); got != even|0x8000 {
			t.Fatalf("negative midpoint of %#04x: %#04x", lo, got)
		}
	}
}

// Hand-worked values (docs/formats/mot.md §3).
func TestHalfHandWorked(t *testing.T) {
	for _, c := range []struct {
		h uint16
		v float64
	}{
		{0x5E00, 1},                           // e=47, m=0
		{0xDE00, -1},                          // sign set
		{0x6000, 2},                           // e=48
		{0x5C00, 0.5},                         // e=46, m=0
		{0x5F00, 1.5},                         // m=256
		{0x5E01, 1 + 1.0/512},                 // one ulp above 1
		{0x0001, math.Ldexp(1, -55)},          // smallest subnormal
		{0x01FF, 511 * math.Ldexp(1, -55)},    // largest subnormal
		{0x0200, math.Ldexp(1, -46)},          // smallest normal
		{0x7DFF, (1 + 511.0/512) * (1 << 15)}, // largest finite
		{0x7E00, math.Inf(1)},                 // infinity
		{0x8000, math.Copysign(0, -1)},        // negative zero
		{0x5D33, (1 + 307.0/512) / 2},         // e=46, m=307
	} {
		if got := HalfToFloat64(c.h); math.Float64bits(got) != math.Float64bits(c.v) {
			t.Errorf("decode %#04x = %v, want %v", c.h, got, c.v)
		}
		if got := FloatToHalf(c.v); got != c.h {
			t.Errorf("encode %v = %#04x, want %#04x", c.v, got, c.h)
		}
	}
	// Rounding by hand: 1 + 1/1024 is the tie between 0x5E00 and 0x5E01: even wins.
	if got := FloatToHalf(1 + 1.0/1024); got != 0x5E00 {
		t.Errorf("1+2^-10 = %#04x, want 0x5e00", got)
	}
	// 1 + 3/1024 is the tie between 0x5E01 and 0x5E02: even (0x5E02) wins.
	if got := FloatToHalf(1 + 3.0/1024); got != 0x5E02 {
		t.Errorf("1+3·2^-10 = %#04x, want 0x5e02", got)
	}
	// 65536 is past the largest finite value's midpoint to infinity: Inf.
	if got := FloatToHalf(65536); got != 0x7E00 {
		t.Errorf("65536 = %#04x, want inf", got)
	}
	// 2^-56 is half the smallest subnormal: ties to even gives 0.
	if got := FloatToHalf(math.Ldexp(1, -56)); got != 0 {
		t.Errorf("2^-56 = %#04x, want 0", got)
	}
	if got := FloatToHalf(math.NaN()); !math.IsNaN(HalfToFloat64(got)) {
		t.Errorf("NaN = %#04x", got)
	}
}
