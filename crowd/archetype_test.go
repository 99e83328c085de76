package crowd

import (
	"strings"
	"testing"

	"github.com/bonebake/bonebake/roster"
)

type stateRow struct {
	state    StateID
	first    ClipID
	variants int
}

// docs/runtime.md §5's per-archetype tables: state → first clip, and the number of variants.
var factsTables = map[roster.Archetype][]stateRow{
	roster.Humanoid: {{StateIdle, 0, 5}, {StateWalk, 5, 1}, {StateRun, 6, 1}, {StateHold, 7, 1}, {StateAttackMelee, 7, 1},
		{StateAttackRanged, 7, 1}, {StateDie, 21, 1}, {StateDead, 22, 1}, {StateAttackSword, 9, 3},
		{StateAttackSpear, 12, 3}, {StateAttackBow, 15, 1}, {StateCast, 15, 1}},
	roster.Horse: {{StateIdle, 0, 1}, {StateWalk, 1, 1}, {StateRun, 4, 1}, {StateHold, 0, 1}, {StateAttackMelee, 5, 1},
		{StateAttackRanged, 5, 1}, {StateDie, 6, 1}, {StateDead, 7, 1}, {StateAttackSword, 5, 1},
		{StateAttackSpear, 5, 1}, {StateAttackBow, 5, 1}, {StateCast, 5, 1}},
	roster.Elephant: {{StateIdle, 0, 1}, {StateWalk, 1, 1}, {StateRun, 2, 1}, {StateHold, 0, 1}, {StateAttackMelee, 3, 1},
		{StateAttackRanged, 3, 1}, {StateDie, 4, 1}, {StateDead, 5, 1}, {StateAttackSword, 3, 1},
		{StateAttackSpear, 3, 1}, {StateAttackBow, 3, 1}, {StateCast, 3, 1}},
	// The rider (this package's design): riding clips 16–20, mounted death 23/24.
	roster.Rider: {{StateIdle, 16, 1}, {StateWalk, 16, 1}, {StateRun, 17, 1}, {StateHold, 18, 1}, {StateAttackMelee, 20, 1},
		{StateAttackRanged, 19, 1}, {StateDie, 23, 1}, {StateDead, 24, 1}, {StateAttackSword, 20, 1},
		{StateAttackSpear, 20, 1}, {StateAttackBow, 19, 1}, {StateCast, 19, 1}, {StateRidingIdle, 16, 1},
		{StateRidingCharge, 20, 1}, {StateRidingReining, 18, 1}, {StateRidingBowShot, 19, 1}},
}

func TestArchetypeTables(t *testing.T) {
	r := testRegistry(t)
	for arch, rows := range factsTables {
		sp := map[roster.Archetype]SpeciesID{roster.Humanoid: 0, roster.Horse: 1, roster.Elephant: 2, roster.Rider: 0}[arch]
		tb := r.Species(sp).Table(arch)
		mapped := map[StateID]bool{}
		for _, row := range rows {
			mapped[row.state] = true
			if !tb.Mapped(row.state) || tb.Variants(row.state) != row.variants {
				t.Errorf("%v %v: mapped %v, %d variants; want %d", arch, row.state, tb.Mapped(row.state), tb.Variants(row.state), row.variants)
			}
			// A variant picks first + min(variant, count−1).
			for v := 0; v < 256; v++ {
				want := row.first + ClipID(min(v, row.variants-1))
				if got := tb.Clip(row.state, uint8(v)); got != want {
					t.Fatalf("%v %v variant %d: clip %d, want %d", arch, row.state, v, got, want)
				}
			}
		}
		// Unmapped states (the riding ones, for the three docs/runtime.md archetypes) play Idle.
		for s := StateID(0); s < NumStates; s++ {
			if mapped[s] {
				continue
			}
			if tb.Mapped(s) || tb.Clip(s, 3) != tb.Clip(StateIdle, 3) {
				t.Errorf("%v %v: unmapped state plays clip %d, Idle plays %d", arch, s, tb.Clip(s, 3), tb.Clip(StateIdle, 3))
			}
		}
	}
	// The names behind the rider's indices.
	h := r.Species(0)
	rt := h.Table(roster.Rider)
	for s, name := range map[StateID]string{StateRun: "riding_charge", StateRidingCharge: "riding_sword_strike", StateDie: "die_mounted", StateAttackBow: "riding_bow_shot"} {
		if got := h.Clips[rt.Clip(s, 0)].Name; got != name {
			t.Errorf("rider %v plays %s, want %s", s, got, name)
		}
	}
}

func TestArchetypeResolveErrors(t *testing.T) {
	r := testRegistry(t)
	f := r.Species(1).File
	a := HumanoidArchetype() // the horse file has no humanoid clips
	if _, err := a.Resolve(f); err == nil || !strings.Contains(err.Error(), `needs clip "idle_squat"`) {
		t.Errorf("humanoid table on the horse: %v", err)
	}
	a = Archetype{Name: "empty"}
	if _, err := a.Resolve(f); err == nil {
		t.Error("resolved a table without Idle")
	}
	a = Archetype{Name: "many"}
	a.States[StateIdle] = strings.Fields("idle walk trot canter gallop fight die dead idle")
	if _, err := a.Resolve(f); err == nil {
		t.Error("resolved 9 variants")
	}
	// BuiltinArchetype returns copies: changing one changes no registry.
	h, _ := BuiltinArchetype(roster.Humanoid)
	h.States[StateWalk][0] = "nope"
	if HumanoidArchetype().States[StateWalk][0] != "walk" {
		t.Error("built-in archetype modified through a copy")
	}
}
