package rig

import (
	"fmt"
	"math"
)

// TwoBoneIK bends a three-joint chain (upper → lower → end, each the parent of
// the next, like hip → knee → foot) so that the end bone's origin reaches target,
// by changing only local[upper].Rotation and local[lower].Rotation. target and
// pole are model-space points. The chain bends in the plane through the upper
// joint, the target and pole: the middle joint ends up on pole's side of the line
// from the upper joint to the target (pass upperJoint + direction to steer by a
// direction). It reports whether the target was within reach; a target farther
// than the two bones' lengths is clamped to the straight limb pointing at it, one
// nearer than their difference to the folded limb pointing at it.
//
// The middle joint works as a hinge: the lower bone turns about the axis normal
// to the limb's current plane (or, for a straight limb, about the axis that bends
// it toward pole), then the whole limb turns about the upper joint, first the
// shortest way onto the target, then about the line to the target onto the pole
// side. So the limb keeps its twist when it is already bent toward pole.
//
// Bone lengths are those of the current pose (translations, scaled by ancestors),
// and they do not change. Ancestors of upper and the two bones may carry uniform
// scale; non-uniform scale above the end bone is not supported. The result is
// deterministic, has no NaN for degenerate input (target at the upper joint, a
// straight or folded limb, pole on the line to the target: then the current bend
// plane is kept, or an arbitrary fixed one is used), and the call does not
// allocate: the ancestors' model matrices are composed on the way up the chain.
//
// It panics if the indices are out of range or the bones do not form a chain.
func (s *Skeleton) TwoBoneIK(local []Transform, upper, lower, end int, target, pole [3]float64) (reached bool) {
	n := len(s.Parents)
	if upper < 0 || end >= n || lower < 0 || end < 0 || lower >= n ||
		s.Parents[lower] != upper || s.Parents[end] != lower || len(local) < n {
		panic(fmt.Sprintf("rig: TwoBoneIK: bones %d, %d, %d are not a parent → child → grandchild chain of this %d-bone skeleton (with %d local transforms)",
			upper, lower, end, n, len(local)))
	}

	// The model matrix and rotation of upper's parent, composed bottom-up.
	parent := IdentityMat4()
	qp := IdentityQuat()
	for b := s.Parents[upper]; b >= 0; b = s.Parents[b] {
		var m, out Mat4
		localMatrix(&m, &local[b])
		mulAffine(&out, &m, &parent)
		parent = out
		qp = local[b].Rotation.Normalize().Mul(qp)
	}
	var mu, ml Mat4
	childMatrix(&mu, &parent, &local[upper])
	childMatrix(&ml, &mu, &local[lower])
	a := mu.Translation()
	b := ml.Translation()
	c := ml.TransformPoint(local[end].Translation)

	ab, bc := vsub(b, a), vsub(c, b)
	l1, l2 := vlen(ab), vlen(bc)
	reach := l1 + l2
	if !(reach > 0) || math.IsInf(reach, 0) {
		return false // no length to bend, or a broken pose
	}
	tiny := 1e-12 * reach

	// The direction to the target (kept as the limb's when the target sits on the
	// upper joint) and the distance the limb must span.
	tv := vsub(target, a)
	dist := vlen(tv)
	var u [3]float64
	switch {
	case dist > tiny:
		u = vscale(tv, 1/dist)
	case vlen(vsub(c, a)) > tiny:
		u = vunit(vsub(c, a))
	case l1 > tiny:
		u = vunit(ab)
	default:
		u = vunit(bc)
	}
	lo := math.Abs(l1 - l2)
	reached = dist >= lo-1e-9*reach && dist <= reach+1e-9*reach
	span := math.Min(math.Max(dist, math.Max(lo, 1e-6*reach)), reach)

	// The hinge axis of the middle joint.
	var h [3]float64
	ba := vscale(ab, -1)
	if hc := vcross(bc, ba); vlen(hc) > 1e-9*l1*l2 {
		h = vunit(hc)
	} else {
		w := u
		if l1 > tiny {
			w = vunit(ab)
		}
		nrm := vreject(vsub(pole, a), w)
		if vlen(nrm) <= tiny {
			nrm = vreject(vsub(pole, a), u)
		}
		if vlen(nrm) <= tiny {
			nrm = anyPerpendicular(w)
		}
		h = vunit(vcross(nrm, w))
	}

	// Step 1: the middle joint opens or closes to the interior angle that spans
	// the distance (law of cosines).
	dKnee := IdentityQuat()
	c1 := c
	if l1 > tiny && l2 > tiny {
		cur := math.Acos(clamp1(vdot(ba, bc) / (l1 * l2)))
		want := math.Acos(clamp1((l1*l1 + l2*l2 - span*span) / (2 * l1 * l2)))
		dKnee = QuatFromAxisAngle(h, cur-want)
		c1 = vadd(b, dKnee.Rotate(bc))
	}

	// Step 2: the whole limb turns about the upper joint, the shortest way, so
	// that the end points at the target.
	dAim := IdentityQuat()
	if from := vsub(c1, a); vlen(from) > tiny {
		dAim = shortestArc(vunit(from), u, h)
	}

	// Step 3: it turns about the line to the target until the middle joint is on
	// the pole's side.
	dPole := IdentityQuat()
	knee := vreject(dAim.Rotate(ab), u)
	side := vreject(vsub(pole, a), u)
	if vlen(knee) > 1e-9*reach && vlen(side) > tiny {
		angle := math.Atan2(vdot(u, vcross(knee, side)), vdot(knee, side))
		dPole = QuatFromAxisAngle(u, angle)
	}

	// Model-space turns → local rotations: the upper bone's frame is qp·ru.
	ru := local[upper].Rotation.Normalize()
	qu := qp.Mul(ru)
	turn := dPole.Mul(dAim)
	local[upper].Rotation = qp.Conjugate().Mul(turn).Mul(qu).Normalize()
	rl := local[lower].Rotation.Normalize()
	local[lower].Rotation = qu.Conjugate().Mul(dKnee).Mul(qu).Mul(rl).Normalize()
	return reached
}

// shortestArc returns the smallest rotation that turns unit vector from onto unit
// vector to; for opposite vectors it turns half a turn about fallback (a unit
// vector perpendicular to from) or, when that is not perpendicular, about any
// axis perpendicular to from.
func shortestArc(from, to, fallback [3]float64) Quat {
	d := vdot(from, to)
	if d < -1+1e-12 {
		axis := vreject(fallback, from)
		if vlen(axis) < 1e-6 {
			axis = anyPerpendicular(from)
		}
		axis = vunit(axis)
		return Quat{axis[0], axis[1], axis[2], 0}
	}
	x := vcross(from, to)
	return Quat{x[0], x[1], x[2], 1 + d}.Normalize()
}

// anyPerpendicular returns a unit vector perpendicular to v (which must not be
// zero), chosen deterministically from the coordinate axis least aligned with v.
func anyPerpendicular(v [3]float64) [3]float64 {
	ax, ay, az := math.Abs(v[0]), math.Abs(v[1]), math.Abs(v[2])
	var e [3]float64
	switch {
	case ax <= ay && ax <= az:
		e = [3]float64{1, 0, 0}
	case ay <= az:
		e = [3]float64{0, 1, 0}
	default:
		e = [3]float64{0, 0, 1}
	}
	return vunit(vcross(v, e))
}

func clamp1(x float64) float64 { return math.Max(-1, math.Min(1, x)) }

func vadd(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func vsub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func vscale(a [3]float64, s float64) [3]float64 {
	return [3]float64{a[0] * s, a[1] * s, a[2] * s}
}
func vdot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func vcross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func vlen(a [3]float64) float64 { return math.Sqrt(vdot(a, a)) }

// vunit returns a scaled to unit length, or zero for a zero vector.
func vunit(a [3]float64) [3]float64 {
	l := vlen(a)
	if !(l > 0) {
		return [3]float64{}
	}
	return vscale(a, 1/l)
}

// vreject returns the part of a perpendicular to the unit vector n.
func vreject(a, n [3]float64) [3]float64 { return vsub(a, vscale(n, vdot(a, n))) }
