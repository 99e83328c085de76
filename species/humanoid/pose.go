package humanoid

import (
	"math"

	"github.com/bonebake/bonebake/rig"
)

// vec is a point or direction in metres: rig.Vec3 under a name short enough
// for the hundreds of literals in the pose tables.
type vec = rig.Vec3

// armPose places one arm. Dir, Pole and Grip are in chest space (x the creature's
// left, y up, z forward when the chest is upright), or in root space when the
// pose's ArmsInRoot is set.
type armPose struct {
	Dir  vec     // from the shoulder joint towards the hand (any length)
	Bend float64 // elbow flexion in radians; 0 is a straight arm
	Pole vec     // where the elbow points
	Grip vec     // the direction a held weapon points: the hand's local +z
	// GripRoot takes Grip in root space instead (1) or blends towards it: for a
	// thrust that must stay level however the torso leans.
	GripRoot float64
	// Clav raises (positive) and brings forward (positive) the clavicle, radians.
	Clav [2]float64
	// Shaft (left hand only) moves the hand onto the right hand's weapon: 0 leaves
	// it where Dir and Bend put it, 1 puts it ShaftAt metres along the right hand's
	// grip, with the same grip.
	Shaft, ShaftAt float64
	// Draw (right hand only) puts the hand on a bow's string: 0 leaves it where Dir
	// and Bend put it, 1 puts it DrawLen metres behind the left (bow) hand along
	// the line from the left shoulder through that hand, the way an arrow lies.
	Draw, DrawLen float64
	// HandAt pulls the hand towards Hand, a point in root space: 0 leaves it where
	// Dir and Bend put it, 1 puts it there (a guard held at a fixed place on the
	// body, whatever the torso does).
	Hand   vec
	HandAt float64
}

// footPose places one foot: the ankle (the Foot bone) in root space, the foot's
// pitch (positive lifts the heel) and yaw, and where the knee points.
type footPose struct {
	Pos        vec
	Pitch, Yaw float64
	Pole       vec
}

// bodyPose is every degree of freedom the clips animate. Angles are radians as
// (pitch, yaw, roll): pitch about x (positive leans forward), yaw about y (positive
// turns left), roll about z (positive tips the left side up).
type bodyPose struct {
	Root      vec
	RootYaw   float64
	Pelvis    vec // the pelvis bone's position in root space
	PelvisRot vec
	Spine     vec
	Chest     vec
	Neck      vec
	Head      vec
	// HeadLevel blends the neck and head from local angles (0) to holding the head
	// at Head's angles in root space (1), the way a walker steadies the gaze.
	HeadLevel  float64
	Arm        [2]armPose // left, right
	Foot       [2]footPose
	ArmsInRoot bool // Dir, Pole and Grip are in root space, not chest space
}

const (
	left  = 0
	right = 1
)

// side returns +1 for the left (+x) side and −1 for the right.
func side(s int) float64 {
	if s == left {
		return 1
	}
	return -1
}

// lerpPose blends a (u = 0) to b (u = 1). Directions turn along great circles,
// so a hand moving between two arm directions sweeps an arc round the shoulder.
func lerpPose(a, b *bodyPose, u float64) bodyPose {
	r := *a
	r.Root = a.Root.Lerp(b.Root, u)
	r.RootYaw = lerp(a.RootYaw, b.RootYaw, u)
	r.Pelvis = a.Pelvis.Lerp(b.Pelvis, u)
	r.PelvisRot = a.PelvisRot.Lerp(b.PelvisRot, u)
	r.Spine = a.Spine.Lerp(b.Spine, u)
	r.Chest = a.Chest.Lerp(b.Chest, u)
	r.Neck = a.Neck.Lerp(b.Neck, u)
	r.Head = a.Head.Lerp(b.Head, u)
	r.HeadLevel = lerp(a.HeadLevel, b.HeadLevel, u)
	for s := 0; s < 2; s++ {
		x, y := &a.Arm[s], &b.Arm[s]
		r.Arm[s] = armPose{
			Dir:      slerpV(x.Dir, y.Dir, u),
			Bend:     lerp(x.Bend, y.Bend, u),
			Pole:     slerpV(x.Pole, y.Pole, u),
			Grip:     slerpV(x.Grip, y.Grip, u),
			GripRoot: lerp(x.GripRoot, y.GripRoot, u),
			Clav:     [2]float64{lerp(x.Clav[0], y.Clav[0], u), lerp(x.Clav[1], y.Clav[1], u)},
			Shaft:    lerp(x.Shaft, y.Shaft, u),
			ShaftAt:  lerp(x.ShaftAt, y.ShaftAt, u),
			Draw:     lerp(x.Draw, y.Draw, u),
			DrawLen:  lerp(x.DrawLen, y.DrawLen, u),
			Hand:     x.Hand.Lerp(y.Hand, u),
			HandAt:   lerp(x.HandAt, y.HandAt, u),
		}
		f, g := &a.Foot[s], &b.Foot[s]
		r.Foot[s] = footPose{
			Pos:   f.Pos.Lerp(g.Pos, u),
			Pitch: lerp(f.Pitch, g.Pitch, u),
			Yaw:   lerp(f.Yaw, g.Yaw, u),
			Pole:  slerpV(f.Pole, g.Pole, u),
		}
	}
	return r
}

// key is one key pose of a clip at a phase. In and Out are the slopes of the
// eased parameter where the segment arriving at this key starts and ends (0, 0 is
// smoothstep; 0, 2 accelerates into the key; 2, 0 leaves the previous key fast).
type key struct {
	At      float64
	Pose    bodyPose
	In, Out float64
}

// sampleKeys interpolates keys (sorted by At, the first at 0, the last at 1) at
// phase.
func sampleKeys(keys []key, phase float64) bodyPose {
	if phase <= keys[0].At {
		return keys[0].Pose
	}
	for i := 1; i < len(keys); i++ {
		k := &keys[i]
		if phase <= k.At {
			prev := &keys[i-1]
			t := (phase - prev.At) / (k.At - prev.At)
			return lerpPose(&prev.Pose, &k.Pose, hermite01(t, k.In, k.Out))
		}
	}
	return keys[len(keys)-1].Pose
}

// rested is the keys of a clip that holds rest until phase from, passes through
// keys (sorted, between from and to) and holds rest again from to until 1: a
// clip that leaves its starting pose and comes back to it.
func rested(rest bodyPose, from, to float64, keys ...key) []key {
	out := make([]key, 0, len(keys)+4)
	out = append(out, key{At: 0, Pose: rest}, key{At: from, Pose: rest})
	out = append(out, keys...)
	return append(out, key{At: to, Pose: rest}, key{At: 1, Pose: rest})
}

// hermite01 is the cubic from 0 to 1 on [0, 1] with slopes m0 at 0 and m1 at 1.
func hermite01(t, m0, m1 float64) float64 {
	t = rig.Clamp01(t)
	t2, t3 := t*t, t*t*t
	return (t3-2*t2+t)*m0 + (-2*t3 + 3*t2) + (t3-t2)*m1
}

// poser writes one pose: local transforms into out, while tracking each bone's
// model-space rotation and position so that targets can be met. It lives on the
// caller's stack; nothing is shared between calls.
type poser struct {
	b   *body
	out []rig.Transform
	rot [boneCount]rig.Quat
	pos [boneCount]vec
}

// set writes bone i's local transform and updates its model-space frame.
func (p *poser) set(i int, t vec, q rig.Quat) {
	q = q.Normalize()
	p.out[i] = rig.Transform{Translation: t, Rotation: q, Scale: vec{1, 1, 1}}
	par := boneParents[i]
	if par < 0 {
		p.rot[i], p.pos[i] = q, t
		return
	}
	p.rot[i] = p.rot[par].Mul(q).Normalize()
	p.pos[i] = p.pos[par].Add(p.rot[par].Rotate(t))
}

// setWorld gives bone i (at its rest offset) the model-space rotation q.
func (p *poser) setWorld(i int, q rig.Quat) {
	p.set(i, p.b.restT(i), p.rot[boneParents[i]].Conjugate().Mul(q))
}

// jointPos is where bone i sits given its parent's frame (its own rotation does
// not move it).
func (p *poser) jointPos(i int) vec {
	par := boneParents[i]
	return p.pos[par].Add(p.rot[par].Rotate(p.b.restT(i)))
}

// apply writes bp into out (every bone's full local transform).
func (b *body) apply(bp *bodyPose, out []rig.Transform) {
	p := poser{b: b, out: out}
	p.set(Root, bp.Root, euler(vec{0, bp.RootYaw, 0}))
	p.set(Pelvis, bp.Pelvis, euler(bp.PelvisRot))
	p.set(Spine, b.restT(Spine), euler(bp.Spine))
	p.set(Chest, b.restT(Chest), euler(bp.Chest))
	// Neck and head: local angles, or a steady head in root space.
	neckL, headL := euler(bp.Neck), euler(bp.Head)
	if w := bp.HeadLevel; w > 0 {
		want := p.rot[Root].Mul(euler(bp.Head))
		need := p.rot[Chest].Conjugate().Mul(want) // neck+head local rotation
		nk := rig.Slerp(rig.IdentityQuat(), need, 0.4).Mul(euler(bp.Neck))
		neckL = rig.Slerp(neckL, nk, w)
		neckW := p.rot[Chest].Mul(neckL)
		headL = rig.Slerp(headL, neckW.Conjugate().Mul(want), w)
	}
	p.set(Neck, b.restT(Neck), neckL)
	p.set(Head, b.restT(Head), headL)

	// Arms: the right first, so the left hand can take hold of its weapon; the
	// left first when the right hand draws the left hand's bow.
	space := p.rot[Chest]
	if bp.ArmsInRoot {
		space = p.rot[Root]
	}
	order := [2]int{right, left}
	if bp.Arm[right].Draw > 0 {
		order = [2]int{left, right}
	}
	var hands, shoulders, grips [2]vec
	for _, s := range order {
		a := &bp.Arm[s]
		sh, ua, fa, hd := ShoulderL, UpperArmL, ForearmL, HandL
		if s == right {
			sh, ua, fa, hd = ShoulderR, UpperArmR, ForearmR, HandR
		}
		sx := side(s)
		p.set(sh, b.restT(sh), euler(vec{0, -sx * a.Clav[1], sx * a.Clav[0]}))
		shoulder := p.jointPos(ua)
		dist := b.armReach(a.Bend)
		target := shoulder.Add(space.Rotate(a.Dir.Normalize()).Scale(dist))
		grip := space.Rotate(a.Grip).Normalize()
		if a.GripRoot > 0 {
			grip = slerpV(grip, p.rot[Root].Rotate(a.Grip.Normalize()), a.GripRoot).Normalize()
		}
		if a.HandAt > 0 {
			at := p.rot[Root].Rotate(a.Hand).Add(bp.Root)
			target = target.Lerp(at, a.HandAt)
		}
		if s == left && a.Shaft > 0 {
			onShaft := hands[right].Add(grips[right].Scale(a.ShaftAt))
			target = target.Lerp(onShaft, a.Shaft)
			grip = slerpV(grip, grips[right], a.Shaft).Normalize()
		}
		if s == right && a.Draw > 0 {
			aim := hands[left].Sub(shoulders[left]).Normalize()
			onString := hands[left].Sub(aim.Scale(a.DrawLen))
			target = target.Lerp(onString, a.Draw)
		}
		pole := space.Rotate(a.Pole)
		elbow, hinge := twoBone(shoulder, target, pole, b.upper, b.fore)
		hands[s] = p.armChain(s, ua, fa, hd, shoulder, elbow, target, hinge, grip)
		shoulders[s], grips[s] = shoulder, grip
	}

	// Legs.
	for s := 0; s < 2; s++ {
		f := &bp.Foot[s]
		hip, knee, foot := HipL, KneeL, FootL
		if s == right {
			hip, knee, foot = HipR, KneeR, FootR
		}
		h := p.jointPos(hip)
		target := p.rot[Root].Rotate(f.Pos)
		target = target.Add(bp.Root)
		pole := p.rot[Root].Rotate(f.Pole)
		k, hinge := twoBone(h, target, pole, b.thigh, b.shin)
		// Thigh and shin point down their local −y; the knee bends about local x.
		yT := h.Sub(k).Normalize()
		p.setWorld(hip, basis(hinge, yT, hinge.Cross(yT)))
		yS := k.Sub(target).Normalize()
		p.setWorld(knee, basis(hinge, yS, hinge.Cross(yS)))
		p.setWorld(foot, p.rot[Root].Mul(euler(vec{f.Pitch, f.Yaw, 0})))
	}
}

// armChain orients the upper arm, forearm and hand of one side so that the elbow
// and hand land where the solver put them, and the hand's +z follows grip. The
// arm's bones run along +x (left) or −x (right) and the elbow bends about local y.
// It returns the hand's position.
func (p *poser) armChain(s, ua, fa, hd int, shoulder, elbow, hand, hinge, grip vec) vec {
	sx := side(s)
	// hinge from twoBone is w×u; the elbow flexes about local y, which points
	// along −hinge for the left arm and +hinge for the right in these frames.
	y := hinge.Scale(-sx)
	xU := elbow.Sub(shoulder).Normalize().Scale(sx)
	p.setWorld(ua, basis(xU, y, xU.Cross(y)))
	xF := hand.Sub(elbow).Normalize().Scale(sx)
	p.setWorld(fa, basis(xF, y, xF.Cross(y)))
	// The hand: +z along the grip, +x as near the forearm's as the grip allows.
	z := grip
	x := xF.Reject(z).Normalize()
	if x.Len() < 1e-6 {
		x = y.Cross(z)
	}
	p.setWorld(hd, basis(x, z.Cross(x), z))
	return p.pos[hd]
}

// twoBone solves a two-segment chain from root towards target with segment
// lengths a and b, bending towards pole. It returns the middle joint and the
// hinge axis w×u (u from root to target, w the pole direction square to u). A
// target out of reach is met as nearly as the chain allows.
func twoBone(root, target, pole vec, a, b float64) (mid, hinge vec) {
	d := target.Sub(root)
	dist := d.Len()
	u := vec{0, -1, 0}
	if dist > 1e-9 {
		u = d.Scale(1 / dist)
	}
	dist = clamp(dist, math.Abs(a-b)+1e-6, (a+b)*(1-1e-6))
	w := pole.Reject(u)
	if w.Len() < 1e-9 {
		w = u.Perpendicular()
	}
	w = w.Normalize()
	cosA := clamp((a*a+dist*dist-b*b)/(2*a*dist), -1, 1)
	sinA := math.Sqrt(1 - cosA*cosA)
	mid = root.Add(u.Scale(a * cosA).Add(w.Scale(a * sinA)))
	return mid, w.Cross(u).Normalize()
}

// armReach is the shoulder-to-wrist distance at an elbow flexion.
func (b *body) armReach(bend float64) float64 {
	return math.Sqrt(b.upper*b.upper + b.fore*b.fore + 2*b.upper*b.fore*math.Cos(bend))
}

// euler returns Ry(yaw)·Rx(pitch)·Rz(roll) for a = (pitch, yaw, roll).
func euler(a vec) rig.Quat {
	q := rig.QuatFromAxisAngle(vec{0, 1, 0}, a[1])
	q = q.Mul(rig.QuatFromAxisAngle(vec{1, 0, 0}, a[0]))
	return q.Mul(rig.QuatFromAxisAngle(vec{0, 0, 1}, a[2]))
}

// basis returns the rotation whose columns are the orthonormal axes x, y, z.
func basis(x, y, z vec) rig.Quat {
	x = x.Normalize()
	y = y.Reject(x).Normalize()
	z = x.Cross(y)
	return rig.QuatFromMat3([9]float64{x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]})
}

func lerp(a, b, u float64) float64 { return a + (b-a)*u }

// slerpV turns direction a towards direction b along a great circle, blending
// their lengths linearly (zero vectors blend linearly).
func slerpV(a, b vec, u float64) vec {
	la, lb := a.Len(), b.Len()
	if la < 1e-12 || lb < 1e-12 {
		return a.Lerp(b, u)
	}
	ua, ub := a.Scale(1/la), b.Scale(1/lb)
	c := clamp(ua.Dot(ub), -1, 1)
	th := math.Acos(c)
	l := lerp(la, lb, u)
	if th < 1e-6 {
		return ua.Lerp(ub, u).Normalize().Scale(l)
	}
	if math.Pi-th < 1e-6 { // opposite: turn about any square axis
		ax := ua.Perpendicular()
		q := rig.QuatFromAxisAngle(ax, u*th)
		return q.Rotate(ua).Scale(l)
	}
	s := math.Sin(th)
	wa, wb := math.Sin((1-u)*th)/s, math.Sin(u*th)/s
	return ua.Scale(wa).Add(ub.Scale(wb)).Scale(l)
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }
