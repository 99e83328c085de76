package humanoid

import "math"

// SeatHeight is the horse's back height, in metres, that the riding clips sit
// on: the rider's Root stays on the ground at the origin (under the horse, which
// stands on the same ground) and the pelvis is raised so the seat is here.
const SeatHeight = 1.45

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

// idle: breathing, a small weight shift, the arms drifting.
func (b *body) idle(p float64) bodyPose {
	bp := b.stand()
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
	keys := []key{
		{At: 0, Pose: st},
		{At: 0.08, Pose: st},
		{At: 0.36, Pose: sq},
		{At: 0.55, Pose: low},
		{At: 0.66, Pose: sq},
		{At: 0.94, Pose: st},
		{At: 1, Pose: st},
	}
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
	keys := []key{
		{At: 0, Pose: st},
		{At: 0.12, Pose: st},
		{At: 0.32, Pose: crouch},
		{At: 0.40, Pose: crouch},
		{At: 0.47, Pose: push, In: 0, Out: 1.5},
		{At: 0.56, Pose: air, In: 1.5, Out: 0},
		{At: 0.64, Pose: push, In: 0, Out: 1.5},
		{At: 0.70, Pose: land, In: 1.5, Out: 0},
		{At: 0.80, Pose: crouch},
		{At: 0.97, Pose: st},
		{At: 1, Pose: st},
	}
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
	keys := []key{
		{At: 0, Pose: st},
		{At: 0.06, Pose: st},
		{At: 0.22, Pose: up},
		{At: 0.42, Pose: look1},
		{At: 0.62, Pose: look2},
		{At: 0.76, Pose: up},
		{At: 0.95, Pose: st},
		{At: 1, Pose: st},
	}
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

// guard is the braced ready stance of the profile's weapon.
func (b *body) guard() bodyPose {
	s := b.s
	bp := b.stand()
	bp.HeadLevel = 1
	bp.Head = vec{0.02, 0, 0}
	L, R := &bp.Arm[left], &bp.Arm[right]
	switch b.prof.Weapon {
	case WeaponSword: // side-on, sword forward, guard arm up
		bp.Pelvis = vec{0.01 * s, b.standY - 0.07*s, -0.01 * s}
		bp.PelvisRot = vec{0.05, -0.38, 0}
		bp.Spine = bp.Spine.Add(vec{0.04, 0.1, 0})
		bp.Chest = bp.Chest.Add(vec{0.05, 0.12, 0})
		bp.Foot[left] = footPose{Pos: vec{0.1 * s, b.ankleH, 0.24 * s}, Yaw: -0.1, Pole: vec{0.1, 0, 1}}
		bp.Foot[right] = footPose{Pos: vec{-0.17 * s, b.ankleH, -0.2 * s}, Yaw: -0.7, Pole: vec{-0.6, 0, 1}}
		*R = armPose{Dir: vec{-0.12, -0.35, 1}, Bend: 0.75, Pole: vec{-0.6, -0.6, -0.5}, Grip: vec{0.1, 0.45, 1}}
		*L = armPose{Dir: vec{0.35, -0.3, 1}, Bend: 1.5, Pole: vec{0.7, -0.5, -0.4}, Grip: vec{-0.2, 1, 0.2}}
	case WeaponSpear: // wide and low, spear level, both hands on the shaft
		bp.Pelvis = vec{0, b.standY - 0.11*s, -0.03 * s}
		bp.PelvisRot = vec{0.1, -0.3, 0}
		bp.Spine = bp.Spine.Add(vec{0.05, 0.08, 0})
		bp.Chest = bp.Chest.Add(vec{0.05, 0.1, 0})
		bp.Foot[left] = footPose{Pos: vec{0.13 * s, b.ankleH, 0.3 * s}, Yaw: -0.1, Pole: vec{0.15, 0, 1}}
		bp.Foot[right] = footPose{Pos: vec{-0.2 * s, b.ankleH, -0.25 * s}, Yaw: -0.6, Pole: vec{-0.6, 0, 1}}
		*R = armPose{Dir: vec{-0.4, -0.8, 0.15}, Bend: 1.25, Pole: vec{-0.5, -0.2, -1}, Grip: vec{0.02, 0.1, 1}, GripRoot: 1}
		*L = armPose{Dir: vec{0.1, -0.5, 1}, Bend: 1.0, Pole: vec{0.7, -0.6, -0.4}, Grip: vec{0.02, 0.1, 1}, Shaft: 1, ShaftAt: 0.5}
	default: // compact: weapon raised, free arm forward
		bp.Pelvis = vec{0, b.standY - 0.05*s, 0}
		bp.PelvisRot = vec{0.05, -0.15, 0}
		bp.Chest = bp.Chest.Add(vec{0.06, 0.08, 0})
		bp.Foot[left] = footPose{Pos: vec{0.12 * s, b.ankleH, 0.14 * s}, Yaw: 0, Pole: vec{0.15, 0, 1}}
		bp.Foot[right] = footPose{Pos: vec{-0.14 * s, b.ankleH, -0.14 * s}, Yaw: -0.35, Pole: vec{-0.3, 0, 1}}
		*R = armPose{Dir: vec{-0.35, -0.3, 0.9}, Bend: 1.25, Pole: vec{-0.7, -0.6, -0.4}, Grip: vec{0, 0.75, 0.65}}
		*L = armPose{Dir: vec{0.3, -0.45, 0.85}, Bend: 1.3, Pole: vec{0.7, -0.6, -0.4}, Grip: vec{-0.3, 0.5, 0.8}}
	}
	return bp
}

// hold: the braced stance, breathing and shifting.
func (b *body) hold(p float64) bodyPose {
	bp := b.guard()
	c, sn := math.Cos(2*math.Pi*p), math.Sin(2*math.Pi*p)
	bp.Pelvis[1] -= 0.008 * b.s * (1 - c) / 2
	bp.Pelvis[0] += 0.006 * b.s * sn
	bp.Chest[0] += 0.02 * (1 - c) / 2
	bp.Chest[1] += 0.02 * sn
	bp.Arm[right].Dir = bp.Arm[right].Dir.Add(vec{0.02 * sn, 0.03 * c, 0})
	bp.Arm[right].Grip = bp.Arm[right].Grip.Add(vec{0.03 * sn, 0.03 * c, 0})
	bp.Arm[left].Bend += 0.04 * c
	return bp
}

// archer is the braced, side-on archery stance with the bow held out at aim (the
// bow arm towards aim in root space) and the string hand drawn draw ∈ [0, 1].
func (b *body) archer(aim vec, draw float64) bodyPose {
	s := b.s
	bp := b.stand()
	bp.ArmsInRoot = true
	bp.Pelvis = vec{0.02 * s, b.standY - 0.04*s, 0}
	bp.PelvisRot = vec{0, -0.8, 0}
	bp.Spine = bp.Spine.Add(vec{0, -0.15, 0.03})
	bp.Chest = bp.Chest.Add(vec{-0.03, -0.2, 0.05})
	bp.HeadLevel = 1
	bp.Head = vec{0.02, math.Atan2(aim[0], aim[2]) * 0.9, 0}
	bp.Foot[left] = footPose{Pos: vec{0.1 * s, b.ankleH, 0.17 * s}, Yaw: -0.3, Pole: vec{0.1, 0, 1}}
	bp.Foot[right] = footPose{Pos: vec{-0.2 * s, b.ankleH, -0.12 * s}, Yaw: -0.9, Pole: vec{-0.6, 0, 1}}
	bp.Arm[left] = armPose{Dir: aim, Bend: 0.08, Pole: vec{0.3, -1, 0}, Grip: vec{-0.15, 1, 0.05}}
	bp.Arm[right] = armPose{Dir: vec{-0.3, -0.6, 0.6}, Bend: 1.2, Pole: vec{-1, -0.3, -0.6}, Grip: vec{0, 0, 1},
		Draw: 1, DrawLen: 0.08 + 0.55*b.s*b.prof.Reach*draw}
	bp.Arm[right].Pole = vec{-0.6, 0.35, -1}
	bp.Arm[right].Clav = [2]float64{0.1 * draw, -0.1 * draw}
	return bp
}

// holdBow: braced with the bow raised and half drawn, swaying slightly.
func (b *body) holdBow(p float64) bodyPose {
	c, sn := math.Cos(2*math.Pi*p), math.Sin(2*math.Pi*p)
	bp := b.archer(vec{0.02 + 0.01*sn, 0.06 + 0.01*c, 1}, 0.35+0.03*(1-c)/2)
	bp.Pelvis[1] -= 0.005 * b.s * (1 - c) / 2
	bp.Chest[0] -= 0.01 * (1 - c) / 2
	return bp
}

// bowKeys is the draw-and-release sequence, timed to the bow markers (.18
// anticipation, .56 release and contact, .66 recover, .86 exit), for an archer
// pose function (standing or mounted) aiming along aim.
func bowKeys(pose func(draw float64, raised float64) bodyPose) []key {
	ready := pose(0, 0) // bow held low, arrow nocked
	raised := pose(0, 1)
	full := pose(1, 1)
	release := full // the string hand springs back past the ear
	release.Arm[right].DrawLen += 0.28
	release.Arm[right].Clav[1] -= 0.2
	release.Arm[right].Bend += 0.2
	follow := release
	follow.Arm[right].DrawLen += 0.02
	return []key{
		{At: 0, Pose: ready},
		{At: 0.18, Pose: ready},
		{At: 0.28, Pose: raised},
		{At: 0.52, Pose: full},
		{At: 0.56, Pose: full},
		{At: 0.60, Pose: release, In: 2.6, Out: 0},
		{At: 0.66, Pose: follow},
		{At: 1, Pose: ready},
	}
}

// attackBow: raise the bow, nock, draw to the anchor, aim, loose, lower.
func (b *body) attackBow(p float64) bodyPose {
	keys := bowKeys(func(draw, raised float64) bodyPose {
		low := vec{0.25, -0.55, 0.8}
		aim := vec{0.02, 0.08, 1}
		return b.archer(slerpV(low, aim, raised), draw)
	})
	return sampleKeys(keys, p)
}

// melee builds an attack from the guard: wind-up peaking at .46–.50, the strike
// accelerating into contact at .58 (markers .54 release, .58 contact), the
// follow-through to .68, recovery to the guard by .92.
func melee(guard, wind, contact, follow bodyPose) []key {
	cocked := wind // the last moment of the wind-up: a touch further
	cocked.Chest[1] -= 0.04
	cocked.Arm[right].Bend += 0.05
	return []key{
		{At: 0, Pose: guard},
		{At: 0.10, Pose: guard},
		{At: 0.44, Pose: wind, In: 0.4, Out: 0},
		{At: 0.50, Pose: cocked},
		{At: 0.58, Pose: contact, In: 0, Out: 1.7},
		{At: 0.68, Pose: follow, In: 1.4, Out: 0},
		{At: 0.92, Pose: guard},
		{At: 1, Pose: guard},
	}
}

// freeArm sets the left arm unless it holds the weapon's shaft.
func (b *body) freeArm(bp *bodyPose, a armPose) {
	if bp.Arm[left].Shaft > 0 {
		return
	}
	bp.Arm[left] = a
}

// swing is how wide a profile's swings are: a sword's full, a generic weapon's
// shorter.
func (b *body) swing() float64 {
	if b.prof.Weapon == WeaponOneHanded {
		return 0.75
	}
	return 1
}

// swingGrip is a swing's wind-up grip: a long spear swung like a sword is held
// across the body rather than laid back over the shoulder.
func (b *body) swingGrip(g vec) vec {
	if b.prof.Weapon == WeaponSpear {
		return slerpV(g.Normalize(), vec{0, 0.2, 1}, 0.65)
	}
	return g
}

// swordA: a diagonal cut from high on the right to low on the left.
func (b *body) swordA(p float64) bodyPose {
	s, w := b.s, b.swing()
	g := b.guard()
	wind := g
	wind.Pelvis = wind.Pelvis.Add(vec{0, 0.01 * s, -0.04 * s})
	wind.PelvisRot = wind.PelvisRot.Add(vec{-0.03, -0.15 * w, 0})
	wind.Spine = wind.Spine.Add(vec{-0.05, -0.2 * w, 0.03})
	wind.Chest = wind.Chest.Add(vec{-0.1, -0.45 * w, 0.1})
	wind.Arm[right] = armPose{Dir: vec{-0.45, 0.85, -0.25 * w}, Bend: 1.9, Pole: vec{-0.8, 0.3, 0.4}, Grip: b.swingGrip(vec{0.2, 0.45, -1}), Clav: [2]float64{0.25, -0.1}}
	b.freeArm(&wind, armPose{Dir: vec{0.3, -0.25, 1}, Bend: 0.9, Pole: vec{0.7, -0.5, -0.4}, Grip: vec{-0.2, 0.6, 0.8}})
	con := g
	con.Pelvis = con.Pelvis.Add(vec{0, -0.04 * s, 0.07 * s})
	con.PelvisRot = con.PelvisRot.Add(vec{0.06, 0.12 * w, 0})
	con.Spine = con.Spine.Add(vec{0.1, 0.15 * w, 0})
	con.Chest = con.Chest.Add(vec{0.22, 0.3 * w, -0.05})
	con.Arm[right] = armPose{Dir: vec{0.1, -0.05, 1}, Bend: 0.12, Pole: vec{-0.6, -0.5, -0.6}, Grip: vec{0.45, -0.3, 1}, Clav: [2]float64{0, 0.15}}
	b.freeArm(&con, armPose{Dir: vec{0.55, -0.6, -0.25}, Bend: 0.7, Pole: vec{0.6, -0.4, -1}, Grip: vec{-0.2, 0.3, 1}})
	fol := con
	fol.Chest = fol.Chest.Add(vec{0.06, 0.2 * w, 0})
	fol.Arm[right] = armPose{Dir: vec{0.45, -0.75, 0.45}, Bend: 0.45, Pole: vec{-0.7, -0.4, -0.6}, Grip: vec{0.8, -0.55, 0.2}}
	return sampleKeys(melee(g, wind, con, fol), p)
}

// swordB: a flat cut from right to left at chest height.
func (b *body) swordB(p float64) bodyPose {
	s, w := b.s, b.swing()
	g := b.guard()
	wind := g
	wind.Pelvis = wind.Pelvis.Add(vec{0, -0.02 * s, -0.02 * s})
	wind.PelvisRot = wind.PelvisRot.Add(vec{0, -0.2 * w, 0})
	wind.Spine = wind.Spine.Add(vec{0, -0.25 * w, 0})
	wind.Chest = wind.Chest.Add(vec{0, -0.6 * w, 0.05})
	wind.Arm[right] = armPose{Dir: vec{-1, 0.2, -0.35 * w}, Bend: 0.75, Pole: vec{-0.2, -1, -0.3}, Grip: b.swingGrip(vec{-0.3, 0.25, -1}), Clav: [2]float64{0.1, -0.15}}
	b.freeArm(&wind, armPose{Dir: vec{0.45, -0.3, 0.9}, Bend: 1.1, Pole: vec{0.7, -0.6, -0.3}, Grip: vec{-0.2, 0.6, 0.8}})
	con := g
	con.Pelvis = con.Pelvis.Add(vec{0, -0.03 * s, 0.04 * s})
	con.PelvisRot = con.PelvisRot.Add(vec{0.04, 0.15 * w, 0})
	con.Spine = con.Spine.Add(vec{0.05, 0.15 * w, 0})
	con.Chest = con.Chest.Add(vec{0.12, 0.3 * w, 0})
	con.Arm[right] = armPose{Dir: vec{0.05, 0.02, 1}, Bend: 0.1, Pole: vec{0, -1, -0.1}, Grip: vec{1, 0.1, 0.3}, Clav: [2]float64{0.05, 0.15}}
	b.freeArm(&con, armPose{Dir: vec{0.6, -0.5, -0.4}, Bend: 0.9, Pole: vec{0.6, -0.4, -1}, Grip: vec{-0.2, 0.3, 1}})
	fol := con
	fol.Chest = fol.Chest.Add(vec{-0.02, 0.35 * w, 0})
	fol.Arm[right] = armPose{Dir: vec{0.85, 0, 0.45}, Bend: 0.4, Pole: vec{0, -1, 0}, Grip: b.swingGrip(vec{0.5, 0.1, -0.9})}
	return sampleKeys(melee(g, wind, con, fol), p)
}

// swordC: a lunging thrust, the front foot stepping in.
func (b *body) swordC(p float64) bodyPose {
	s, w := b.s, b.swing()
	g := b.guard()
	wind := g
	wind.Pelvis = wind.Pelvis.Add(vec{0, -0.03 * s, -0.08 * s})
	wind.Chest = wind.Chest.Add(vec{-0.05, -0.35 * w, 0})
	wind.Arm[right] = armPose{Dir: vec{-0.4, -0.6, -0.45}, Bend: 1.9, Pole: vec{-0.5, -0.3, -1}, Grip: vec{0.05, 0.1, 1}}
	b.freeArm(&wind, armPose{Dir: vec{0.3, -0.1, 1}, Bend: 0.8, Pole: vec{0.7, -0.6, -0.3}, Grip: vec{-0.2, 0.6, 0.8}})
	con := g
	con.Foot[left].Pos = con.Foot[left].Pos.Add(vec{0, 0, 0.4 * s * w})
	con.Pelvis = con.Pelvis.Add(vec{0, -0.1 * s, 0.27 * s * w})
	con.PelvisRot = con.PelvisRot.Add(vec{0.12, 0.2, 0})
	con.Spine = con.Spine.Add(vec{0.05, 0.1, 0})
	con.Chest = con.Chest.Add(vec{0.12, 0.25, 0})
	con.Arm[right] = armPose{Dir: vec{0.08, 0.02, 1}, Bend: 0.04, Pole: vec{-0.6, -0.6, -0.4}, Grip: vec{0.02, 0.05, 1}, Clav: [2]float64{0.05, 0.2}}
	b.freeArm(&con, armPose{Dir: vec{0.55, -0.35, -0.7}, Bend: 0.3, Pole: vec{0.5, -0.6, -1}, Grip: vec{-0.2, 0.3, 1}})
	fol := con
	fol.Pelvis = fol.Pelvis.Add(vec{0, 0.02 * s, -0.04 * s})
	fol.Arm[right].Bend = 0.5
	fol.Arm[right].Dir = vec{0, -0.15, 1}
	return sampleKeys(melee(g, wind, con, fol), p)
}

// spearGuard is the guard for the spear attacks: the profile's own guard, or for
// a profile without a spear its weapon held low like one.
func (b *body) spearGuard() bodyPose { return b.guard() }

// spearThrust builds a thrust: the weapon hand drawn back to wind, then driven
// along the shaft to full reach at contact, the body stepping in by lunge.
func (b *body) spearThrust(p float64, windDir, windGrip, hitDir, hitGrip vec, crouch, lunge float64, pole vec) bodyPose {
	s := b.s
	g := b.spearGuard()
	wind := g
	wind.Pelvis = wind.Pelvis.Add(vec{0, -crouch * s, -0.08 * s})
	wind.PelvisRot = wind.PelvisRot.Add(vec{0, -0.1, 0})
	wind.Chest = wind.Chest.Add(vec{-0.05, -0.3, 0})
	wind.Arm[right] = armPose{Dir: windDir, Bend: 1.7, Pole: pole, Grip: windGrip, GripRoot: 1}
	wind.Arm[left].ShaftAt = 0.6
	b.freeArm(&wind, armPose{Dir: vec{0.25, -0.3, 1}, Bend: 0.6, Pole: vec{0.7, -0.6, -0.3}, Grip: vec{-0.2, 0.6, 0.8}})
	con := g
	con.Foot[left].Pos = con.Foot[left].Pos.Add(vec{0, 0, lunge * s})
	con.Pelvis = con.Pelvis.Add(vec{0, -(crouch + 0.05) * s, lunge * 0.75 * s})
	con.PelvisRot = con.PelvisRot.Add(vec{0.05, 0.25, 0})
	con.Spine = con.Spine.Add(vec{0.03, 0.1, 0})
	con.Chest = con.Chest.Add(vec{0.06, 0.2, 0})
	con.Arm[right] = armPose{Dir: hitDir, Bend: 0.08, Pole: pole, Grip: hitGrip, GripRoot: 1, Clav: [2]float64{0, 0.2}}
	if con.Arm[left].Shaft > 0 { // the rear hand drives up the shaft to the front hand
		con.Arm[right].Bend = 1.2
		con.Arm[right].Dir = vec{0.3, -0.3, 1}
		con.Arm[left].ShaftAt = 0.12
	}
	b.freeArm(&con, armPose{Dir: vec{0.5, -0.5, -0.5}, Bend: 0.5, Pole: vec{0.5, -0.6, -1}, Grip: vec{-0.2, 0.3, 1}})
	fol := con
	fol.Pelvis = fol.Pelvis.Add(vec{0, 0.02 * s, -0.05 * s})
	fol.Arm[right].Bend += 0.35
	return sampleKeys(melee(g, wind, con, fol), p)
}

// spearA: a level thrust at the chest.
func (b *body) spearA(p float64) bodyPose {
	return b.spearThrust(p, vec{-0.4, -0.6, -0.6}, vec{0.02, 0.08, 1}, vec{-0.08, -0.05, 1}, vec{0, 0.03, 1}, 0.02, 0.25, vec{-0.5, -0.3, -1})
}

// spearB: an overhand thrust driven down from above the shoulder.
func (b *body) spearB(p float64) bodyPose {
	return b.spearThrust(p, vec{-0.35, 0.9, -0.25}, vec{0.02, -0.2, 1}, vec{-0.1, 0.35, 1}, vec{0, -0.3, 1}, 0, 0.18, vec{-0.9, 0.1, 0.2})
}

// spearC: a low lunge thrusting upward.
func (b *body) spearC(p float64) bodyPose {
	return b.spearThrust(p, vec{-0.35, -0.9, -0.3}, vec{0, 0.3, 1}, vec{-0.1, -0.4, 1}, vec{0, 0.25, 1}, 0.09, 0.34, vec{-0.5, -0.5, -1})
}

// seated sits the rider on a horse's back at SeatHeight: hips bent about 90°,
// thighs apart round the barrel, feet in the stirrups; the left hand on the
// reins, the right holding the weapon up.
func (b *body) seated() bodyPose {
	s := b.s
	var bp bodyPose
	bp.Pelvis = vec{0, SeatHeight + 0.13*s, -0.02 * s}
	bp.PelvisRot = vec{-0.06, 0, 0}
	bp.Spine = vec{0.05 + b.prof.Stoop*0.5, 0, 0}
	bp.Chest = vec{0.03 + b.prof.Stoop*0.5, 0, 0}
	bp.Head = vec{0.05, 0, 0}
	bp.HeadLevel = 1
	for i := 0; i < 2; i++ {
		sx := side(i)
		bp.Foot[i] = footPose{Pos: vec{sx * 0.27 * s, SeatHeight - 0.35*s, 0.2 * s}, Pitch: -0.15, Yaw: sx * 0.25, Pole: vec{sx * 0.35, 0.2, 1}}
	}
	bp.Arm[left] = armPose{Dir: vec{-0.15, -0.8, 0.75}, Bend: 1.35, Pole: vec{0.8, -0.5, -0.4}, Grip: vec{-0.6, 0.3, 0.7}}
	bp.Arm[right] = armPose{Dir: vec{-0.25, -0.85, 0.45}, Bend: 1.2, Pole: vec{-0.7, -0.4, -0.6}, Grip: vec{0, 0.85, 0.55}}
	return bp
}

// ridingIdle: sitting the standing horse, swaying with its breathing.
func (b *body) ridingIdle(p float64) bodyPose {
	bp := b.seated()
	c, sn := math.Cos(2*math.Pi*p), math.Sin(2*math.Pi*p)
	bp.Pelvis[1] += 0.006 * b.s * c
	bp.PelvisRot[2] = 0.015 * sn
	bp.Chest[0] -= 0.02 * (1 - c) / 2
	bp.Chest[2] = -0.02 * sn
	bp.Head[1] = 0.06 * sn
	return bp
}

// ridingCharge: leaning into a gallop, weapon levelled forward, rising with each
// stride (two strides a pass; phase 1 is phase 0 again so it repeats cleanly).
func (b *body) ridingCharge(p float64) bodyPose {
	s := b.s
	bp := b.seated()
	c, sn := math.Cos(4*math.Pi*p), math.Sin(4*math.Pi*p)
	bp.Pelvis = bp.Pelvis.Add(vec{0, 0.04*s*c + 0.03*s, 0.05*s + 0.02*s*sn})
	bp.PelvisRot = vec{0.15 + 0.05*sn, 0, 0}
	bp.Spine = bp.Spine.Add(vec{0.15, 0, 0})
	bp.Chest = bp.Chest.Add(vec{0.15 - 0.04*sn, 0, 0})
	bp.Head = vec{-0.05, 0, 0}
	for i := 0; i < 2; i++ {
		bp.Foot[i].Pos = bp.Foot[i].Pos.Add(vec{0, 0.03 * s, -0.08 * s})
		bp.Foot[i].Pitch = -0.3
	}
	bp.Arm[left] = armPose{Dir: vec{-0.1, -0.55, 1}, Bend: 0.75 + 0.1*c, Pole: vec{0.8, -0.5, -0.3}, Grip: vec{-0.6, 0.3, 0.7}}
	grip := vec{0.02, 0.2, 1}
	if b.prof.Weapon == WeaponSpear {
		grip = vec{0.08, 0.05, 1} // couched under the arm
	}
	bp.Arm[right] = armPose{Dir: vec{-0.2, -0.15 + 0.03*c, 1}, Bend: 0.45, Pole: vec{-0.7, -0.6, -0.4}, Grip: grip, Clav: [2]float64{0.05, 0.1}}
	return bp
}

// ridingReining: hauling back on the reins, braced in the stirrups, twice.
func (b *body) ridingReining(p float64) bodyPose {
	s := b.s
	sit := b.seated()
	pull := sit
	pull.Pelvis = pull.Pelvis.Add(vec{0, 0.01 * s, -0.04 * s})
	pull.PelvisRot = vec{-0.2, 0, 0}
	pull.Spine = pull.Spine.Add(vec{-0.12, 0, 0})
	pull.Chest = pull.Chest.Add(vec{-0.1, 0, 0})
	pull.Head = vec{0.1, 0, 0}
	for i := 0; i < 2; i++ {
		pull.Foot[i].Pos = pull.Foot[i].Pos.Add(vec{0, 0.03 * s, 0.14 * s})
		pull.Foot[i].Pitch = -0.45
	}
	pull.Arm[left] = armPose{Dir: vec{-0.1, -0.9, 0.3}, Bend: 2.0, Pole: vec{0.8, -0.2, -0.6}, Grip: vec{-0.6, 0.5, 0.6}}
	pull.Arm[right].Dir = vec{-0.3, -0.6, 0.25}
	pull.Arm[right].Bend = 1.6
	ease := sit
	ease.PelvisRot = vec{-0.12, 0, 0}
	ease.Arm[left].Bend = 1.6
	ease.Arm[left].Dir = vec{-0.12, -0.85, 0.55}
	keys := []key{
		{At: 0, Pose: sit},
		{At: 0.22, Pose: pull},
		{At: 0.4, Pose: ease},
		{At: 0.58, Pose: pull},
		{At: 0.75, Pose: pull},
		{At: 1, Pose: sit},
	}
	return sampleKeys(keys, p)
}

// ridingArcher is the seated archery pose, shooting forward-left.
func (b *body) ridingArcher(draw, raised float64) bodyPose {
	bp := b.seated()
	bp.ArmsInRoot = true
	aim := vec{0.75, 0.08, 0.65}
	low := vec{0.55, -0.5, 0.55}
	bp.Spine = bp.Spine.Add(vec{0, 0.15, 0})
	bp.Chest = bp.Chest.Add(vec{-0.03, 0.3 * raised, 0.04})
	bp.Head = vec{0.02, math.Atan2(aim[0], aim[2]) * 0.9, 0}
	bp.Arm[left] = armPose{Dir: slerpV(low, aim, raised), Bend: 0.08 + 0.3*(1-raised), Pole: vec{0.3, -1, -0.3}, Grip: vec{-0.15, 1, 0.05}}
	bp.Arm[right] = armPose{Dir: vec{0.2, -0.6, 0.6}, Bend: 1.2, Pole: vec{-0.3, 0.35, -1}, Grip: vec{0.7, 0, 0.7},
		Draw: 1, DrawLen: 0.08 + 0.55*b.s*b.prof.Reach*draw, Clav: [2]float64{0.1 * draw, -0.1 * draw}}
	return bp
}

// ridingBowShot: drawing and loosing from the saddle, on the bow markers.
func (b *body) ridingBowShot(p float64) bodyPose {
	return sampleKeys(bowKeys(b.ridingArcher), p)
}

// ridingSwordStrike: a downward cut at a foe on the right, on the melee markers.
func (b *body) ridingSwordStrike(p float64) bodyPose {
	s := b.s
	sit := b.seated()
	ready := sit
	ready.Arm[right] = armPose{Dir: vec{-0.3, -0.5, 0.8}, Bend: 1.1, Pole: vec{-0.7, -0.5, -0.5}, Grip: vec{-0.1, 0.7, 0.7}}
	wind := ready
	wind.Spine = wind.Spine.Add(vec{-0.05, -0.2, -0.05})
	wind.Chest = wind.Chest.Add(vec{-0.1, -0.4, -0.1})
	wind.Arm[right] = armPose{Dir: vec{-0.35, 0.9, -0.35}, Bend: 1.8, Pole: vec{-0.8, 0.3, 0.4}, Grip: vec{-0.2, 0.45, -1}, Clav: [2]float64{0.3, -0.1}}
	con := ready
	con.Pelvis = con.Pelvis.Add(vec{-0.04 * s, 0, 0})
	con.PelvisRot = vec{0, 0, 0.1}
	con.Spine = con.Spine.Add(vec{0.1, 0.05, 0.15})
	con.Chest = con.Chest.Add(vec{0.2, 0.1, 0.2})
	con.Arm[right] = armPose{Dir: vec{-0.55, -0.55, 0.6}, Bend: 0.1, Pole: vec{-0.5, -0.2, -1}, Grip: vec{-0.3, -0.6, 0.8}, Clav: [2]float64{0, 0.15}}
	fol := con
	fol.Arm[right] = armPose{Dir: vec{-0.45, -0.85, -0.1}, Bend: 0.3, Pole: vec{-0.5, 0, -1}, Grip: vec{-0.2, -0.9, -0.3}}
	keys := melee(ready, wind, con, fol)
	keys[0].Pose, keys[len(keys)-1].Pose = sit, sit
	return sampleKeys(keys, p)
}

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
// the right leg swinging over, and lands on his back.
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
	end := b.lying(true)
	mid := lerpPose(&topple, &end, 0.45)
	mid.Pelvis = vec{0.4 * s, 0.8 * s, -0.03 * s}
	mid.PelvisRot = vec{-0.9, -0.1, -1.4}
	mid.Foot[left].Pos = vec{0.1 * s, 1.05 * s, 0.1 * s}
	mid.Foot[right].Pos = vec{-0.1 * s, 1.15 * s, 0.05 * s}
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

func (b *body) deadMounted(float64) bodyPose { return b.lying(true) }
