package stride

import (
	"math"
	"math/rand/v2"
	"strings"
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

// compass is a one-legged walk written for this test, with root motion: the
// root travels +z at 0.8 m/s on average, eased (1.1 m/s where the foot is
// under the hip, 0.5 where the thigh turns), its hip 0.9 m up; the leg (thigh
// and shin 0.45 m) is straight while its thigh sweeps from 0.5 rad ahead to
// 0.5 rad behind in the first half of each pass (the stance: the foot carried
// back 0.86 m under the body, twice as far as the body goes, so it slides as
// authored), and swings back in the second, the knee bent up to 1 rad while
// the thigh comes to the vertical, then straight again: at mid-swing the foot
// is as low as at mid-stance, under the hip.
type compass struct{}

// Bones: 0 Root, 1 Thigh, 2 Shin, 3 Foot.
func (compass) skeleton(t *testing.T) *rig.Skeleton {
	rest := make([]rig.Transform, 4)
	for i := range rest {
		rest[i] = rig.IdentityTransform()
	}
	rest[0].Translation = rig.Vec3{0, 0.9, 0}
	rest[2].Translation = rig.Vec3{0, -0.45, 0}
	rest[3].Translation = rig.Vec3{0, -0.45, 0}
	sk, err := rig.New([]string{"Root", "Thigh", "Shin", "Foot"}, []int{-1, 0, 1, 2}, rest)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

func (compass) Sample(t float64, pose []rig.Transform) {
	const a = 0.5
	p := t - math.Floor(t)
	theta, knee := -a+4*a*p, 0.0 // about x: a positive angle swings the foot back (−z)
	if p >= 0.5 {
		q := (p - 0.5) / 0.5
		theta = a - 2*a*q
		if q < 0.5 {
			knee = math.Sin(2 * math.Pi * q)
		}
	}
	x := rig.Vec3{1, 0, 0}
	pose[0].Translation = rig.Vec3{0, 0.9, 0.8*t - 0.3*math.Sin(4*math.Pi*t)/(4*math.Pi)}
	pose[1].Rotation = rig.QuatFromAxisAngle(x, theta)
	pose[2].Rotation = rig.QuatFromAxisAngle(x, knee)
}

// TestPlanCompassGait: a foot as low in its swing as in its stance is planted
// for its whole stance: played planted, it stands still in the world (root
// motion: the model's space) for 40 % of the cycle or more (its stance is
// half), and the planted clip measures at the root's speed, trusted. With its
// contacts found by height and speed alone it stood 15 % of the cycle; with
// its feet's back read from their summed velocity (the swing's, the faster
// against the root's mean travel), the clip as authored was said to move its
// feet back at 1.95 m/s, the swing's speed forward.
func TestPlanCompassGait(t *testing.T) {
	var s compass
	sk := s.skeleton(t)
	r, err := NewRig(sk, nil, Options{Feet: []string{"Foot"}, RootBone: "Root"})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Measure(s, 0, 1, 0, true)
	// As authored, the foot at its lowest moves back under the hip at
	// 0.9 m · 2 rad/s in its stance, the root 0.3 m/s above its mean
	// travel there: 1.5 m/s back against that travel, a little more about
	// it where the root slows; in its swing it goes forward at 2.1.
	if res.Status != StatusUntrusted || res.FeetSpeed < 1.45 || res.FeetSpeed > 1.7 {
		t.Errorf("as authored: %+v: want untrusted, its feet back at 1.5 to 1.7 m/s against the root's mean travel", res)
	}
	plan := r.Plan(s, 0, 1, true, res, 0)
	if plan == nil || plan.Locked == 0 {
		t.Fatalf("plan %+v (measured %+v): want the foot pinned", plan, res)
	}
	pl := plan.Sampler(s)
	pose := sk.RestPose()
	g := make([]rig.Mat4, sk.Len())
	const n = 240
	var prev rig.Vec3
	still := 0
	for k := 0; k <= n; k++ {
		pl.Sample(float64(k)/n, pose)
		sk.ModelSpace(pose, g)
		at := g[3].Translation()
		if d := at.Sub(prev); k > 0 && math.Hypot(d[0], d[2])*n < 0.25*0.8 {
			still++
		}
		prev = at
	}
	if frac := float64(still) / n; frac < 0.4 {
		t.Errorf("planted, the foot stands still in the world %.0f%% of the cycle: want its stance, 40%% or more", 100*frac)
	}
	after := plan.Posed().MeasureAt(0, true, plan.Speed)
	if after.Status != StatusMeasured || after.Confidence < Trusted || math.Abs(after.Speed-0.8) > 0.01 {
		t.Errorf("planted: %+v: want 0.8 m/s, trusted", after)
	}
}

// TestLegBesideHangingFoot: a foot that hangs from the body (the three.js
// robot's, a child of its root) is kept on by the leg beside it whose lower
// bone is a leaf; a bone no vertex follows below that shin (Blender's
// NAME_end, which its FBX exporter adds to every chain) makes it no less a
// leaf. Before Options.Skinned counted here, the robot exported by Blender
// with its leaf bones bent no leg to its feet, and planted, a foot's sole
// slid 25 % (its Running left as authored).
func TestLegBesideHangingFoot(t *testing.T) {
	names := []string{"Root", "Foot.L", "Foot.R", "Hips", "UpperLeg.L", "LowerLeg.L", "LowerLeg.L_end", "UpperLeg.R", "LowerLeg.R", "LowerLeg.R_end", "Head"}
	parents := []int{-1, 0, 0, 0, 3, 4, 5, 3, 7, 8, 3}
	at := []rig.Vec3{{}, {0.2, 0.05, 0}, {-0.2, 0.05, 0}, {0, 1, 0}, {0.2, 0, 0}, {0, -0.45, 0}, {0, -0.4, 0}, {-0.2, 0, 0}, {0, -0.45, 0}, {0, -0.4, 0}, {0, 0.8, 0}}
	rest := make([]rig.Transform, len(names))
	for i := range rest {
		rest[i] = rig.IdentityTransform()
		rest[i].Translation = at[i]
	}
	sk, err := rig.New(names, parents, rest)
	if err != nil {
		t.Fatal(err)
	}
	skinned := make([]bool, len(names))
	for i, n := range names {
		skinned[i] = !strings.HasSuffix(n, "_end")
	}
	r, err := NewRig(sk, nil, Options{Feet: []string{"Foot.L", "Foot.R"}, Skinned: skinned})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Feet {
		lg, why := r.leg(f)
		want := sk.Index(strings.Replace(names[f], "Foot", "LowerLeg", 1))
		if lg.end != f || !lg.shin || lg.lower != want || lg.upper != parents[want] || why != "" {
			t.Errorf("%s: leg end %d, lower %d, upper %d, shin %v (%q): want its own end, %s beside it",
				names[f], lg.end, lg.lower, lg.upper, lg.shin, why, names[want])
		}
	}
}
