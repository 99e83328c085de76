package runtime_test

import (
	"bytes"
	"testing"

	"bonebake/bake"
	"bonebake/format/bpat"
	"bonebake/runtime"
	"bonebake/species/builtin"
)

// The built-in creatures, baked: their files load into their slots, every
// archetype finds its clips, and the runtime's gait table agrees with the species'
// own cycles and ground speeds.
func TestBakedBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes the six built-in species")
	}
	reg := runtime.NewRegistry()
	defer reg.Close()
	for _, s := range builtin.All() {
		c, err := bake.Species(s)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := bpat.Write(&buf, c); err != nil {
			t.Fatal(err)
		}
		if err := reg.LoadBytes(s.Name+".bpat", buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		loaded := reg.Species(s.ID)
		for i, sc := range s.Clips {
			lc := loaded.Clips[i]
			want := runtime.Gait{Cycle: sc.Cycle, Speed: sc.Speed}
			if want.Cycle == 0 {
				want.Cycle = sc.Duration()
			}
			if lc.Name != sc.Name || lc.Gait != want {
				t.Errorf("%s clip %d %s: runtime gait %+v, species %+v", s.Name, i, sc.Name, lc.Gait, want)
			}
		}
	}
	// FACTS §2.2's clip indices, and the rider's clips, in the real files.
	for id := uint32(0); id < 6; id++ {
		s := reg.Species(id)
		for _, a := range s.Archetypes {
			tb := s.Table(a)
			var want map[runtime.StateID]string
			switch a {
			case runtime.ArchHumanoid:
				want = map[runtime.StateID]string{runtime.StateWalk: "walk", runtime.StateDie: "die_infantry", runtime.StateAttackSpear: "attack_spear_a"}
			case runtime.ArchRider:
				want = map[runtime.StateID]string{runtime.StateRun: "riding_charge", runtime.StateRidingCharge: "riding_sword_strike", runtime.StateDie: "die_mounted"}
			case runtime.ArchHorse:
				want = map[runtime.StateID]string{runtime.StateRun: "gallop", runtime.StateAttackSword: "fight", runtime.StateDead: "dead"}
			case runtime.ArchElephant:
				want = map[runtime.StateID]string{runtime.StateRun: "run", runtime.StateAttackBow: "fight", runtime.StateDie: "die"}
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
	if c := h.Contact(h.ClipIndex("riding_sword_strike")); c != .58 {
		t.Errorf("riding_sword_strike contact %v", c)
	}
}
