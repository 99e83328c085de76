// The error quadrics of Garland & Heckbert over position and UV, and the small
// vector arithmetic they and the collapse costs share.

package simplify

import "math"

// dims is the largest quadric dimension: position and UV.
const dims = 5

// quadric is a symmetric quadratic form over R^d: xᵀAx + 2bᵀx + c, A stored as
// its upper triangle row by row.
type quadric struct {
	a [dims * (dims + 1) / 2]float64
	b [dims]float64
	c float64
}

func (q *quadric) add(o *quadric) {
	for i := range q.a {
		q.a[i] += o.a[i]
	}
	for i := range q.b {
		q.b[i] += o.b[i]
	}
	q.c += o.c
}

func (q *quadric) eval(x *[dims]float64, d int) float64 {
	r, k := q.c, 0
	for i := range d {
		r += 2 * q.b[i] * x[i]
		for j := i; j < d; j++ {
			if i == j {
				r += q.a[k] * x[i] * x[i]
			} else {
				r += 2 * q.a[k] * x[i] * x[j]
			}
			k++
		}
		k += dims - d // skip the unused columns of this row
	}
	return r
}

// triangleQuadric is Garland & Heckbert 1998's quadric of the triangle through
// p, q, r in R^d, times w: the squared distance to the triangle's affine plane.
// With d = 3 it is the 1997 paper's plane quadric.
func triangleQuadric(p, q, r *[dims]float64, d int, w float64) (out quadric, ok bool) {
	var e1, e2 [dims]float64
	l1, dot := 0.0, 0.0
	for i := range d {
		e1[i] = q[i] - p[i]
		l1 += e1[i] * e1[i]
	}
	if l1 == 0 {
		return out, false
	}
	l1 = math.Sqrt(l1)
	for i := range d {
		e1[i] /= l1
		e2[i] = r[i] - p[i]
		dot += e1[i] * e2[i]
	}
	l2 := 0.0
	for i := range d {
		e2[i] -= dot * e1[i]
		l2 += e2[i] * e2[i]
	}
	if l2 < 1e-30*l1*l1 {
		return out, false
	}
	l2 = math.Sqrt(l2)
	pe1, pe2, pp := 0.0, 0.0, 0.0
	for i := range d {
		e2[i] /= l2
		pe1 += p[i] * e1[i]
		pe2 += p[i] * e2[i]
		pp += p[i] * p[i]
	}
	k := 0
	for i := range d {
		for j := i; j < d; j++ {
			v := -e1[i]*e1[j] - e2[i]*e2[j]
			if i == j {
				v++
			}
			out.a[k] = w * v
			k++
		}
		k += dims - d
		out.b[i] = w * (pe1*e1[i] + pe2*e2[i] - p[i])
	}
	out.c = w * (pp - pe1*pe1 - pe2*pe2)
	return out, true
}

// planeQuadric is the quadric of the plane through p with unit normal n, times w,
// in the position coordinates only.
func planeQuadric(p, n [3]float64, w float64) (out quadric) {
	d := -(n[0]*p[0] + n[1]*p[1] + n[2]*p[2])
	k := 0
	for i := range 3 {
		for j := i; j < 3; j++ {
			out.a[k] = w * n[i] * n[j]
			k++
		}
		k += dims - 3
		out.b[i] = w * d * n[i]
	}
	out.c = w * d * d
	return out
}

func sq(x float64) float64 { return x * x }

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

func scale(a [3]float64, k float64) [3]float64 {
	return [3]float64{a[0] * k, a[1] * k, a[2] * k}
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func add3(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func norm(a [3]float64) float64 { return math.Sqrt(dot(a, a)) }

// normal returns the unit normal and area of triangle w, with group from's
// corner placed at group to's position (from = -1: as it is).
func (s *state) normal(w [3]int, from, to int) ([3]float64, float64) {
	var p [3][3]float64
	for k := range 3 {
		g := s.group[w[k]]
		if g == from {
			g = to
		}
		p[k] = s.pos[g]
	}
	n := cross(sub(p[1], p[0]), sub(p[2], p[0]))
	l := norm(n)
	if l == 0 {
		return n, 0
	}
	return scale(n, 1/l), l / 2
}
