package crowd

import (
	"errors"
	"math"
	"testing"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/species/creatures"
)

// The default table is the one docs/runtime.md §6.1 states.
func TestDefaultFades(t *testing.T) {
	d := registry.DefaultFades()
	for _, c := range []struct {
		from, to unit.StateID
		want     float32
	}{
		{unit.StateIdle, unit.StateWalk, .3}, {unit.StateWalk, unit.StateRun, .3}, {unit.StateRun, unit.StateIdle, .3}, {unit.StateIdle, unit.StateIdle, .3},
		{unit.StateWalk, unit.StateAttackSword, .15}, {unit.StateIdle, unit.StateCast, .15}, {unit.StateRidingIdle, unit.StateRidingCharge, .15},
		{unit.StateAttackSword, unit.StateIdle, .2}, {unit.StateAttackBow, unit.StateWalk, .2}, {unit.StateAttackSword, unit.StateAttackSpear, .15},
		{unit.StateWalk, unit.StateDie, .15}, {unit.StateAttackSword, unit.StateDie, .15}, {unit.StateDie, unit.StateDead, .15},
		{unit.StateDead, unit.StateIdle, 0}, {unit.StateDead, unit.StateDie, 0},
	} {
		if got := d[c.from][c.to]; got != c.want {
			t.Errorf("%v → %v: %v s, want %v", c.from, c.to, got, c.want)
		}
	}
}

// A fade time that is not a finite positive number switches at once, in both
// playback modes alike: the table keeps 0 there, a Crowd's unit does not fade,
// and the clock's record holds no fade (an infinite time made the CPU mode hold
// the old clip for ever and the clock switch at once).
func TestFadeTimesThatSwitchAtOnce(t *testing.T) {
	odd := []float32{float32(math.Inf(1)), float32(math.NaN()), -1, float32(math.Inf(-1))}
	tab := registry.DefaultFades()
	for k, d := range odd {
		tab[unit.StateIdle][unit.StateWalk+unit.StateID(k)] = d
	}
	r := testRegistry(t, registry.WithFades(unit.SpeciesHumanoid, tab))
	got := r.Fades(unit.SpeciesHumanoid)
	for k := range odd {
		if d := got[unit.StateIdle][unit.StateWalk+unit.StateID(k)]; d != 0 {
			t.Errorf("%v in the table: %v, want 0", odd[k], d)
		}
	}
	if got[unit.StateWalk][unit.StateIdle] != registry.FadeLocomotion {
		t.Errorf("walk → idle: %v, want the default %v", got[unit.StateWalk][unit.StateIdle], registry.FadeLocomotion)
	}
	// Idle → walk, whose time is +Inf.
	c, g := New(1), NewGPUClock(1)
	c.Spawn(0, unit.KindMilitia)
	g.Spawn(0, unit.KindMilitia)
	if err := c.Animate(r, 1.0/60); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(r); err != nil {
		t.Fatal(err)
	}
	c.Speed[0] = 1.4
	g.SetInputs(0, unit.Inputs{Speed: 1.4})
	if err := c.Animate(r, 1.0/60); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(r); err != nil {
		t.Fatal(err)
	}
	if c.State[0] != unit.StateWalk || c.Fading(0) || c.Transitions != 1 || c.Fades != 0 {
		t.Errorf("crowd: %v, fading %v, %d transitions, %d fades; want a walk at once", c.State[0], c.Fading(0), c.Transitions, c.Fades)
	}
	if st, _ := g.State(0); st != unit.StateWalk || g.Records[0].FadeInv != 0 || g.Records[0].From != (Playhead{}) || g.Fades != 0 {
		t.Errorf("clock: %v, record %+v, %d fades; want a walk at once", st, g.Records[0], g.Fades)
	}
}

// A unit that turns from walk to a swing fades: the walk keeps advancing at the
// rate it had, its weight falls as 1 − smoothstep(t/0.15), its rows are
// bpat.Resolve's for its phase, and after the fade the Blend is zero again. The
// new clip plays by its own rules meanwhile (the swing's phase).
func TestFadeWalkIntoSwing(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(0)
	walk := h.Clips[clipID(h, "walk")]
	c := New(1)
	c.Weapon[0] = unit.WeaponSword
	c.Speed[0] = 1.4
	const dt = float32(1.0 / 60)
	for range 10 {
		if err := c.Animate(r, dt); err != nil {
			t.Fatal(err)
		}
	}
	if c.Blend[0] != (Blend{}) || c.Transitions != 0 {
		t.Fatalf("walking from the start: blend %+v, %d transitions (the first clip does not fade in)", c.Blend[0], c.Transitions)
	}
	walkPhase, walkRate := float64(c.Phase[0]), float64(c.Rate[0])
	c.Flags[0] |= unit.Attacking | unit.InMelee
	c.Swing = []float32{0}
	for k := 1; ; k++ {
		c.Swing[0] = combat.AttackPhase(float32(k-1) * dt)
		if err := c.Animate(r, dt); err != nil {
			t.Fatal(err)
		}
		tm := float64(k) * float64(dt)
		b := c.Blend[0]
		if tm >= .15-1e-6 {
			if b != (Blend{}) || c.Fading(0) {
				t.Fatalf("t=%.4f after the 0.15 s fade: still fading, %+v", tm, b)
			}
			break
		}
		x := tm / .15
		if w := 1 - x*x*(3-2*x); math.Abs(float64(b.Weight)-w) > 1e-5 || b.PriorWeight != 0 {
			t.Fatalf("t=%.4f: walk weighs %v, want %v (prior %v)", tm, b.Weight, w, b.PriorWeight)
		}
		p := walkPhase + walkRate*tm
		p -= math.Floor(p)
		want := bpat.Resolve(p, walk.FrameCount, true)
		if b.Frame != uint32(walk.FrameOffset+want.Frame) || b.Next != uint32(walk.FrameOffset+want.Next) || math.Abs(float64(b.Lerp-want.Lerp)) > 1e-3 {
			t.Fatalf("t=%.4f: walk rows %d %d %.4f, want %d %d %.4f at phase %.5f", tm, b.Frame, b.Next, b.Lerp,
				walk.FrameOffset+want.Frame, walk.FrameOffset+want.Next, want.Lerp, p)
		}
		if c.State[0] != unit.StateAttackSword || c.Phase[0] != c.Swing[0] {
			t.Fatalf("t=%.4f: state %v phase %v, want the swing's phase %v", tm, c.State[0], c.Phase[0], c.Swing[0])
		}
	}
	if c.Transitions != 1 || c.Fades != 1 {
		t.Errorf("%d transitions, %d fades; want 1 and 1", c.Transitions, c.Fades)
	}
}

// Sockets blend like the palette: a fading unit's hand is the weighted sum of the
// hand in each clip, sampled independently.
func TestFadeBlendsSockets(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(0)
	b := NewBatch(1)
	walk, run := clipID(h, "walk"), clipID(h, "run")
	b.Play(0, walk, .25, 1, 0)
	b.Step(r, .1)
	b.Play(0, run, .5, 2, .3)
	b.Step(r, .1)
	w := 1 - smoothstep(float32(.1/.3))
	if got := b.Blend[0].Weight; math.Abs(float64(got-w)) > 1e-6 {
		t.Fatalf("walk weighs %v, want %v", got, w)
	}
	hand := h.SocketIndex("hand_r")
	got, err := b.Socket(r, 0, hand)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := h.Socket(walk, .45, hand) // .25 + 1·.1 + 1·.1
	c, _ := h.Socket(run, .7, hand)   // .5 + 2·.1
	all := make([]float32, h.SocketCount()*12)
	if err := b.Sockets(r, 0, all); err != nil {
		t.Fatal(err)
	}
	for k := range 12 {
		want := (1-w)*c[k] + w*a[k]
		if math.Abs(float64(got[k]-want)) > 1e-4 || math.Abs(float64(all[hand*12+k]-want)) > 1e-4 {
			t.Fatalf("element %d: Socket %v, Sockets %v, want %v (run %v, walk %v)", k, got[k], all[hand*12+k], want, c[k], a[k])
		}
	}
}

// A fade interrupted by another change starts from the pose being shown: the
// clip fading in becomes the one faded from, and the old one carries on as the
// prior with the weight it had, so the three weights sum to what was shown.
func TestInterruptedFade(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(0)
	b := NewBatch(1)
	idle, walk, die := clipID(h, "idle"), clipID(h, "walk"), clipID(h, "die_infantry")
	b.Play(0, idle, 0, 1, 0)
	b.Step(r, .1)
	b.Play(0, walk, 0, 1, .3)
	b.Step(r, .1)
	before := make([]float32, 60)
	if err := b.Origins(r, 0, before); err != nil {
		t.Fatal(err)
	}
	shownWalk := smoothstep(float32(.1 / .3))
	b.Play(0, die, 0, 0, .1)
	b.Step(r, 0) // no time passes: the pose must not change
	after := make([]float32, 60)
	if err := b.Origins(r, 0, after); err != nil {
		t.Fatal(err)
	}
	for k := range after {
		if math.Abs(float64(after[k]-before[k])) > 1e-4 {
			t.Fatalf("origin element %d jumps %v → %v at the interruption", k, before[k], after[k])
		}
	}
	bl := b.Blend[0]
	if math.Abs(float64(bl.Weight-shownWalk)) > 1e-6 || math.Abs(float64(bl.PriorWeight-(1-shownWalk))) > 1e-6 {
		t.Fatalf("blend %+v: want walk %v, idle %v", bl, shownWalk, 1-shownWalk)
	}
	b.Step(r, .1)
	if b.Fading(0) || b.Blend[0] != (Blend{}) {
		t.Fatalf("after the death's 0.1 s fade: %+v", b.Blend[0])
	}
}

// Origins is the pose's bone translations, computed independently here from the
// file's full palette for each clip, blended by the Blend's weights.
func TestOriginsOfABlend(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(0)
	b := NewBatch(1)
	walk, run := clipID(h, "walk"), clipID(h, "run")
	b.Play(0, walk, .1, 1, 0)
	b.Play(0, run, .6, 1, .3)
	b.Step(r, .05)
	got := make([]float32, 60)
	if err := b.Origins(r, 0, got); err != nil {
		t.Fatal(err)
	}
	pw, pr := make([]float32, 20*16), make([]float32, 20*16)
	h.Palette(walk, .15, pw)
	h.Palette(run, .65, pr)
	w := b.Blend[0].Weight
	for bone := range 20 {
		for a := range 3 {
			want := w*pw[bone*16+4*a+3] + (1-w)*pr[bone*16+4*a+3]
			if d := got[3*bone+a] - want; math.Abs(float64(d)) > 1e-4 {
				t.Fatalf("bone %d axis %d: %v, want %v", bone, a, got[3*bone+a], want)
			}
		}
	}
}

// The point of it all: on the real humanoid, a unit that walks, swings, walks
// again and dies moves its bones by far less in any one frame with fades than
// without (where every change is a pop), and a per-species table of zeros brings
// the pops back.
func TestFadesRemovePops(t *testing.T) {
	h := creatures.All()[0]
	data, err := h.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	jump := func(noFade bool, opts ...registry.Option) float64 {
		r := registry.New(opts...)
		defer r.Close()
		if err := r.Load(registry.Memory(registry.File{Name: h.Name + ".bpat", Data: data})); err != nil {
			t.Fatal(err)
		}
		c := New(1)
		c.Spawn(0, unit.KindSwordsman)
		c.Species[0] = unit.SpeciesHumanoid
		c.NoFade = noFade
		c.Swing = []float32{-1}
		prev, cur := make([]float32, 60), make([]float32, 60)
		const dt = float32(1.0 / 60)
		most := 0.0
		for k := range 300 {
			tm := float32(k) * dt
			c.Speed[0], c.Flags[0], c.Swing[0] = 0, 0, -1
			switch {
			case tm < 1:
				c.Speed[0] = 1.4
			case tm < 2.5:
				c.Flags[0] = unit.Attacking | unit.InMelee
				c.Swing[0] = combat.AttackPhase(tm - 1)
			case tm < 4:
				c.Speed[0] = 1.4
			default:
				c.Flags[0] = unit.Dying
			}
			if err := c.Animate(r, dt); err != nil {
				t.Fatal(err)
			}
			if err := c.Origins(r, 0, cur); err != nil {
				t.Fatal(err)
			}
			if k > 0 {
				for b := 0; b < len(cur); b += 3 {
					most = max(most, math.Hypot(math.Hypot(float64(cur[b]-prev[b]), float64(cur[b+1]-prev[b+1])), float64(cur[b+2]-prev[b+2])))
				}
			}
			prev, cur = cur, prev
		}
		if c.Transitions != 3 {
			t.Fatalf("%d transitions, want 3 (walk → swing → walk → die)", c.Transitions)
		}
		return most
	}
	faded, popped := jump(false), jump(true)
	var zero registry.FadeTable
	tabled := jump(false, registry.WithFades(unit.SpeciesHumanoid, zero))
	t.Logf("largest bone move in one frame: %.3f m with fades, %.3f m without, %.3f m with a table of zeros", faded, popped, tabled)
	if !(faded <= popped/2) || tabled != popped {
		t.Errorf("largest bone move in one frame: %.3f m with fades, %.3f m without, %.3f m with a table of zeros: want fades at most half", faded, popped, tabled)
	}
}

// Between walk and run speeds a unit shows both gaits at its one phase, run
// weighing (speed − walk speed)/(run speed − walk speed), whichever of the two its
// intent picked; its sockets blend alike; below walk speed and above run speed it
// shows one gait. The gaits are the roster's (docs/species.md): walk 1.4 m/s over
// 0.92 s, run 3.8 m/s over 0.56 s.
func TestSpeedBlend(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(0)
	walk, run := h.Clips[clipID(h, "walk")], h.Clips[clipID(h, "run")]
	for _, c := range []struct {
		speed   float32
		running bool
		runW    float64
	}{{1, false, 0}, {1.4, false, 0}, {1.4000001, false, 0}, {3.7999999, true, 1}, {2, false, .25}, {2, true, .25}, {2.6, true, .5}, {3.5, false, .875}, {3.8, true, 1}, {6, true, 1}} {
		u := New(1)
		u.Speed[0] = c.speed
		if c.running {
			u.Flags[0] = unit.Running
		}
		u.Phase[0] = .3
		if err := u.Animate(r, .05); err != nil {
			t.Fatal(err)
		}
		rate := float64(c.speed) / (0.92*1.4 + (0.56*3.8-0.92*1.4)*c.runW)
		if p := float64(u.Phase[0]); math.Abs(p-(.3+.05*rate)) > 1e-5 {
			t.Errorf("%v m/s: phase %v, want %v", c.speed, p, .3+.05*rate)
		}
		own, other := walk, run
		w := c.runW
		if c.running {
			own, other, w = run, walk, 1-w
		}
		if got := h.Clips[u.Clip[0]].Name; got != own.Name {
			t.Fatalf("%v m/s running %v: plays %s", c.speed, c.running, got)
		}
		b := u.Blend[0]
		if math.Abs(float64(b.Weight)-w) > 1e-5 || b.PriorWeight != 0 {
			t.Fatalf("%v m/s: %s weighs %v (prior %v), want %v", c.speed, other.Name, b.Weight, b.PriorWeight, w)
		}
		if w == 0 || w == 1 {
			if b != (Blend{}) { // one gait alone, even a hair off its speed
				t.Fatalf("%v m/s: %+v, want one gait alone", c.speed, b)
			}
			continue
		}
		want := bpat.Resolve(float64(u.Phase[0]), other.FrameCount, true)
		if b.Frame != uint32(other.FrameOffset+want.Frame) || b.Next != uint32(other.FrameOffset+want.Next) || math.Abs(float64(b.Lerp-want.Lerp)) > 1e-5 {
			t.Fatalf("%v m/s: %s rows %d %d %v, want %+v at offset %d", c.speed, other.Name, b.Frame, b.Next, b.Lerp, want, other.FrameOffset)
		}
		hand := h.SocketIndex("hand_r")
		got, _ := u.Socket(r, 0, hand)
		a, _ := h.Socket(u.Clip[0], u.Phase[0], hand)
		o, _ := h.Socket(clipID(h, other.Name), u.Phase[0], hand)
		for k := range got {
			if want := (1-float32(w))*a[k] + float32(w)*o[k]; math.Abs(float64(got[k]-want)) > 1e-4 {
				t.Fatalf("%v m/s: hand element %d %v, want %v", c.speed, k, got[k], want)
			}
		}
	}
}

// Ranges animated in parallel, with fades, speed blends and levels of detail in
// play, give what one Animate gives: the bits that mark blending units are shared
// at the ranges' edges (run with -race to see that they are safe). So does
// AnimateParallel, which counts the units no range can play.
func TestParallelRangesBlend(t *testing.T) {
	r := testRegistry(t)
	const n = 3 * ParallelUnits
	one, two, three := benchCrowd(n), benchCrowd(n), benchCrowd(n)
	for _, c := range []*Crowd{one, two, three} {
		c.EnableLOD()
		for i := range n {
			c.Distance[i] = float32(i % 150)
			if i%3 == 0 {
				c.Speed[i] = 2.6 // between walk and run
			}
		}
		for _, i := range []int{5, 4500, n - 100} {
			c.Species[i] = 40 // not loaded: one unit in each of AnimateParallel's ranges
		}
	}
	for step := range 60 {
		for _, c := range []*Crowd{one, two, three} {
			for i := step % 7; i < n; i += 7 { // some units change what they do
				c.Flags[i] ^= unit.Running
			}
		}
		var u *UnplayableError
		if err := one.Animate(r, 1.0/60); !errors.As(err, &u) || u.Units != 3 {
			t.Fatalf("Animate: %v", err)
		}
		done := make(chan error, 3)
		for _, rg := range [][2]int{{0, 4000}, {4000, 8500}, {8500, n}} {
			go func() { done <- two.AnimateRange(r, 1.0/60, rg[0], rg[1]) }()
		}
		for range 3 {
			if err := <-done; !errors.As(err, &u) || u.Units != 1 {
				t.Fatalf("AnimateRange: %v", err)
			}
		}
		two.LODFrame++
		if err := three.AnimateParallel(r, 1.0/60, 3); !errors.As(err, &u) || u.Units != 3 {
			t.Fatalf("AnimateParallel: %v", err)
		}
		for i := range n {
			for _, c := range []*Crowd{two, three} {
				if one.Out[i] != c.Out[i] || one.Blend[i] != c.Blend[i] || one.Level[i] != c.Level[i] || one.Phase[i] != c.Phase[i] {
					t.Fatalf("step %d unit %d: %+v %+v %v whole, %+v %+v %v in ranges", step, i, one.Out[i], one.Blend[i], one.Level[i], c.Out[i], c.Blend[i], c.Level[i])
				}
			}
		}
	}
	if one.Fades == 0 || one.Fades != two.Fades || one.Fades != three.Fades || one.Transitions != three.Transitions || one.LODFrame != three.LODFrame {
		t.Errorf("fades %d whole, %d in ranges, %d in parallel; transitions %d and %d; LOD frames %d and %d",
			one.Fades, two.Fades, three.Fades, one.Transitions, three.Transitions, one.LODFrame, three.LODFrame)
	}
}
