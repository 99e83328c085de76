package stride

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// stepper is a one-legged in-place walk written for this test: a hip swings a
// bent leg (thigh and shin 0.5 m, the knee bent 69°) about x. In stance
// (the first half of each pass) the hip angle eases from −a to +a along a
// cosine (the foot from ahead of the hip to behind it), so the foot moves back relative to the body fast in mid-stance and
// slowly at its ends: no one speed plants it. In swing the angle returns
// linearly, the foot lifted. The pelvis rides at the height that keeps the foot
// on the ground (y = 0) in stance.
type stepper struct{ dur float64 }

// Bones: 0 Pelvis, 1 Thigh, 2 Shin, 3 Foot, 4 Toe (the foot's end, 0.1 ahead).
func (s *stepper) skeleton(t *testing.T) *rig.Skeleton {
	rest := make([]rig.Transform, 5)
	for i := range rest {
		rest[i] = rig.IdentityTransform()
	}
	rest[2].Translation = rig.Vec3{0, -0.5, 0}
	rest[3].Translation = rig.Vec3{0, -0.5, 0}
	rest[4].Translation = rig.Vec3{0, -0.05, 0.1}
	sk, err := rig.New([]string{"Pelvis", "Thigh", "Shin", "Foot", "Toe"}, []int{-1, 0, 1, 2, 3}, rest)
	if err != nil {
		t.Fatal(err)
	}
	s.Sample(0, sk.Rest)
	return sk
}

func (s *stepper) Sample(t float64, pose []rig.Transform) {
	const a, knee = 0.4, 1.2
	p := math.Mod(t/s.dur, 1)
	theta, lift := 0.0, 0.0
	if p < 0.5 {
		theta = -a * math.Cos(math.Pi*p/0.5)
	} else {
		q := (p - 0.5) / 0.5
		theta = a - 2*a*q
		lift = 0.15 * math.Sin(math.Pi*q)
	}
	x := rig.Vec3{1, 0, 0}
	pose[1].Rotation = rig.QuatFromAxisAngle(x, theta)
	pose[2].Rotation = rig.QuatFromAxisAngle(x, -knee)
	pose[3].Rotation = rig.QuatFromAxisAngle(x, knee-theta) // the foot flat
	// The foot's height below the pelvis, by the leg's own geometry.
	y := -0.5*math.Cos(theta) - 0.5*math.Cos(theta-knee)
	pose[0].Translation = rig.Vec3{0, -y + lift, 0}
}

// TestPlanPinsTheFoot: a foot that slides at any one speed (its backward speed
// relative to the body varies along a cosine) is pinned by Plan: played with
// the unit travelling at the measured speed, the foot's joint, computed here
// from the planted pose by the skeleton's own model space, stands still in the
// world through each contact (within 0.5 % of the distance the unit travels
// meanwhile, where the clip as authored drifts over 5 %), its orientation is
// the animated one, the leg keeps its lengths, and the knee bends the way it
// was animated to.
func TestPlanPinsTheFoot(t *testing.T) {
	s := &stepper{dur: 1}
	sk := s.skeleton(t)
	r, err := NewRig(sk, nil, Options{Feet: []string{"Toe"}})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Measure(s, 0, s.dur, 0, true)
	if res.Method != MethodFeet || res.FeetSpeed <= 0 {
		t.Fatalf("%+v: want a speed from the feet", res)
	}
	plan := r.Plan(s, 0, s.dur, true, res, 0)
	if plan == nil || plan.Locked != 1 {
		t.Fatalf("plan %+v: want one contact pinned", plan)
	}
	if len(plan.Notes) > 0 {
		t.Errorf("notes %q: the leg reaches every pin", plan.Notes)
	}
	v := res.FeetSpeed
	planted := plan.Sampler(s)
	drift := func(smp Sampler, from, to float64) (float64, rig.Vec3) {
		pose := sk.RestPose()
		g := make([]rig.Mat4, sk.Len())
		var first, worst rig.Vec3
		far := 0.0
		for k := 0; ; k++ {
			tt := from + float64(k)/600
			if tt > to {
				break
			}
			smp.Sample(tt, pose)
			sk.ModelSpace(pose, g)
			w := g[4].Translation().Add(rig.Vec3{0, 0, v * tt}) // the unit moves along +z
			w[1] = 0
			if k == 0 {
				first = w
			}
			if d := w.Sub(first).Len(); d > far {
				far, worst = d, w
			}
		}
		return far / (v * (to - from)), worst
	}
	// Mid-stance, well inside the contact the plan finds (the foot is flat
	// and low from 0 to 0.5 s).
	from, to := 0.1, 0.4
	raw, _ := drift(s, from, to)
	got, _ := drift(planted, from, to)
	t.Logf("speed %.4g per s of clip; foot drift %.2f%% planted, %.1f%% as authored", v, 100*got, 100*raw)
	if raw < 0.05 {
		t.Fatalf("the authored foot drifts %.1f%%: the test needs one that slides", 100*raw)
	}
	if got > 0.005 {
		t.Errorf("planted, the foot drifts %.2f%% of the travel in mid-stance", 100*got)
	}
	// At bake times off the plan's samples too: orientation, lengths, bend.
	pa, pp := sk.RestPose(), sk.RestPose()
	ga, gp := make([]rig.Mat4, sk.Len()), make([]rig.Mat4, sk.Len())
	for k := range 73 {
		tt := float64(k) / 72 * s.dur
		s.Sample(tt, pa)
		planted.Sample(tt, pp)
		sk.ModelSpace(pa, ga)
		sk.ModelSpace(pp, gp)
		qa, _ := rig.Decompose(ga[3])
		qp, _ := rig.Decompose(gp[3])
		if d := math.Abs(qa.Rotation.Dot(qp.Rotation)); d < 1-1e-9 {
			t.Errorf("t %.3f: the foot turned (|q·q'| %.12f)", tt, d)
		}
		for b := 1; b <= 3; b++ {
			la := ga[b+1].Translation().Sub(ga[b].Translation()).Len()
			lp := gp[b+1].Translation().Sub(gp[b].Translation()).Len()
			if math.Abs(la-lp) > 1e-9 {
				t.Errorf("t %.3f: bone %d is %.9f long, %.9f as animated", tt, b, lp, la)
			}
		}
		// The knee bends forward (+z of the hip→ankle line) as animated.
		side := func(g []rig.Mat4) float64 {
			hip, knee, ankle := g[1].Translation(), g[2].Translation(), g[3].Translation()
			return knee.Sub(hip).Reject(ankle.Sub(hip).Normalize())[2]
		}
		if side(ga)*side(gp) <= 0 {
			t.Errorf("t %.3f: the knee flipped (%.3f, %.3f as animated)", tt, side(gp), side(ga))
		}
	}
}

// TestPointAt checks Point.At, written out term by term for speed, against
// linear blend skinning as rig spells it (each bone's TransformPoint, scaled
// by its weight, added in turn) bit for bit: foot locking's outputs are
// byte-identical only if it is. Random matrices, offsets and weights, some
// weights zero (their bones skipped).
func TestPointAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	global := make([]rig.Mat4, 8)
	for i := range global {
		for e := range global[i] {
			global[i][e] = rng.NormFloat64() * 3
		}
	}
	for range 10000 {
		var p Point
		for q := range 4 {
			p.Bone[q] = rng.IntN(len(global))
			if rng.IntN(4) > 0 {
				p.Weight[q] = rng.Float64()
			}
			p.Offset[q] = rig.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		}
		var want rig.Vec3
		for q, w := range p.Weight {
			if w > 0 {
				want = want.Add(global[p.Bone[q]].TransformPoint(p.Offset[q]).Scale(w))
			}
		}
		if got := p.At(global); got != want {
			t.Fatalf("%+v: At = %v, want %v", p, got, want)
		}
	}
}

// TestPlanPosed checks that the planted clip Plan posed (Plan.Posed) measures
// as the plan's sampler measures posed again (Rig.Measure, Rig.MeasureAt):
// the same Result, field for field, for the stepper planted looping from its
// start and one-shot from a quarter in, at several speeds.
func TestPlanPosed(t *testing.T) {
	s := &stepper{dur: 1}
	r, err := NewRig(s.skeleton(t), nil, Options{Feet: []string{"Toe"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		start, dur float64
		loops      bool
	}{{0, 1, true}, {0.25, 0.75, false}} {
		res := r.Measure(s, c.start, c.dur, 0, c.loops)
		plan := r.Plan(s, c.start, c.dur, c.loops, res, 0)
		if plan == nil {
			t.Fatalf("%+v: no plan", c)
		}
		posed := plan.Posed()
		if got, want := posed.Measure(0, c.loops), r.Measure(plan.Sampler(s), c.start, c.dur, 0, c.loops); got != want {
			t.Errorf("%+v: Posed().Measure = %+v, want %+v", c, got, want)
		}
		for _, v := range []float64{0.5 * plan.Speed, plan.Speed, 1.5 * plan.Speed} {
			if got, want := posed.MeasureAt(0, c.loops, v), r.MeasureAt(plan.Sampler(s), c.start, c.dur, 0, c.loops, v); got != want {
				t.Errorf("%+v at %v: Posed().MeasureAt = %+v, want %+v", c, v, got, want)
			}
		}
	}
}

// TestPlanBodyNotLowered plants the stepper one-shot from a quarter in, where
// its leg reaches every pin and lower leaves the body where it is (no drop):
// reach then reads no drop (it read one, and Plan panicked).
func TestPlanBodyNotLowered(t *testing.T) {
	s := &stepper{dur: 1}
	r, err := NewRig(s.skeleton(t), nil, Options{Feet: []string{"Toe"}})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Measure(s, 0.25, 0.75, 0, false)
	plan := r.Plan(s, 0.25, 0.75, false, res, 0)
	if plan == nil || plan.Locked == 0 || plan.pelvis >= 0 {
		t.Fatalf("plan %+v: want a contact pinned, the body not lowered", plan)
	}
}
