package quadruped

import (
	"math"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/roster"
)

// Legs, in skeleton order. Left is +x: the creatures face +z with y up.
const (
	FL = iota // front left
	FR        // front right
	BL        // back (rear) left
	BR        // back (rear) right
	NumLegs
)

// front reports whether leg is a foreleg.
func front(leg int) bool { return leg == FL || leg == FR }

// left reports whether leg is on the left (+x) side.
func left(leg int) bool { return leg == FL || leg == BL }

// Dims are the body measurements the gait formulas use, in metres. Width, Height
// and Length describe the torso box that places the hips (the skeleton's, which
// the mesh is drawn around a little fuller).
type Dims struct {
	Width, Height, Length float64
	// BodyHeight is the rest height of the body centre (the Body bone) above the
	// ground.
	BodyHeight float64
	// FootHeight is the height of a planted foot bone's origin (the hoof or pad
	// centre) above the ground.
	FootHeight float64
}

// Hip returns the hip (leg root) of leg relative to the body centre, in the body's
// frame: (±.52·Width, −.42·Height, ±.48·Length), + for left and front legs.
func (d Dims) Hip(leg int) rig.Vec3 {
	x, z := 0.52*d.Width, 0.48*d.Length
	if !left(leg) {
		x = -x
	}
	if !front(leg) {
		z = -z
	}
	return rig.Vec3{x, -0.42 * d.Height, z}
}

// DefaultFoot returns where leg's foot stands when the body is at rest: under the
// hip, at FootHeight, in model space (the origin on the ground under the body
// centre).
func (d Dims) DefaultFoot(leg int) rig.Vec3 {
	h := d.Hip(leg)
	return rig.Vec3{h[0], d.FootHeight, h[2]}
}

// LegHeight is the rest height of a hip above a planted foot's origin.
func (d Dims) LegHeight() float64 { return d.BodyHeight - 0.42*d.Height - d.FootHeight }

// Gait is one row of a species' gait table (the quadruped gait of
// docs/species.md) and the ground speed its stride matches.
type Gait struct {
	Name string
	// Cycle is the stride period in seconds.
	Cycle float64
	// FrontPhase and RearPhase are phase offsets of the fore and hind leg pairs.
	// They shift the bob seen at the front and at the rear of the body (the body
	// pitches by the difference), and, for a species whose Config says so (the
	// horse), they also time the legs: a leg's offset is its pair's phase plus
	// Config.LegPhase.
	FrontPhase, RearPhase float64
	// Swing is the stride's vigour in [0,1]: it feeds Intensity and, for a species
	// without a fixed swing duration (the horse), sets the share of the cycle a
	// foot spends in the air (Config.SwingFraction).
	Swing float64
	// Lift is the height of a swinging foot's arc as a fraction of LegHeight.
	Lift float64
	// Speed is the ground speed in m/s: a planted foot moves backward in model
	// space at Speed, so it stands still in the world when the unit advances at
	// Speed. 0 for gaits played in place.
	Speed float64
	// Running adds .22 to the intensity.
	Running bool
}

// Harmonics are the weights, frequencies and phases of the body bob's three sine
// terms: sin(2πp)·W1 + sin((p+Phi2)·F2·2π)·W2 + sin((p+Phi3)·F3·2π)·W3.
type Harmonics struct {
	W1           float64
	Phi2, F2, W2 float64
	Phi3, F3, W3 float64
}

// DefaultHarmonics are docs/species.md's defaults: W1 .70; Phi2 .19, F2 2, W2 .30; W3 0.
func DefaultHarmonics() Harmonics {
	return Harmonics{W1: 0.70, Phi2: 0.19, F2: 2, W2: 0.30}
}

// Config holds a species' gait knobs.
type Config struct {
	Harmonics Harmonics
	// BobAmplitude (metres), BobBase and BobIntensity scale the bob:
	// harmonics · BobAmplitude · (BobBase + intensity·BobIntensity).
	BobAmplitude, BobBase, BobIntensity float64
	// CycleFloor is the smallest cycle the phase divides by (1e-3, as docs/species.md says).
	CycleFloor float64
	// LegPhase is each leg's own phase offset. With PairPhaseShiftsLegs a leg's
	// offset is its pair's phase (Gait.FrontPhase or RearPhase) plus LegPhase;
	// without, LegPhase alone.
	LegPhase            [NumLegs]float64
	PairPhaseShiftsLegs bool
	// SwingDuration, when positive, is the fixed share of the cycle a foot spends
	// in the air; otherwise that share is SwingBase + SwingPerSwing·clamp(Swing).
	SwingDuration, SwingBase, SwingPerSwing float64
	// PitchGain scales the body pitch made by the fore and hind bob difference.
	PitchGain float64
	// SwayAmplitude (metres) and RollAmplitude (radians) are the body's sideways
	// sway and roll at intensity 1, once per cycle.
	SwayAmplitude, RollAmplitude float64
	// Glide moves each hip fore and aft by this fraction of its foot's distance
	// from the default foot (the shoulder blade and pelvis following the leg).
	Glide float64
	// FootCurl is how far (radians) a swinging foot curls at the top of its arc.
	FootCurl float64
}

// Wrap returns p − floor(p), in [0,1).
func Wrap(p float64) float64 { return p - math.Floor(p) }

// MovingPhase is wrap(t / max(cycle, floor) + offset); floor is Config.CycleFloor
// (1e-3 when not positive).
func MovingPhase(t, cycle, offset, floor float64) float64 {
	if !(floor > 0) {
		floor = 1e-3
	}
	return Wrap(t/math.Max(cycle, floor) + offset)
}

// Intensity is clamp(.62 + clamp(swing)·.24 + clamp(lift·2.2)·.14 + (.22 if
// running), 0, 1), each inner clamp to [0,1].
func Intensity(swing, lift float64, running bool) float64 {
	v := 0.62 + rig.Clamp01(swing)*0.24 + rig.Clamp01(lift*2.2)*0.14
	if running {
		v += 0.22
	}
	return rig.Clamp01(v)
}

// SwingEase is t²(3−2t): a swinging foot's progress from lift-off to touch-down.
func SwingEase(t float64) float64 { return t * t * (3 - 2*t) }

// SwingArc is 4t(1−t): a swinging foot's height as a share of its lift.
func SwingArc(t float64) float64 { return 4 * t * (1 - t) }

// Sum returns the harmonic sum at phase p (before amplitude and scale).
func (h Harmonics) Sum(p float64) float64 {
	const tau = 2 * math.Pi
	return math.Sin(tau*p)*h.W1 +
		math.Sin((p+h.Phi2)*h.F2*tau)*h.W2 +
		math.Sin((p+h.Phi3)*h.F3*tau)*h.W3
}

// Bob is the body's vertical offset at phase p for a gait of the given intensity.
func (c Config) Bob(p, intensity float64) float64 {
	return c.Harmonics.Sum(p) * c.BobAmplitude * (c.BobBase + intensity*c.BobIntensity)
}

// SwingFraction is the share of the cycle a foot of gait g spends in the air.
func (c Config) SwingFraction(g Gait) float64 {
	if c.SwingDuration > 0 {
		return c.SwingDuration
	}
	return c.SwingBase + c.SwingPerSwing*rig.Clamp01(g.Swing)
}

// StanceTravel is how far a planted foot moves backward in model space during
// one stance: Speed · Cycle · (1 − swing fraction).
func (c Config) StanceTravel(g Gait) float64 {
	return g.Speed * g.Cycle * (1 - c.SwingFraction(g))
}

// LegOffset is leg's phase offset in gait g.
func (c Config) LegOffset(g Gait, leg int) float64 {
	off := c.LegPhase[leg]
	if c.PairPhaseShiftsLegs {
		if front(leg) {
			off += g.FrontPhase
		} else {
			off += g.RearPhase
		}
	}
	return off
}

// Motion is the gait state at one moment.
type Motion struct {
	Phase     float64 // the moving phase, offset 0
	Intensity float64
	Bob       float64 // the body's vertical offset, metres
	Pitch     float64 // the body's pitch, radians, nose up positive
	Sway      float64 // the body's sideways offset, metres, toward +x
	Roll      float64 // the body's roll, radians, about +z
	Legs      [NumLegs]LegMotion
}

// LegMotion is one leg's state.
type LegMotion struct {
	Phase    float64 // the leg's own moving phase: swing in [0, swing fraction), then stance
	Swinging bool
	Progress float64 // through the swing or the stance, in [0,1)
	// Foot is the target of the foot bone's origin in model space.
	Foot rig.Vec3
	// Glide is the hip's fore-aft shift in the body frame, metres.
	Glide float64
	// Curl is the foot's curl, radians (0 when planted).
	Curl float64
}

// Evaluate returns the motion of gait g at time t seconds: the shared evaluator
// of the quadruped gait in docs/species.md. Each leg runs its own moving phase
// q = wrap(t/cycle + offset); it swings while q < s (the swing fraction) and stands for the rest. A standing
// foot sits on the ground and moves backward at Speed, covering StanceTravel
// centred on the default foot; a swinging foot returns forward along SwingEase,
// lifted by SwingArc · Lift · LegHeight.
func Evaluate(d Dims, c Config, g Gait, t float64) Motion {
	m := Motion{Phase: MovingPhase(t, g.Cycle, 0, c.CycleFloor)}
	m.Intensity = Intensity(g.Swing, g.Lift, g.Running)
	m.Bob = c.Bob(m.Phase, m.Intensity)
	fore := c.Bob(Wrap(m.Phase+g.FrontPhase), m.Intensity)
	hind := c.Bob(Wrap(m.Phase+g.RearPhase), m.Intensity)
	m.Pitch = c.PitchGain * math.Atan2(fore-hind, 0.96*d.Length)
	s, co := math.Sincos(2 * math.Pi * m.Phase)
	m.Sway = c.SwayAmplitude * m.Intensity * co
	m.Roll = -c.RollAmplitude * m.Intensity * s

	sf := c.SwingFraction(g)
	travel := c.StanceTravel(g)
	lift := g.Lift * d.LegHeight()
	for leg := range m.Legs {
		l := &m.Legs[leg]
		l.Phase = MovingPhase(t, g.Cycle, c.LegOffset(g, leg), c.CycleFloor)
		home := d.DefaultFoot(leg)
		var dz, up float64
		if l.Phase < sf {
			l.Swinging = true
			l.Progress = l.Phase / sf
			dz = -travel/2 + travel*SwingEase(l.Progress)
			up = lift * SwingArc(l.Progress)
			l.Curl = c.FootCurl * SwingArc(l.Progress) * rig.Clamp01(g.Lift*4)
		} else {
			l.Progress = (l.Phase - sf) / (1 - sf)
			dz = travel/2 - travel*l.Progress
		}
		l.Foot = rig.Vec3{home[0], home[1] + up, home[2] + dz}
		l.Glide = c.Glide * dz
	}
	return m
}

// withRoster fills in each gait's cycle and ground speed from the roster, which
// owns how the built-in clips play (docs/species.md §1): the stride the gait
// lays down is the one the runtime plays at that speed.
func withRoster(gs []Gait, species string) []Gait {
	s := rosterRow(species)
	for i := range gs {
		g := s.Gait(gs[i].Name)
		gs[i].Cycle, gs[i].Speed = g.Cycle, g.Speed
	}
	return gs
}

// rosterRow is the roster's row of a built-in species.
func rosterRow(name string) roster.Species {
	s, ok := roster.ByName(name)
	if !ok {
		panic("quadruped: no built-in species " + name)
	}
	return s
}
