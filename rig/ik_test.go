package rig_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// ikLeg is a six-bone skeleton: root → pelvis → hip (upper) → knee (lower) →
// foot (end) → toe, with turned and uniformly scaled ancestors.
func ikLeg(t testing.TB, rng *rand.Rand) *rig.Skeleton {
	t.Helper()
	randQuat := func() rig.Quat {
		return rig.Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
	}
	randVec := func(s float64) rig.Vec3 {
		return rig.Vec3{(rng.Float64()*2 - 1) * s, (rng.Float64()*2 - 1) * s, (rng.Float64()*2 - 1) * s}
	}
	tr := func(p rig.Vec3, q rig.Quat, s float64) rig.Transform {
		return rig.Transform{Translation: p, Rotation: q, Scale: rig.Vec3{s, s, s}}
	}
	rest := []rig.Transform{
		tr(randVec(2), randQuat(), 0.5+rng.Float64()),
		tr(randVec(1), randQuat(), 1),
		tr(randVec(0.3), randQuat(), 1),
		tr(randVec(1), randQuat(), 1),
		tr(randVec(1), randQuat(), 1),
		tr(randVec(0.2), randQuat(), 1),
	}
	s, err := rig.New([]string{"root", "pelvis", "hip", "knee", "foot", "toe"}, []int{-1, 0, 1, 2, 3, 4}, rest)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const hip, knee, foot = 2, 3, 4

func joints(s *rig.Skeleton, pose []rig.Transform) (a, b, c rig.Vec3) {
	m := make([]rig.Mat4, s.Len())
	s.ModelSpace(pose, m)
	return m[hip].Translation(), m[knee].Translation(), m[foot].Translation()
}

// along returns a + d·s.
func along(a, d rig.Vec3, s float64) rig.Vec3 { return a.Add(d.Scale(s)) }

func unitVec(rng *rand.Rand) rig.Vec3 {
	v := rig.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	l := v.Len()
	return rig.Vec3{v[0] / l, v[1] / l, v[2] / l}
}

func finitePose(t *testing.T, pose []rig.Transform) {
	t.Helper()
	for i, p := range pose {
		if !p.IsFinite() {
			t.Fatalf("bone %d is not finite: %+v", i, p)
		}
	}
}

func TestTwoBoneIKReachesAndKeepsLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 500 {
		s := ikLeg(t, rng)
		pose := s.RestPose()
		a0, b0, c0 := joints(s, pose)
		l1, l2 := b0.Sub(a0).Len(), c0.Sub(b0).Len()
		lo, hi := math.Abs(l1-l2), l1+l2
		d := lo + (hi-lo)*(0.02+0.96*rng.Float64())
		dir := unitVec(rng)
		target := along(a0, dir, d)
		pole := along(a0, unitVec(rng), 0.1+2*rng.Float64())

		if !s.TwoBoneIK(pose, hip, knee, foot, target, pole) {
			t.Fatalf("trial %d: reachable target reported out of reach", trial)
		}
		finitePose(t, pose)
		a, b, c := joints(s, pose)
		if e := c.Sub(target).Len(); e > 1e-9 {
			t.Fatalf("trial %d: end %v misses target %v by %g", trial, c, target, e)
		}
		if e := a.Sub(a0).Len(); e > 1e-12 {
			t.Fatalf("trial %d: upper joint moved by %g", trial, e)
		}
		if e := math.Abs(b.Sub(a).Len() - l1); e > 1e-9 {
			t.Fatalf("trial %d: upper length changed by %g", trial, e)
		}
		if e := math.Abs(c.Sub(b).Len() - l2); e > 1e-9 {
			t.Fatalf("trial %d: lower length changed by %g", trial, e)
		}
		// The middle joint lies in the plane of upper joint, target and pole, on
		// the pole's side of the line to the target.
		normal := target.Sub(a).Cross(pole.Sub(a))
		if nl := normal.Len(); nl > 1e-6 {
			if off := math.Abs(b.Sub(a).Dot(normal)) / nl; off > 1e-9 {
				t.Fatalf("trial %d: middle joint %g off the pole plane", trial, off)
			}
			rej := func(v rig.Vec3) rig.Vec3 { return along(v, dir, -v.Dot(dir)) }
			if rej(b.Sub(a)).Dot(rej(pole.Sub(a))) < 0 {
				t.Fatalf("trial %d: middle joint bends away from the pole", trial)
			}
		}
		// Only the two rotations change.
		rest := s.RestPose()
		for i := range pose {
			if i != hip && i != knee && pose[i] != rest[i] {
				t.Fatalf("trial %d: bone %d changed", trial, i)
			}
		}
		if pose[hip].Translation != rest[hip].Translation || pose[knee].Translation != rest[knee].Translation ||
			pose[hip].Scale != rest[hip].Scale || pose[knee].Scale != rest[knee].Scale {
			t.Fatalf("trial %d: a translation or scale changed", trial)
		}
	}
}

func TestTwoBoneIKClampsOutOfReach(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		s := ikLeg(t, rng)
		pose := s.RestPose()
		a0, b0, c0 := joints(s, pose)
		l1, l2 := b0.Sub(a0).Len(), c0.Sub(b0).Len()
		dir := unitVec(rng)
		pole := along(a0, unitVec(rng), 1)

		far := along(a0, dir, (l1+l2)*(1.01+rng.Float64()))
		if s.TwoBoneIK(pose, hip, knee, foot, far, pole) {
			t.Fatalf("trial %d: target beyond reach reported reached", trial)
		}
		finitePose(t, pose)
		if _, _, c := joints(s, pose); c.Sub(along(a0, dir, l1+l2)).Len() > 1e-6 {
			t.Fatalf("trial %d: far target: end %v, want the straight limb toward it", trial, c)
		}

		if lo := math.Abs(l1 - l2); lo > 0.05 {
			near := along(a0, dir, lo*0.5)
			if s.TwoBoneIK(pose, hip, knee, foot, near, pole) {
				t.Fatalf("trial %d: target inside the folded reach reported reached", trial)
			}
			if _, _, c := joints(s, pose); c.Sub(along(a0, dir, lo)).Len() > 1e-6 {
				t.Fatalf("trial %d: near target: end %v, want the folded limb toward it", trial, c)
			}
		}
	}
}

func TestTwoBoneIKDegenerate(t *testing.T) {
	// A straight leg hanging down from (0,1,0): hip, knee at 0.5, foot at 0.
	id := rig.IdentityQuat()
	one := rig.Vec3{1, 1, 1}
	straight := func(l2 float64) (*rig.Skeleton, []rig.Transform) {
		s, err := rig.New([]string{"root", "pelvis", "hip", "knee", "foot"}, []int{-1, 0, 1, 2, 3}, []rig.Transform{
			{Rotation: id, Scale: one},
			{Translation: rig.Vec3{0, 1, 0}, Rotation: id, Scale: one},
			{Rotation: id, Scale: one},
			{Translation: rig.Vec3{0, -0.5, 0}, Rotation: id, Scale: one},
			{Translation: rig.Vec3{0, -l2, 0}, Rotation: id, Scale: one},
		})
		if err != nil {
			t.Fatal(err)
		}
		return s, s.RestPose()
	}
	hipAt := rig.Vec3{0, 1, 0}
	cases := []struct {
		name         string
		l2           float64
		target, pole rig.Vec3
		kneeForward  bool // the knee must end up in front (+z)
	}{
		{"straight limb, pole ahead", 0.5, rig.Vec3{0, 0.2, 0}, rig.Vec3{0, 0.5, 3}, true},
		{"straight limb, pole on the line", 0.5, rig.Vec3{0, 0.2, 0}, rig.Vec3{0, -5, 0}, false},
		{"target at the hip", 0.5, hipAt, rig.Vec3{0, 1, 3}, false},
		{"target at the hip, pole at the hip", 0.5, hipAt, hipAt, false},
		{"straight target", 0.5, rig.Vec3{0, 0, 0}, rig.Vec3{0, 0.5, 1}, false},
		{"target at the hip, unequal bones", 0.3, hipAt, rig.Vec3{0, 1, 3}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, pose := straight(c.l2)
			s.TwoBoneIK(pose, hip, knee, foot, c.target, c.pole)
			finitePose(t, pose)
			a, b, e := joints(s, pose)
			if math.Abs(b.Sub(a).Len()-0.5) > 1e-9 || math.Abs(e.Sub(b).Len()-c.l2) > 1e-9 {
				t.Errorf("lengths changed: %v %v %v", a, b, e)
			}
			if c.kneeForward && b[2] <= 0 {
				t.Errorf("knee at %v, want it bent toward +z", b)
			}
			// Deterministic: the same call on the same pose gives the same bits.
			s2, pose2 := straight(c.l2)
			s2.TwoBoneIK(pose2, hip, knee, foot, c.target, c.pole)
			for i := range pose {
				if pose[i] != pose2[i] {
					t.Errorf("bone %d differs between two identical calls", i)
				}
			}
		})
	}
	// Folded limb (knee turned back on itself), then stretched.
	s, pose := straight(0.5)
	pose[knee].Rotation = rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, math.Pi)
	s.TwoBoneIK(pose, hip, knee, foot, rig.Vec3{0, 0.3, 0.2}, rig.Vec3{0, 1, 2})
	finitePose(t, pose)
	if _, _, e := joints(s, pose); e.Sub(rig.Vec3{0, 0.3, 0.2}).Len() > 1e-9 {
		t.Errorf("from a folded limb: end at %v", e)
	}
}

func TestTwoBoneIKKeepsTwistOfBentLimb(t *testing.T) {
	// A leg bent toward +z; moving the target within its plane only turns the
	// bones about the plane's normal (x), so no twist creeps in.
	id := rig.IdentityQuat()
	one := rig.Vec3{1, 1, 1}
	s, err := rig.New([]string{"root", "pelvis", "hip", "knee", "foot"}, []int{-1, 0, 1, 2, 3}, []rig.Transform{
		{Rotation: id, Scale: one},
		{Translation: rig.Vec3{0, 1, 0}, Rotation: id, Scale: one},
		{Rotation: rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, -0.3), Scale: one},
		{Translation: rig.Vec3{0, -0.5, 0}, Rotation: rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, 0.6), Scale: one},
		{Translation: rig.Vec3{0, -0.5, 0}, Rotation: id, Scale: one},
	})
	if err != nil {
		t.Fatal(err)
	}
	pose := s.RestPose()
	s.TwoBoneIK(pose, hip, knee, foot, rig.Vec3{0, 0.15, -0.2}, rig.Vec3{0, 0.6, 2})
	for _, b := range []int{hip, knee} {
		if q := pose[b].Rotation; math.Abs(q[1]) > 1e-12 || math.Abs(q[2]) > 1e-12 {
			t.Errorf("bone %d rotation %v is not about x", b, q)
		}
	}
}

func TestTwoBoneIKDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := ikLeg(t, rng)
	pose := s.RestPose()
	target, pole := rig.Vec3{0.3, 0.2, 0.1}, rig.Vec3{0, 0, 2}
	if n := testing.AllocsPerRun(100, func() { s.TwoBoneIK(pose, hip, knee, foot, target, pole) }); n != 0 {
		t.Errorf("TwoBoneIK allocates %v times per call", n)
	}
}

func TestTwoBoneIKPanicsOnBrokenChain(t *testing.T) {
	s := ikLeg(t, rand.New(rand.NewPCG(1, 1)))
	for _, c := range [][3]int{{2, 4, 5}, {0, 1, 3}, {-1, 0, 1}, {3, 4, 6}, {4, 3, 2}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("chain %v: no panic", c)
				}
			}()
			s.TwoBoneIK(s.RestPose(), c[0], c[1], c[2], rig.Vec3{}, rig.Vec3{})
		}()
	}
}

func BenchmarkTwoBoneIK(b *testing.B) {
	s := ikLeg(b, rand.New(rand.NewPCG(9, 10)))
	pose := s.RestPose()
	target, pole := rig.Vec3{0.3, 0.2, 0.1}, rig.Vec3{0, 0, 2}
	for b.Loop() {
		s.TwoBoneIK(pose, hip, knee, foot, target, pole)
	}
}

func ExampleSkeleton_TwoBoneIK() {
	// A leg hanging straight down from a hip 1 m up: thigh and shin 0.5 m each.
	id, one := rig.IdentityQuat(), rig.Vec3{1, 1, 1}
	skel, err := rig.New(
		[]string{"hip", "knee", "foot"},
		[]int{-1, 0, 1},
		[]rig.Transform{
			{Translation: rig.Vec3{0, 1, 0}, Rotation: id, Scale: one},
			{Translation: rig.Vec3{0, -0.5, 0}, Rotation: id, Scale: one},
			{Translation: rig.Vec3{0, -0.5, 0}, Rotation: id, Scale: one},
		})
	if err != nil {
		panic(err)
	}
	pose := skel.RestPose()
	// Put the foot 0.8 m below the hip, the knee bending forward (toward +z).
	reached := skel.TwoBoneIK(pose, 0, 1, 2, rig.Vec3{0, 0.2, 0}, rig.Vec3{0, 0.6, 1})

	palette := make([]rig.Mat4, skel.Len())
	skel.ModelSpace(pose, palette)
	for i, m := range palette {
		p := m.Translation()
		r := func(x float64) float64 { return math.Round(x*100)/100 + 0 } // no "-0.00"
		fmt.Printf("%s at (%.2f, %.2f, %.2f)\n", skel.Names[i], r(p[0]), r(p[1]), r(p[2]))
	}
	fmt.Println("reached:", reached)
	// Output:
	// hip at (0.00, 1.00, 0.00)
	// knee at (0.00, 0.60, 0.30)
	// foot at (0.00, 0.20, 0.00)
	// reached: true
}
