package quadruped

import (
	"math"
	"sync"
	"testing"

	"bonebake/bake"
	"bonebake/format/bpat"
	"bonebake/rig"
	"bonebake/species"
)

type creature struct {
	s     *species.Species
	plan  *plan
	gaits []Gait
	// box bounds every bone's origin in every frame (min and max corner).
	lo, hi rig.Vec3
	// deadTop is the highest a bone may be at the end of die.
	deadTop float64
}

func creatures() []creature {
	return []creature{
		{Horse(), horsePlan(), HorseGaits(), rig.Vec3{-1.5, -0.05, -1.6}, rig.Vec3{1.5, 3.1, 2.0}, 0.9},
		{Elephant(), elephantPlan(), ElephantGaits(), rig.Vec3{-2.5, -0.05, -2.6}, rig.Vec3{2.5, 3.8, 3.6}, 1.6},
	}
}

// phases returns the frame phases of FACTS §1.5: f/N looping, f/(N−1) one-shot.
func phases(c *species.Clip) []float64 {
	out := make([]float64, c.Frames)
	for f := range out {
		switch {
		case c.Loops:
			out[f] = float64(f) / float64(c.Frames)
		case c.Frames > 1:
			out[f] = float64(f) / float64(c.Frames-1)
		}
	}
	return out
}

// palette poses c at phase and returns every bone's model-space matrix.
func palette(s *species.Species, c *species.Clip, phase float64) []rig.Mat4 {
	pose := s.Skeleton.RestPose()
	c.Pose(phase, pose)
	out := make([]rig.Mat4, len(pose))
	s.Skeleton.ModelSpace(pose, out)
	return out
}

func dist(a, b rig.Vec3) float64 {
	return a.Sub(b).Len()
}

func TestSkeletonsFollowFACTS(t *testing.T) {
	legs := func(parent int) ([]string, []int) {
		var names []string
		var parents []int
		for i, l := range []string{"FL", "FR", "BL", "BR"} {
			n := 2 + 3*i
			names = append(names, "Shoulder"+l, "Knee"+l, "Foot"+l)
			parents = append(parents, parent, n, n+1)
		}
		return names, parents
	}
	hn, hp := legs(1)
	en, ep := legs(0)
	want := map[string]struct {
		names   []string
		parents []int
	}{
		"horse":    {append(append([]string{"Root", "Body"}, hn...), "NeckTop", "Head"), append(append([]int{-1, 0}, hp...), 1, 14)},
		"elephant": {append(append([]string{"Root", "Body"}, en...), "Head", "TrunkTip"), append(append([]int{-1, 0}, ep...), 0, 14)},
	}
	for _, c := range creatures() {
		w := want[c.s.Name]
		sk := c.s.Skeleton
		if sk.Len() != 16 {
			t.Errorf("%s: %d bones, want 16", c.s.Name, sk.Len())
		}
		for i := range w.names {
			if sk.Names[i] != w.names[i] || sk.Parents[i] != w.parents[i] {
				t.Errorf("%s bone %d: %s(%d), want %s(%d)", c.s.Name, i, sk.Names[i], sk.Parents[i], w.names[i], w.parents[i])
			}
		}
	}
	if Horse().ID != 1 || Elephant().ID != 2 {
		t.Error("species ids are not 1 and 2")
	}
}

func TestClipTables(t *testing.T) {
	type row struct {
		name         string
		frames       int
		fps          float64
		loops        bool
		exitSafe     bool
		speed, cycle float64
	}
	want := map[string][]row{
		"horse": {
			{"idle", 24, 24, true, true, 0, 2.5}, {"walk", 24, 24, true, true, 1.7, 1.1},
			{"trot", 16, 24, true, false, 3.8, 0.55}, {"canter", 16, 24, true, false, 6, 0.48},
			{"gallop", 12, 24, true, false, 12, 0.38}, {"fight", 24, 24, true, false, 0, 1},
			{"die", 20, 24, false, false, 0, 0}, {"dead", 1, 1, true, false, 0, 0},
		},
		"elephant": {
			{"idle", 24, 24, true, true, 0, 2}, {"walk", 24, 24, true, true, 1.6, 1.2},
			{"run", 16, 24, true, true, 4.5, 0.6}, {"fight", 24, 24, true, false, 0, 1.15},
			{"die", 24, 24, false, false, 0, 0}, {"dead", 1, 1, true, false, 0, 0},
		},
	}
	for _, c := range creatures() {
		w := want[c.s.Name]
		if len(c.s.Clips) != len(w) {
			t.Fatalf("%s: %d clips, want %d", c.s.Name, len(c.s.Clips), len(w))
		}
		for i, r := range w {
			cl := c.s.Clips[i]
			m := bpat.NoMarkers()
			if r.exitSafe {
				m[bpat.ExitSafe] = 0.98
			}
			if cl.Name != r.name || cl.Frames != r.frames || cl.FPS != r.fps || cl.Loops != r.loops ||
				cl.Markers != m || cl.Speed != r.speed || cl.Cycle != r.cycle || cl.Pose == nil {
				t.Errorf("%s clip %d: %+v, want %+v", c.s.Name, i, cl, r)
			}
		}
		if _, err := bake.FromSpecies(c.s); err != nil {
			t.Errorf("%s: the baker refuses it: %v", c.s.Name, err)
		}
	}
}

// TestFeetStayPlanted measures how far each planted foot moves in the world
// (model position + Speed·t along z) between touch-down and lift-off, at the baked
// frame times, two cycles in a row so a stance across the loop counts whole.
func TestFeetStayPlanted(t *testing.T) {
	for _, c := range creatures() {
		for _, g := range c.gaits {
			cl := &c.s.Clips[c.s.ClipIndex(g.Name)]
			n := cl.Frames
			worst, worstY := 0.0, 0.0
			for leg, lb := range c.plan.legs {
				var start rig.Vec3
				planted := false
				for f := 0; f < 2*n; f++ {
					ph := float64(f) / float64(n)
					tm := ph * g.Cycle
					m := Evaluate(c.plan.dims, c.plan.cfg, g, tm)
					if m.Legs[leg].Swinging {
						planted = false
						continue
					}
					pos := palette(c.s, cl, Wrap(ph))[lb.foot].Translation()
					world := pos.Add(rig.Vec3{0, 0, g.Speed * tm})
					if !planted {
						start, planted = world, true
					}
					worst = math.Max(worst, dist(world, start))
					worstY = math.Max(worstY, math.Abs(pos[1]-c.plan.dims.FootHeight))
				}
			}
			limit := 0.01
			if g.Name == "gallop" {
				limit = 0.02
			}
			t.Logf("%s %s: planted feet slide %.2g m, rise %.2g m", c.s.Name, g.Name, worst, worstY)
			if worst > limit || worstY > limit {
				t.Errorf("%s %s: a planted foot slides %.3g m and leaves the ground by %.3g m (limit %g)", c.s.Name, g.Name, worst, worstY, limit)
			}
		}
	}
}

// TestFightKeepsFeetPlanted: the feet that carry the weight in a fight stay put.
func TestFightKeepsFeetPlanted(t *testing.T) {
	for _, c := range creatures() {
		cl := &c.s.Clips[c.s.ClipIndex("fight")]
		for leg, lb := range c.plan.legs {
			home := c.plan.dims.DefaultFoot(leg)
			worst := 0.0
			for _, ph := range phases(cl) {
				pos := palette(c.s, cl, ph)[lb.foot].Translation()
				if pos[1] > c.plan.dims.FootHeight+0.02 {
					continue // in the air
				}
				worst = math.Max(worst, dist(pos, home))
			}
			if worst > 0.01 {
				t.Errorf("%s fight: foot %s on the ground moves %.3g m from its place", c.s.Name, legNames[leg], worst)
			}
		}
	}
}

func TestLoopsAreSeamless(t *testing.T) {
	for _, c := range creatures() {
		for i := range c.s.Clips {
			cl := &c.s.Clips[i]
			if !cl.Loops {
				continue
			}
			p0, p1 := palette(c.s, cl, 0), palette(c.s, cl, 1)
			for b := range p0 {
				for k := range p0[b] {
					if math.Abs(p0[b][k]-p1[b][k]) > 1e-9 {
						t.Fatalf("%s %s: Pose(1) differs from Pose(0) at bone %d", c.s.Name, cl.Name, b)
					}
				}
			}
			if cl.Frames < 2 {
				continue
			}
			ps := phases(cl)
			frames := make([][]rig.Mat4, len(ps))
			for f, ph := range ps {
				frames[f] = palette(c.s, cl, ph)
			}
			step := func(a, b []rig.Mat4) float64 {
				m := 0.0
				for k := range a {
					m = math.Max(m, dist(a[k].Translation(), b[k].Translation()))
				}
				return m
			}
			inner := 0.0
			for f := 1; f < len(frames); f++ {
				inner = math.Max(inner, step(frames[f-1], frames[f]))
			}
			seam := step(frames[len(frames)-1], frames[0])
			t.Logf("%s %s: seam step %.3g m, largest step %.3g m", c.s.Name, cl.Name, seam, inner)
			if seam > 1.5*inner+1e-9 {
				t.Errorf("%s %s: the loop jumps %.3g m at the seam, more than 1.5× the largest step %.3g m", c.s.Name, cl.Name, seam, inner)
			}
		}
	}
}

func TestDeathEndsOnTheGround(t *testing.T) {
	for _, c := range creatures() {
		die := &c.s.Clips[c.s.ClipIndex("die")]
		dead := &c.s.Clips[c.s.ClipIndex("dead")]
		end, still := palette(c.s, die, 1), palette(c.s, dead, 0)
		top := math.Inf(-1)
		for b, m := range end {
			top = math.Max(top, m.Translation()[1])
			if d := dist(m.Translation(), still[b].Translation()); d > 1e-9 {
				t.Errorf("%s: dead differs from the end of die at bone %d by %g", c.s.Name, b, d)
			}
		}
		t.Logf("%s: highest bone at the end of die %.2f m", c.s.Name, top)
		if top > c.deadTop {
			t.Errorf("%s: a bone is %.2f m high at the end of die, want ≤ %.2f", c.s.Name, top, c.deadTop)
		}
		// It starts standing.
		start, rest := palette(c.s, die, 0), c.s.Skeleton.RestModelSpace()
		for b := range start {
			if d := dist(start[b].Translation(), rest[b].Translation()); d > 1e-9 {
				t.Errorf("%s: die does not start from the standing pose (bone %d off by %g)", c.s.Name, b, d)
			}
		}
	}
}

// TestBonesStayInPlausibleBox checks every bone of every frame against a box
// around the creature, and that no bone sinks below the ground.
func TestBonesStayInPlausibleBox(t *testing.T) {
	for _, c := range creatures() {
		for i := range c.s.Clips {
			cl := &c.s.Clips[i]
			for _, ph := range phases(cl) {
				for b, m := range palette(c.s, cl, ph) {
					p := m.Translation()
					for k := range 3 {
						if !(p[k] >= c.lo[k] && p[k] <= c.hi[k]) {
							t.Fatalf("%s %s phase %.3f: %s at %.3f, outside %v–%v", c.s.Name, cl.Name, ph, c.s.Skeleton.Names[b], p, c.lo, c.hi)
						}
					}
				}
			}
		}
	}
}

func TestPoseWritesEveryBoneAndIsDeterministic(t *testing.T) {
	for _, c := range creatures() {
		for i := range c.s.Clips {
			cl := &c.s.Clips[i]
			want := make([][]rig.Transform, 0, cl.Frames)
			for _, ph := range phases(cl) {
				pose := make([]rig.Transform, c.s.Skeleton.Len())
				for b := range pose {
					pose[b] = rig.Transform{Translation: rig.Vec3{math.NaN(), 7, 7}, Rotation: rig.Quat{1, 2, 3, 4}, Scale: rig.Vec3{9, 9, 9}}
				}
				cl.Pose(ph, pose)
				for b, tr := range pose {
					if !tr.IsFinite() || tr.Scale != one || math.Abs(tr.Rotation.Len()-1) > 1e-9 {
						t.Fatalf("%s %s: bone %d not fully written: %+v", c.s.Name, cl.Name, b, tr)
					}
				}
				want = append(want, pose)
			}
			var wg sync.WaitGroup
			errs := make(chan string, 8)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					pose := c.s.Skeleton.RestPose()
					for f, ph := range phases(cl) {
						cl.Pose(ph, pose)
						for b := range pose {
							if pose[b] != want[f][b] {
								errs <- cl.Name
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for name := range errs {
				t.Errorf("%s %s: concurrent poses differ", c.s.Name, name)
			}
		}
	}
}

func TestLegPhases(t *testing.T) {
	walk := HorseGaits()[1]
	for _, tm := range []float64{0, 0.1, 0.37, 0.8} {
		m := Evaluate(HorseDims(), HorseConfig(), walk, tm)
		if d := Wrap(m.Legs[FR].Phase - m.Legs[FL].Phase); math.Abs(d-0.5) > 1e-12 {
			t.Errorf("horse walk t=%v: FR − FL = %v, want .5", tm, d)
		}
		if d := Wrap(m.Legs[FL].Phase - m.Legs[BL].Phase); math.Abs(d-0.25) > 1e-12 {
			t.Errorf("horse walk t=%v: FL − BL = %v, want .25 (front phase .25, rear 0)", tm, d)
		}
	}
	trot := HorseGaits()[2]
	m := Evaluate(HorseDims(), HorseConfig(), trot, 0.2)
	if math.Abs(m.Legs[FL].Phase-m.Legs[BR].Phase) > 1e-12 || math.Abs(m.Legs[FR].Phase-m.Legs[BL].Phase) > 1e-12 {
		t.Errorf("horse trot: diagonal pairs not together: %+v", m.Legs)
	}
	for _, g := range ElephantGaits() {
		m := Evaluate(ElephantDims(), ElephantConfig(), g, 0.3*g.Cycle)
		for leg, off := range [NumLegs]float64{0, 0.5, 0.75, 0.25} {
			if d := Wrap(m.Legs[leg].Phase - m.Legs[FL].Phase); math.Abs(d-off) > 1e-9 {
				t.Errorf("elephant %s: leg %s is %v after FL, want %v", g.Name, legNames[leg], d, off)
			}
		}
	}
	// Each leg swings for its swing fraction of the cycle.
	for _, c := range creatures() {
		for _, g := range c.gaits {
			sw := 0
			const n = 1000
			for k := range n {
				if Evaluate(c.plan.dims, c.plan.cfg, g, (float64(k)+0.5)/n*g.Cycle).Legs[FL].Swinging {
					sw++
				}
			}
			if want := c.plan.cfg.SwingFraction(g); math.Abs(float64(sw)/n-want) > 2.0/n {
				t.Errorf("%s %s: FL swings %.3f of the cycle, want %.3f", c.s.Name, g.Name, float64(sw)/n, want)
			}
		}
	}
}

func TestGaitFormulas(t *testing.T) {
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", what, got, want)
		}
	}
	near("Wrap(2.25)", Wrap(2.25), 0.25)
	near("Wrap(-0.25)", Wrap(-0.25), 0.75)
	near("MovingPhase(0.55, 1.1, 0.25)", MovingPhase(0.55, 1.1, 0.25, 1e-3), 0.75)
	near("MovingPhase with a zero cycle", MovingPhase(0.0005, 0, 0.1, 1e-3), 0.6)

	// Hand-computed from FACTS §2.4 with the default harmonics.
	c := Config{Harmonics: DefaultHarmonics(), BobAmplitude: 0.1, BobBase: 0.5, BobIntensity: 0.5}
	// p = 0: .7·sin 0 + .3·sin(2π·.38) = .3·0.684547105928689
	near("Bob(0)", c.Bob(0, 1), 0.3*0.684547105928689*0.1*1.0)
	// p = .25: .7·1 + .3·sin(2π·.88) = .7 − .3·0.684547105928689; intensity .6 → scale .8
	near("Bob(.25)", c.Bob(0.25, 0.6), (0.7-0.3*0.684547105928689)*0.1*0.8)
	// p = .5: .7·0 + .3·sin(2π·1.38) = .3·0.684547105928689
	near("Bob(.5)", c.Bob(0.5, 0), 0.3*0.684547105928689*0.1*0.5)
	// p = .75: −.7 + .3·sin(2π·1.88) = −.7 − .3·0.684547105928689
	near("Bob(.75)", c.Bob(0.75, 1), (-0.7-0.3*0.684547105928689)*0.1)
	c.Harmonics.W3, c.Harmonics.F3, c.Harmonics.Phi3 = 0.5, 3, 0.1
	// the third term at p = 0: .5·sin(2π·.3) = .5·0.951056516295154
	near("Bob(0) with a third harmonic", c.Bob(0, 1), (0.3*0.684547105928689+0.5*0.951056516295154)*0.1)

	near("Intensity(walk)", Intensity(0.24, 0.07, false), 0.62+0.24*0.24+0.07*2.2*0.14)
	near("Intensity(idle)", Intensity(0.015, 0.008, false), 0.62+0.015*0.24+0.008*2.2*0.14)
	near("Intensity(trot) clamps", Intensity(0.62, 0.24, true), 1)
	near("Intensity(elephant run) clamps", Intensity(0.70, 0.25, true), 1)
	near("Intensity(lift clamps)", Intensity(0, 1, false), 0.62+0.14)
	near("Intensity(swing clamps)", Intensity(3, 0, false), 0.62+0.24)
	near("Intensity(negative)", Intensity(-5, -5, false), 0.62)

	for _, x := range []struct{ t, ease, arc float64 }{{0, 0, 0}, {0.25, 0.15625, 0.75}, {0.5, 0.5, 1}, {0.75, 0.84375, 0.75}, {1, 1, 0}} {
		near("SwingEase", SwingEase(x.t), x.ease)
		near("SwingArc", SwingArc(x.t), x.arc)
	}

	// Default foot under the hip: body + (±.52·w, −.42·h, ±.48·l), on the ground.
	d := Dims{Width: 1, Height: 2, Length: 3, BodyHeight: 2, FootHeight: 0.1}
	for leg, want := range [NumLegs]rig.Vec3{{0.52, -0.84, 1.44}, {-0.52, -0.84, 1.44}, {0.52, -0.84, -1.44}, {-0.52, -0.84, -1.44}} {
		if h := d.Hip(leg); dist(h, want) > 1e-12 {
			t.Errorf("Hip(%s) = %v, want %v", legNames[leg], h, want)
		}
		if f := d.DefaultFoot(leg); dist(f, rig.Vec3{want[0], 0.1, want[2]}) > 1e-12 {
			t.Errorf("DefaultFoot(%s) = %v", legNames[leg], f)
		}
	}

	// A swinging foot: at mid-swing it is at the default foot's z, lifted by the
	// full lift; a planted foot at mid-stance also sits under the hip.
	g := Gait{Cycle: 1, Swing: 0.5, Lift: 0.2, Speed: 2}
	cfg := Config{Harmonics: DefaultHarmonics(), SwingDuration: 0.25}
	m := Evaluate(d, cfg, g, 0.125) // FL phase .125: half way through its swing
	home := d.DefaultFoot(FL)
	if want := home.Add(rig.Vec3{0, 0.2 * d.LegHeight(), 0}); dist(m.Legs[FL].Foot, want) > 1e-12 || !m.Legs[FL].Swinging {
		t.Errorf("mid-swing foot %v, want %v", m.Legs[FL].Foot, want)
	}
	m = Evaluate(d, cfg, g, 0.625) // FL phase .625: half way through its stance
	if dist(m.Legs[FL].Foot, home) > 1e-12 || m.Legs[FL].Swinging {
		t.Errorf("mid-stance foot %v, want %v", m.Legs[FL].Foot, home)
	}
	// Stance travel: Speed · cycle · (1 − swing) = 1.5 m, so at the start of the
	// stance the foot is .75 m ahead.
	m = Evaluate(d, cfg, g, 0.25)
	if want := home.Add(rig.Vec3{0, 0, 0.75}); dist(m.Legs[FL].Foot, want) > 1e-12 {
		t.Errorf("touch-down foot %v, want %v", m.Legs[FL].Foot, want)
	}
}

func TestRestPoseSkinsToBind(t *testing.T) {
	for _, c := range creatures() {
		rest := c.s.Skeleton.RestModelSpace()
		inv := c.s.InverseBind()
		for b := range rest {
			m := rest[b].Mul(inv[b])
			id := rig.IdentityMat4()
			for k := range m {
				if math.Abs(m[k]-id[k]) > 1e-12 {
					t.Fatalf("%s bone %d: rest × inverse bind is not the identity: %v", c.s.Name, b, m)
				}
			}
		}
		// Every clip's rest-relative skinning keeps vertices finite, and the
		// rest pose puts each vertex where the mesh has it.
		for _, m := range []*struct {
			name string
			n    int
		}{{"full", 0}, {"minimal", 1}} {
			msh := c.s.Mesh
			if m.n == 1 {
				msh = c.s.Minimal
			}
			for v, p := range msh.Positions {
				var q rig.Vec3
				for k := range 4 {
					w := float64(msh.Weights[v][k])
					r := rest[msh.Joints[v][k]].Mul(inv[msh.Joints[v][k]]).TransformPoint(rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])})
					q = q.Add(r.Scale(w))
				}
				if dist(q, rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}) > 1e-5 {
					t.Fatalf("%s %s mesh: vertex %d moves at rest", c.s.Name, m.name, v)
				}
			}
		}
	}
}

func TestMeshes(t *testing.T) {
	for _, c := range creatures() {
		for _, m := range []struct {
			name   string
			lo, hi int
		}{{"full", 500, 6000}, {"minimal", 100, 300}} {
			msh := c.s.Mesh
			if m.name == "minimal" {
				msh = c.s.Minimal
			}
			if msh == nil {
				t.Fatalf("%s: no %s mesh", c.s.Name, m.name)
			}
			tris := msh.TriangleCount()
			t.Logf("%s %s mesh: %d vertices, %d triangles", c.s.Name, m.name, msh.VertexCount(), tris)
			if tris < m.lo || tris > m.hi {
				t.Errorf("%s %s mesh: %d triangles, want %d–%d", c.s.Name, m.name, tris, m.lo, m.hi)
			}
			n := msh.VertexCount()
			if len(msh.Normals) != n || len(msh.UVs) != n || len(msh.Joints) != n || len(msh.Weights) != n || len(msh.Roles) != n {
				t.Fatalf("%s %s mesh: attribute counts differ", c.s.Name, m.name)
			}
			roles := map[uint8]bool{}
			for v := range n {
				sum := float32(0)
				for k := range 4 {
					sum += msh.Weights[v][k]
					if int(msh.Joints[v][k]) >= c.s.Skeleton.Len() {
						t.Fatalf("%s %s mesh: vertex %d joint %d", c.s.Name, m.name, v, msh.Joints[v][k])
					}
				}
				if math.Abs(float64(sum)-1) > 1e-5 {
					t.Fatalf("%s %s mesh: vertex %d weights sum to %v", c.s.Name, m.name, v, sum)
				}
				roles[msh.Roles[v]] = true
			}
			for _, idx := range msh.Indices {
				if int(idx) >= n {
					t.Fatalf("%s %s mesh: index %d out of range", c.s.Name, m.name, idx)
				}
			}
			if !roles[0] || !roles[2] && c.s.Name == "horse" || !roles[5] {
				t.Errorf("%s %s mesh: roles %v, want hide, bone (hooves, tusks) and, for the horse, hair", c.s.Name, m.name, roles)
			}
		}
	}
}

// TestMeshStaysAboveGround skins the full mesh in every frame and checks that it
// does not sink into the ground (a few centimetres of squash are allowed).
func TestMeshStaysAboveGround(t *testing.T) {
	for _, c := range creatures() {
		inv := c.s.InverseBind()
		msh := c.s.Mesh
		for i := range c.s.Clips {
			cl := &c.s.Clips[i]
			low := math.Inf(1)
			for _, ph := range phases(cl) {
				pal := palette(c.s, cl, ph)
				skin := make([]rig.Mat4, len(pal))
				for b := range pal {
					skin[b] = pal[b].Mul(inv[b])
				}
				for v, p := range msh.Positions {
					y := 0.0
					for k := range 4 {
						m := &skin[msh.Joints[v][k]]
						y += float64(msh.Weights[v][k]) * (m[4]*float64(p[0]) + m[5]*float64(p[1]) + m[6]*float64(p[2]) + m[7])
					}
					low = math.Min(low, y)
				}
			}
			t.Logf("%s %s: lowest vertex %.3f m", c.s.Name, cl.Name, low)
			if low < -0.06 {
				t.Errorf("%s %s: the mesh sinks %.3f m into the ground", c.s.Name, cl.Name, -low)
			}
		}
	}
}

func TestSockets(t *testing.T) {
	h := Horse()
	rest := h.Skeleton.RestModelSpace()
	sock := func(s *species.Species, name string) rig.Vec3 {
		for _, so := range s.Sockets {
			if so.Name == name {
				m := s.Skeleton.RestModelSpace()[so.Bone]
				return m.TransformPoint(rig.Vec3{float64(so.Offset[0]), float64(so.Offset[1]), float64(so.Offset[2])})
			}
		}
		t.Fatalf("%s: no socket %q", s.Name, name)
		return rig.Vec3{}
	}
	if p := sock(h, "saddle"); math.Abs(p[1]-1.45) > 0.01 || math.Abs(p[0]) > 1e-9 {
		t.Errorf("saddle at %v, want about 1.45 m up on the spine", p)
	}
	if p := sock(h, "head"); p[1] < 1.5 || p[2] < rest[14].Translation()[2] {
		t.Errorf("horse head socket at %v", p)
	}
	e := Elephant()
	if p := sock(e, "howdah"); p[1] < 2.9 || p[1] > 3.2 {
		t.Errorf("howdah at %v, want on top of the back (about 3 m)", p)
	}
	if p := sock(e, "trunk_tip"); p[1] > 1 || p[2] < 2 {
		t.Errorf("trunk tip at %v, want low in front of the head", p)
	}
	sock(e, "head")
}

func TestProportions(t *testing.T) {
	for _, c := range []struct {
		s              *species.Species
		height, length float64 // withers/shoulder, overall
	}{{Horse(), 1.6, 2.4}, {Elephant(), 3.0, 5.5}} {
		lo, hi := rig.Vec3{1e9, 1e9, 1e9}, rig.Vec3{-1e9, -1e9, -1e9}
		for _, p := range c.s.Mesh.Positions {
			for k := range 3 {
				lo[k] = math.Min(lo[k], float64(p[k]))
				hi[k] = math.Max(hi[k], float64(p[k]))
			}
		}
		t.Logf("%s mesh: x %.2f…%.2f, y %.2f…%.2f, z %.2f…%.2f", c.s.Name, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
		if l := hi[2] - lo[2]; math.Abs(l-c.length) > 0.15*c.length {
			t.Errorf("%s: %.2f m long, want about %.1f", c.s.Name, l, c.length)
		}
		if math.Abs(lo[1]) > 0.01 {
			t.Errorf("%s: the feet are at %.3f, not on the ground", c.s.Name, lo[1])
		}
	}
}

func BenchmarkPose(b *testing.B) {
	for _, s := range []*species.Species{Horse(), Elephant()} {
		for _, name := range []string{"walk", "die"} {
			c := &s.Clips[s.ClipIndex(name)]
			pose := s.Skeleton.RestPose()
			b.Run(s.Name+"/"+name, func(b *testing.B) {
				ph := 0.0
				for b.Loop() {
					c.Pose(ph, pose)
					ph += 0.037
					if ph > 1 {
						ph--
					}
				}
			})
		}
	}
}

// TestBakes bakes each creature and checks the palettes against the model-space
// pass at the frame times of FACTS §1.5.
func TestBakes(t *testing.T) {
	for _, c := range creatures() {
		got, err := bake.Species(c.s)
		if err != nil {
			t.Fatalf("%s: %v", c.s.Name, err)
		}
		if got.SpeciesID != c.s.ID || got.BoneCount != 16 || len(got.Clips) != len(c.s.Clips) || len(got.Sockets) != len(c.s.Sockets) {
			t.Fatalf("%s: baked %d clips, %d bones, species %d", c.s.Name, len(got.Clips), got.BoneCount, got.SpeciesID)
		}
		for i := range c.s.Clips {
			cl := &c.s.Clips[i]
			for f, ph := range phases(cl) {
				want := palette(c.s, cl, ph)
				for b := range want {
					for k := range 16 {
						if d := math.Abs(float64(got.Palettes[i][(f*16+b)*16+k]) - want[b][k]); d > 1e-5 {
							t.Fatalf("%s %s frame %d bone %d: baked %v, want %v", c.s.Name, cl.Name, f, b, got.Palettes[i][(f*16+b)*16+k], want[b][k])
						}
					}
				}
			}
		}
	}
}

// TestFeetReachTargets samples every gait finely: each foot, swinging or
// planted, is where the gait evaluator puts it (the legs never run out of reach).
func TestFeetReachTargets(t *testing.T) {
	for _, c := range creatures() {
		for _, g := range c.gaits {
			cl := &c.s.Clips[c.s.ClipIndex(g.Name)]
			worst := 0.0
			for k := range 240 {
				ph := float64(k) / 240
				m := Evaluate(c.plan.dims, c.plan.cfg, g, ph*g.Cycle)
				pal := palette(c.s, cl, ph)
				for leg, lb := range c.plan.legs {
					worst = math.Max(worst, dist(pal[lb.foot].Translation(), m.Legs[leg].Foot))
				}
			}
			if worst > 1e-6 {
				t.Errorf("%s %s: a foot misses its target by %.3g m", c.s.Name, g.Name, worst)
			}
		}
	}
}
