package crowd

import (
	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/unit"
	"testing"
)

// A unit a Combat killed becomes Dead by itself once its death has played
// (issue 45 item 6: the game loop had to do it, though combat knows it): Dying
// while State Die runs, Dead from the first Step after its Phase reached 1.
func TestCombatKillTurnsDead(t *testing.T) {
	reg := testRegistry(t)
	c := New(2)
	c.Spawn(0, unit.KindSwordsman)
	c.Spawn(1, unit.KindSwordsman)
	f := NewCombat(reg, c)
	w, m := &f.World, f.Melee
	w.HP[0], w.HP[1] = 100, 10
	w.Team[0], w.Team[1] = 0, 1
	w.X[1] = 1
	m.Damage[0], m.Cooldown[0], m.Reach[0] = 50, 1, 2
	const dt = float32(1.0 / 60)
	f.Attack(0, 1)
	killedAt, deadAt := -1, -1
	for step := range 20 * 60 {
		for _, e := range f.Step(dt) {
			if e.Kind == combat.EventHit && e.Killed && e.Target == 1 {
				killedAt = step
			}
		}
		if killedAt >= 0 && deadAt < 0 && c.Flags[1]&unit.Dead != 0 {
			deadAt = step
			// The death had played: Animate left it at the end of Die.
			if c.State[1] != unit.StateDie || c.Phase[1] < 1 {
				t.Fatalf("Dead at step %d in state %v phase %v", step, c.State[1], c.Phase[1])
			}
		}
		if killedAt >= 0 && deadAt < 0 && step > killedAt && c.Flags[1]&unit.Dying == 0 {
			t.Fatalf("step %d: flags %v, neither Dying nor Dead", step, c.Flags[1])
		}
		if err := c.Animate(reg, dt); err != nil {
			t.Fatal(err)
		}
		if deadAt >= 0 && c.State[1] != unit.StateDead && step > deadAt {
			t.Fatalf("step %d: Dead unit in state %v", step, c.State[1])
		}
	}
	if killedAt < 0 || deadAt <= killedAt {
		t.Fatalf("killed at step %d, dead at step %d", killedAt, deadAt)
	}
}
