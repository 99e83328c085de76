package quadruped

import (
	"math"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
)

// ElephantDims returns the elephant's measurements: about 3 m at the shoulder and
// 5.5 m from trunk to tail.
func ElephantDims() Dims {
	return Dims{Width: 1.1, Height: 1.0, Length: 3.2, BodyHeight: 2.2, FootHeight: 0.16}
}

// ElephantConfig returns the elephant's gait knobs: the legs keep their own
// phases from docs/species.md (FL 0, FR .5, RL .75, RR .25) whatever the gait, a
// foot swings for .25 of the cycle, and the pair phases only pitch the body.
func ElephantConfig() Config {
	return Config{
		Harmonics:    DefaultHarmonics(),
		BobAmplitude: 0.04, BobBase: 0.5, BobIntensity: 0.5,
		CycleFloor:    1e-3,
		LegPhase:      [NumLegs]float64{0, 0.5, 0.75, 0.25},
		SwingDuration: 0.25,
		PitchGain:     1,
		SwayAmplitude: 0.04, RollAmplitude: 0.015,
		Glide:    0.3,
		FootCurl: 0.35,
	}
}

// ElephantGaits returns the elephant's gait table (the quadruped gait of
// docs/species.md) with the ground speed each stride matches.
func ElephantGaits() []Gait {
	return withRoster([]Gait{
		{Name: "idle", FrontPhase: 0, RearPhase: 0, Swing: 0.02, Lift: 0.01},
		{Name: "walk", FrontPhase: 0.25, RearPhase: 0, Swing: 0.30, Lift: 0.10},
		{Name: "run", FrontPhase: 0.5, RearPhase: 0.5, Swing: 0.70, Lift: 0.25, Running: true},
		{Name: "fight", FrontPhase: 0, RearPhase: 0, Swing: 0.30, Lift: 0.06},
	}, "elephant")
}

// elephant sockets: the howdah on top of the back, the head, and the tip of the
// trunk.
var elephantSockets = []species.Socket{
	{Name: "howdah", Anchor: 1, Offset: [3]float32{0, 0.85, -0.15}},
	{Name: "head", Anchor: 14, Offset: [3]float32{0, 0.05, 0.35}},
	{Name: "trunk_tip", Anchor: 15, Offset: [3]float32{0, -0.90, 0.05}},
}

func elephantPlan() *plan {
	return newPlan(layout{
		dims:       ElephantDims(),
		cfg:        ElephantConfig(),
		legStretch: 1.05,
		forward:    [NumLegs]bool{true, true, true, true}, // wrists and knees both bend forward
		onRoot:     true,
		headNames:  [2]string{"Head", "TrunkTip"},
		headA:      rig.Vec3{0, 0.35, 1.85},
		headB:      rig.Vec3{0, -0.95, 0.55},
		reach:      0.985,
	})
}

// elephantHead moves the head and trunk (and, in fight, the whole body) for each
// gait.
func elephantHead(name string) headMotion {
	return func(phase, intensity float64, bp bodyPose) bodyPose {
		p := phase
		sin := func(f, ph float64) float64 { return math.Sin(2 * math.Pi * (f*p + ph)) }
		switch name {
		case "idle":
			bp.Head[0] = rotY(0.06 * sin(1, 0)).Mul(rotX(0.03 * sin(1, 0.3)))
			bp.Head[1] = rotX(0.15 * sin(1, 0.1)).Mul(rotZ(0.12 * sin(1, 0.35)))
		case "walk":
			bp.Head[0] = rotX(0.04 * sin(2, 0.1))
			bp.Head[1] = rotX(0.20 * sin(1, 0.1)).Mul(rotZ(0.08 * sin(1, 0.35)))
		case "run":
			bp.Head[0] = rotX(-0.06 + 0.05*sin(2, 0.1))
			bp.Head[1] = rotX(-0.35 + 0.20*sin(1, 0.2))
		case "fight":
			// Wind up (trunk and head high, weight back), then thrust the tusks
			// forward and down with a lunge.
			raise := bump(p, 0.04, 0.30, 0.42, 0.52)
			strike := bump(p, 0.48, 0.60, 0.70, 0.92)
			bp.Head[0] = rotX(-0.35*raise + 0.30*strike)
			bp.Head[1] = rotX(-1.4*raise + 0.5*strike)
			bp.Body.Translation[2] += 0.30*strike - 0.12*raise
			bp.Body.Rotation = bp.Body.Rotation.Mul(rotX(-0.08*raise + 0.06*strike))
		}
		return bp
	}
}

// Elephant returns the elephant (species 2): a 16-bone skeleton with the legs and
// head hanging from Root, its clips idle, walk, run, fight (stamping, a trunk
// raise and a tusk thrust), die (kneels, then rolls onto its left side) and dead,
// and the howdah, head and trunk_tip sockets.
func Elephant() *species.Creature {
	p := elephantPlan()
	s := &species.Creature{ID: rosterRow("elephant").ID, Name: "elephant", Skeleton: p.skel, Sockets: append([]species.Socket(nil), elephantSockets...)}
	s.Clips = p.gaitClips(ElephantGaits(), map[string]int{"run": 16}, elephantHead)
	s.Clips = append(s.Clips, p.deathClips(24, elephantDeath(p))...)
	p.dress(s, elephantMesh)
	return s
}

// elephantDeath is the die clip's keys: the forelegs kneel, then the hind legs,
// then the elephant rolls onto its left side.
func elephantDeath(p *plan) []key {
	d := p.dims
	k0 := p.restPose()

	k1 := p.restPose()
	k1.Body.Translation = rig.Vec3{0, d.BodyHeight - 0.55, 0.05}
	k1.Body.Rotation = rotX(0.20)
	k1.Head = [2]rig.Quat{rotX(0.25), rotX(0.3)}
	legFK(&k1, FL, -0.20, 1.9, 0.3)
	legFK(&k1, FR, -0.15, 1.8, 0.3)
	pose := p.skel.RestPose()
	p.write(&k1, pose)
	for _, leg := range []int{BL, BR} {
		p.plant(&k1, pose, leg, d.DefaultFoot(leg), 0)
	}
	k1 = p.read(pose)

	k2 := p.restPose()
	k2.Body.Translation = rig.Vec3{0, 1.25, 0}
	k2.Body.Rotation = rotZ(-0.12).Mul(rotX(0.05))
	k2.Head = [2]rig.Quat{rotX(0.2), rotX(0.4)}
	legFK(&k2, FL, -0.20, 1.9, 0.3)
	legFK(&k2, FR, -0.15, 1.9, 0.3)
	legFK(&k2, BL, -1.10, 2.0, 0.3)
	legFK(&k2, BR, -1.05, 2.0, 0.3)

	k3 := p.restPose()
	k3.Body.Translation = rig.Vec3{0.55, 0.86, 0}
	k3.Body.Rotation = rotZ(-0.97 * math.Pi / 2).Mul(rotX(0.03))
	k3.Head = [2]rig.Quat{rotZ(-0.25).Mul(rotX(0.2)), rotX(0.6).Mul(rotZ(-0.3))}
	legFK(&k3, FL, -0.30, 0.4, 0.2)
	legFK(&k3, FR, -0.15, 0.6, 0.2)
	legFK(&k3, BL, 0.30, 0.3, 0.2)
	legFK(&k3, BR, 0.15, 0.5, 0.2)

	return []key{{0, k0}, {0.35, k1}, {0.62, k2}, {1, k3}}
}
