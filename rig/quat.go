package rig

import "math"

// IdentityQuat returns the rotation that does nothing: {0, 0, 0, 1}.
func IdentityQuat() Quat { return Quat{0, 0, 0, 1} }

// Dot returns the four-component dot product of q and b.
func (q Quat) Dot(b Quat) float64 {
	return q[0]*b[0] + q[1]*b[1] + q[2]*b[2] + q[3]*b[3]
}

// Len returns the Euclidean length of q; a rotation has length 1.
func (q Quat) Len() float64 {
	return math.Sqrt(q.Dot(q))
}

// Normalize returns q scaled to unit length. A zero (or non-finite length)
// quaternion has no direction and gives the identity. Nearly unit input (within
// 1e-9, what a blend of unit quaternions gives) is rescaled without a square root;
// the result is unit to within float64 rounding either way.
func (q Quat) Normalize() Quat {
	n := q.Dot(q)
	var s float64
	if d := n - 1; d > -1e-9 && d < 1e-9 {
		s = 1 - d/2 // 1/√(1+d) = 1 − d/2 + 3d²/8 − …; the rest is below 4e-19
	} else if n > 0 && n <= math.MaxFloat64 {
		s = 1 / math.Sqrt(n)
	} else {
		return IdentityQuat()
	}
	return Quat{q[0] * s, q[1] * s, q[2] * s, q[3] * s}
}

// Mul returns the Hamilton product q·b: the rotation that applies b first, then q.
func (q Quat) Mul(b Quat) Quat {
	ax, ay, az, aw := q[0], q[1], q[2], q[3]
	bx, by, bz, bw := b[0], b[1], b[2], b[3]
	return Quat{
		aw*bx + ax*bw + ay*bz - az*by,
		aw*by - ax*bz + ay*bw + az*bx,
		aw*bz + ax*by - ay*bx + az*bw,
		aw*bw - ax*bx - ay*by - az*bz,
	}
}

// Conjugate returns {-x, -y, -z, w}; for a unit quaternion that is the inverse
// rotation.
func (q Quat) Conjugate() Quat { return Quat{-q[0], -q[1], -q[2], q[3]} }

// Rotate returns v rotated by q. q should have unit length.
func (q Quat) Rotate(v Vec3) Vec3 {
	// v' = v + 2w(u×v) + 2u×(u×v), with u the vector part of q.
	ux, uy, uz, w := q[0], q[1], q[2], q[3]
	cx := uy*v[2] - uz*v[1]
	cy := uz*v[0] - ux*v[2]
	cz := ux*v[1] - uy*v[0]
	cx, cy, cz = 2*cx, 2*cy, 2*cz
	return Vec3{
		v[0] + w*cx + (uy*cz - uz*cy),
		v[1] + w*cy + (uz*cx - ux*cz),
		v[2] + w*cz + (ux*cy - uy*cx),
	}
}

// QuatFromAxisAngle returns the rotation of angle radians about axis (right-handed:
// counter-clockwise looking down the axis towards the origin). The axis need not
// have unit length; a zero axis gives the identity.
func QuatFromAxisAngle(axis Vec3, angle float64) Quat {
	n := math.Sqrt(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2])
	if !(n > 0) || math.IsInf(n, 0) {
		return IdentityQuat()
	}
	s, c := math.Sincos(angle / 2)
	s /= n
	return Quat{axis[0] * s, axis[1] * s, axis[2] * s, c}
}

// slerpParallel is the dot product above which two rotations are treated as
// parallel and Slerp falls back to a normalized lerp: the rotations are then less
// than 2.9e-3 rad apart and the two methods differ by less than 1e-10 rad.
const slerpParallel = 1 - 1e-6

// Slerp interpolates spherically from a (u = 0) to b (u = 1) along the shorter
// arc: when a·b < 0 it uses -b, which is the same rotation. Inputs should have
// unit length. Nearly parallel inputs are blended with a normalized lerp, which
// avoids dividing by a vanishing sine.
func Slerp(a, b Quat, u float64) Quat {
	d := a.Dot(b)
	if d < 0 {
		b = Quat{-b[0], -b[1], -b[2], -b[3]}
		d = -d
	}
	var wa, wb float64
	if d > slerpParallel {
		wa, wb = 1-u, u
		q := Quat{wa*a[0] + wb*b[0], wa*a[1] + wb*b[1], wa*a[2] + wb*b[2], wa*a[3] + wb*b[3]}
		return q.Normalize()
	}
	theta := math.Acos(d)
	invSin := 1 / math.Sqrt(1-d*d)
	// sin((1-u)θ) = sinθ·cos(uθ) − cosθ·sin(uθ), so one Sincos gives both weights.
	su, cu := math.Sincos(u * theta)
	wa = cu - d*su*invSin
	wb = su * invSin
	return Quat{wa*a[0] + wb*b[0], wa*a[1] + wb*b[1], wa*a[2] + wb*b[2], wa*a[3] + wb*b[3]}
}

// Matrix returns the rotation matrix of q (translation zero). q need not have unit
// length: the matrix is that of q's direction (a zero q gives the identity).
func (q Quat) Matrix() Mat4 {
	var r [9]float64
	rotation3(&r, q)
	return Mat4{
		r[0], r[1], r[2], 0,
		r[3], r[4], r[5], 0,
		r[6], r[7], r[8], 0,
		0, 0, 0, 1,
	}
}

// rotation3 writes the row-major 3×3 rotation matrix of q's direction into r.
func rotation3(r *[9]float64, q Quat) {
	x, y, z, w := q[0], q[1], q[2], q[3]
	s := rotationScale(x*x + y*y + z*z + w*w)
	xs, ys, zs := x*s, y*s, z*s
	xx, yy, zz := x*xs, y*ys, z*zs
	xy, xz, yz := x*ys, x*zs, y*zs
	wx, wy, wz := w*xs, w*ys, w*zs
	r[0], r[1], r[2] = 1-(yy+zz), xy-wz, xz+wy
	r[3], r[4], r[5] = xy+wz, 1-(xx+zz), yz-wx
	r[6], r[7], r[8] = xz-wy, yz+wx, 1-(xx+yy)
}

// QuatFromMat3 returns the unit quaternion of a row-major 3×3 rotation matrix
// (orthonormal, determinant +1). Of the two quaternions of a rotation it returns
// the one with w ≥ 0.
func QuatFromMat3(m [9]float64) Quat {
	m00, m01, m02 := m[0], m[1], m[2]
	m10, m11, m12 := m[3], m[4], m[5]
	m20, m21, m22 := m[6], m[7], m[8]
	var q Quat
	// Divide by the largest of 4w², 4x², 4y², 4z² to stay accurate.
	switch tr := m00 + m11 + m22; {
	case tr > 0:
		s := 2 * math.Sqrt(tr+1) // 4w
		q = Quat{(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4}
	case m00 >= m11 && m00 >= m22:
		s := 2 * math.Sqrt(1+m00-m11-m22) // 4x
		q = Quat{s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s}
	case m11 >= m22:
		s := 2 * math.Sqrt(1+m11-m00-m22) // 4y
		q = Quat{(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s}
	default:
		s := 2 * math.Sqrt(1+m22-m00-m11) // 4z
		q = Quat{(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s}
	}
	if q[3] < 0 {
		q = Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	return q.Normalize()
}
