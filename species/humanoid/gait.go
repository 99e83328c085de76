package humanoid

import (
	"math"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/roster"
)

// gaitParams design a locomotion cycle. Phase 0 is the left foot's strike; the
// right foot is half a cycle behind.
type gaitParams struct {
	speed, cycle float64 // m/s and s: the stride (two steps) is speed·cycle
	flat         float64 // fraction of the cycle a foot stands flat (ankle fixed)
	heelRise     float64 // then the fraction it rolls onto the ball (ball fixed)
	contact      float64 // the ankle's z at foot strike, in body heights (×Scale)
	width        float64 // half the distance between the feet (×Scale)
	lift         float64 // swing height of the ball (×Scale)
	liftSkew     float64 // > 0 lifts earlier in the swing (a running heel kick)
	toePitch     float64 // heel-up pitch at toe-off, radians
	bob          float64 // pelvis bob amplitude (×Scale)
	bobPhase     float64 // phase of the pelvis's highest point (twice a cycle)
	pelvisYaw    float64 // pelvis rotation with the swinging leg
	pelvisRoll   float64 // hip drop on the swing side
	sway         float64 // pelvis shift over the stance foot (×Scale)
	lean         float64 // forward lean of pelvis and spine
	twist        float64 // shoulders turning against the pelvis
	armSwing     float64 // arm swing amplitude about the shoulder, radians
	armForward   float64 // mean forward angle of the arms
	elbow        float64 // mean elbow flexion
	elbowSwing   float64 // extra flexion as the arm swings forward
	kneePole     float64 // outward tilt of the knee pole
}

var walkGait = gaitParams{
	speed: rosterGait("walk").Speed, cycle: rosterGait("walk").Cycle,
	flat: 0.30, heelRise: 0.32,
	contact: 0.27, width: 0.095,
	lift: 0.07, liftSkew: 0.25, toePitch: 0.9,
	bob: 0.018, bobPhase: 0.27,
	pelvisYaw: 0.09, pelvisRoll: 0.05, sway: 0.025, lean: 0.03,
	twist: 0.14, armSwing: 0.32, armForward: 0.02, elbow: 0.25, elbowSwing: 0.35,
	kneePole: 0.1,
}

var runGait = gaitParams{
	speed: rosterGait("run").Speed, cycle: rosterGait("run").Cycle,
	flat: 0.25, heelRise: 0.09,
	contact: 0.22, width: 0.08,
	lift: 0.42, liftSkew: 0.8, toePitch: 0.8,
	bob: 0.035, bobPhase: 0.42,
	pelvisYaw: 0.12, pelvisRoll: 0.04, sway: 0.015, lean: 0.16,
	twist: 0.22, armSwing: 0.6, armForward: 0.2, elbow: 1.35, elbowSwing: 0.45,
	kneePole: 0.1,
}

// gait is a gaitParams made concrete for one body, with the pelvis height that
// keeps every planted foot within reach.
type gait struct {
	gaitParams
	stride  float64 // metres per cycle
	pelvisY float64 // mean pelvis height
}

// reachMargin is the fraction of the leg's length a planted foot may be from
// the hip joint: the knee never quite locks.
const reachMargin = 0.985

func (b *body) newGait(p gaitParams) gait {
	g := gait{gaitParams: p, stride: p.speed * p.cycle, pelvisY: b.standY}
	// Raise or lower the pelvis (with its bob) as far as the legs allow: at each
	// phase, how far up could the hips go and still reach the feet on the ground?
	// (A swinging foot that is out of reach just swings a little short.)
	leg := (b.thigh + b.shin) * reachMargin
	lowest := math.Inf(1)
	const samples = 480
	for i := 0; i < samples; i++ {
		bp := b.gaitPose(&g, float64(i)/samples)
		hips := b.hipJoints(&bp)
		for s := 0; s < 2; s++ {
			q := float64(i)/samples + 0.5*float64(s)
			if q -= math.Floor(q); q >= p.flat+p.heelRise {
				continue
			}
			d := bp.Foot[s].Pos.Sub(hips[s])
			h2 := leg*leg - d[0]*d[0] - d[2]*d[2]
			if h2 < 0 {
				h2 = 0
			}
			up := d[1] + math.Sqrt(h2) // the hip may rise this much
			lowest = math.Min(lowest, up)
		}
	}
	g.pelvisY += lowest
	return g
}

// hipJoints returns the model-space hip joints of a pose (root at the origin).
func (b *body) hipJoints(bp *bodyPose) [2]vec {
	q := euler(bp.PelvisRot)
	return [2]vec{
		bp.Pelvis.Add(q.Rotate(b.rest[HipL])),
		bp.Pelvis.Add(q.Rotate(b.rest[HipR])),
	}
}

// footOnPath places a foot at its own gait phase q (0 = strike).
func (b *body) footOnPath(g *gait, q float64, s int) footPose {
	sx := side(s)
	x := sx * g.width * b.s
	zc := g.contact * b.s
	S := g.stride
	ballY := b.ankleH + b.ball[1]
	toeOff := g.flat + g.heelRise
	f := footPose{Pole: vec{sx * g.kneePole, 0, 1}}
	var ball vec
	var pitch float64
	switch {
	case q < g.flat: // flat: the ankle is planted and slides back at ground speed
		f.Pos = vec{x, b.ankleH, zc - S*q}
		return f
	case q < toeOff: // heel rise: the ball stays planted while the heel lifts
		u := (q - g.flat) / g.heelRise
		ball = vec{x, ballY, zc + b.ball[2] - S*q}
		pitch = g.toePitch * (1 - math.Cos(math.Pi*u)) / 2
	default: // swing: the ball leaves the ground and arcs forward to the next strike
		sw := (q - toeOff) / (1 - toeOff)
		z0, z1 := zc+b.ball[2]-S*toeOff, zc+b.ball[2]
		m := -S * (1 - toeOff) // ground speed at both ends: no scuff
		ball = vec{x, ballY + g.lift*b.s*swingLift(sw, g.liftSkew), hermite(sw, z0, z1, m, m)}
		pitch = g.toePitch * (1 - rig.Smoothstep(sw/0.75))
	}
	f.Pitch = pitch
	f.Pos = ball.Add(rotX(b.ball.Scale(-1), pitch))
	return f
}

// swingLift is the ball's height profile over a swing: 0 with zero slope at both
// ends, peaking earlier as skew grows.
func swingLift(s, skew float64) float64 {
	sn := math.Sin(math.Pi * s)
	return sn * sn * (1 + skew*(1-2*s)) / (1 + skew*0.5)
}

// hermite is the cubic from p0 to p1 on [0, 1] with end slopes m0 and m1.
func hermite(t, p0, p1, m0, m1 float64) float64 {
	t2, t3 := t*t, t*t*t
	return (2*t3-3*t2+1)*p0 + (t3-2*t2+t)*m0 + (-2*t3+3*t2)*p1 + (t3-t2)*m1
}

// rotX rotates v about the x axis (positive turns +z towards −y).
func rotX(v vec, a float64) vec {
	s, c := math.Sincos(a)
	return vec{v[0], v[1]*c - v[2]*s, v[1]*s + v[2]*c}
}

// gaitPose is the pose of a locomotion cycle at phase p.
func (b *body) gaitPose(g *gait, p float64) bodyPose {
	p -= math.Floor(p)
	c, sn := math.Cos(2*math.Pi*p), math.Sin(2*math.Pi*p)
	var bp bodyPose
	// Pelvis: bob twice a cycle, sway over the stance foot, turn with the
	// swinging leg, drop on the swing side, lean into the motion.
	bob := g.bob * b.s * math.Cos(4*math.Pi*(p-g.bobPhase))
	bp.Pelvis = vec{g.sway * b.s * sn, g.pelvisY + bob, 0}
	bp.PelvisRot = vec{g.lean, -g.pelvisYaw * c, g.pelvisRoll * sn}
	// Spine and chest turn the shoulders against the hips; the head stays level.
	bp.Spine = vec{g.lean*0.4 + b.prof.Stoop*0.5, g.pelvisYaw * c * 0.6, -g.pelvisRoll * sn * 0.6}
	bp.Chest = vec{g.lean*0.3 + 0.01*math.Cos(4*math.Pi*p) + b.prof.Stoop*0.5, (g.pelvisYaw*0.4 + g.twist) * c, -g.pelvisRoll * sn * 0.4}
	bp.Head = vec{0.05 + b.prof.Stoop*0.6, 0, 0}
	bp.HeadLevel = 1
	// Arms swing against the legs: the left arm forward when the right leg is.
	for s := 0; s < 2; s++ {
		sx := side(s)
		swing := g.armForward - sx*g.armSwing*c
		fwd := (swing - g.armForward) / g.armSwing // −1 back … 1 forward
		a := &bp.Arm[s]
		a.Dir = vec{sx * 0.13, -math.Cos(swing), math.Sin(swing)}
		a.Bend = g.elbow + g.elbowSwing*(fwd+1)/2
		a.Pole = vec{sx * 0.4, -0.2, -1}
		a.Grip = vec{-sx * 0.1, -0.8, 0.8}
		a.Clav = [2]float64{0, 0.06 * fwd}
	}
	b.carry(&bp, g)
	bp.Foot[left] = b.footOnPath(g, p, left)
	bp.Foot[right] = b.footOnPath(g, math.Mod(p+0.5, 1), right)
	return bp
}

// carry adjusts the right arm for the weapon a profile carries when moving.
func (b *body) carry(bp *bodyPose, g *gait) {
	if b.prof.Weapon != WeaponSpear {
		return
	}
	// The spear rides in the right hand at the hip, sloped up and forward; the
	// swing is small.
	a := &bp.Arm[right]
	sw := a.Dir[2] * 0.3
	a.Dir = vec{-0.25, -0.75, 0.35 + sw}
	a.Bend = 1.3
	a.Grip = vec{0.05, 0.9, 0.45}
	a.Pole = vec{-0.5, -0.3, -1}
}

func (b *body) walkPose(p float64) bodyPose { return b.gaitPose(&b.walk, p) }
func (b *body) runPose(p float64) bodyPose  { return b.gaitPose(&b.run, p) }

// rosterGait is how the roster says the humanoids' clip plays: the walk and run
// strides are built for exactly that cycle and ground speed (docs/species.md §1).
func rosterGait(clip string) roster.Gait {
	s, _ := roster.ByName("humanoid")
	return s.Gait(clip)
}

// rosterID is a built-in humanoid's species id.
func rosterID(name string) uint32 {
	s, ok := roster.ByName(name)
	if !ok {
		panic("humanoid: no built-in species " + name)
	}
	return s.ID
}
