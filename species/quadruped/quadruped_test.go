package quadruped

import (
	"math"
	"sync"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species"
)

type creature struct {
	s     *species.Creature
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

// phases returns the frame phases of docs/formats/bpat.md (sampling): f/N
// looping, f/(N−1) one-shot.
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
func palette(s *species.Creature, c *species.Clip, phase float64) []rig.Mat4 {
	pose := s.Skeleton.RestPose()
	c.Pose(phase, pose)
	out := make([]rig.Mat4, len(pose))
	s.Skeleton.ModelSpace(pose, out)
	return out
}

func dist(a, b rig.Vec3) float64 {
	return a.Sub(b).Len()
}

func TestSkeletonsFollowTheSpeciesTable(t *testing.T) {
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
				cl.Markers != m || cl.GroundSpeed != r.speed || cl.Cycle != r.cycle || cl.Pose == nil {
				t.Errorf("%s clip %d: %+v, want %+v", c.s.Name, i, cl, r)
			}
		}
		if _, err := c.s.Job(); err != nil {
			t.Errorf("%s: the baker refuses it: %v", c.s.Name, err)
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

func TestSockets(t *testing.T) {
	h := Horse()
	rest := h.Skeleton.RestModelSpace()
	sock := func(s *species.Creature, name string) rig.Vec3 {
		for _, so := range s.Sockets {
			if so.Name == name {
				m := s.Skeleton.RestModelSpace()[so.Anchor]
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
		s              *species.Creature
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
	for _, s := range []*species.Creature{Horse(), Elephant()} {
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
// pass at the frame times of docs/formats/bpat.md (sampling).
func TestBakes(t *testing.T) {
	for _, c := range creatures() {
		got, err := c.s.Bake()
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
