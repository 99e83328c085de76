package crowd_test

import (
	"testing"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/species/creatures"
)

// The built-in creatures, baked: their files load into their slots, every
// archetype finds its clips, and the runtime's gait table agrees with the species'
// own cycles and ground speeds.
func TestBakedBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes the six built-in species")
	}
	reg := registry.New()
	defer reg.Close()
	for _, s := range creatures.All() {
		b, err := s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Load(registry.Memory(registry.File{Name: s.Name + ".bpat", Data: b})); err != nil {
			t.Fatal(err)
		}
		loaded := reg.Species(unit.SpeciesID(s.ID))
		for i, sc := range s.Clips {
			lc := loaded.Clips[i]
			want := roster.Gait{Cycle: sc.Cycle, Speed: sc.GroundSpeed}
			if want.Cycle == 0 {
				want.Cycle = sc.Duration()
			}
			if lc.Name != sc.Name || lc.Gait != want {
				t.Errorf("%s clip %d %s: runtime gait %+v, species %+v", s.Name, i, sc.Name, lc.Gait, want)
			}
		}
	}
	// docs/runtime.md §5's clip indices, and the rider's clips, in the real files.
	for id := unit.SpeciesID(0); id < 6; id++ {
		s := reg.Species(id)
		for _, a := range s.Archetypes {
			tb := s.Table(a)
			var want map[unit.StateID]string
			switch a {
			case roster.Humanoid:
				want = map[unit.StateID]string{unit.StateWalk: "walk", unit.StateDie: "die_infantry", unit.StateAttackSpear: "attack_spear_a"}
			case roster.Rider:
				want = map[unit.StateID]string{unit.StateRun: "riding_charge", unit.StateRidingCharge: "riding_sword_strike", unit.StateDie: "die_mounted"}
			case roster.Horse:
				want = map[unit.StateID]string{unit.StateRun: "gallop", unit.StateAttackSword: "fight", unit.StateDead: "dead"}
			case roster.Elephant:
				want = map[unit.StateID]string{unit.StateRun: "run", unit.StateAttackBow: "fight", unit.StateDie: "die"}
			}
			for st, name := range want {
				if got := s.Clips[tb.Clip(st, 0)].Name; got != name {
					t.Errorf("%s %v %v plays %s, want %s", s.Name, a, st, got, name)
				}
			}
		}
		if len(s.Archetypes) == 0 {
			t.Errorf("%s supports no archetype", s.Name)
		}
	}
	// The strikes time their hits by the clips' contact markers.
	h := reg.Species(3)
	if id, ok := h.ClipIndex("riding_sword_strike"); !ok || h.Contact(id) != .58 {
		t.Errorf("riding_sword_strike contact %v", h.Contact(id))
	}
}
