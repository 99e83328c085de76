package registry

import "math"

// Mat34 is an affine transform as the top three rows of a 4×4 matrix, row-major:
// the layout of a BPAT socket (docs/formats/bpat.md §2). The translation is
// elements 3, 7 and 11; the bottom row is implicitly (0, 0, 0, 1). Species.Socket
// returns sockets in this form, in model space.
type Mat34 [12]float32

// Identity34 is the identity transform.
var Identity34 = Mat34{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}

// Place is a unit's model-to-world transform: a turn of heading radians about +y
// (heading 0 faces +z; heading h faces (sin h, 0, cos h)), then a move to (x, y, z).
// Place(x, y, z, heading).Mul(socket) is a model-space socket in the world.
func Place(x, y, z, heading float32) Mat34 {
	s, c := math.Sincos(float64(heading))
	sn, cs := float32(s), float32(c)
	return Mat34{
		cs, 0, sn, x,
		0, 1, 0, y,
		-sn, 0, cs, z,
	}
}

// Mul returns m·n: the transform that applies n, then m.
func (m Mat34) Mul(n Mat34) Mat34 {
	var o Mat34
	for r := range 3 {
		a0, a1, a2 := m[r*4], m[r*4+1], m[r*4+2]
		for c := range 4 {
			o[r*4+c] = a0*n[c] + a1*n[4+c] + a2*n[8+c]
		}
		o[r*4+3] += m[r*4+3]
	}
	return o
}

// Point transforms a point.
func (m Mat34) Point(p [3]float32) [3]float32 {
	return [3]float32{
		m[0]*p[0] + m[1]*p[1] + m[2]*p[2] + m[3],
		m[4]*p[0] + m[5]*p[1] + m[6]*p[2] + m[7],
		m[8]*p[0] + m[9]*p[1] + m[10]*p[2] + m[11],
	}
}

// Translation is where the transform puts the origin: elements 3, 7 and 11.
func (m Mat34) Translation() [3]float32 { return [3]float32{m[3], m[7], m[11]} }

// Mat4 is the full 4×4 matrix, row-major, with the bottom row (0, 0, 0, 1). A
// shader that takes column-major matrices (GLSL, WebGL) reads its transpose.
func (m Mat34) Mat4() [16]float32 {
	return [16]float32{m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10], m[11], 0, 0, 0, 1}
}
