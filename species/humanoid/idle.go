package humanoid

import "math"

// stand is the neutral standing pose: feet under the hips, arms hanging, the
// weapon hand carrying its weapon pointing forward and down.
func (b *body) stand() bodyPose {
	s := b.s
	var bp bodyPose
	bp.Pelvis = vec{0, b.standY, 0}
	st := b.prof.Stoop
	bp.Spine = vec{st * 0.5, 0, 0}
	bp.Chest = vec{st * 0.5, 0, 0}
	bp.Neck = vec{-st * 0.3, 0, 0}
	bp.Head = vec{0.03, 0, 0}
	for i := 0; i < 2; i++ {
		sx := side(i)
		bp.Arm[i] = armPose{Dir: vec{sx * 0.14, -1, 0.04}, Bend: 0.2, Pole: vec{sx * 0.3, 0, -1}, Grip: vec{-sx * 0.1, -0.9, 0.8}}
		bp.Foot[i] = footPose{Pos: vec{sx * 0.11 * s, b.ankleH, 0}, Yaw: sx * 0.12, Pole: vec{sx * 0.12, 0, 1}}
	}
	if b.prof.Weapon == WeaponSpear { // the spear stands upright at the right side
		bp.Arm[right] = armPose{Dir: vec{-0.35, -0.85, 0.2}, Bend: 1.35, Pole: vec{-0.4, -0.3, -1}, Grip: vec{0.02, 1, 0.08}}
	}
	return bp
}

// idle is the base idle: the standing pose held still, as the game's own base
// idle is (its life comes from the four ambient idles the runtime picks among,
// docs/species.md §3). With Profile.BreathingIdle it breathes instead: a small
// weight shift, the arms drifting.
func (b *body) idle(p float64) bodyPose {
	bp := b.stand()
	if !b.prof.BreathingIdle {
		return bp
	}
	c, sn := math.Cos(2*math.Pi*p), math.Sin(2*math.Pi*p)
	breath := (1 - c) / 2 // 0 … 1 … 0
	bp.Pelvis[1] -= 0.004 * b.s * breath
	bp.Pelvis[0] += 0.008 * b.s * sn
	bp.PelvisRot[2] = -0.012 * sn
	bp.Spine[0] -= 0.015 * breath
	bp.Chest[0] -= 0.025 * breath
	bp.Chest[2] = 0.01 * sn
	bp.Head[0] += 0.02 * breath
	bp.Head[1] = 0.03 * sn
	for i := 0; i < 2; i++ {
		bp.Arm[i].Clav[0] += 0.05 * breath
		bp.Arm[i].Bend += 0.05 * breath
	}
	return bp
}

// idleSquat: crouch down, rest a moment, stand up.
func (b *body) idleSquat(p float64) bodyPose {
	s := b.s
	st := b.stand()
	sq := st
	sq.Pelvis = vec{0, b.standY - 0.42*s, -0.16 * s}
	sq.PelvisRot = vec{0.25, 0, 0}
	sq.Spine = vec{0.25, 0, 0}
	sq.Chest = vec{0.15, 0, 0}
	sq.Head = vec{-0.1, 0, 0}
	sq.HeadLevel = 1
	for i := 0; i < 2; i++ {
		sx := side(i)
		sq.Foot[i].Pos = vec{sx * 0.17 * s, b.ankleH, 0.02 * s}
		sq.Foot[i].Pole = vec{sx * 0.5, 0, 1}
		sq.Foot[i].Yaw = sx * 0.3
		sq.Arm[i] = armPose{Dir: vec{sx * 0.1, -0.55, 1}, Bend: 0.9, Pole: vec{sx * 0.6, -0.6, -0.4}, Grip: vec{-sx * 0.3, 0.1, 1}}
	}
	low := sq
	low.Pelvis[1] -= 0.03 * s
	low.Chest[0] += 0.05
	low.Head[1] = 0.25
	keys := rested(st, 0.08, 0.94,
		key{At: 0.36, Pose: sq},
		key{At: 0.55, Pose: low},
		key{At: 0.66, Pose: sq},
	)
	return sampleKeys(keys, p)
}

// idleJump: crouch, spring up with the feet leaving the ground, land softly.
func (b *body) idleJump(p float64) bodyPose {
	s := b.s
	st := b.stand()
	crouch := st
	crouch.Pelvis = vec{0, b.standY - 0.26*s, -0.08 * s}
	crouch.PelvisRot = vec{0.3, 0, 0}
	crouch.Spine = vec{0.2, 0, 0}
	crouch.Chest = vec{0.1, 0, 0}
	crouch.Head = vec{0, 0, 0}
	crouch.HeadLevel = 1
	for i := 0; i < 2; i++ {
		sx := side(i)
		crouch.Arm[i] = armPose{Dir: vec{sx * 0.15, -0.7, -0.7}, Bend: 0.3, Pole: vec{sx * 0.3, -0.5, -1}, Grip: vec{-sx * 0.2, -0.3, 1}}
		crouch.Foot[i].Pole = vec{sx * 0.25, 0, 1}
	}
	push := st // legs straight, toes still down, arms thrown up
	push.Pelvis = vec{0, b.standY + 0.05*s, 0}
	push.HeadLevel = 1
	for i := 0; i < 2; i++ {
		sx := side(i)
		push.Foot[i].Pitch = 0.7
		push.Foot[i].Pos = push.Foot[i].Pos.Add(vec{0, 0.07 * s, -0.05 * s})
		push.Arm[i] = armPose{Dir: vec{sx * 0.25, 0.6, 0.75}, Bend: 0.4, Pole: vec{sx * 0.4, -0.6, -0.5}, Grip: vec{-sx * 0.2, 0.5, 1}}
	}
	air := push // apex: the whole body about 0.3 m up, knees tucked
	air.Pelvis = vec{0, b.standY + 0.30*s, 0}
	air.PelvisRot = vec{0.1, 0, 0}
	for i := 0; i < 2; i++ {
		sx := side(i)
		air.Foot[i].Pos = vec{sx * 0.12 * s, b.ankleH + 0.34*s, -0.05 * s}
		air.Foot[i].Pitch = 0.45
		air.Arm[i].Dir = vec{sx * 0.35, 0.3, 0.9}
	}
	land := crouch
	land.Pelvis[1] += 0.04 * s
	keys := rested(st, 0.12, 0.97,
		key{At: 0.32, Pose: crouch},
		key{At: 0.40, Pose: crouch},
		key{At: 0.47, Pose: push, In: 0, Out: 1.5},
		key{At: 0.56, Pose: air, In: 1.5, Out: 0},
		key{At: 0.64, Pose: push, In: 0, Out: 1.5},
		key{At: 0.70, Pose: land, In: 1.5, Out: 0},
		key{At: 0.80, Pose: crouch},
	)
	return sampleKeys(keys, p)
}

// idleWeapon: bring the weapon up, look it over, turn it, put it down again.
func (b *body) idleWeapon(p float64) bodyPose {
	st := b.stand()
	up := st
	up.Head = vec{0.35, -0.1, 0}
	up.Neck = vec{0.1, 0, 0}
	look1, look2 := up, up
	switch b.prof.Weapon {
	case WeaponSpear: // hold it upright before the face and sight up the shaft
		up.Arm[right] = armPose{Dir: vec{-0.25, -0.45, 1}, Bend: 1.5, Pole: vec{-0.6, -0.4, -0.6}, Grip: vec{0.02, 1, 0.06}}
		up.Arm[left] = armPose{Dir: vec{0.1, -0.3, 1}, Bend: 1.4, Pole: vec{0.6, -0.4, -0.6}, Grip: vec{0.05, 1, 0.1}, Shaft: 1, ShaftAt: 0.32}
		up.Head = vec{-0.45, 0.05, 0}
		look1, look2 = up, up
		look1.Arm[right].Grip = vec{0.35, 1, 0.25}
		look1.Head = vec{-0.55, 0.2, 0.05}
		look2.Arm[right].Grip = vec{-0.3, 1, 0.15}
		look2.Head = vec{-0.5, -0.2, -0.05}
	default: // blade up before the face; the free hand runs along it
		up.Arm[right] = armPose{Dir: vec{-0.1, -0.25, 1}, Bend: 1.75, Pole: vec{-0.7, -0.5, -0.4}, Grip: vec{0.1, 1, 0.15}}
		up.Arm[left] = armPose{Dir: vec{0.1, -0.4, 1}, Bend: 1.5, Pole: vec{0.6, -0.5, -0.5}, Grip: vec{-0.3, 0.2, 1}}
		look1, look2 = up, up
		look1.Arm[right].Grip = vec{0.75, 0.65, 0.1}
		look1.Arm[left].Shaft, look1.Arm[left].ShaftAt = 0.85, 0.25
		look1.Head = vec{0.3, 0.15, 0.1}
		look2.Arm[right].Grip = vec{-0.55, 0.8, 0.25}
		look2.Arm[left].Shaft, look2.Arm[left].ShaftAt = 0.85, 0.5
		look2.Head = vec{0.3, -0.2, -0.05}
	}
	keys := rested(st, 0.06, 0.95,
		key{At: 0.22, Pose: up},
		key{At: 0.42, Pose: look1},
		key{At: 0.62, Pose: look2},
		key{At: 0.76, Pose: up},
	)
	return sampleKeys(keys, p)
}

// idleWeave: guard up, duck and weave left, right, left, settle.
func (b *body) idleWeave(p float64) bodyPose {
	s := b.s
	st := b.stand()
	g := st
	g.Pelvis[1] -= 0.06 * s
	g.PelvisRot = vec{0.08, -0.15, 0}
	g.Chest = vec{0.1, 0.1, 0}
	g.Head = vec{0.05, 0, 0}
	g.HeadLevel = 0.6
	for i := 0; i < 2; i++ {
		sx := side(i)
		g.Arm[i] = armPose{Dir: vec{-sx * 0.05, -0.35, 1}, Bend: 2.1, Pole: vec{sx * 0.5, -1, -0.2}, Grip: vec{-sx * 0.3, 0.8, 0.4}}
		g.Foot[i].Pos[2] = sx * 0.1 * s
		g.Foot[i].Pos[0] = sx * 0.14 * s
		g.Foot[i].Pole = vec{sx * 0.2, 0, 1}
	}
	weave := func(dir float64) bodyPose {
		w := g
		w.Pelvis = w.Pelvis.Add(vec{dir * 0.1 * s, -0.09 * s, 0.02 * s})
		w.PelvisRot = w.PelvisRot.Add(vec{0.05, dir * 0.15, -dir * 0.12})
		w.Spine = w.Spine.Add(vec{0.15, dir * 0.1, -dir * 0.1})
		w.Chest = w.Chest.Add(vec{0.1, dir * 0.15, -dir * 0.15})
		return w
	}
	wl, wr := weave(1), weave(-1)
	keys := []key{
		{At: 0, Pose: st},
		{At: 0.12, Pose: g},
		{At: 0.28, Pose: wl},
		{At: 0.45, Pose: wr},
		{At: 0.62, Pose: wl},
		{At: 0.78, Pose: g},
		{At: 0.96, Pose: st},
		{At: 1, Pose: st},
	}
	return sampleKeys(keys, p)
}
