package quadruped

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

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
