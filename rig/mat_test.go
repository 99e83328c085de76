package rig

import (
	"math"
	"math/rand/v2"
	"testing"
)

const eps = 1e-12

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func matNear(t *testing.T, what string, got, want Mat4, tol float64) {
	t.Helper()
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s: element (%d,%d) = %v, want %v\n got %v\nwant %v", what, i/4, i%4, got[i], want[i], got, want)
			return
		}
	}
}

func vecNear(t *testing.T, what string, got, want Vec3, tol float64) {
	t.Helper()
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

// rot90z is 90° about +z: x → y, y → -x.
var rot90z = Quat{0, 0, math.Sqrt2 / 2, math.Sqrt2 / 2}

func TestTransformMatrixHandComputed(t *testing.T) {
	tests := []struct {
		name string
		tr   Transform
		want Mat4
	}{
		{"identity", IdentityTransform(), IdentityMat4()},
		{
			// R = [0 -1 0; 1 0 0; 0 0 1]; columns scaled by 2, 3, 4; translation last.
			"rot90z scale translate",
			Transform{Translation: Vec3{1, 2, 3}, Rotation: rot90z, Scale: Vec3{2, 3, 4}},
			Mat4{
				0, -3, 0, 1,
				2, 0, 0, 2,
				0, 0, 4, 3,
				0, 0, 0, 1,
			},
		},
		{
			// 90° about +x: y → z, z → -y.
			"rot90x",
			Transform{Rotation: Quat{math.Sqrt2 / 2, 0, 0, math.Sqrt2 / 2}, Scale: Vec3{1, 1, 1}},
			Mat4{
				1, 0, 0, 0,
				0, 0, -1, 0,
				0, 1, 0, 0,
				0, 0, 0, 1,
			},
		},
		{
			// 120° about (1,1,1) cycles the axes x → y → z → x: q = (½, ½, ½, ½).
			"rot120 diagonal, non-unit quaternion",
			Transform{Rotation: Quat{1, 1, 1, 1}, Scale: Vec3{1, 1, 1}},
			Mat4{
				0, 0, 1, 0,
				1, 0, 0, 0,
				0, 1, 0, 0,
				0, 0, 0, 1,
			},
		},
		{
			"zero quaternion is identity rotation",
			Transform{Translation: Vec3{5, 0, 0}, Scale: Vec3{1, 1, 1}},
			Translate(Vec3{5, 0, 0}),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			matNear(t, "Matrix", tc.tr.Matrix(), tc.want, eps)
		})
	}
	// The point (1,0,0): scaled to (2,0,0), rotated to (0,2,0), moved to (1,4,3).
	tr := Transform{Translation: Vec3{1, 2, 3}, Rotation: rot90z, Scale: Vec3{2, 3, 4}}
	vecNear(t, "TransformPoint", tr.Matrix().TransformPoint(Vec3{1, 0, 0}), Vec3{1, 4, 3}, eps)
	vecNear(t, "TransformVector", tr.Matrix().TransformVector(Vec3{1, 0, 0}), Vec3{0, 2, 0}, eps)
	vecNear(t, "Translation", tr.Matrix().Translation(), Vec3{1, 2, 3}, 0)
}

func TestMulHandComputed(t *testing.T) {
	a := Mat4{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	want := Mat4{
		90, 100, 110, 120,
		202, 228, 254, 280,
		314, 356, 398, 440,
		426, 484, 542, 600,
	}
	matNear(t, "a·a", a.Mul(a), want, 0)
	matNear(t, "I·a", IdentityMat4().Mul(a), a, 0)
	matNear(t, "a·I", a.Mul(IdentityMat4()), a, 0)

	r := Transform{Rotation: rot90z, Scale: Vec3{1, 1, 1}}.Matrix()
	matNear(t, "rot90z·rot90z", r.Mul(r), Mat4{-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, eps)
	matNear(t, "translate·translate",
		Translate(Vec3{1, 2, 3}).Mul(Translate(Vec3{10, 20, 30})),
		Translate(Vec3{11, 22, 33}), 0)
	// Order: rotate then translate vs translate then rotate.
	tr := Translate(Vec3{1, 0, 0})
	vecNear(t, "T·R", tr.Mul(r).TransformPoint(Vec3{1, 0, 0}), Vec3{1, 1, 0}, eps)
	vecNear(t, "R·T", r.Mul(tr).TransformPoint(Vec3{1, 0, 0}), Vec3{0, 2, 0}, eps)
	if a.At(2, 1) != 10 || a.At(0, 3) != 4 {
		t.Errorf("At(2,1), At(0,3) = %v, %v; want 10, 4", a.At(2, 1), a.At(0, 3))
	}
	matNear(t, "transpose", a.Transpose(), Mat4{1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16}, 0)
}

func randTransform(rng *rand.Rand) Transform {
	q := Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
	return Transform{
		Translation: Vec3{rng.Float64()*4 - 2, rng.Float64()*4 - 2, rng.Float64()*4 - 2},
		Rotation:    q,
		Scale:       Vec3{0.5 + rng.Float64(), 0.5 + rng.Float64(), 0.5 + rng.Float64()},
	}
}

func TestMulAffineMatchesMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		a, b := randTransform(rng).Matrix(), randTransform(rng).Matrix()
		matNear(t, "MulAffine", a.MulAffine(b), a.Mul(b), 1e-12)
	}
}

func TestInverse(t *testing.T) {
	inv, ok := Translate(Vec3{1, -2, 3}).Inverse()
	if !ok {
		t.Fatal("translation reported singular")
	}
	matNear(t, "inverse translate", inv, Translate(Vec3{-1, 2, -3}), eps)

	inv, ok = Mat4{2, 0, 0, 0, 0, 4, 0, 0, 0, 0, 8, 0, 0, 0, 0, 1}.Inverse()
	if !ok {
		t.Fatal("diagonal reported singular")
	}
	matNear(t, "inverse diag", inv, Mat4{.5, 0, 0, 0, 0, .25, 0, 0, 0, 0, .125, 0, 0, 0, 0, 1}, eps)

	// A non-affine matrix with a hand-checked inverse: a permutation with a twist.
	p := Mat4{
		0, 1, 0, 0,
		0, 0, 1, 0,
		0, 0, 0, 1,
		1, 0, 0, 0,
	}
	inv, ok = p.Inverse()
	if !ok {
		t.Fatal("permutation reported singular")
	}
	matNear(t, "inverse permutation", inv, p.Transpose(), 0)

	for _, m := range []Mat4{
		{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, // rank 2
		{},
		{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, // zero scale on z
		{math.NaN(), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
		{1e-310, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, // the inverse overflows
	} {
		if _, ok := m.Inverse(); ok {
			t.Errorf("Inverse(%v) ok, want singular", m)
		}
	}

	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var m Mat4
		for i := range m {
			m[i] = rng.Float64()*2 - 1
		}
		// Keep the matrix well conditioned so the round trip is tight.
		for i := 0; i < 4; i++ {
			m[i*5] += 4
		}
		inv, ok := m.Inverse()
		if !ok {
			t.Fatalf("Inverse(%v) singular", m)
		}
		matNear(t, "m·inv", m.Mul(inv), IdentityMat4(), 1e-12)
		matNear(t, "inv·m", inv.Mul(m), IdentityMat4(), 1e-12)
		if d := m.Determinant() * inv.Determinant(); !near(d, 1, 1e-12) {
			t.Errorf("det(m)·det(inv) = %v, want 1", d)
		}
	}
}

func TestDecompose(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		tr := randTransform(rng)
		if i%3 == 0 {
			tr.Scale[0] = -tr.Scale[0] // a mirror is representable as a negative x scale
		}
		m := tr.Matrix()
		got, ok := Decompose(m)
		if !ok {
			t.Fatalf("Decompose(%v) not ok", tr)
		}
		matNear(t, "Decompose then Matrix", got.Matrix(), m, 1e-12)
		vecNear(t, "translation", got.Translation, tr.Translation, 0)
		vecNear(t, "scale", got.Scale, tr.Scale, 1e-12)
		if d := math.Abs(got.Rotation.Dot(tr.Rotation)); !near(d, 1, 1e-12) {
			t.Fatalf("rotation %v, want ±%v", got.Rotation, tr.Rotation)
		}
	}
	// A mirror in y comes back as a mirror in x with a compensating rotation.
	mirrorY := Transform{Rotation: IdentityQuat(), Scale: Vec3{1, -1, 1}}.Matrix()
	got, ok := Decompose(mirrorY)
	if !ok || got.Scale[0] >= 0 {
		t.Fatalf("Decompose(mirror y) = %v, %v", got, ok)
	}
	matNear(t, "mirror y", got.Matrix(), mirrorY, 1e-12)

	bad := []struct {
		name string
		m    Mat4
	}{
		{"shear", Mat4{1, 0.5, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
		{"projective", Mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0}},
		{"zero column", Mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"NaN", Mat4{math.NaN(), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
	}
	for _, tc := range bad {
		if got, ok := Decompose(tc.m); ok {
			t.Errorf("Decompose(%s) = %v, ok; want not ok", tc.name, got)
		}
	}
}

func TestPutFloat32(t *testing.T) {
	m := Transform{Translation: Vec3{1, 2, 3}, Rotation: rot90z, Scale: Vec3{2, 3, 4}}.Matrix()
	dst := make([]float32, 17)
	dst[16] = 99
	m.PutFloat32(dst)
	want := []float32{0, -3, 0, 1, 2, 0, 0, 2, 0, 0, 4, 3, 0, 0, 0, 1, 99}
	for i := range want {
		if math.Abs(float64(dst[i]-want[i])) > 1e-7 {
			t.Fatalf("PutFloat32 = %v, want %v", dst, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("PutFloat32 into 15 floats did not panic")
		}
	}()
	m.PutFloat32(make([]float32, 15))
}
