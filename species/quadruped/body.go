package quadruped

import (
	"math"

	"github.com/bonebake/bonebake/rig"
)

// plan is a built quadruped: its skeleton, measurements and gait knobs, and the
// bones a pose writes. Both species share it; they differ in which bones hang
// from Root rather than Body (the elephant's legs and head).
type plan struct {
	skel *rig.Skeleton
	dims Dims
	cfg  Config
	body int
	legs [NumLegs]legBones
	// onRoot: the shoulders and the first head bone are Root's children (the
	// elephant), so a pose places them by composing the body transform itself.
	onRoot bool
	// headA is the first head bone (horse NeckTop, elephant Head), headB its
	// child (horse Head, elephant TrunkTip); headOffset is headA's rest position
	// in the body frame.
	headA, headB int
	headOffset   rig.Vec3
	// contacts are the full mesh's vertices, which keep a dying body above the
	// ground (onGround).
	contacts []contact
	// reach is the share of a leg's full length a planted foot may need: the hip
	// drops (the shoulder blade or pelvis giving) rather than straighten further.
	reach float64
}

type legBones struct {
	shoulder, knee, foot int
	forward              bool    // the middle joint bends toward +z
	length               float64 // upper + lower bone
}

// bodyPose is a pose in body terms, what the clips compute and interpolate; write
// turns it into local transforms.
type bodyPose struct {
	Body rig.Transform        // the body in model space (Root stays at the origin)
	Hip  [NumLegs]rig.Vec3    // the leg roots in the body frame
	Leg  [NumLegs][3]rig.Quat // upper (relative to the body frame), lower, foot (local)
	Head [2]rig.Quat          // headA relative to the body frame, headB local
}

var one = rig.Vec3{1, 1, 1}

func rotX(a float64) rig.Quat { return rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, a) }
func rotY(a float64) rig.Quat { return rig.QuatFromAxisAngle(rig.Vec3{0, 1, 0}, a) }
func rotZ(a float64) rig.Quat { return rig.QuatFromAxisAngle(rig.Vec3{0, 0, 1}, a) }

// point maps a body-frame point to model space.
func point(body rig.Transform, p rig.Vec3) rig.Vec3 {
	return body.Translation.Add(body.Rotation.Rotate(p))
}

// restPose is the bind pose in body terms: everything at rest.
func (p *plan) restPose() bodyPose {
	bp := bodyPose{Body: rig.Transform{Translation: rig.Vec3{0, p.dims.BodyHeight, 0}, Rotation: rig.IdentityQuat(), Scale: one}}
	for leg := range bp.Hip {
		bp.Hip[leg] = p.dims.Hip(leg)
		for k := range bp.Leg[leg] {
			bp.Leg[leg][k] = rig.IdentityQuat()
		}
	}
	bp.Head = [2]rig.Quat{rig.IdentityQuat(), rig.IdentityQuat()}
	return bp
}

// write sets every bone's local transform from bp.
func (p *plan) write(bp *bodyPose, pose []rig.Transform) {
	rest := p.skel.Rest
	for i := range rest {
		pose[i] = rig.Transform{Translation: rest[i].Translation, Rotation: rig.IdentityQuat(), Scale: one}
	}
	pose[p.body] = rig.Transform{Translation: bp.Body.Translation, Rotation: bp.Body.Rotation, Scale: one}
	for leg, l := range p.legs {
		t, r := bp.Hip[leg], bp.Leg[leg][0]
		if p.onRoot {
			t, r = point(bp.Body, t), bp.Body.Rotation.Mul(r)
		}
		pose[l.shoulder] = rig.Transform{Translation: t, Rotation: r, Scale: one}
		pose[l.knee].Rotation = bp.Leg[leg][1]
		pose[l.foot].Rotation = bp.Leg[leg][2]
	}
	t, r := p.headOffset, bp.Head[0]
	if p.onRoot {
		t, r = point(bp.Body, t), bp.Body.Rotation.Mul(r)
	}
	pose[p.headA] = rig.Transform{Translation: t, Rotation: r, Scale: one}
	pose[p.headB].Rotation = bp.Head[1]
}

// read is write's inverse for the bones write sets.
func (p *plan) read(pose []rig.Transform) bodyPose {
	bp := bodyPose{Body: pose[p.body]}
	inv := bp.Body.Rotation.Conjugate()
	for leg, l := range p.legs {
		t, r := pose[l.shoulder].Translation, pose[l.shoulder].Rotation
		if p.onRoot {
			t, r = inv.Rotate(t.Sub(bp.Body.Translation)), inv.Mul(r)
		}
		bp.Hip[leg] = t
		bp.Leg[leg] = [3]rig.Quat{r, pose[l.knee].Rotation, pose[l.foot].Rotation}
	}
	r := pose[p.headA].Rotation
	if p.onRoot {
		r = inv.Mul(r)
	}
	bp.Head = [2]rig.Quat{r, pose[p.headB].Rotation}
	return bp
}

// blend interpolates two body poses: positions linearly, rotations by slerp.
func blend(a, b *bodyPose, w float64) bodyPose {
	out := bodyPose{Body: rig.Transform{
		Translation: a.Body.Translation.Lerp(b.Body.Translation, w),
		Rotation:    rig.Slerp(a.Body.Rotation, b.Body.Rotation, w),
		Scale:       one,
	}}
	for leg := range out.Hip {
		out.Hip[leg] = a.Hip[leg].Lerp(b.Hip[leg], w)
		for k := range out.Leg[leg] {
			out.Leg[leg][k] = rig.Slerp(a.Leg[leg][k], b.Leg[leg][k], w)
		}
	}
	for k := range out.Head {
		out.Head[k] = rig.Slerp(a.Head[k], b.Head[k], w)
	}
	return out
}

// modelRotation is the rotation of bone in model space (the product of the
// rotations from the root down; every scale here is 1).
func (p *plan) modelRotation(pose []rig.Transform, bone int) rig.Quat {
	q := rig.IdentityQuat()
	for b := bone; b >= 0; b = p.skel.Parents[b] {
		q = pose[b].Rotation.Mul(q)
	}
	return q
}

// hipForReach lowers bp's hip of leg, along the body's up axis, as far as needed
// for the leg to reach foot with at most p.reach of its length.
func (p *plan) hipForReach(bp *bodyPose, leg int, foot rig.Vec3) {
	hip := point(bp.Body, bp.Hip[leg])
	dx, dz := hip[0]-foot[0], hip[2]-foot[2]
	r := p.reach * p.legs[leg].length
	v := math.Sqrt(math.Max(0, r*r-dx*dx-dz*dz))
	if drop := hip[1] - foot[1] - v; drop > 0 {
		up := bp.Body.Rotation.Rotate(rig.Vec3{0, 1, 0})[1]
		bp.Hip[leg][1] -= drop / math.Max(up, 0.2)
	}
}

// plant writes bp and turns leg's upper and lower bones so its foot reaches
// foot (model space), the middle joint bending toward the leg's pole; curl turns
// the foot about the model x axis (0 keeps it level).
func (p *plan) plant(bp *bodyPose, pose []rig.Transform, leg int, foot rig.Vec3, curl float64) {
	l := p.legs[leg]
	hip := point(bp.Body, bp.Hip[leg])
	ahead := 2 * p.dims.LegHeight()
	if !l.forward {
		ahead = -ahead
	}
	pole := hip.Add(bp.Body.Rotation.Rotate(rig.Vec3{0, -p.dims.LegHeight() / 2, ahead}))
	p.skel.TwoBoneIK(pose, l.shoulder, l.knee, l.foot, foot, pole)
	knee := p.modelRotation(pose, l.knee)
	pose[l.foot].Rotation = knee.Conjugate().Mul(rotX(curl)).Normalize()
}

// gaitPose poses the creature in gait g at t seconds: the body bobs, pitches,
// sways and rolls as Evaluate says, head (when not nil) adjusts the body pose (head
// and neck, a lunge) before the legs are placed, and every foot is put on its
// target by two-bone IK.
func (p *plan) gaitPose(g Gait, t float64, pose []rig.Transform, head headMotion) Motion {
	m := Evaluate(p.dims, p.cfg, g, t)
	bp := p.restPose()
	bp.Body.Translation = rig.Vec3{m.Sway, p.dims.BodyHeight + m.Bob, 0}
	bp.Body.Rotation = rotZ(m.Roll).Mul(rotX(-m.Pitch))
	if head != nil {
		bp = head(m.Phase, m.Intensity, bp)
	}
	for leg := range bp.Hip {
		bp.Hip[leg][2] += m.Legs[leg].Glide
		p.hipForReach(&bp, leg, m.Legs[leg].Foot)
	}
	p.write(&bp, pose)
	for leg := range bp.Hip {
		p.plant(&bp, pose, leg, m.Legs[leg].Foot, m.Legs[leg].Curl)
	}
	return m
}

// headMotion adjusts a gait's body pose at a moving phase and intensity: head,
// neck and trunk, and a lunge. It takes and returns the pose by value so that calling it does not
// allocate.
type headMotion func(phase, intensity float64, bp bodyPose) bodyPose

// bump is 0 before a, rises smoothly to 1 at b, holds to c, falls smoothly to 0
// at d.
func bump(x, a, b, c, d float64) float64 {
	switch {
	case x <= a || x >= d:
		return 0
	case x < b:
		return rig.Smoothstep((x - a) / (b - a))
	case x <= c:
		return 1
	default:
		return 1 - rig.Smoothstep((x-c)/(d-c))
	}
}

// key is a body pose at a clip phase.
type key struct {
	at   float64
	pose bodyPose
}

// keyed poses a one-shot clip from keys (ascending, the first at 0 and the last
// at 1), easing between neighbours with smoothstep, and rests the body on the
// ground where the pose would sink into it.
func (p *plan) keyed(keys []key, phase float64, pose []rig.Transform) {
	phase = rig.Clamp01(phase)
	i := 1
	for i < len(keys)-1 && phase > keys[i].at {
		i++
	}
	a, b := &keys[i-1], &keys[i]
	w := rig.Smoothstep((phase - a.at) / (b.at - a.at))
	bp := blend(&a.pose, &b.pose, w)
	p.onGround(&bp, pose)
}
