package humanoid

import "math"

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
	return rested(guard, 0.10, 0.92,
		key{At: 0.44, Pose: wind, In: 0.4, Out: 0},
		key{At: 0.50, Pose: cocked},
		key{At: 0.58, Pose: contact, In: 0, Out: 1.7},
		key{At: 0.68, Pose: follow, In: 1.4, Out: 0},
	)
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
	if b.prof.Weapon == WeaponSword {
		// A swordsman sinks back onto the rear leg before the cut, and lunges out
		// of it: the game's sword species differs from its default humanoid by
		// more than 5 cm at the shoulder half way through (docs/species.md §3).
		wind.Pelvis = wind.Pelvis.Add(vec{0, -0.05 * s, -0.06 * s})
	}
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
