package rig

import "math"

// IdentityTransform returns the transform that does nothing: zero translation,
// identity rotation {0, 0, 0, 1}, unit scale.
func IdentityTransform() Transform {
	return Transform{Rotation: Quat{0, 0, 0, 1}, Scale: Vec3{1, 1, 1}}
}

// Matrix returns T·R·S as a row-major affine matrix: a point is scaled, then
// rotated, then translated. The rotation need not have unit length (its direction
// is used; a zero rotation counts as the identity).
func (t Transform) Matrix() Mat4 {
	var m Mat4
	localMatrix(&m, &t)
	return m
}

// IsFinite reports whether every number in t is finite.
func (t Transform) IsFinite() bool {
	for _, v := range t.Translation {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	for _, v := range t.Rotation {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	for _, v := range t.Scale {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// localMatrix writes t's T·R·S matrix into m.
func localMatrix(m *Mat4, t *Transform) {
	var r [9]float64
	rotation3(&r, t.Rotation)
	sx, sy, sz := t.Scale[0], t.Scale[1], t.Scale[2]
	m[0], m[1], m[2], m[3] = r[0]*sx, r[1]*sy, r[2]*sz, t.Translation[0]
	m[4], m[5], m[6], m[7] = r[3]*sx, r[4]*sy, r[5]*sz, t.Translation[1]
	m[8], m[9], m[10], m[11] = r[6]*sx, r[7]*sy, r[8]*sz, t.Translation[2]
	m[12], m[13], m[14], m[15] = 0, 0, 0, 1
}

// childMatrix writes parent·(T·R·S of t) into m without building the local matrix
// in memory; parent must be affine and must not alias m. It is localMatrix then
// mulAffine written out as one: ModelSpace runs it once per bone and frame, and
// keeping the local matrix in registers is most of its speed. Building the local
// matrix in memory instead gives the same bits on amd64 by default but not where
// the compiler fuses multiply-adds (GOAMD64=v3, arm64), which would change the
// baked files there; so the two stay written out.
func childMatrix(m, parent *Mat4, t *Transform) {
	x, y, z, w := t.Rotation[0], t.Rotation[1], t.Rotation[2], t.Rotation[3]
	s := rotationScale(x*x + y*y + z*z + w*w)
	xs, ys, zs := x*s, y*s, z*s
	xx, yy, zz := x*xs, y*ys, z*zs
	xy, xz, yz := x*ys, x*zs, y*zs
	wx, wy, wz := w*xs, w*ys, w*zs
	sx, sy, sz := t.Scale[0], t.Scale[1], t.Scale[2]
	// Local matrix l, top three rows (the bottom row is 0 0 0 1).
	l0, l1, l2, l3 := (1-(yy+zz))*sx, (xy-wz)*sy, (xz+wy)*sz, t.Translation[0]
	l4, l5, l6, l7 := (xy+wz)*sx, (1-(xx+zz))*sy, (yz-wx)*sz, t.Translation[1]
	l8, l9, l10, l11 := (xz-wy)*sx, (yz+wx)*sy, (1-(xx+yy))*sz, t.Translation[2]

	p0, p1, p2, p3 := parent[0], parent[1], parent[2], parent[3]
	m[0] = p0*l0 + p1*l4 + p2*l8
	m[1] = p0*l1 + p1*l5 + p2*l9
	m[2] = p0*l2 + p1*l6 + p2*l10
	m[3] = p0*l3 + p1*l7 + p2*l11 + p3

	p0, p1, p2, p3 = parent[4], parent[5], parent[6], parent[7]
	m[4] = p0*l0 + p1*l4 + p2*l8
	m[5] = p0*l1 + p1*l5 + p2*l9
	m[6] = p0*l2 + p1*l6 + p2*l10
	m[7] = p0*l3 + p1*l7 + p2*l11 + p3

	p0, p1, p2, p3 = parent[8], parent[9], parent[10], parent[11]
	m[8] = p0*l0 + p1*l4 + p2*l8
	m[9] = p0*l1 + p1*l5 + p2*l9
	m[10] = p0*l2 + p1*l6 + p2*l10
	m[11] = p0*l3 + p1*l7 + p2*l11 + p3

	m[12], m[13], m[14], m[15] = 0, 0, 0, 1
}

// rotationScale returns 2/n for a quaternion of squared length n (0 when n is not
// positive), the factor that makes the rotation matrix that of q's direction.
// Quaternions out of a sampler are unit to within rounding; for them 2·(2−n) equals
// 2/n to within 2(n−1)², far below float64 resolution, and avoids a slow division.
func rotationScale(n float64) float64 {
	if d := n - 1; d > -1e-9 && d < 1e-9 {
		return 2 * (1 - d)
	}
	if n > 0 {
		return 2 / n
	}
	return 0
}
