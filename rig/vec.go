package rig

import "math"

// Vec3 is a point or direction in 3D: x, y, z. It is an array, like Quat and
// Mat4, so that it indexes as v[0] and converts from [3]float64 as it stands.
//
// Every method spells its arithmetic out in a fixed order (a dot product is
// a0·b0 + a1·b1 + a2·b2), and callers rely on that: baked files are compared
// byte for byte, so changing the order of an operation here changes them.
type Vec3 [3]float64

// Add returns v + b.
func (v Vec3) Add(b Vec3) Vec3 { return Vec3{v[0] + b[0], v[1] + b[1], v[2] + b[2]} }

// Sub returns v − b.
func (v Vec3) Sub(b Vec3) Vec3 { return Vec3{v[0] - b[0], v[1] - b[1], v[2] - b[2]} }

// Scale returns v·s.
func (v Vec3) Scale(s float64) Vec3 { return Vec3{v[0] * s, v[1] * s, v[2] * s} }

// Dot returns the dot product v·b.
func (v Vec3) Dot(b Vec3) float64 { return v[0]*b[0] + v[1]*b[1] + v[2]*b[2] }

// Cross returns the cross product v×b (right-handed).
func (v Vec3) Cross(b Vec3) Vec3 {
	return Vec3{v[1]*b[2] - v[2]*b[1], v[2]*b[0] - v[0]*b[2], v[0]*b[1] - v[1]*b[0]}
}

// Len returns the Euclidean length of v.
func (v Vec3) Len() float64 { return math.Sqrt(v.Dot(v)) }

// Normalize returns v scaled to unit length. A vector whose length is zero or
// not a number has no direction and gives the zero vector.
func (v Vec3) Normalize() Vec3 {
	l := v.Len()
	if !(l > 0) {
		return Vec3{}
	}
	return v.Scale(1 / l)
}

// Lerp returns v + (b − v)·u, per component: v at u = 0, b at u = 1.
func (v Vec3) Lerp(b Vec3, u float64) Vec3 {
	return Vec3{v[0] + (b[0]-v[0])*u, v[1] + (b[1]-v[1])*u, v[2] + (b[2]-v[2])*u}
}

// Reject returns the part of v perpendicular to the unit vector n: v − n(v·n).
func (v Vec3) Reject(n Vec3) Vec3 { return v.Sub(n.Scale(v.Dot(n))) }

// Perpendicular returns a unit vector perpendicular to the unit vector v: the
// direction of r×v, where r is the z axis, or the x axis when v is within about
// 25° of z. It is deterministic, so two calls with the same v agree.
func (v Vec3) Perpendicular() Vec3 {
	r := Vec3{0, 0, 1}
	if math.Abs(v[2]) > 0.9 {
		r = Vec3{1, 0, 0}
	}
	return r.Cross(v).Normalize()
}
