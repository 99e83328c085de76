package combat

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"
)

// The swing kernel reads swingArgs and swingTable by offset.
func TestSwingArgsLayout(t *testing.T) {
	var a swingArgs
	var tb swingTable
	if unsafe.Offsetof(a.strike) != 48 || unsafe.Offsetof(a.target) != 56 || unsafe.Offsetof(a.hp) != 64 || unsafe.Offsetof(a.tab) != 72 ||
		unsafe.Offsetof(a.dt) != 80 || unsafe.Offsetof(tb.lo) != 64 || unsafe.Offsetof(tb.span) != 96 || unsafe.Offsetof(tb.a) != 128 ||
		unsafe.Offsetof(tb.b) != 160 {
		t.Error("swingArgs or swingTable fields moved")
	}
	if swingTab.start[numCombatPhases] != SwingDuration || swingTab.start[Reposition] == 0 {
		t.Error("swingTab made before the phases' starts")
	}
}

// hostileMelee is n attackers in every state a Melee can be in and some it
// should never be: swings at every point of the timeline and past it, NaN and
// infinite times and tempos, negative zeros, strikes pending on targets that
// moved, died or were retargeted, releases and contacts anywhere.
// One value in odd is odd (0: none), and one unit in odd is dead or
// retargeted.
func hostileMelee(rng *rand.Rand, n, odd int, targets bool) (*Melee, *World) {
	odds := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), -1, 1, 1e-30, SwingDuration}
	pick := func(lo, hi float32) float32 {
		if odd > 0 && rng.IntN(odd) == 0 {
			return odds[rng.IntN(len(odds))]
		}
		return lo + (hi-lo)*rng.Float32()
	}
	m := NewMelee(n)
	m.Record = true
	w := &World{HP: make([]float32, n), Team: make([]uint8, n), X: make([]float32, n), Z: make([]float32, n)}
	if targets {
		w.Target = make([]int32, n)
	}
	for i := range n {
		m.Damage[i], m.Cooldown[i], m.Reach[i] = pick(0, 40), pick(.5, 3), pick(0, 3)
		m.Wait[i] = pick(-.1, 2)
		m.Time[i] = -1
		if rng.IntN(3) > 0 {
			m.Time[i] = pick(-.01, SwingDuration+.02)
		}
		m.Phase[i], m.Tempo[i] = AttackPhase(m.Time[i]), pick(.5, 2)
		m.Contact[i], m.Release[i] = pick(0, 1), -1
		if rng.IntN(4) == 0 {
			m.Release[i] = pick(0, 1)
		}
		m.StrikeTarget[i], m.StrikeDamage[i] = -1, m.Damage[i]
		if rng.IntN(2) == 0 {
			m.StrikeTarget[i] = int32(rng.IntN(n))
		}
		w.HP[i] = pick(1, 60)
		if odd > 0 && rng.IntN(odd) == 0 {
			w.HP[i] = pick(-10, 0)
		}
		w.Team[i] = uint8(rng.IntN(2))
		w.X[i], w.Z[i] = pick(-3, 3), pick(-3, 3)
		if targets {
			w.Target[i] = m.StrikeTarget[i]
			if odd > 0 && rng.IntN(odd) == 0 {
				w.Target[i] = int32(rng.IntN(n))
			}
		}
	}
	return m, w
}

func cloneMelee(m *Melee, w *World) (*Melee, *World) {
	c := func(s []float32) []float32 { return append([]float32(nil), s...) }
	m2 := *m
	m2.Damage, m2.Cooldown, m2.Reach, m2.Wait, m2.Time, m2.Phase = c(m.Damage), c(m.Cooldown), c(m.Reach), c(m.Wait), c(m.Time), c(m.Phase)
	m2.Tempo, m2.Contact, m2.StrikeDamage, m2.Release = c(m.Tempo), c(m.Contact), c(m.StrikeDamage), c(m.Release)
	m2.StrikeTarget = append([]int32(nil), m.StrikeTarget...)
	m2.Events = nil
	w2 := *w
	w2.HP, w2.X, w2.Z = c(w.HP), c(w.X), c(w.Z)
	w2.Team = append([]uint8(nil), w.Team...)
	if w.Target != nil {
		w2.Target = append([]int32(nil), w.Target...)
	}
	return &m2, &w2
}

// bits makes NaNs comparable: a Melee's floats as their bit patterns.
func meleeBits(m *Melee, w *World) [][]uint32 {
	var out [][]uint32
	for _, s := range [][]float32{m.Wait, m.Time, m.Phase, m.Tempo, m.Contact, m.StrikeDamage, m.Release, w.HP} {
		b := make([]uint32, len(s))
		for i, f := range s {
			b[i] = math.Float32bits(f)
		}
		out = append(out, b)
	}
	b := make([]uint32, len(m.StrikeTarget))
	for i, s := range m.StrikeTarget {
		b[i] = uint32(s)
	}
	return append(out, b)
}

// hitBits and eventBits are hits and events with their damage as bits, so
// that a NaN damage compares equal to itself.
func hitBits(hs []Hit) (out [][5]uint32) {
	for _, h := range hs {
		out = append(out, [5]uint32{0, uint32(h.Attacker), uint32(h.Target), math.Float32bits(h.Damage), boolBit(h.Killed)})
	}
	return out
}

func eventBits(es []Event) (out [][5]uint32) {
	for _, e := range es {
		out = append(out, [5]uint32{uint32(e.Kind), uint32(e.Attacker), uint32(e.Target), math.Float32bits(e.Damage), boolBit(e.Killed)})
	}
	return out
}

func boolBit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Step with the kernel gives the Go loop's bits: every slice, the hits, the
// events in their order and the counts, step after step.
func TestSwingKernelMatchesGo(t *testing.T) {
	if !useKernel {
		t.Skip("no swing kernel on this machine or build")
	}
	defer func(on bool) { useKernel = on }(useKernel)
	rng := rand.New(rand.NewPCG(46, 8))
	for round := range 40 {
		n := 8 + rng.IntN(300)
		mk, wk := hostileMelee(rng, n, []int{0, 12, 200}[round%3], round%4 != 3)
		mg, wg := cloneMelee(mk, wk)
		for step := range 30 {
			dt := []float32{1.0 / 60, 1.0 / 30, .25, 0, -1.0 / 60, 3}[rng.IntN(6)]
			useKernel = true
			hk := mk.Step(wk, dt, nil)
			useKernel = false
			hg := mg.Step(wg, dt, nil)
			if !reflect.DeepEqual(meleeBits(mk, wk), meleeBits(mg, wg)) || !reflect.DeepEqual(hitBits(hk), hitBits(hg)) ||
				!reflect.DeepEqual(eventBits(mk.Events), eventBits(mg.Events)) || mk.Stats != mg.Stats {
				t.Fatalf("round %d step %d (dt %v, %d attackers): the kernel's Step differs from the Go loop's", round, step, dt, n)
			}
			mk.Events, mg.Events = mk.Events[:0], mg.Events[:0]
			// New swings now and then, as a fight starts them.
			for i := range n {
				if rng.IntN(10) == 0 && mk.Ready(i) {
					tg, c := int32(rng.IntN(n)), rng.Float32()
					if mk.Start(wk, i, tg, c) != mg.Start(wg, i, tg, c) {
						t.Fatal("Start differs")
					}
				}
			}
		}
	}
}
