package crowd

import (
	"testing"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
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

// A species of the game's own whose archetype leaves Die unmapped (it plays
// Idle's looping clip) or maps it to a looping clip still turns Dead once
// killed: a death lasts at most one pass of the clip that stands for it (a
// looping clip keeps the unit's phase), then holds (docs/runtime.md §6, Die:
// the death progress rises to 1 and stays), on the
// CPU and on the GPU clock alike. The phase used to wrap with the clip, so such
// a unit stayed Dying for ever (the README's registered fox, issue 45 item 6).
func TestCombatKillTurnsDeadCustomSpecies(t *testing.T) {
	const fox, foxArch = 7, roster.Archetype(5)
	dir := t.TempDir()
	writeSpecies(t, dir, builtinSpecs...)
	// One-second loops: idle 30 frames at 30 fps, writhe 24 at 24.
	writeSpecies(t, dir, speciesSpec{name: "fox", id: fox, bones: 4, clips: []clipSpec{{"idle", 30, 30, true}, {"writhe", 24, 24, true}}})
	for _, die := range []string{"", "writhe"} {
		var a registry.Archetype
		a.Name = "fox"
		a.States[unit.StateIdle] = []string{"idle"}
		if die != "" {
			a.States[unit.StateDie] = []string{die}
		}
		reg, err := registry.Open(registry.Dir(dir), registry.WithSpecies(roster.Species{ID: fox, Name: "fox", Archetypes: []roster.Archetype{foxArch}}),
			registry.WithArchetype(foxArch, a))
		if err != nil {
			t.Fatal(err)
		}
		defer reg.Close()
		for _, scheduled := range []bool{false, true} {
			cpu, clock := New(2), NewGPUClock(2)
			var f *Combat
			if scheduled {
				f = NewScheduledCombat(reg, clock)
			} else {
				f = NewCombat(reg, cpu)
			}
			cpu.Spawn(0, unit.KindSwordsman)
			clock.Spawn(0, unit.KindSwordsman)
			victim := unit.Loadout{Species: fox, Archetype: foxArch}
			cpu.Set(1, victim)
			clock.Set(1, victim)
			w, m := &f.World, f.Melee
			w.HP[0], w.HP[1], w.Team[1], w.X[1] = 100, 10, 1, 1
			m.Damage[0], m.Cooldown[0], m.Reach[0] = 50, 1, 2
			const dt = float32(1.0 / 60)
			f.Attack(0, 1)
			killedAt, deadAt := -1, -1
			for step := range 10 * 60 {
				for _, e := range f.Step(dt) {
					if e.Kind == combat.EventHit && e.Killed && e.Target == 1 {
						killedAt = step
					}
				}
				flags := cpu.Flags[1]
				if scheduled {
					flags = clock.units[1].flags
				}
				if killedAt >= 0 && deadAt < 0 && flags&unit.Dead != 0 {
					deadAt = step
				}
				if scheduled {
					if err := clock.Commit(reg); err != nil {
						t.Fatal(err)
					}
					clock.Advance(dt)
				} else if err := cpu.Animate(reg, dt); err != nil {
					t.Fatal(err)
				}
			}
			// The one-second pass, the fade into it and a frame or two of Steps.
			if killedAt < 0 || deadAt < 0 || deadAt-killedAt > 80 {
				t.Errorf("Die mapped to %q, scheduled %v: killed at step %d, Dead at step %d; want Dead within 80 steps (a 1 s death at 60 steps a second)", die, scheduled, killedAt, deadAt)
			}
		}
	}
}
