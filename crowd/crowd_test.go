package crowd

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
)

// wrapDiff is the phase distance a→b on the circle, in (−.5, .5].
func wrapDiff(a, b float32) float64 {
	d := float64(b) - float64(a)
	return d - math.Round(d)
}

// Locomotion: the phase advances by dt · speed / stride, the stride (cycle · ground
// speed) being walk's below walk speed, run's above run speed and in between the
// mix of the two by how far the speed lies between them (docs/runtime.md §6.3), with
// no jump when the speed changes or when walk turns into run and back.
func TestLocomotionPhaseContinuity(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(0)
	walk, run := clipID(h, "walk"), clipID(h, "run")
	c := New(1)
	c.Phase[0] = .3
	const dt = 1.0 / 60
	prevClip := -1
	switches := 0
	for step := range 600 {
		tm := float64(step) * dt
		// Speed ramps 0.3 → 5 m/s over 5 s and back down; running above 2.5 m/s.
		speed := 0.3 + 4.7*math.Min(tm/5, 2-tm/5)
		if speed > 2.5 {
			c.Flags[0] = unit.Running
		} else {
			c.Flags[0] = 0
		}
		c.Speed[0] = float32(speed)
		before := c.Phase[0]
		if err := c.Animate(r, dt); err != nil {
			t.Fatal(err)
		}
		clip := walk
		if speed > 2.5 {
			clip = run
		}
		if c.Clip[0] != clip {
			t.Fatalf("t=%.3f speed %.2f: clip %d, want %d", tm, speed, c.Clip[0], clip)
		}
		if prevClip >= 0 && unit.ClipID(prevClip) != clip {
			switches++
		}
		prevClip = int(clip)
		gw, gr := h.Clips[walk].Gait, h.Clips[run].Gait
		b := math.Min(math.Max((speed-gw.Speed)/(gr.Speed-gw.Speed), 0), 1)
		want := dt * speed / (gw.Cycle*gw.Speed + (gr.Cycle*gr.Speed-gw.Cycle*gw.Speed)*b)
		if got := wrapDiff(before, c.Phase[0]); math.Abs(got-want) > 2e-6 {
			t.Fatalf("t=%.3f speed %.2f clip %s: phase %v → %v (Δ %v), want Δ %v", tm, speed, h.Clips[clip].Name, before, c.Phase[0], got, want)
		}
	}
	if switches != 2 {
		t.Errorf("%d walk/run switches, want 2", switches)
	}
}

// At its gait speed a clip makes one pass per cycle: walk .92 s at 1.4 m/s, run .56 s
// at 3.8 m/s (docs/species.md §3).
func TestLocomotionCycle(t *testing.T) {
	r := testRegistry(t)
	for _, c := range []struct {
		flags         unit.Flags
		speed, cycle  float64
		clip          string
		stepsPerCycle int
	}{{0, 1.4, .92, "walk", 92}, {unit.Running, 3.8, .56, "run", 56}} {
		cr := New(1)
		cr.Phase[0], cr.Flags[0], cr.Speed[0] = 0, c.flags, float32(c.speed)
		dt := float32(c.cycle / float64(c.stepsPerCycle))
		half := false
		for k := range c.stepsPerCycle {
			cr.Animate(r, dt)
			if k == c.stepsPerCycle/2-1 {
				half = math.Abs(float64(cr.Phase[0])-.5) < 1e-4
			}
		}
		if d := math.Abs(wrapDiff(0, cr.Phase[0])); d > 1e-4 || !half {
			t.Errorf("%s: phase %v after one cycle (half way ok: %v)", c.clip, cr.Phase[0], half)
		}
		if got := r.Species(0).Clips[cr.Clip[0]].Name; got != c.clip {
			t.Errorf("played %s, want %s", got, c.clip)
		}
	}
	if got := LocomotionRate(roster.Gait{Cycle: .92, Speed: 1.4}, 2.8); math.Abs(got-2/.92) > 1e-12 {
		t.Errorf("LocomotionRate %v", got)
	}
}

// Die: progress from 0 to 1 over the clip's duration, ending on its last frame;
// Dead: phase 0. A rider dies with the mounted clips.
func TestDeathPhase(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(0)
	for _, c := range []struct {
		arch      roster.Archetype
		die, dead string
	}{{roster.Humanoid, "die_infantry", "dead_infantry"}, {roster.Rider, "die_mounted", "dead_mounted"}} {
		cr := New(1)
		cr.Archetype[0] = c.arch
		cr.Speed[0] = 2 // a dying unit that was walking still dies
		cr.Animate(r, .1)
		cr.Flags[0] = unit.Dying
		die := h.Clips[clipID(h, c.die)]
		const dt = 1.0 / 48
		for k := 1; ; k++ {
			cr.Animate(r, dt)
			if h.Clips[cr.Clip[0]].Name != c.die || cr.State[0] != unit.StateDie {
				t.Fatalf("%v: playing %s", c.arch, h.Clips[cr.Clip[0]].Name)
			}
			want := DeathProgress(float64(k)*dt, die.Duration)
			if math.Abs(float64(cr.Phase[0])-want) > 1e-5 {
				t.Fatalf("%v step %d: death progress %v, want %v", c.arch, k, cr.Phase[0], want)
			}
			if want == 1 {
				break
			}
		}
		cr.Animate(r, 1)
		if o := cr.Out[0]; cr.Phase[0] != 1 || o.Frame != uint32(die.FrameOffset+die.FrameCount-1) || o.Lerp != 0 {
			t.Errorf("%v: end of death %+v phase %v", c.arch, o, cr.Phase[0])
		}
		cr.Flags[0] = unit.Dead
		cr.Animate(r, .5)
		dead := h.Clips[clipID(h, c.dead)]
		if cr.Phase[0] != 0 || cr.Out[0].Frame != uint32(dead.FrameOffset) || cr.State[0] != unit.StateDead {
			t.Errorf("%v: dead at phase %v, row %d", c.arch, cr.Phase[0], cr.Out[0].Frame)
		}
	}
	if DeathProgress(1, 0) != 1 || DeathProgress(-1, 2) != 0 || DeathProgress(1, 2) != .5 {
		t.Error("DeathProgress")
	}
}

// Idles: ambient loops, spread across units, at 1/Cycle; one-shot fidgets repeat.
func TestAmbientIdle(t *testing.T) {
	r := testRegistry(t)
	cr := New(200)
	seen := map[float32]bool{}
	for i := range cr.Phase {
		seen[cr.Phase[i]] = true
		cr.Variant[i] = uint8(i % 2) // idle (looping) or idle_squat (a one-shot)
	}
	if len(seen) < 190 {
		t.Errorf("only %d distinct ambient phases for 200 units", len(seen))
	}
	cr.Animate(r, 0) // squatters restart at 0
	start := append([]float32(nil), cr.Phase...)
	for range 30 {
		cr.Animate(r, .1)
	}
	h := r.Species(0)
	for i := range cr.Phase {
		clip := h.Clips[cr.Clip[i]]
		want := 3 / clip.Gait.Cycle
		if d := wrapDiff(start[i], cr.Phase[i]); math.Abs(d-(want-math.Round(want))) > 1e-4 {
			t.Fatalf("unit %d %s: phase %v → %v, want Δ %v", i, clip.Name, start[i], cr.Phase[i], want)
		}
	}
	// A squat lasts 71/24 s: after 3 s it has wrapped.
	if cr.Phase[1] > .1 {
		t.Errorf("idle_squat did not repeat: phase %v", cr.Phase[1])
	}
}

// An attack plays at the combat timeline's phase; without a swing it repeats.
func TestAttackPhaseFromSwing(t *testing.T) {
	r := testRegistry(t)
	cr := New(2)
	cr.Swing = []float32{0, -1}
	for i := range 2 {
		cr.Flags[i], cr.Weapon[i], cr.Variant[i] = unit.Attacking|unit.InMelee, unit.WeaponSword, 1
	}
	h := r.Species(0)
	for k := range 200 {
		cr.Swing[0] = combat.AttackPhase(float32(k) * .01)
		cr.Animate(r, .01)
		if h.Clips[cr.Clip[0]].Name != "attack_sword_b" || cr.State[0] != unit.StateAttackSword {
			t.Fatalf("playing %s", h.Clips[cr.Clip[0]].Name)
		}
		if cr.Phase[0] != cr.Swing[0] {
			t.Fatalf("swing phase %v: phase %v", cr.Swing[0], cr.Phase[0])
		}
	}
	// Unit 1 has no swing: 2 s of a 23/24 s clip repeating.
	if p := cr.Phase[1]; math.Abs(float64(p)-math.Mod(2/(23.0/24), 1)) > 1e-4 {
		t.Errorf("swingless attack at phase %v", p)
	}
}

// Every unit's sockets at its clip and phase are bpat.File.Sample's (for the
// units that show one clip: TestSpeedBlend checks blended ones).
func TestSocketsMatchSample(t *testing.T) {
	r := testRegistry(t)
	cr := New(300)
	for i := range cr.Species {
		cr.Species[i] = unit.SpeciesID(i % 6)
		cr.Archetype[i] = []roster.Archetype{roster.Humanoid, roster.Horse, roster.Elephant, roster.Rider, roster.Humanoid, roster.Humanoid}[i%6]
		cr.Speed[i] = float32(i%7) * .6
		cr.Flags[i] = []unit.Flags{0, unit.Running, unit.Dying, unit.Attacking | unit.InMelee, unit.HoldStance}[i%5]
		cr.Variant[i] = uint8(i)
	}
	for range 7 {
		cr.Animate(r, .137)
	}
	got := make([]float32, 10*12)
	checked := 0
	for i := range cr.Species {
		if cr.Blend[i] != (Blend{}) {
			continue
		}
		checked++
		s := r.Species(cr.Species[i])
		pal := make([]float32, s.File.BoneCount()*16)
		want := make([]float32, s.SocketCount()*12)
		pb := s.File.Sample(int(cr.Clip[i]), float64(cr.Phase[i]), pal, want)
		c := s.Clips[cr.Clip[i]]
		if o := cr.Out[i]; o.Frame != uint32(c.FrameOffset+pb.Frame) || o.Next != uint32(c.FrameOffset+pb.Next) || o.Lerp != pb.Lerp {
			t.Fatalf("unit %d: instance %+v, Sample %+v", i, o, pb)
		}
		if err := cr.Sockets(r, i, got); err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("unit %d %s socket float %d: %v, want %v", i, s.Name, k, got[k], want[k])
			}
		}
		for k := range s.SocketCount() {
			one, err := s.Socket(cr.Clip[i], cr.Phase[i], k)
			if err != nil {
				t.Fatal(err)
			}
			for j := range one {
				if one[j] != want[k*12+j] {
					t.Fatalf("unit %d socket %d: Socket %v, want %v", i, k, one, want[k*12:k*12+12])
				}
			}
		}
		// And the palette.
		p2 := make([]float32, len(pal))
		if _, err := s.Palette(cr.Clip[i], cr.Phase[i], p2); err != nil {
			t.Fatal(err)
		}
		for k := range pal {
			if p2[k] != pal[k] {
				t.Fatalf("unit %d palette differs", i)
			}
		}
	}
	if checked < 200 {
		t.Errorf("only %d of %d units show one clip", checked, len(cr.Species))
	}
	// The hand socket at a known blend: humanoid walk (clip 5) half way between
	// frames 3 and 4 sits at the hand bone's translation (5, 3.5, 13).
	h := r.Species(0)
	hand, err := h.Socket(5, 3.5/24, h.SocketIndex("hand_r"))
	if err != nil {
		t.Fatal(err)
	}
	if hand[3] != 5 || math.Abs(float64(hand[7])-3.5) > 1e-6 || hand[11] != 13 {
		t.Errorf("hand_r at walk 3.5/24: %v", hand)
	}
	if _, err := h.Sockets(5, 0, make([]float32, 3)); err == nil {
		t.Error("short socket buffer accepted")
	}
	if _, err := h.Socket(99, 0, 0); err == nil {
		t.Error("clip 99 accepted")
	}
	_ = bpat.FloatsPerSocket
}

func TestSelectMatchesAnimate(t *testing.T) {
	r := testRegistry(t)
	cr := New(500)
	for i := range cr.Species {
		cr.Species[i] = unit.SpeciesID(i % 7) // 6 is not loaded
		cr.Archetype[i] = roster.Archetype(i % 5)
		cr.Flags[i] = unit.Flags(i * 37 % 4096)
		cr.Weapon[i] = unit.Weapon(i % 4)
		cr.Speed[i] = float32(i%3) * .5
		cr.Variant[i] = uint8(i % 11)
	}
	cr.Animate(r, .05)
	for i := range cr.Species {
		st, cl := cr.Select(r, i)
		if st != cr.State[i] || cl != cr.Clip[i] {
			t.Fatalf("unit %d: Select %v %d, Animate %v %d", i, st, cl, cr.State[i], cr.Clip[i])
		}
	}
}
