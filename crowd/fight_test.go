package crowd

import (
	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/unit"
	"math"
	"testing"
)

// A cooldown that is not positive (negative, or NaN) is none, in both combat
// modes: the attacker may swing again at once, as with a cooldown of 0. A NaN
// one used to hold a frame-stepped attacker's cooldown for ever while a
// scheduled one ran out at once, and a negative one moved each next swing's
// start before the last's.
func TestCombatOddCooldowns(t *testing.T) {
	r := testRegistry(t)
	const dt = float32(1.0 / 61)
	stats := func(cd float32, scheduled bool) combat.MeleeStats {
		const n = 2
		cpu, clock := New(n), NewGPUClock(n)
		var f *Combat
		if scheduled {
			f = NewScheduledCombat(r, clock)
		} else {
			f = NewCombat(r, cpu)
		}
		for i := range n {
			cpu.Spawn(i, unit.KindMilitia)
			clock.Spawn(i, unit.KindMilitia)
			f.Melee.Damage[i], f.Melee.Cooldown[i], f.Melee.Reach[i] = 1, cd, 100
			f.World.HP[i], f.World.Team[i] = 1e6, uint8(i)
		}
		for frame := range 400 {
			if frame < 300 && frame%7 == 0 {
				f.Attack(0, 1)
			}
			f.Step(dt)
			if scheduled {
				if err := clock.Commit(r); err != nil {
					t.Fatal(err)
				}
				clock.Advance(dt)
			} else if err := cpu.Animate(r, dt); err != nil {
				t.Fatal(err)
			}
		}
		return f.Melee.Stats
	}
	want := stats(0, false)
	if want.Started < 300/7 || want.Landed != want.Started {
		t.Fatalf("cooldown 0: %+v, want a swing and a hit for each of the %d attacks", want, 300/7+1)
	}
	for _, cd := range []float32{0, -1, float32(math.NaN())} {
		for _, scheduled := range []bool{false, true} {
			if got := stats(cd, scheduled); got != want {
				t.Errorf("cooldown %v, scheduled %v: %+v, want %+v (as cooldown 0)", cd, scheduled, got, want)
			}
		}
	}
}
