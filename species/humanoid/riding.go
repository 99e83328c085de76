package humanoid

import (
	"math"

	"github.com/bonebake/bonebake/roster"
)

// SeatHeight is the built-in horse's saddle height in metres (its saddle socket
// at rest): the rider poses are designed on that horse, standing on the rider's
// ground with the seat at (0, SeatHeight, 0), and then moved into the game's mount
// frame by mountLift.
const SeatHeight = 1.45

// MountSeat is roster.MountSeat: where the rider clips put the seat, in the
// rider's model space (the game's mount frame). The Root stays at the origin.
var MountSeat = vec(roster.MountSeat)

// mountLift moves a rider pose designed on the built-in horse (seat at
// (0, SeatHeight, 0), the horse's ground at y 0) into the mount frame: the seat to
// MountSeat and the horse's ground to y MountSeat.y − SeatHeight.
var mountLift = MountSeat.Sub(vec{0, SeatHeight, 0})

// lifted is bp moved by d: the pelvis and both ankles (every other degree of
// freedom is a rotation, or relative to those).
func (bp bodyPose) lifted(d vec) bodyPose {
	bp.Pelvis = bp.Pelvis.Add(d)
	for i := range bp.Foot {
		bp.Foot[i].Pos = bp.Foot[i].Pos.Add(d)
	}
	return bp
}

// seated sits the rider on a horse's back at MountSeat: hips bent about 90°,
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
	return bp.lifted(mountLift)
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
	if b.prof.Shield {
		// The shield arm across the body, the hand low in front of the belly just
		// past the midline: where the game's own sword rider holds it in the
		// charge (its test: seat + (−0.16, 0.22, 0.05) ± 0.12 in its mount frame,
		// docs/species.md §3).
		bp.Arm[left] = armPose{Dir: vec{-0.5, -0.6, 0.6}, Bend: 1.9, Pole: vec{0.9, -0.3, -0.2}, Grip: vec{-0.4, 0.6, 0.7},
			Hand: MountSeat.Add(vec{-0.08 * s, 0.26 * s, 0.13 * s}), HandAt: 1}
	}
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
// The follow-through ends low in front of the saddle with the blade levelled
// forward, the hand's back turned down into the cut: the game's tests want the
// hand at .71 lower, further forward and 8 cm further to +x than at .26 (the
// wind-up), and its +y turned down and forward (docs/species.md §3).
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
	fol.Arm[right] = armPose{Dir: vec{0.05, -0.7, 0.7}, Bend: 0.25, Pole: vec{-0.5, 0, -1}, Grip: vec{0.25, 0.05, 1}}
	keys := melee(ready, wind, con, fol)
	keys[0].Pose, keys[len(keys)-1].Pose = sit, sit
	return sampleKeys(keys, p)
}
