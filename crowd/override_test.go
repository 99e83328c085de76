package crowd

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
)

// An overridden unit shows the clip chosen for it, fading in from the clip its
// inputs play over the fade time (its weight 1 − smoothstep(t/d), docs/runtime.md
// §6.1) and back out when the override ends, while its inputs go on being
// resolved underneath exactly as in a twin crowd without the override: state,
// clip, phase and rate, a death included. Rows are bpat.Resolve's for the phases
// the rates give.
func TestOverride(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(unit.SpeciesHumanoid)
	idleK, walkK := clipID(h, "idle"), clipID(h, "walk")
	idle, walk := h.Clips[idleK], h.Clips[walkK]
	if idle.Duration != 1 || !idle.Loops {
		t.Fatalf("idle: %v s, loops %v; the test wants a 1 s loop", idle.Duration, idle.Loops)
	}
	a, b := New(2), New(2) // b: the twin without overrides
	for _, c := range []*Crowd{a, b} {
		c.Spawn(0, unit.KindMilitia)
		c.Spawn(1, unit.KindMilitia)
		c.Speed[0], c.Speed[1] = 1.4, 1.4
	}
	const dt = float32(1.0 / 60)
	step := func(what string) {
		t.Helper()
		for _, c := range []*Crowd{a, b} {
			if err := c.Animate(r, dt); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 2 {
			if a.State[i] != b.State[i] || a.Clip[i] != b.Clip[i] || a.Phase[i] != b.Phase[i] || a.Rate[i] != b.Rate[i] {
				t.Fatalf("%s: unit %d's inputs play %v %d %v %v, %v %d %v %v without the override", what, i,
					a.State[i], a.Clip[i], a.Phase[i], a.Rate[i], b.State[i], b.Clip[i], b.Phase[i], b.Rate[i])
			}
		}
	}
	rows := func(c registry.Clip, ph float64) (uint32, uint32, float32) {
		ph -= math.Floor(ph)
		f := bpat.Resolve(ph, c.FrameCount, c.Loops)
		return uint32(c.FrameOffset + f.Frame), uint32(c.FrameOffset + f.Next), f.Lerp
	}
	near := func(a, b float32, tol float64) bool { return math.Abs(float64(a-b)) <= tol }
	for range 10 {
		step("walking")
	}
	walkPhase, walkRate := float64(a.Phase[0]), float64(a.Rate[0])
	if a.Clip[0] != walkK || a.Blend[0] != (Blend{}) {
		t.Fatalf("not walking alone: clip %d, blend %+v", a.Clip[0], a.Blend[0])
	}
	a.Override(r, 0, idleK, 1, 0.3)
	a.Override(r, 1, idleK, 1, 0) // no fade: idle at once
	b.Flags[1] |= unit.Dying      // unit 1 dies underneath
	a.Flags[1] |= unit.Dying
	for k := 1; ; k++ {
		step("overridden")
		tm := float64(k) * float64(dt)
		o := a.Out[0]
		f, n, l := rows(idle, walkPhase+tm) // idle at 1 phase per second from the walk's phase
		if o.Clip != idleK || o.Frame != f || o.Next != n || !near(o.Lerp, l, 1e-3) {
			t.Fatalf("t=%.4f: shows %+v, want idle rows %d %d %.4f", tm, o, f, n, l)
		}
		if a.Out[1].Clip != idleK || a.Blend[1] != (Blend{}) {
			t.Fatalf("t=%.4f: the unit overridden with no fade shows %+v, %+v", tm, a.Out[1], a.Blend[1])
		}
		bl := a.Blend[0]
		if tm >= .3-1e-6 {
			if bl != (Blend{}) {
				t.Fatalf("t=%.4f after the 0.3 s fade: blend %+v", tm, bl)
			}
			break
		}
		x := tm / .3
		f, n, l = rows(walk, walkPhase+walkRate*tm)
		if w := 1 - x*x*(3-2*x); !near(bl.Weight, float32(w), 1e-5) || bl.PriorWeight != 0 || bl.Frame != f || bl.Next != n || !near(bl.Lerp, l, 1e-3) {
			t.Fatalf("t=%.4f: fades from %+v, want walk rows %d %d %.4f at weight %.5f", tm, bl, f, n, l, w)
		}
	}
	for range 60 {
		step("overridden, dying underneath")
	}
	if a.State[1] != unit.StateDie || a.Phase[1] != 1 || a.Out[1].Clip != idleK {
		t.Fatalf("dying underneath: state %v phase %v, showing clip %d", a.State[1], a.Phase[1], a.Out[1].Clip)
	}
	idlePhase := float64(a.Overrides().Phase[0])
	a.Override(r, 0, unit.NoClip, 0, 0.2)
	a.Override(r, 1, unit.NoClip, 0, 0)
	for k := 1; ; k++ {
		step("released")
		tm := float64(k) * float64(dt)
		if a.Out != nil && (a.Out[0] != b.Out[0] || a.Out[1] != b.Out[1] || a.Blend[1] != b.Blend[1]) {
			t.Fatalf("t=%.4f after the override: shows %+v %+v, %+v %+v without it", tm, a.Out[0], a.Out[1], b.Out[0], b.Out[1])
		}
		bl := a.Blend[0]
		if tm >= .2-1e-6 {
			if bl != b.Blend[0] {
				t.Fatalf("t=%.4f after the 0.2 s fade: blend %+v, %+v without the override", tm, bl, b.Blend[0])
			}
			break
		}
		x := tm / .2
		f, n, l := rows(idle, idlePhase+tm)
		if w := 1 - x*x*(3-2*x); !near(bl.Weight, float32(w), 1e-5) || bl.Frame != f || bl.Next != n || !near(bl.Lerp, l, 1e-3) {
			t.Fatalf("t=%.4f: fades from %+v, want idle rows %d %d %.4f at weight %.5f", tm, bl, f, n, l, w)
		}
	}
	if o := a.Overrides(); o.Clip[0] != unit.NoClip || o.Clip[1] != unit.NoClip {
		t.Errorf("released units still on clips %d and %d", o.Clip[0], o.Clip[1])
	}
}

// An overridden one-shot holds its end pose for the override Player's Hold,
// then plays again; Set (Spawn) ends an override.
func TestOverrideOneShotAndSpawn(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(unit.SpeciesHumanoid)
	squat := clipID(h, "idle_squat") // a one-shot
	c := New(1)
	c.Spawn(0, unit.KindMilitia)
	if err := c.Animate(r, 0.1); err != nil {
		t.Fatal(err)
	}
	c.Override(r, 0, squat, float32(h.Clips[squat].Duration), 0) // one pass a second
	// Rates within float32 rounding of 1: a hold of 0.5 is reached at 0.49 or 0.5.
	c.Overrides().Hold = 0.49
	c.Overrides().Seek(0, 0.1)
	var phases []float32
	for range 8 {
		if err := c.Animate(r, 0.25); err != nil {
			t.Fatal(err)
		}
		phases = append(phases, c.Overrides().PhaseNow(0))
	}
	// 0.35 … 1 (its end), held 0.25 and 0.5: then it plays again from 0.
	want := []float32{0.35, 0.6, 0.85, 1, 1, 0.25, 0.5, 0.75}
	for k := range want {
		if !(math.Abs(float64(phases[k]-want[k])) < 1e-5) {
			t.Fatalf("phases %v, want %v", phases, want)
		}
	}
	c.Spawn(0, unit.KindSwordsman)
	if err := c.Animate(r, 0.1); err != nil {
		t.Fatal(err)
	}
	if c.Overrides().Clip[0] != unit.NoClip || c.Out[0].Clip != c.Clip[0] || c.Out[0].Species != unit.SpeciesHumanoidSword {
		t.Errorf("after Spawn: override on %d, shows %+v for its inputs' clip %d", c.Overrides().Clip[0], c.Out[0], c.Clip[0])
	}
}

// AnimateParallel shows overrides as Animate does, levels of detail included:
// overridden units in every range, some released and some changed on the way.
func TestOverrideParallel(t *testing.T) {
	r := testRegistry(t)
	const n = 3 * ParallelUnits
	one, three := benchCrowd(n), benchCrowd(n)
	h := r.Species(unit.SpeciesHumanoid)
	clips := []unit.ClipID{clipID(h, "idle"), clipID(h, "walk"), clipID(h, "idle_squat"), clipID(h, "hold")}
	for _, c := range []*Crowd{one, three} {
		c.EnableLOD()
		for i := range n {
			c.Distance[i] = float32(i % 150)
		}
	}
	for step := range 40 {
		for _, c := range []*Crowd{one, three} {
			for i := step % 5; i < n; i += 5 {
				switch cl := clips[(i/5+step)%len(clips)]; {
				case step%3 == 2:
					c.Override(r, i, unit.NoClip, 0, 0.2)
				case int(cl) < len(r.Species(c.Species[i]).Clips): // a horse's clip 7 is its last
					c.Override(r, i, cl, 1, registry.FadeLocomotion)
				}
			}
			c.Overrides().Hold = 0.3
		}
		if err := one.Animate(r, 1.0/60); err != nil {
			t.Fatalf("Animate: %v", err)
		}
		if err := three.AnimateParallel(r, 1.0/60, 3); err != nil {
			t.Fatalf("AnimateParallel: %v", err)
		}
		shown := 0
		for i := range n {
			if one.Out[i] != three.Out[i] || one.Blend[i] != three.Blend[i] || one.Level[i] != three.Level[i] {
				t.Fatalf("step %d unit %d: %+v %+v %v whole, %+v %+v %v in parallel", step, i, one.Out[i], one.Blend[i], one.Level[i], three.Out[i], three.Blend[i], three.Level[i])
			}
			if cl := one.Overrides().Clip[i]; cl != unit.NoClip {
				if one.Out[i].Clip != cl {
					t.Fatalf("step %d unit %d: overridden with clip %d, shows clip %d", step, i, cl, one.Out[i].Clip)
				}
				shown++
			}
		}
		if shown == 0 && step%3 != 2 {
			t.Fatalf("step %d: no unit overridden", step)
		}
	}
}
