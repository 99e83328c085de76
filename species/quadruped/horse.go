package quadruped

import (
	"github.com/bonebake/bonebake/bake"
	"math"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
)

// HorseDims returns the horse's measurements: withers about 1.6 m, the seat of the
// saddle 1.45 m, 2.4 m from muzzle to rump.
func HorseDims() Dims {
	return Dims{Width: 0.56, Height: 0.62, Length: 1.62, BodyHeight: 1.22, FootHeight: 0.05}
}

// HorseConfig returns the horse's gait knobs. Its legs are timed by the pair phases
// (left legs at the pair's phase, right legs half a cycle later), and a foot's
// swing lasts .25 + .60·swing of the cycle: walk .39, trot .62, canter .71, gallop
// .79 (duty factors .61, .38, .29, .21).
func HorseConfig() Config {
	return Config{
		Harmonics:    DefaultHarmonics(),
		BobAmplitude: 0.03, BobBase: 0.5, BobIntensity: 0.5,
		CycleFloor:          1e-3,
		LegPhase:            [NumLegs]float64{0, 0.5, 0, 0.5},
		PairPhaseShiftsLegs: true,
		SwingBase:           0.25, SwingPerSwing: 0.60,
		PitchGain:     1.5,
		SwayAmplitude: 0.012, RollAmplitude: 0.02,
		Glide:    0.3,
		FootCurl: 1.2,
	}
}

// HorseGaits returns the horse's gait table (the quadruped gait of
// docs/species.md) with the ground speed each stride matches.
func HorseGaits() []Gait {
	return withRoster([]Gait{
		{Name: "idle", FrontPhase: 0, RearPhase: 0, Swing: 0.015, Lift: 0.008},
		{Name: "walk", FrontPhase: 0.25, RearPhase: 0, Swing: 0.24, Lift: 0.07},
		{Name: "trot", FrontPhase: 0, RearPhase: 0.5, Swing: 0.62, Lift: 0.24, Running: true},
		{Name: "canter", FrontPhase: 0.58, RearPhase: 0.30, Swing: 0.76, Lift: 0.34, Running: true},
		{Name: "gallop", FrontPhase: 0.42, RearPhase: 0.10, Swing: 0.90, Lift: 0.46, Running: true},
	}, "horse")
}

// horse sockets: where a rider sits (the humanoid riding clips put the rider's
// seat there), and the head.
var horseSockets = []species.Socket{
	{Name: "saddle", Anchor: 1, Offset: [3]float32{0, 0.23, 0.10}},
	{Name: "head", Anchor: 15, Offset: [3]float32{0, -0.06, 0.20}},
}

func horsePlan() *plan {
	return newPlan(layout{
		dims:       HorseDims(),
		cfg:        HorseConfig(),
		legStretch: 1.05,
		forward:    [NumLegs]bool{true, true, false, false}, // knees forward, hocks back
		headNames:  [2]string{"NeckTop", "Head"},
		headA:      rig.Vec3{0, 0.26, 0.70},
		headB:      rig.Vec3{0, 0.40, 0.36},
		reach:      0.985,
	})
}

// horseNod is the head and neck motion of each horse gait: the neck stretches
// forward (reach) and nods (nod radians, freq nods a cycle).
var horseNod = map[string]struct{ reach, nod, freq float64 }{
	"idle":   {0, 0.03, 1},
	"walk":   {0.05, 0.06, 2},
	"trot":   {0.08, 0.04, 2},
	"canter": {0.15, 0.10, 1},
	"gallop": {0.30, 0.12, 1},
}

func horseHead(name string) headMotion {
	n := horseNod[name]
	return func(phase, intensity float64, bp bodyPose) bodyPose {
		s := math.Sin(2 * math.Pi * (n.freq*phase + 0.15))
		nod := n.reach + n.nod*intensity*s
		bp.Head[0] = rotX(nod)
		bp.Head[1] = rotX(-0.5 * nod)
		if name == "idle" {
			bp.Head[0] = rotY(0.10 * math.Sin(2*math.Pi*phase)).Mul(bp.Head[0])
		}
		return bp
	}
}

// Horse returns the horse (species 1): a 16-bone skeleton, its clips idle, walk,
// trot, canter, gallop, fight (rearing and pawing, then a kick with the hind
// legs), die (falls onto its left side) and dead, and the saddle and head
// sockets.
func Horse() *species.Creature {
	p := horsePlan()
	s := &species.Creature{ID: rosterRow("horse").ID, Name: "horse", Skeleton: p.skel, Sockets: append([]species.Socket(nil), horseSockets...)}
	s.Clips = p.gaitClips(HorseGaits(), map[string]int{"trot": 16, "canter": 16, "gallop": 12}, horseHead)
	fight := species.Clip{Clip: bake.Clip{Name: "fight", FPS: 24, Loops: true, Markers: species.AuthoredMarkers("fight"), Cycle: rosterRow("horse").Gait("fight").Cycle}, Frames: 24}
	fight.Pose = func(phase float64, pose []rig.Transform) { horseFight(p, Wrap(phase), pose) }
	s.Clips = append(s.Clips, fight)
	s.Clips = append(s.Clips, p.deathClips(20, horseDeath(p))...)
	p.dress(s, horseMesh)
	return s
}

// horseFight rears (phase .02–.60: the body pivots nose up about the hind hips,
// the forelegs paw the air, the neck rises) and then kicks (.60–.94: the body tips
// forward over the forelegs and the hind legs strike backward). Feet on the ground
// stay planted; around phase 0 the horse stands still, so the loop closes.
func horseFight(p *plan, phase float64, pose []rig.Transform) {
	d := p.dims
	rear := bump(phase, 0.02, 0.22, 0.42, 0.60)
	kick := bump(phase, 0.60, 0.70, 0.80, 0.94)
	bp := p.restPose()

	// The pivot: the hind hips while rearing, the fore hips while kicking.
	pitch := -0.75*rear + 0.16*kick // nose up is negative about x
	pivotZ := -0.48 * d.Length
	if kick > 0 {
		pivotZ = -pivotZ
	}
	pivot := rig.Vec3{0, -0.42 * d.Height, pivotZ}
	rot := rotX(pitch)
	sink := rig.Vec3{0, -0.08 * rear, 0}
	bp.Body.Rotation = rot
	bp.Body.Translation = rig.Vec3{0, d.BodyHeight, 0}.Add(pivot).Sub(rot.Rotate(pivot)).Add(sink)
	neck := -0.45*rear + 0.25*kick
	toss := 0.15 * rear * math.Sin(2*math.Pi*4*phase)
	bp.Head = [2]rig.Quat{rotX(neck + toss), rotX(0.35*rear - 0.2*kick)}
	p.write(&bp, pose)

	for _, leg := range []int{FL, FR} {
		if rear > 0 {
			lag := 0.0
			if leg == FR {
				lag = 0.6
			}
			k := math.Sin(2*math.Pi*4*(phase-0.02) - lag)
			up := rear * (-0.9 - 0.35*k)
			down := rear * (1.5 + 0.6*k)
			pose[p.legs[leg].shoulder].Rotation = rotX(up)
			pose[p.legs[leg].knee].Rotation = rotX(down)
			pose[p.legs[leg].foot].Rotation = rotX(rear * 0.5)
		} else {
			p.plant(&bp, pose, leg, d.DefaultFoot(leg), 0)
		}
	}
	for _, leg := range []int{BL, BR} {
		if kick > 0 {
			pose[p.legs[leg].shoulder].Rotation = rotX(kick * 0.9)
			pose[p.legs[leg].knee].Rotation = rotX(kick * -0.35)
			pose[p.legs[leg].foot].Rotation = rotX(kick * 0.6)
		} else {
			p.plant(&bp, pose, leg, d.DefaultFoot(leg), 0)
		}
	}
}

// horseDeath is the die clip's keys: the forelegs buckle, the horse sinks and
// rolls onto its left side, and lies with its legs out and its head down.
func horseDeath(p *plan) []key {
	d := p.dims
	k0 := p.restPose()

	k1 := p.restPose()
	k1.Body.Translation = rig.Vec3{0.05, d.BodyHeight - 0.32, 0.05}
	k1.Body.Rotation = rotZ(-0.15).Mul(rotX(0.20))
	k1.Head = [2]rig.Quat{rotX(0.45), rotX(0.2)}
	legFK(&k1, FL, -0.30, 1.9, 0.3)
	legFK(&k1, FR, -0.20, 1.7, 0.3)
	pose := p.skel.RestPose()
	p.write(&k1, pose)
	for _, leg := range []int{BL, BR} {
		p.plant(&k1, pose, leg, d.DefaultFoot(leg), 0)
	}
	k1 = p.read(pose)

	k2 := p.restPose()
	k2.Body.Translation = rig.Vec3{0.25, 0.55, 0}
	k2.Body.Rotation = rotZ(-1.0).Mul(rotX(0.10))
	k2.Head = [2]rig.Quat{rotZ(-0.2).Mul(rotX(0.4)), rotX(0.3)}
	legFK(&k2, FL, -0.30, 1.6, 0.3)
	legFK(&k2, FR, -0.30, 1.4, 0.3)
	legFK(&k2, BL, -0.50, -1.1, 0.3)
	legFK(&k2, BR, -0.45, -1.0, 0.3)

	k3 := p.restPose()
	k3.Body.Translation = rig.Vec3{0.42, 0.34, -0.05}
	k3.Body.Rotation = rotZ(-0.98 * math.Pi / 2).Mul(rotX(0.05))
	k3.Head = [2]rig.Quat{rotZ(-0.35).Mul(rotX(0.3)), rotX(0.4)}
	legFK(&k3, FL, -0.35, 0.5, 0.2)
	legFK(&k3, FR, -0.20, 0.8, 0.3)
	legFK(&k3, BL, 0.25, -0.45, 0.2)
	legFK(&k3, BR, 0.10, -0.70, 0.3)

	return []key{{0, k0}, {0.35, k1}, {0.68, k2}, {1, k3}}
}
