package combat

import (
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/internal/testfiles"
	"math"
	"math/rand/v2"
	"testing"
)

func TestCombatTimeline(t *testing.T) {
	if math.Abs(float64(SwingDuration)-1.84) > 1e-6 {
		t.Fatalf("SwingDuration %v", SwingDuration)
	}
	// Phase boundaries land on the window edges.
	for _, c := range []struct {
		t     float32
		phase CombatPhase
		ap    float32
	}{{0, Advance, 0}, {.22, WindUp, .14}, {.64, Strike, .34}, {.98, Impact, .52}, {1.16, Recover, .60},
		{1.56, Reposition, .86}, {1.84, CombatIdle, .995}, {5, CombatIdle, .995}, {-1, CombatIdle, 0}} {
		k, _ := Timeline(c.t)
		if k != c.phase || math.Abs(float64(AttackPhase(c.t)-c.ap)) > 1e-5 {
			t.Errorf("t=%v: %v at attack phase %v, want %v at %v", c.t, k, AttackPhase(c.t), c.phase, c.ap)
		}
	}
	// Within a phase: its window swept by its ease.
	for _, c := range []struct {
		k    CombatPhase
		u    float32
		ease float32
	}{{WindUp, .5, .25 * (2.4 - .7)}, {Strike, .5, .75}, {Advance, .5, .5}, {Impact, .25, .0625 * 2.5}, {Recover, .75, .5625 * 1.5}} {
		lo, hi := AttackWindow(c.k)
		tm := phaseStart[c.k] + c.u*PhaseDuration(c.k)
		if got, want := AttackPhase(tm), lo+(hi-lo)*c.ease; math.Abs(float64(got-want)) > 1e-5 {
			t.Errorf("%v at %v: attack phase %v, want %v", c.k, c.u, got, want)
		}
		if e := Ease(c.k, c.u); math.Abs(float64(e-c.ease)) > 1e-6 {
			t.Errorf("Ease(%v, %v) = %v, want %v", c.k, c.u, e, c.ease)
		}
	}
	for k := Advance; k < numCombatPhases; k++ {
		if Ease(k, 0) != 0 || math.Abs(float64(Ease(k, 1)-1)) > 1e-6 {
			t.Errorf("%v: ease(0) %v ease(1) %v", k, Ease(k, 0), Ease(k, 1))
		}
	}
	// Monotone.
	prev := float32(-1)
	for tm := float32(0); tm < 2; tm += 1e-3 {
		ap := AttackPhase(tm)
		if ap < prev {
			t.Fatalf("attack phase falls at %v: %v < %v", tm, ap, prev)
		}
		prev = ap
	}
}

// duel sets up attacker 0 (team 0) against target 1 (team 1), 1 m apart.
func duel(damage, cooldown float32) (*Melee, *World) {
	m := NewMelee(2)
	for i := range 2 {
		m.Damage[i], m.Cooldown[i], m.Reach[i] = damage, cooldown, 1.5
	}
	w := &World{HP: []float32{100, 1e9}, Team: []uint8{0, 1}, X: []float32{0, 1}, Z: []float32{0, 0}, Target: []int32{1, 0}}
	return m, w
}

// The strike lands on the step where the attack phase crosses contact, once.
func TestStrikeLandsOnContact(t *testing.T) {
	for _, contact := range []float32{.58, .56, registry.DefaultContact, .1, 0, .995, 1} {
		for _, dt := range []float32{1.0 / 60, 1.0 / 30, .07, .25} {
			m, w := duel(10, 3)
			if !m.Start(w, 0, 1, contact) {
				t.Fatal("swing did not start")
			}
			var hits []Hit
			landed := -1
			for step := 0; m.Swinging(0); step++ {
				before := m.Time[0]
				hits = m.Step(w, dt, hits[:0])
				after := before + dt
				// Independently: the step whose new attack phase reaches contact (or
				// that ends the swing) is the one.
				crossing := AttackPhase(before) < contact && (AttackPhase(after) >= contact || after >= SwingDuration)
				if contact == 0 {
					crossing = step == 0
				}
				if len(hits) > 0 {
					if landed >= 0 {
						t.Fatalf("contact %v dt %v: second hit at step %d", contact, dt, step)
					}
					landed = step
					if !crossing || hits[0] != (Hit{Attacker: 0, Target: 1, Damage: 10}) {
						t.Fatalf("contact %v dt %v: hit %+v at step %d (t %v→%v, phase %v→%v), not the crossing", contact, dt, hits[0], step, before, after, AttackPhase(before), AttackPhase(after))
					}
				} else if crossing {
					t.Fatalf("contact %v dt %v: no hit at the crossing step %d", contact, dt, step)
				}
			}
			if landed < 0 || m.Stats != (MeleeStats{Started: 1, Landed: 1}) || w.HP[1] != 1e9-10 {
				t.Errorf("contact %v dt %v: landed at %d, stats %+v", contact, dt, landed, m.Stats)
			}
		}
	}
}

// A step that jumps past contact, or past the whole swing, still lands it, once.
func TestStrikeJumpsOverContact(t *testing.T) {
	for _, dt := range []float32{1.2, 1.9, 10} {
		m, w := duel(10, 20)
		m.Start(w, 0, 1, .58)
		if AttackPhase(0) >= .58 {
			t.Fatal("contact at the start")
		}
		hits := m.Step(w, dt, nil)
		if len(hits) != 1 || m.Stats.Landed != 1 {
			t.Fatalf("dt %v: %d hits", dt, len(hits))
		}
		if dt >= SwingDuration && m.Swinging(0) {
			t.Errorf("dt %v: still swinging", dt)
		}
		for range 10 {
			if hits = m.Step(w, dt, hits[:0]); len(hits) != 0 {
				t.Fatalf("dt %v: a second hit", dt)
			}
		}
	}
}

func TestStrikeCancelled(t *testing.T) {
	const dt = 1.0 / 60
	for _, c := range []struct {
		name   string
		change func(w *World, m *Melee)
	}{
		{"target died", func(w *World, m *Melee) { w.HP[1] = 0 }},
		{"target turned friendly", func(w *World, m *Melee) { w.Team[1] = 0 }},
		{"target out of reach", func(w *World, m *Melee) { w.X[1] = 3 }},
		{"attacker died", func(w *World, m *Melee) { w.HP[0] = -5 }},
		{"attacker retargeted", func(w *World, m *Melee) { w.Target[0] = 7 }},
		{"cancelled by the game", func(w *World, m *Melee) { m.Cancel(0) }},
	} {
		m, w := duel(10, 2)
		hp := w.HP[1]
		m.Start(w, 0, 1, .58)
		for range 20 { // .33 s: before contact
			m.Step(w, dt, nil)
		}
		if !m.Pending(0) {
			t.Fatalf("%s: strike no longer pending before contact", c.name)
		}
		c.change(w, m)
		var hits []Hit
		for range 200 {
			hits = m.Step(w, dt, hits)
		}
		if len(hits) != 0 || m.Stats.Landed != 0 || m.Stats.Cancelled != 1 || m.Pending(0) {
			t.Errorf("%s: %d hits, stats %+v", c.name, len(hits), m.Stats)
		}
		if w.HP[1] != hp && c.name != "target died" {
			t.Errorf("%s: target HP changed", c.name)
		}
	}
	// The cooldown holds off a second swing; a friendly or distant target is refused.
	m, w := duel(10, 2)
	if !m.Start(w, 0, 1, .58) || m.Start(w, 0, 1, .58) {
		t.Error("second swing started during the cooldown")
	}
	m, w = duel(10, 2)
	w.Team[1] = 0
	if m.Start(w, 0, 1, .58) {
		t.Error("swing at a friend")
	}
	w.Team[1], w.X[1] = 1, 2
	if m.Start(w, 0, 1, .58) || m.Start(w, 0, 9, .58) || m.Stats.Started != 0 {
		t.Error("swing out of reach or at no unit")
	}
}

// Over a long fight the damage per second is damage/cooldown, whatever the step.
func TestDPSUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, cd := range []float32{.6, 1.2, 1.84, 2.5} {
		for _, dtKind := range []string{"1/60", "1/30", "jitter"} {
			m, w := duel(7, cd)
			const fight = 600.0
			elapsed := 0.0
			var hits []Hit
			total := 0.0
			for elapsed < fight {
				dt := float32(1.0 / 60)
				switch dtKind {
				case "1/30":
					dt = 1.0 / 30
				case "jitter":
					dt = float32(.005 + .05*rng.Float64())
				}
				// The game: swing whenever ready (the target stays in reach).
				if m.Ready(0) {
					if !m.Start(w, 0, 1, .58) {
						t.Fatal("start refused")
					}
				}
				hits = m.Step(w, dt, hits[:0])
				for _, h := range hits {
					total += float64(h.Damage)
				}
				elapsed += float64(dt)
			}
			dps := total / elapsed
			want := 7 / float64(cd)
			if math.Abs(dps-want)/want > .01 {
				t.Errorf("cooldown %v dt %s: %.4f dps, want %.4f (stats %+v)", cd, dtKind, dps, want, m.Stats)
			}
			if m.Stats.Cancelled != 0 || m.Stats.Landed+1 < m.Stats.Started {
				t.Errorf("cooldown %v dt %s: stats %+v", cd, dtKind, m.Stats)
			}
		}
	}
}

// CanStart answers as Start does, changing nothing: a ready attacker in reach of a
// live enemy may swing; a cooldown, a death, a friend or a distance refuses it.
func TestCanStart(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(w *World, m *Melee)
		want   bool
	}{
		{"ready, in reach", func(w *World, m *Melee) {}, true},
		{"cooldown running", func(w *World, m *Melee) { m.Wait[0] = .1 }, false},
		{"NaN cooldown", func(w *World, m *Melee) { m.Wait[0] = float32(math.NaN()) }, true},
		{"attacker dead", func(w *World, m *Melee) { w.HP[0] = 0 }, false},
		{"target dead", func(w *World, m *Melee) { w.HP[1] = -1 }, false},
		{"target friendly", func(w *World, m *Melee) { w.Team[1] = 0 }, false},
		{"target out of reach", func(w *World, m *Melee) { w.X[1] = 3 }, false},
	} {
		m, w := duel(10, 2)
		c.change(w, m)
		wait := m.Wait[0]
		if got := m.CanStart(w, 0, 1); got != c.want {
			t.Errorf("%s: CanStart %v, want %v", c.name, got, c.want)
		}
		if m.Stats.Started != 0 || m.Swinging(0) || math.Float32bits(m.Wait[0]) != math.Float32bits(wait) {
			t.Errorf("%s: CanStart changed the melee", c.name)
		}
		if got := m.Start(w, 0, 1, .58); got != c.want {
			t.Errorf("%s: Start %v, CanStart %v", c.name, got, c.want)
		}
	}
	if m, w := duel(10, 2); m.CanStart(w, 0, 9) || m.CanStart(w, 0, -1) {
		t.Error("CanStart at no unit")
	}
}

// TestGoldenAttackPhase: AttackPhase gives the shared golden swing cases
// (testdata/playback/golden.json, which the GLSL PLAYBACK chunk's node test
// runs too).
func TestGoldenAttackPhase(t *testing.T) {
	g := testfiles.LoadPlayback(t)
	for _, c := range g.Swing.Cases {
		if got := AttackPhase(float32(c.T)); math.Abs(float64(got)-c.Phase) > g.Tolerance {
			t.Errorf("AttackPhase(%v) = %v; want %v (%s)", c.T, got, c.Phase, c.Why)
		}
	}
}
