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
func (s *Skeleton) TwoBoneIK(local []Transform, upper, lower, end int, target, pole Vec3) (reached bool) {
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

	ab, bc := b.Sub(a), c.Sub(b)
	l1, l2 := ab.Len(), bc.Len()
	reach := l1 + l2
	if !(reach > 0) || math.IsInf(reach, 0) {
		return false // no length to bend, or a broken pose
	}
	tiny := 1e-12 * reach

	// The direction to the target (kept as the limb's when the target sits on the
	// upper joint) and the distance the limb must span.
	tv := target.Sub(a)
	dist := tv.Len()
	var u Vec3
	switch {
	case dist > tiny:
		u = tv.Scale(1 / dist)
	case c.Sub(a).Len() > tiny:
		u = c.Sub(a).Normalize()
	case l1 > tiny:
		u = ab.Normalize()
	default:
		u = bc.Normalize()
	}
	lo := math.Abs(l1 - l2)
	reached = dist >= lo-1e-9*reach && dist <= reach+1e-9*reach
	span := math.Min(math.Max(dist, math.Max(lo, 1e-6*reach)), reach)

	// The hinge axis of the middle joint.
	var h Vec3
	ba := ab.Scale(-1)
	if hc := bc.Cross(ba); hc.Len() > 1e-9*l1*l2 {
		h = hc.Normalize()
	} else {
		w := u
		if l1 > tiny {
			w = ab.Normalize()
		}
		nrm := pole.Sub(a).Reject(w)
		if nrm.Len() <= tiny {
			nrm = pole.Sub(a).Reject(u)
		}
		if nrm.Len() <= tiny {
			nrm = w.Perpendicular()
		}
		h = nrm.Cross(w).Normalize()
	}

	// Step 1: the middle joint opens or closes to the interior angle that spans
	// the distance (law of cosines).
	dKnee := IdentityQuat()
	c1 := c
	if l1 > tiny && l2 > tiny {
		cur := math.Acos(clamp1(ba.Dot(bc) / (l1 * l2)))
		want := math.Acos(clamp1((l1*l1 + l2*l2 - span*span) / (2 * l1 * l2)))
		dKnee = QuatFromAxisAngle(h, cur-want)
		c1 = b.Add(dKnee.Rotate(bc))
	}

	// Step 2: the whole limb turns about the upper joint, the shortest way, so
	// that the end points at the target.
	dAim := IdentityQuat()
	if from := c1.Sub(a); from.Len() > tiny {
		dAim = shortestArc(from.Normalize(), u, h)
	}

	// Step 3: it turns about the line to the target until the middle joint is on
	// the pole's side.
	dPole := IdentityQuat()
	knee := dAim.Rotate(ab).Reject(u)
	side := pole.Sub(a).Reject(u)
	if knee.Len() > 1e-9*reach && side.Len() > tiny {
		angle := math.Atan2(u.Dot(knee.Cross(side)), knee.Dot(side))
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
func shortestArc(from, to, fallback Vec3) Quat {
	d := from.Dot(to)
	if d < -1+1e-12 {
		axis := fallback.Reject(from)
		if axis.Len() < 1e-6 {
			axis = from.Perpendicular()
		}
		axis = axis.Normalize()
		return Quat{axis[0], axis[1], axis[2], 0}
	}
	x := from.Cross(to)
	return Quat{x[0], x[1], x[2], 1 + d}.Normalize()
}

func clamp1(x float64) float64 { return math.Max(-1, math.Min(1, x)) }
