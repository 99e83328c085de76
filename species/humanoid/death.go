package humanoid

import "math"

// lying is the final pose of a death: flat on the back, limbs loose. Mounted
// riders end off to the horse's left, head away from it.
func (b *body) lying(mounted bool) bodyPose {
	s := b.s
	var bp bodyPose
	if mounted {
		bp.Pelvis = vec{0.35 * s, 0.11 * s, -0.05 * s}
		bp.PelvisRot = vec{-1.5, -0.25, -1.5}
	} else {
		bp.Pelvis = vec{0.02 * s, 0.11 * s, -0.45 * s}
		bp.PelvisRot = vec{-1.5, 0.12, 0.03}
	}
	bp.Spine = vec{-0.06, 0, 0.04}
	bp.Chest = vec{-0.05, 0.03, 0}
	bp.Neck = vec{0.05, 0.1, 0}
	bp.Head = vec{0.1, 0.55, 0.05}
	if mounted {
		bp.Head = vec{0.05, -0.6, 0}
	}
	bp.Arm[left] = armPose{Dir: vec{0.9, -0.35, -0.12}, Bend: 0.45, Pole: vec{0, 1, -0.1}, Grip: vec{0, -1, -0.2}}
	bp.Arm[right] = armPose{Dir: vec{-0.7, -0.7, -0.1}, Bend: 0.7, Pole: vec{0, 1, -0.1}, Grip: vec{0.2, -1, -0.2}}
	// The feet: where the straightened legs reach, heels on the ground.
	hips := b.hipJoints(&bp)
	axis := euler(bp.PelvisRot).Rotate(vec{0, -1, 0}).Normalize() // towards the feet
	leg := (b.thigh + b.shin) * 0.97
	for i := 0; i < 2; i++ {
		sx := side(i)
		splay := euler(bp.PelvisRot).Rotate(vec{sx * 0.2, 0, 0})
		f := hips[i].Add(axis.Scale(leg).Add(splay))
		f[1] = b.ankleH
		yaw := math.Atan2(axis[0], axis[2])
		bp.Foot[i] = footPose{Pos: f, Pitch: -1.35, Yaw: yaw + sx*0.4, Pole: vec{sx * 0.3, 1, 0}}
	}
	return bp
}

// dieInfantry: struck, the knees buckle and the body falls back to the ground.
func (b *body) dieInfantry(p float64) bodyPose {
	s := b.s
	st := b.stand()
	hit := st
	hit.Pelvis = hit.Pelvis.Add(vec{0, -0.02 * s, -0.06 * s})
	hit.PelvisRot = vec{-0.1, 0.1, 0}
	hit.Spine = vec{-0.15, 0.1, 0}
	hit.Chest = vec{-0.25, 0.1, 0.05}
	hit.Head = vec{-0.35, 0, 0}
	for i := 0; i < 2; i++ {
		sx := side(i)
		hit.Arm[i] = armPose{Dir: vec{sx * 0.8, 0.1, 0.4}, Bend: 0.6, Pole: vec{sx * 0.2, -1, -0.4}, Grip: vec{-sx * 0.3, 0.3, 1}}
	}
	buckle := st
	buckle.Pelvis = vec{0, b.standY - 0.35*s, -0.08 * s}
	buckle.PelvisRot = vec{-0.15, 0.15, 0.05}
	buckle.Spine = vec{0.2, 0.05, 0}
	buckle.Chest = vec{0.2, 0, 0.05}
	buckle.Head = vec{0.4, 0.1, 0}
	for i := 0; i < 2; i++ {
		sx := side(i)
		buckle.Arm[i] = armPose{Dir: vec{sx * 0.3, -0.9, 0.4}, Bend: 0.5, Pole: vec{sx * 0.3, 0, -1}, Grip: vec{-sx * 0.3, -0.3, 1}}
		buckle.Foot[i].Pole = vec{sx * 0.3, 0, 1}
		buckle.Foot[i].Pos = buckle.Foot[i].Pos.Add(vec{0, 0, 0.05 * s})
	}
	end := b.lying(false)
	fall := lerpPose(&buckle, &end, 0.55)
	fall.Pelvis = vec{0.01 * s, 0.42 * s, -0.3 * s}
	fall.PelvisRot = vec{-0.85, 0.13, 0.03}
	fall.Chest = vec{-0.2, 0.05, 0}
	fall.Head = vec{0.5, 0.2, 0}
	for i := 0; i < 2; i++ {
		sx := side(i)
		fall.Arm[i] = armPose{Dir: vec{sx * 0.7, 0.2, 0.6}, Bend: 0.5, Pole: vec{0, 1, -0.3}, Grip: vec{0, 0.3, 1}}
		fall.Foot[i].Pos = buckle.Foot[i].Pos.Lerp(end.Foot[i].Pos, 0.35)
		fall.Foot[i].Pos[1] = b.ankleH + 0.03*s
	}
	bounce := end
	bounce.Pelvis[1] += 0.04 * s
	bounce.Chest[0] -= 0.05
	bounce.Head[0] += 0.15
	keys := []key{
		{At: 0, Pose: st},
		{At: 0.12, Pose: hit, In: 2, Out: 0},
		{At: 0.38, Pose: buckle},
		{At: 0.62, Pose: fall, In: 0, Out: 1.8},
		{At: 0.8, Pose: end, In: 1.3, Out: 2},
		{At: 0.88, Pose: bounce, In: 2, Out: 0},
		{At: 1, Pose: end},
	}
	return sampleKeys(keys, p)
}

func (b *body) deadInfantry(float64) bodyPose { return b.lying(false) }

// dieMounted: struck in the saddle, the rider topples off the horse's left side,
// the right leg swinging over, and lands on his back on the horse's ground (in the
// mount frame, like every rider clip: y MountSeat.y − SeatHeight).
func (b *body) dieMounted(p float64) bodyPose {
	s := b.s
	sit := b.seated()
	hit := sit
	hit.PelvisRot = vec{-0.25, 0, 0}
	hit.Spine = vec{-0.2, 0.1, 0}
	hit.Chest = vec{-0.3, 0.15, 0}
	hit.Head = vec{-0.4, 0, 0}
	hit.HeadLevel = 0
	for i := 0; i < 2; i++ {
		sx := side(i)
		hit.Arm[i] = armPose{Dir: vec{sx * 0.7, 0.5, 0.3}, Bend: 0.7, Pole: vec{sx * 0.2, -1, -0.4}, Grip: vec{-sx * 0.3, 0.5, 1}}
	}
	topple := hit
	topple.Pelvis = vec{0.15 * s, SeatHeight + 0.1*s, 0}
	topple.PelvisRot = vec{-0.3, 0, -0.8}
	topple.Chest = vec{-0.1, 0.1, -0.2}
	topple.Head = vec{0.2, -0.2, -0.3}
	topple.Foot[left].Pos = vec{0.4 * s, SeatHeight - 0.25*s, 0.15 * s}
	topple.Foot[right].Pos = vec{0.05 * s, SeatHeight + 0.2*s, 0.1 * s}
	topple.Foot[right].Pole = vec{0, 1, 0.5}
	topple = topple.lifted(mountLift)
	end := b.lying(true).lifted(mountLift)
	mid := lerpPose(&topple, &end, 0.45)
	mid.Pelvis = vec{0.4 * s, 0.8 * s, -0.03 * s}
	mid.PelvisRot = vec{-0.9, -0.1, -1.4}
	mid.Foot[left].Pos = vec{0.1 * s, 1.05 * s, 0.1 * s}
	mid.Foot[right].Pos = vec{-0.1 * s, 1.15 * s, 0.05 * s}
	mid = mid.lifted(mountLift)
	for i := 0; i < 2; i++ {
		mid.Arm[i].Dir = vec{side(i) * 0.6, 0.6, 0.4}
	}
	bounce := end
	bounce.Pelvis[1] += 0.035 * s
	bounce.Head[0] += 0.15
	keys := []key{
		{At: 0, Pose: sit},
		{At: 0.14, Pose: hit, In: 2, Out: 0},
		{At: 0.36, Pose: topple},
		{At: 0.6, Pose: mid, In: 0, Out: 1.6},
		{At: 0.78, Pose: end, In: 1.4, Out: 2},
		{At: 0.87, Pose: bounce, In: 2, Out: 0},
		{At: 1, Pose: end},
	}
	return sampleKeys(keys, p)
}

// deadMounted lies where dieMounted ends: on the horse's ground, in the mount
// frame.
func (b *body) deadMounted(float64) bodyPose { return b.lying(true).lifted(mountLift) }
