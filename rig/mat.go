package rig

import "math"

// IdentityMat4 returns the 4×4 identity matrix.
func IdentityMat4() Mat4 {
	return Mat4{
		1, 0, 0, 0,
		0, 1, 0, 0,
		0, 0, 1, 0,
		0, 0, 0, 1,
	}
}

// Translate returns the matrix that moves points by v.
func Translate(v Vec3) Mat4 {
	return Mat4{
		1, 0, 0, v[0],
		0, 1, 0, v[1],
		0, 0, 1, v[2],
		0, 0, 0, 1,
	}
}

// At returns element (row r, column c).
func (a *Mat4) At(r, c int) float64 { return a[r*4+c] }

// Mul returns the matrix product a·b (b applies to a point first, then a).
func (a Mat4) Mul(b Mat4) Mat4 {
	var c Mat4
	for r := 0; r < 4; r++ {
		a0, a1, a2, a3 := a[r*4], a[r*4+1], a[r*4+2], a[r*4+3]
		c[r*4+0] = a0*b[0] + a1*b[4] + a2*b[8] + a3*b[12]
		c[r*4+1] = a0*b[1] + a1*b[5] + a2*b[9] + a3*b[13]
		c[r*4+2] = a0*b[2] + a1*b[6] + a2*b[10] + a3*b[14]
		c[r*4+3] = a0*b[3] + a1*b[7] + a2*b[11] + a3*b[15]
	}
	return c
}

// MulAffine returns a·b for two affine matrices (bottom row 0 0 0 1), skipping the
// bottom row's arithmetic; the result's bottom row is exactly 0 0 0 1. For other
// matrices use Mul.
func (a Mat4) MulAffine(b Mat4) Mat4 {
	var c Mat4
	mulAffine(&c, &a, &b)
	return c
}

// mulAffine writes a·b into c, treating both as affine. c may alias neither.
func mulAffine(c, a, b *Mat4) {
	b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
	b4, b5, b6, b7 := b[4], b[5], b[6], b[7]
	b8, b9, b10, b11 := b[8], b[9], b[10], b[11]

	a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
	c[0] = a0*b0 + a1*b4 + a2*b8
	c[1] = a0*b1 + a1*b5 + a2*b9
	c[2] = a0*b2 + a1*b6 + a2*b10
	c[3] = a0*b3 + a1*b7 + a2*b11 + a3

	a0, a1, a2, a3 = a[4], a[5], a[6], a[7]
	c[4] = a0*b0 + a1*b4 + a2*b8
	c[5] = a0*b1 + a1*b5 + a2*b9
	c[6] = a0*b2 + a1*b6 + a2*b10
	c[7] = a0*b3 + a1*b7 + a2*b11 + a3

	a0, a1, a2, a3 = a[8], a[9], a[10], a[11]
	c[8] = a0*b0 + a1*b4 + a2*b8
	c[9] = a0*b1 + a1*b5 + a2*b9
	c[10] = a0*b2 + a1*b6 + a2*b10
	c[11] = a0*b3 + a1*b7 + a2*b11 + a3

	c[12], c[13], c[14], c[15] = 0, 0, 0, 1
}

// Transpose returns a with rows and columns swapped (the column-major order of a
// as a row-major matrix, and back).
func (a Mat4) Transpose() Mat4 {
	return Mat4{
		a[0], a[4], a[8], a[12],
		a[1], a[5], a[9], a[13],
		a[2], a[6], a[10], a[14],
		a[3], a[7], a[11], a[15],
	}
}

// Determinant returns the determinant of a.
func (a Mat4) Determinant() float64 {
	s0, s1, s2, s3, s4, s5, c0, c1, c2, c3, c4, c5 := minors(&a)
	return s0*c5 - s1*c4 + s2*c3 + s3*c2 - s4*c1 + s5*c0
}

// minors returns the 2×2 determinants of the top two rows (s) and the bottom two
// rows (c) used by Laplace expansion along those row pairs.
func minors(a *Mat4) (s0, s1, s2, s3, s4, s5, c0, c1, c2, c3, c4, c5 float64) {
	s0 = a[0]*a[5] - a[1]*a[4]
	s1 = a[0]*a[6] - a[2]*a[4]
	s2 = a[0]*a[7] - a[3]*a[4]
	s3 = a[1]*a[6] - a[2]*a[5]
	s4 = a[1]*a[7] - a[3]*a[5]
	s5 = a[2]*a[7] - a[3]*a[6]
	c0 = a[8]*a[13] - a[9]*a[12]
	c1 = a[8]*a[14] - a[10]*a[12]
	c2 = a[8]*a[15] - a[11]*a[12]
	c3 = a[9]*a[14] - a[10]*a[13]
	c4 = a[9]*a[15] - a[11]*a[13]
	c5 = a[10]*a[15] - a[11]*a[14]
	return
}

// Inverse returns the inverse of a, computed by cofactors. ok is false, and the
// matrix zero, when a is singular (determinant zero) or has non-finite elements.
func (a Mat4) Inverse() (inv Mat4, ok bool) {
	s0, s1, s2, s3, s4, s5, c0, c1, c2, c3, c4, c5 := minors(&a)
	det := s0*c5 - s1*c4 + s2*c3 + s3*c2 - s4*c1 + s5*c0
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return Mat4{}, false
	}
	d := 1 / det
	inv = Mat4{
		(a[5]*c5 - a[6]*c4 + a[7]*c3) * d,
		(-a[1]*c5 + a[2]*c4 - a[3]*c3) * d,
		(a[13]*s5 - a[14]*s4 + a[15]*s3) * d,
		(-a[9]*s5 + a[10]*s4 - a[11]*s3) * d,

		(-a[4]*c5 + a[6]*c2 - a[7]*c1) * d,
		(a[0]*c5 - a[2]*c2 + a[3]*c1) * d,
		(-a[12]*s5 + a[14]*s2 - a[15]*s1) * d,
		(a[8]*s5 - a[10]*s2 + a[11]*s1) * d,

		(a[4]*c4 - a[5]*c2 + a[7]*c0) * d,
		(-a[0]*c4 + a[1]*c2 - a[3]*c0) * d,
		(a[12]*s4 - a[13]*s2 + a[15]*s0) * d,
		(-a[8]*s4 + a[9]*s2 - a[11]*s0) * d,

		(-a[4]*c3 + a[5]*c1 - a[6]*c0) * d,
		(a[0]*c3 - a[1]*c1 + a[2]*c0) * d,
		(-a[12]*s3 + a[13]*s1 - a[14]*s0) * d,
		(a[8]*s3 - a[9]*s1 + a[10]*s0) * d,
	}
	for _, v := range inv {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Mat4{}, false
		}
	}
	return inv, true
}

// TransformPoint returns a applied to the point p (w = 1). a is taken as affine:
// its bottom row is ignored and no perspective divide happens.
func (a Mat4) TransformPoint(p Vec3) Vec3 {
	return Vec3{
		a[0]*p[0] + a[1]*p[1] + a[2]*p[2] + a[3],
		a[4]*p[0] + a[5]*p[1] + a[6]*p[2] + a[7],
		a[8]*p[0] + a[9]*p[1] + a[10]*p[2] + a[11],
	}
}

// TransformVector returns a applied to the direction v (w = 0): the upper-left 3×3
// part only, no translation.
func (a Mat4) TransformVector(v Vec3) Vec3 {
	return Vec3{
		a[0]*v[0] + a[1]*v[1] + a[2]*v[2],
		a[4]*v[0] + a[5]*v[1] + a[6]*v[2],
		a[8]*v[0] + a[9]*v[1] + a[10]*v[2],
	}
}

// Translation returns the translation column of a (elements 3, 7, 11).
func (a Mat4) Translation() Vec3 { return Vec3{a[3], a[7], a[11]} }

// PutFloat32 writes a's 16 elements, row-major, into dst[0:16] as float32 (the BPAT
// palette layout). It panics if dst is shorter than 16.
func (a *Mat4) PutFloat32(dst []float32) {
	// Unrolled: this runs once per bone and frame in a bake.
	d := (*[16]float32)(dst[:16])
	d[0], d[1], d[2], d[3] = float32(a[0]), float32(a[1]), float32(a[2]), float32(a[3])
	d[4], d[5], d[6], d[7] = float32(a[4]), float32(a[5]), float32(a[6]), float32(a[7])
	d[8], d[9], d[10], d[11] = float32(a[8]), float32(a[9]), float32(a[10]), float32(a[11])
	d[12], d[13], d[14], d[15] = float32(a[12]), float32(a[13]), float32(a[14]), float32(a[15])
}

// decomposeTol is how far the bottom row may be from 0 0 0 1, and the
// column directions from orthogonal (as a cosine), for Decompose to report ok.
// glTF matrices are float32, so exact values cannot be expected.
const decomposeTol = 1e-4

// Decompose splits an affine matrix without shear into translation, rotation and
// scale such that Transform.Matrix gives m back. A matrix that mirrors (negative
// determinant) gets a negative x scale. ok is false when m is not affine, has a
// zero-length or non-finite column, or its columns are not orthogonal (shear); the
// transform returned then is still a best effort (the rotation of the columns'
// directions, identity when a column is zero).
func Decompose(m Mat4) (t Transform, ok bool) {
	ok = true
	for _, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return IdentityTransform(), false
		}
	}
	if math.Abs(m[12]) > decomposeTol || math.Abs(m[13]) > decomposeTol ||
		math.Abs(m[14]) > decomposeTol || math.Abs(m[15]-1) > decomposeTol {
		ok = false
	}
	t.Translation = Vec3{m[3], m[7], m[11]}
	cols := [3]Vec3{
		{m[0], m[4], m[8]},
		{m[1], m[5], m[9]},
		{m[2], m[6], m[10]},
	}
	for i, c := range cols {
		t.Scale[i] = c.Len()
	}
	if t.Scale[0] == 0 || t.Scale[1] == 0 || t.Scale[2] == 0 {
		t.Rotation = IdentityQuat()
		return t, false
	}
	a, b, c := cols[0], cols[1], cols[2]
	det := a[0]*(b[1]*c[2]-b[2]*c[1]) - a[1]*(b[0]*c[2]-b[2]*c[0]) + a[2]*(b[0]*c[1]-b[1]*c[0])
	if det < 0 {
		t.Scale[0] = -t.Scale[0]
	}
	for i := range cols {
		for k := range 3 {
			cols[i][k] /= t.Scale[i]
		}
	}
	if math.Abs(cols[0].Dot(cols[1])) > decomposeTol ||
		math.Abs(cols[0].Dot(cols[2])) > decomposeTol ||
		math.Abs(cols[1].Dot(cols[2])) > decomposeTol {
		ok = false
	}
	t.Rotation = QuatFromMat3([9]float64{
		cols[0][0], cols[1][0], cols[2][0],
		cols[0][1], cols[1][1], cols[2][1],
		cols[0][2], cols[1][2], cols[2][2],
	})
	return t, ok
}
