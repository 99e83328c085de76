package rig

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestVec3Arithmetic(t *testing.T) {
	a, b := Vec3{1, 2, 3}, Vec3{-4, 0.5, 2}
	if got := a.Add(b); got != (Vec3{-3, 2.5, 5}) {
		t.Errorf("Add = %v", got)
	}
	if got := a.Sub(b); got != (Vec3{5, 1.5, 1}) {
		t.Errorf("Sub = %v", got)
	}
	if got := a.Scale(-2); got != (Vec3{-2, -4, -6}) {
		t.Errorf("Scale = %v", got)
	}
	if got := a.Dot(b); got != -4+1+6 {
		t.Errorf("Dot = %v", got)
	}
	if got := a.Len(); got != math.Sqrt(14) {
		t.Errorf("Len = %v", got)
	}
	// Right-handed: x × y = z, y × z = x, z × x = y.
	x, y, z := Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}
	if x.Cross(y) != z || y.Cross(z) != x || z.Cross(x) != y {
		t.Errorf("Cross is not right-handed: %v %v %v", x.Cross(y), y.Cross(z), z.Cross(x))
	}
	if got := a.Lerp(b, 0.25); got != (Vec3{1 - 1.25, 2 - 0.375, 3 - 0.25}) {
		t.Errorf("Lerp = %v", got)
	}
	if a.Lerp(b, 0) != a || a.Lerp(b, 1) != b {
		t.Errorf("Lerp ends: %v %v", a.Lerp(b, 0), a.Lerp(b, 1))
	}
	if got := (Vec3{3, 4, 5}).Reject(z); got != (Vec3{3, 4, 0}) {
		t.Errorf("Reject = %v", got)
	}
}

func TestVec3Normalize(t *testing.T) {
	vecNear(t, "Normalize", (Vec3{0, 3, -4}).Normalize(), Vec3{0, 0.6, -0.8}, 1e-15)
	for _, v := range []Vec3{{}, {math.NaN(), 1, 0}} {
		if got := v.Normalize(); got != (Vec3{}) {
			t.Errorf("Normalize(%v) = %v, want zero", v, got)
		}
	}
}

func TestVec3Perpendicular(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dirs := []Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}}
	for range 100 {
		dirs = append(dirs, Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize())
	}
	for _, d := range dirs {
		p := d.Perpendicular()
		if math.Abs(p.Dot(d)) > 1e-12 || math.Abs(p.Len()-1) > 1e-12 {
			t.Errorf("Perpendicular(%v) = %v: dot %g, length %g", d, p, p.Dot(d), p.Len())
		}
	}
}
