package rig

import (
	"math"
	"testing"
)

// TestSmoothstep: the ease's values from its formula worked by hand, its ends
// held, and Clamp01's.
func TestSmoothstep(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{-1, 0}, {0, 0}, {0.25, 0.15625}, {0.5, 0.5}, {0.75, 0.84375}, {1, 1}, {2, 1},
	} {
		if got := Smoothstep(c.x); got != c.want {
			t.Errorf("Smoothstep(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	for _, c := range []struct{ x, want float64 }{{-0.5, 0}, {0.3, 0.3}, {1.5, 1}} {
		if got := Clamp01(c.x); got != c.want {
			t.Errorf("Clamp01(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if !math.IsNaN(Clamp01(math.NaN())) {
		t.Error("Clamp01(NaN) is not NaN")
	}
}
