package anim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func vecNear(t *testing.T, what string, got, want [3]float64, tol float64) {
	t.Helper()
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}

// quatNear compares rotations: q and -q are the same rotation, so either sign
// passes. It also requires unit length.
func quatNear(t *testing.T, what string, got, want rig.Quat, tol float64) {
	t.Helper()
	if !near(got.Len(), 1, 1e-12) {
		t.Errorf("%s = %v has length %v, want 1", what, got, got.Len())
	}
	same, flipped := true, true
	for i := range got {
		same = same && near(got[i], want[i], tol)
		flipped = flipped && near(got[i], -want[i], tol)
	}
	if !same && !flipped {
		t.Errorf("%s = %v, want ±%v", what, got, want)
	}
}

// zRot is angle radians about +z, written out by hand.
func zRot(angle float64) rig.Quat {
	return rig.Quat{0, 0, math.Sin(angle / 2), math.Cos(angle / 2)}
}

func restPose(n int) []rig.Transform {
	p := make([]rig.Transform, n)
	for i := range p {
		p[i] = rig.IdentityTransform()
	}
	return p
}

func TestStepAndLinearTranslation(t *testing.T) {
	times := []float32{1, 2, 4}
	values := []float32{0, 0, 0, 10, 20, 30, -5, 5, 1}
	tests := []struct {
		t          float64
		step, line [3]float64
	}{
		{-1, [3]float64{0, 0, 0}, [3]float64{0, 0, 0}},               // before the first key
		{0.999, [3]float64{0, 0, 0}, [3]float64{0, 0, 0}},            // still before
		{1, [3]float64{0, 0, 0}, [3]float64{0, 0, 0}},                // on key 0
		{1.5, [3]float64{0, 0, 0}, [3]float64{5, 10, 15}},            // half way to key 1
		{1.75, [3]float64{0, 0, 0}, [3]float64{7.5, 15, 22.5}},       // three quarters
		{2, [3]float64{10, 20, 30}, [3]float64{10, 20, 30}},          // on key 1
		{3, [3]float64{10, 20, 30}, [3]float64{2.5, 12.5, 15.5}},     // half way to key 2
		{3.5, [3]float64{10, 20, 30}, [3]float64{-1.25, 8.75, 8.25}}, // three quarters
		{4, [3]float64{-5, 5, 1}, [3]float64{-5, 5, 1}},              // on the last key
		{100, [3]float64{-5, 5, 1}, [3]float64{-5, 5, 1}},            // after it
		{math.Inf(1), [3]float64{-5, 5, 1}, [3]float64{-5, 5, 1}},
		{math.NaN(), [3]float64{0, 0, 0}, [3]float64{0, 0, 0}},
	}
	clip := &Animation{Name: "move", Duration: 4, Tracks: []Track{
		{Bone: 0, Path: Translation, Interpolation: Step, Times: times, Values: values},
		{Bone: 1, Path: Translation, Interpolation: Linear, Times: times, Values: values},
		{Bone: 2, Path: Scale, Interpolation: Linear, Times: times, Values: values},
	}}
	if err := clip.Validate(3); err != nil {
		t.Fatal(err)
	}
	s := NewSampler(clip)
	for _, tc := range tests {
		pose := restPose(3)
		s.Sample(tc.t, pose)
		vecNear(t, "step", pose[0].Translation, tc.step, 1e-12)
		vecNear(t, "linear", pose[1].Translation, tc.line, 1e-12)
		vecNear(t, "linear scale", pose[2].Scale, tc.line, 1e-12)
		// Only the animated property changes.
		if pose[1].Rotation != rig.IdentityQuat() || pose[1].Scale != [3]float64{1, 1, 1} ||
			pose[2].Translation != [3]float64{} {
			t.Errorf("t=%v: an unanimated property changed: %+v", tc.t, pose)
		}
	}
}

func TestLinearRotation(t *testing.T) {
	s2 := float32(math.Sqrt2 / 2)
	q120 := zRot(2 * math.Pi / 3)
	clip := &Animation{Name: "turn", Duration: 2, Tracks: []Track{{
		Bone: 0, Path: Rotation, Interpolation: Linear,
		Times: []float32{0, 1, 2},
		Values: []float32{
			0, 0, 0, 1, // identity
			0, 0, s2, s2, // 90° about z
			// 120° about z stored negated: the shortest path from 90° is +30°, not -330°.
			0, 0, -float32(q120[2]), -float32(q120[3]),
		},
	}}}
	tests := []struct {
		t    float64
		want rig.Quat
	}{
		{-1, rig.IdentityQuat()},
		{0.5, zRot(math.Pi / 4)},
		{0.25, zRot(math.Pi / 8)},
		{1, zRot(math.Pi / 2)},
		{1.5, rig.Quat{0, 0, 0.7933533402912352, 0.6087614290087207}}, // 105°: sin, cos of 52.5°
		{2, q120},
		{3, q120},
	}
	s := NewSampler(clip)
	for _, tc := range tests {
		pose := restPose(1)
		s.Sample(tc.t, pose)
		quatNear(t, "rotation", pose[0].Rotation, tc.want, 1e-7)
	}
}

func TestRotationNormalized(t *testing.T) {
	s2 := math.Sqrt2 / 2
	// Keys a little off unit length, as real files store them.
	a := []float32{0, 0, 0, 1.0002}
	b := []float32{0, 0, float32(s2 * 0.9997), float32(s2 * 0.9997)}
	for _, interp := range []Interpolation{Step, Linear} {
		clip := &Animation{Name: "n", Duration: 1, Tracks: []Track{{
			Bone: 0, Path: Rotation, Interpolation: interp,
			Times: []float32{0, 1}, Values: append(append([]float32{}, a...), b...),
		}}}
		s := NewSampler(clip)
		pose := restPose(1)
		for _, tc := range []struct {
			t    float64
			want rig.Quat
		}{
			{0, rig.IdentityQuat()},
			{1, zRot(math.Pi / 2)},
			{2, zRot(math.Pi / 2)},
		} {
			s.Sample(tc.t, pose)
			quatNear(t, interp.String(), pose[0].Rotation, tc.want, 1e-7)
		}
		s.Sample(0.5, pose)
		want := rig.IdentityQuat()
		if interp == Linear {
			want = zRot(math.Pi / 4)
		}
		quatNear(t, interp.String()+" mid", pose[0].Rotation, want, 1e-7)
	}
}

func TestCubicSpline(t *testing.T) {
	// Three keys at t = 0, 2, 3. Per key: in-tangent, value, out-tangent (3 floats
	// each). x carries the interesting numbers; y is all zero; z goes -1 → 1 → 1.
	// Tangents that the spline never uses (key 0's in, key 2's out) are 99.
	clip := &Animation{Name: "curve", Duration: 3, Tracks: []Track{{
		Bone: 0, Path: Translation, Interpolation: CubicSpline,
		Times: []float32{0, 2, 3},
		Values: []float32{
			99, 99, 99, 1, 0, -1, 3, 0, 0, // key 0: v=1, out-tangent b0=3
			-1, 0, 0, 2, 0, 1, 4, 0, 0, // key 1: in-tangent a1=-1, v=2, out b1=4
			0, 0, 0, 5, 0, 1, 99, 99, 99, // key 2: a2=0, v=5
		},
	}}}
	if err := clip.Validate(1); err != nil {
		t.Fatal(err)
	}
	// Hermite basis at u: h00 = 2u³-3u²+1, h10 = u³-2u²+u, h01 = -2u³+3u², h11 = u³-u².
	// t=1 (u=.5, Δt=2): h = .5, .125, .5, -.125:
	//   x = .5·1 + .125·2·3 + .5·2 + (-.125)·2·(-1) = .5 + .75 + 1 + .25 = 2.5; z = 0.
	// t=.5 (u=.25): h = .84375, .140625, .15625, -.046875:
	//   x = .84375 + .84375 + .3125 + .09375 = 2.09375; z = -.84375 + .15625 = -.6875.
	// t=2.5 (u=.5, Δt=1): x = .5·2 + .125·4 + .5·5 + 0 = 4; z = 1.
	tests := []struct {
		t    float64
		want [3]float64
	}{
		{-3, [3]float64{1, 0, -1}},
		{0, [3]float64{1, 0, -1}},
		{0.5, [3]float64{2.09375, 0, -0.6875}},
		{1, [3]float64{2.5, 0, 0}},
		{2, [3]float64{2, 0, 1}},
		{2.5, [3]float64{4, 0, 1}},
		{3, [3]float64{5, 0, 1}},
		{7, [3]float64{5, 0, 1}},
	}
	s := NewSampler(clip)
	for _, tc := range tests {
		pose := restPose(1)
		s.Sample(tc.t, pose)
		vecNear(t, "cubic", pose[0].Translation, tc.want, 1e-12)
	}

	// A rotation: identity → 90° about z over 1 s, key 0's out-tangent (0,0,1,0).
	// At u=.5: .5·(0,0,0,1) + .125·(0,0,1,0) + .5·(0,0,s,s) = (0, 0, .5s+.125, .5+.5s),
	// normalized (s = √2/2).
	s2 := float32(math.Sqrt2 / 2)
	rot := &Animation{Name: "spin", Duration: 1, Tracks: []Track{{
		Bone: 0, Path: Rotation, Interpolation: CubicSpline,
		Times: []float32{0, 1},
		Values: []float32{
			0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0,
			0, 0, 0, 0, 0, 0, s2, s2, 0, 0, 0, 0,
		},
	}}}
	pose := restPose(1)
	NewSampler(rot).Sample(0.5, pose)
	quatNear(t, "cubic rotation", pose[0].Rotation, rig.Quat{0, 0, 0.4890416764108683, 0.872260419102717}, 1e-7)
	rot.SampleAt(1, pose)
	quatNear(t, "cubic rotation end", pose[0].Rotation, zRot(math.Pi/2), 1e-7)
}

// scanLocate is the obvious linear-scan answer for locate.
func scanLocate(times []float32, t float64) int {
	k := 0
	for k+1 < len(times)-1 && float64(times[k+1]) <= t {
		k++
	}
	return k
}

func TestLocate(t *testing.T) {
	times := []float32{0, 0.5, 1, 1.25, 2, 3, 3.5, 4, 6, 7, 9, 10}
	for hint := range len(times) + 2 {
		for _, x := range []float64{0.1, 0.5, 0.75, 1, 1.3, 2, 2.9, 3.5, 5, 6, 6.5, 9.99} {
			if got, want := locate(times, x, hint), scanLocate(times, x); got != want {
				t.Errorf("locate(%v, hint %d) = %d, want %d", x, hint, got, want)
			}
		}
	}
}

func randomClip(rng *rand.Rand, bones int) *Animation {
	c := &Animation{Name: "random"}
	for range 1 + rng.IntN(12) {
		tr := Track{
			Bone:          rng.IntN(bones),
			Path:          Path(rng.IntN(3)),
			Interpolation: Interpolation(rng.IntN(3)),
		}
		keys := 1 + rng.IntN(30)
		tk := float32(rng.Float64() * 0.5)
		for range keys {
			tr.Times = append(tr.Times, tk)
			tk += float32(0.001 + rng.Float64()*0.2)
		}
		// As glTF files do, tracks often share their times: another track's
		// slice, or the start of it (the same first key, fewer keys).
		if n := len(c.Tracks); n > 0 && rng.IntN(2) == 0 {
			other := c.Tracks[rng.IntN(n)].Times
			tr.Times = other[:1+rng.IntN(len(other))]
			if rng.IntN(2) == 0 {
				tr.Times = other
			}
			keys = len(tr.Times)
		}
		per := tr.Path.Width() * tr.Interpolation.elements()
		for range keys * per {
			tr.Values = append(tr.Values, float32(rng.NormFloat64()))
		}
		c.Tracks = append(c.Tracks, tr)
		c.Duration = math.Max(c.Duration, float64(tr.Times[keys-1]))
	}
	return c
}

// TestCursorMatchesFresh samples forward in small steps, on exact key times, and
// with jumps back and forward, and requires bit-identical poses to a fresh sampler
// (which has no useful cursor and so searches).
func TestCursorMatchesFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const bones = 5
	for iter := range 200 {
		c := randomClip(rng, bones)
		if err := c.Validate(bones); err != nil {
			t.Fatal(err)
		}
		var ts []float64
		for x := -0.1; x < c.Duration+0.2; x += rng.Float64() * 0.03 {
			ts = append(ts, x)
		}
		for _, tr := range c.Tracks {
			for _, tk := range tr.Times {
				ts = append(ts, float64(tk)) // exactly on keys, in order per track
			}
		}
		for range 50 {
			ts = append(ts, rng.Float64()*(c.Duration+0.4)-0.2) // random jumps
		}
		for x := c.Duration; x > -0.1; x -= rng.Float64() * 0.1 {
			ts = append(ts, x) // backwards
		}
		s := NewSampler(c)
		// Each track alone, applied in clip order: the same values whichever code
		// path the whole clip takes (clips with two tracks on one target take the
		// general one).
		single := make([]*Sampler, len(c.Tracks))
		for i := range c.Tracks {
			single[i] = NewSampler(&Animation{Name: "one", Tracks: c.Tracks[i : i+1]})
		}
		for _, x := range ts {
			got, want, each := restPose(bones), restPose(bones), restPose(bones)
			s.Sample(x, got)
			NewSampler(c).Sample(x, want)
			for _, one := range single {
				one.Sample(x, each)
			}
			for b := range got {
				if got[b] != want[b] {
					t.Fatalf("iter %d, t=%v, bone %d: cursor gives %+v, fresh sampler %+v", iter, x, b, got[b], want[b])
				}
				if got[b] != each[b] {
					t.Fatalf("iter %d, t=%v, bone %d: clip gives %+v, its tracks one by one %+v", iter, x, b, got[b], each[b])
				}
			}
			for i, tr := range c.Tracks {
				n := len(tr.Times)
				if n < 2 || !(x > float64(tr.Times[0])) || x >= float64(tr.Times[n-1]) {
					continue
				}
				if k, want := s.cursor[s.timeGroup[i]], scanLocate(tr.Times, x); k != want {
					t.Fatalf("iter %d, t=%v, track %d: cursor at %d, want interval %d", iter, x, i, k, want)
				}
			}
		}
	}
}

func TestSampleNoAllocs(t *testing.T) {
	c := benchClip(24, 31)
	s := NewSampler(c)
	pose := restPose(24)
	x := 0.0
	n := testing.AllocsPerRun(200, func() {
		s.Sample(x, pose)
		x += 1.0 / 60
	})
	if n != 0 {
		t.Errorf("Sample allocates %v times per call", n)
	}
}

// benchClip is bones bones × T/R/S LINEAR tracks of keys keys at 30 fps.
func benchClip(bones, keys int) *Animation {
	rng := rand.New(rand.NewPCG(31, 32))
	c := &Animation{Name: "bench", Duration: float64(keys-1) / 30}
	times := make([]float32, keys)
	for k := range times {
		times[k] = float32(k) / 30
	}
	for b := range bones {
		for _, p := range []Path{Translation, Rotation, Scale} {
			tr := Track{Bone: b, Path: p, Interpolation: Linear, Times: times}
			q := rig.Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
			step := rig.QuatFromAxisAngle([3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, 0.08)
			for range keys {
				switch p {
				case Rotation:
					tr.Values = append(tr.Values, float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3]))
					q = step.Mul(q)
				case Scale:
					tr.Values = append(tr.Values, float32(1+0.1*rng.Float64()), float32(1+0.1*rng.Float64()), float32(1+0.1*rng.Float64()))
				default:
					tr.Values = append(tr.Values, float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()))
				}
			}
			c.Tracks = append(c.Tracks, tr)
		}
	}
	return c
}

// BenchmarkSample samples a 1 s clip of 24 bones × T/R/S LINEAR tracks (31 keys)
// at 60 frames per second, round and round.
func BenchmarkSample(b *testing.B) {
	const bones = 24
	c := benchClip(bones, 31)
	s := NewSampler(c)
	pose := restPose(bones)
	f := 0
	b.ReportAllocs()
	for b.Loop() {
		s.Sample(float64(f)/60, pose)
		if f++; f > 60 {
			f = 0
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bones, "ns/bone")
}

// BenchmarkSampleModelSpace is a baker's whole per-frame job for one pose: sample
// the clip, then compose model-space matrices (24-bone chain).
func BenchmarkSampleModelSpace(b *testing.B) {
	const bones = 24
	c := benchClip(bones, 31)
	names := make([]string, bones)
	parents := make([]int, bones)
	for i := range names {
		names[i] = string(rune('a' + i))
		parents[i] = i - 1
	}
	skel, err := rig.New(names, parents, restPose(bones))
	if err != nil {
		b.Fatal(err)
	}
	s := NewSampler(c)
	pose := skel.RestPose()
	out := make([]rig.Mat4, bones)
	f := 0
	b.ReportAllocs()
	for b.Loop() {
		s.Sample(float64(f)/60, pose)
		skel.ModelSpace(pose, out)
		if f++; f > 60 {
			f = 0
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bones, "ns/bone")
}

// TestPreparedRotationMatchesSlerp checks the sampler's prepared LINEAR rotation
// path against rig.Slerp of the normalized keys (the unprepared path), including
// keys on opposite hemispheres and nearly parallel keys.
func TestPreparedRotationMatchesSlerp(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	randQ := func() rig.Quat {
		return rig.Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	for iter := range 300 {
		a := randQ()
		var b rig.Quat
		switch iter % 3 {
		case 0:
			b = randQ()
		case 1: // nearly parallel (the lerp branch below 2.8e-3 rad), possibly negated
			b = rig.QuatFromAxisAngle([3]float64{1, 2, 3}, 2.8e-3*rng.Float64()).Mul(a.Normalize())
			if rng.IntN(2) == 0 {
				b = rig.Quat{-b[0], -b[1], -b[2], -b[3]}
			}
		case 2: // a few degrees apart, with unnormalized keys
			b = rig.QuatFromAxisAngle(randQ3(rng), 0.05).Mul(a.Normalize())
			b = rig.Quat{b[0] * 1.0003, b[1] * 1.0003, b[2] * 1.0003, b[3] * 1.0003}
		}
		tr := Track{Path: Rotation, Interpolation: Linear, Times: []float32{0, 1}, Values: []float32{
			float32(a[0]), float32(a[1]), float32(a[2]), float32(a[3]),
			float32(b[0]), float32(b[1]), float32(b[2]), float32(b[3]),
		}}
		c := &Animation{Name: "r", Duration: 1, Tracks: []Track{tr}}
		s := NewSampler(c)
		if s.rot[0].span == nil {
			t.Fatal("LINEAR rotation track not prepared")
		}
		for _, u := range []float64{0.001, 0.25, 0.5, 0.9} {
			got := restPose(1)
			s.Sample(u, got)
			var want rig.Transform
			linear(&tr, &want, 0, u)
			for i := range 4 {
				// sincosQuarter is within 1e-9 of math.Sincos.
				if !near(got[0].Rotation[i], want.Rotation[i], 1e-9) {
					t.Fatalf("u=%v: prepared %v, rig.Slerp %v", u, got[0].Rotation, want.Rotation)
				}
			}
		}
	}
}

func randQ3(rng *rand.Rand) [3]float64 {
	return [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
}

// TestDuplicateTargetLastWins: when two tracks animate the same property (glTF
// forbids it, Validate does not), the later track in the clip wins, whatever
// order the sampler would otherwise visit them in.
func TestDuplicateTargetLastWins(t *testing.T) {
	c := &Animation{Name: "dup", Duration: 1, Tracks: []Track{
		{Bone: 0, Path: Translation, Interpolation: Step, Times: []float32{0}, Values: []float32{9, 9, 9}},
		{Bone: 0, Path: Translation, Interpolation: Linear, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 2, 2, 2}},
		{Bone: 1, Path: Scale, Interpolation: Linear, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 2, 2, 2}},
		{Bone: 1, Path: Scale, Interpolation: Step, Times: []float32{0}, Values: []float32{9, 9, 9}},
	}}
	pose := restPose(2)
	NewSampler(c).Sample(0.5, pose)
	vecNear(t, "bone 0", pose[0].Translation, [3]float64{1, 1, 1}, 0)
	vecNear(t, "bone 1", pose[1].Scale, [3]float64{9, 9, 9}, 0)
}

func TestSampleSkipsEmptyTrack(t *testing.T) {
	c := &Animation{Name: "bad", Tracks: []Track{
		{Bone: 0, Path: Translation, Interpolation: Linear},
		{Bone: 0, Path: Rotation, Interpolation: Step},
		{Bone: 0, Path: Scale, Interpolation: CubicSpline},
	}}
	s := NewSampler(c)
	if s.Clip() != c {
		t.Error("Clip() is not the sampler's clip")
	}
	pose := restPose(1)
	s.Sample(0.5, pose)
	if pose[0] != rig.IdentityTransform() {
		t.Errorf("tracks without keys changed the pose: %+v", pose[0])
	}
}

// TestSincosQuarter checks the slerp's sine and cosine against the math package
// over the whole range a shortest-path slerp uses.
func TestSincosQuarter(t *testing.T) {
	for i := 0; i <= 10000; i++ {
		x := math.Pi / 2 * float64(i) / 10000
		s, c := sincosQuarter(x)
		if math.Abs(s-math.Sin(x)) > 1e-9 || math.Abs(c-math.Cos(x)) > 1e-9 {
			t.Fatalf("x=%v: sin %v (want %v), cos %v (want %v)", x, s, math.Sin(x), c, math.Cos(x))
		}
	}
}

// Clips whose rotation tracks hold the same key slices share one preparation
// through a KeyCache, and sample exactly as clips prepared alone.
func TestPrepareShared(t *testing.T) {
	times := []float32{0, 1, 2}
	values := []float32{0, 0, 0, 1, 0, 0.7071068, 0, 0.7071068, 0, 1, 0, 0}
	a := &Animation{Name: "a", Duration: 2, Tracks: []Track{{Bone: 0, Path: Rotation, Interpolation: Linear, Times: times, Values: values}}}
	b := &Animation{Name: "b", Duration: 2, Tracks: []Track{{Bone: 1, Path: Rotation, Interpolation: Linear, Times: times, Values: values}}}
	kc := new(KeyCache)
	pa, pb := PrepareShared(a, kc), PrepareShared(b, kc)
	if &pa.rot[0].keys[0] != &pb.rot[0].keys[0] || &pa.rot[0].span[0] != &pb.rot[0].span[0] {
		t.Fatal("the second clip prepared the shared keys again")
	}
	alone := Prepare(b).NewSampler()
	shared := pb.NewSampler()
	for _, tm := range []float64{0, 0.3, 1, 1.5, 2} {
		p1, p2 := make([]rig.Transform, 2), make([]rig.Transform, 2)
		alone.Sample(tm, p1)
		shared.Sample(tm, p2)
		if p1[1] != p2[1] {
			t.Fatalf("t=%v: shared %v, alone %v", tm, p2[1], p1[1])
		}
	}
}
