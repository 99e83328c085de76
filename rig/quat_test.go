package rig

import (
	"math"
	"math/rand/v2"
	"testing"
)

func quatNear(t *testing.T, what string, got, want Quat, tol float64) {
	t.Helper()
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

// zRot is the quaternion of angle radians about +z, written out by hand.
func zRot(angle float64) Quat { return Quat{0, 0, math.Sin(angle / 2), math.Cos(angle / 2)} }

func TestQuatBasics(t *testing.T) {
	quatNear(t, "axis-angle", QuatFromAxisAngle(Vec3{0, 0, 2}, math.Pi/2), rot90z, eps)
	quatNear(t, "zero axis", QuatFromAxisAngle(Vec3{}, 1), IdentityQuat(), 0)
	quatNear(t, "90z·90z", rot90z.Mul(rot90z), Quat{0, 0, 1, 0}, eps)
	quatNear(t, "q·conj(q)", rot90z.Mul(rot90z.Conjugate()), IdentityQuat(), eps)
	vecNear(t, "rot90z (1,0,0)", rot90z.Rotate(Vec3{1, 0, 0}), Vec3{0, 1, 0}, eps)

	// x90·z90 applies z first: (1,0,0) → (0,1,0) → (0,0,1).
	x90 := QuatFromAxisAngle(Vec3{1, 0, 0}, math.Pi/2)
	vecNear(t, "(x90·z90) (1,0,0)", x90.Mul(rot90z).Rotate(Vec3{1, 0, 0}), Vec3{0, 0, 1}, eps)

	quatNear(t, "normalize", Quat{0, 0, 3, 4}.Normalize(), Quat{0, 0, .6, .8}, eps)
	quatNear(t, "normalize zero", Quat{}.Normalize(), IdentityQuat(), 0)
	quatNear(t, "normalize NaN", Quat{math.NaN(), 0, 0, 1}.Normalize(), IdentityQuat(), 0)
	if l := (Quat{1, 2, 2, 4}).Len(); l != 5 {
		t.Errorf("Len = %v, want 5", l)
	}

	// Rotate agrees with the rotation matrix.
	rng := rand.New(rand.NewPCG(7, 8))
	for range 100 {
		q := randTransform(rng).Rotation
		v := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		vecNear(t, "Rotate vs Matrix", q.Rotate(v), q.Matrix().TransformVector(v), 1e-12)
	}
}

func TestSlerp(t *testing.T) {
	id := IdentityQuat()
	quatNear(t, "u=0", Slerp(id, rot90z, 0), id, eps)
	quatNear(t, "u=1", Slerp(id, rot90z, 1), rot90z, eps)
	// Half of 90° about z is 45°: (0, 0, sin 22.5°, cos 22.5°).
	quatNear(t, "u=0.5", Slerp(id, rot90z, 0.5), Quat{0, 0, 0.38268343236508984, 0.9238795325112867}, eps)
	quatNear(t, "u=1/3 (constant speed)", Slerp(id, rot90z, 1.0/3), zRot(math.Pi/6), eps)

	// -q is the same rotation as q; the shortest path still goes the 90° way.
	negated := Quat{-rot90z[0], -rot90z[1], -rot90z[2], -rot90z[3]}
	quatNear(t, "negated u=0.5", Slerp(id, negated, 0.5), zRot(math.Pi/4), eps)
	// 270° about z is -90° the short way: the midpoint is -45°.
	quatNear(t, "270° u=0.5", Slerp(id, zRot(3*math.Pi/2), 0.5), zRot(-math.Pi/4), eps)

	// Nearly parallel inputs take the lerp branch and stay accurate.
	small := 1e-4
	quatNear(t, "tiny angle", Slerp(id, zRot(small), 0.25), zRot(small/4), 1e-14)
	// At the branch threshold (half-angle 1.4e-3) the lerp is still within 1e-10.
	quatNear(t, "threshold", Slerp(id, zRot(2.8e-3), 0.3), zRot(0.3*2.8e-3), 1e-10)
	quatNear(t, "same", Slerp(rot90z, rot90z, 0.7), rot90z, eps)

	// Random pairs: the result is unit length and at angle u·θ from a.
	rng := rand.New(rand.NewPCG(9, 10))
	for range 200 {
		a, b := randTransform(rng).Rotation, randTransform(rng).Rotation
		u := rng.Float64()
		q := Slerp(a, b, u)
		if !near(q.Len(), 1, 1e-12) {
			t.Fatalf("Slerp length %v", q.Len())
		}
		full := 2 * math.Acos(math.Min(1, math.Abs(a.Dot(b))))
		part := 2 * math.Acos(math.Min(1, math.Abs(a.Dot(q))))
		if !near(part, u*full, 1e-7) {
			t.Fatalf("Slerp angle %v, want %v·%v", part, u, full)
		}
	}
}

func TestQuatFromMat3(t *testing.T) {
	tests := []struct {
		name string
		m    [9]float64
		want Quat
	}{
		{"identity", [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, IdentityQuat()},
		{"180 x", [9]float64{1, 0, 0, 0, -1, 0, 0, 0, -1}, Quat{1, 0, 0, 0}},
		{"180 y", [9]float64{-1, 0, 0, 0, 1, 0, 0, 0, -1}, Quat{0, 1, 0, 0}},
		{"180 z", [9]float64{-1, 0, 0, 0, -1, 0, 0, 0, 1}, Quat{0, 0, 1, 0}},
		{"90 z", [9]float64{0, -1, 0, 1, 0, 0, 0, 0, 1}, rot90z},
		{"120 diagonal", [9]float64{0, 0, 1, 1, 0, 0, 0, 1, 0}, Quat{.5, .5, .5, .5}},
	}
	for _, tc := range tests {
		quatNear(t, tc.name, QuatFromMat3(tc.m), tc.want, eps)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 500 {
		q := randTransform(rng).Rotation
		m := q.Matrix()
		got := QuatFromMat3([9]float64{m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]})
		if d := math.Abs(got.Dot(q)); !near(d, 1, 1e-12) || got[3] < 0 {
			t.Fatalf("QuatFromMat3(Matrix(%v)) = %v", q, got)
		}
	}
}
