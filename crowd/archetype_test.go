package crowd

import (
	"strings"
	"testing"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

type stateRow struct {
	state    unit.StateID
	first    unit.ClipID
	variants int
}

// docs/runtime.md §5's per-archetype tables: state → first clip, and the number of variants.
var factsTables = map[roster.Archetype][]stateRow{
	roster.Humanoid: {{unit.StateIdle, 0, 5}, {unit.StateWalk, 5, 1}, {unit.StateRun, 6, 1}, {unit.StateHold, 7, 1}, {unit.StateAttackMelee, 7, 1},
		{unit.StateAttackRanged, 7, 1}, {unit.StateDie, 21, 1}, {unit.StateDead, 22, 1}, {unit.StateAttackSword, 9, 3},
		{unit.StateAttackSpear, 12, 3}, {unit.StateAttackBow, 15, 1}, {unit.StateCast, 15, 1}},
	roster.Horse: {{unit.StateIdle, 0, 1}, {unit.StateWalk, 1, 1}, {unit.StateRun, 4, 1}, {unit.StateHold, 0, 1}, {unit.StateAttackMelee, 5, 1},
		{unit.StateAttackRanged, 5, 1}, {unit.StateDie, 6, 1}, {unit.StateDead, 7, 1}, {unit.StateAttackSword, 5, 1},
		{unit.StateAttackSpear, 5, 1}, {unit.StateAttackBow, 5, 1}, {unit.StateCast, 5, 1}},
	roster.Elephant: {{unit.StateIdle, 0, 1}, {unit.StateWalk, 1, 1}, {unit.StateRun, 2, 1}, {unit.StateHold, 0, 1}, {unit.StateAttackMelee, 3, 1},
		{unit.StateAttackRanged, 3, 1}, {unit.StateDie, 4, 1}, {unit.StateDead, 5, 1}, {unit.StateAttackSword, 3, 1},
		{unit.StateAttackSpear, 3, 1}, {unit.StateAttackBow, 3, 1}, {unit.StateCast, 3, 1}},
	// The rider (this package's design): riding clips 16–20, mounted death 23/24.
	roster.Rider: {{unit.StateIdle, 16, 1}, {unit.StateWalk, 16, 1}, {unit.StateRun, 17, 1}, {unit.StateHold, 18, 1}, {unit.StateAttackMelee, 20, 1},
		{unit.StateAttackRanged, 19, 1}, {unit.StateDie, 23, 1}, {unit.StateDead, 24, 1}, {unit.StateAttackSword, 20, 1},
		{unit.StateAttackSpear, 20, 1}, {unit.StateAttackBow, 19, 1}, {unit.StateCast, 19, 1}, {unit.StateRidingIdle, 16, 1},
		{unit.StateRidingCharge, 20, 1}, {unit.StateRidingReining, 18, 1}, {unit.StateRidingBowShot, 19, 1}},
}

func TestArchetypeTables(t *testing.T) {
	r := testRegistry(t)
	for arch, rows := range factsTables {
		sp := map[roster.Archetype]unit.SpeciesID{roster.Humanoid: 0, roster.Horse: 1, roster.Elephant: 2, roster.Rider: 0}[arch]
		tb := r.Species(sp).Table(arch)
		mapped := map[unit.StateID]bool{}
		for _, row := range rows {
			mapped[row.state] = true
			if !tb.Mapped(row.state) || tb.Variants(row.state) != row.variants {
				t.Errorf("%v %v: mapped %v, %d variants; want %d", arch, row.state, tb.Mapped(row.state), tb.Variants(row.state), row.variants)
			}
			// A variant picks first + min(variant, count−1).
			for v := 0; v < 256; v++ {
				want := row.first + unit.ClipID(min(v, row.variants-1))
				if got := tb.Clip(row.state, uint8(v)); got != want {
					t.Fatalf("%v %v variant %d: clip %d, want %d", arch, row.state, v, got, want)
				}
			}
		}
		// Unmapped states (the riding ones, for the three docs/runtime.md archetypes) play Idle.
		for s := unit.StateID(0); s < unit.NumStates; s++ {
			if mapped[s] {
				continue
			}
			if tb.Mapped(s) || tb.Clip(s, 3) != tb.Clip(unit.StateIdle, 3) {
				t.Errorf("%v %v: unmapped state plays clip %d, Idle plays %d", arch, s, tb.Clip(s, 3), tb.Clip(unit.StateIdle, 3))
			}
		}
	}
	// The names behind the rider's indices.
	h := r.Species(0)
	rt := h.Table(roster.Rider)
	for s, name := range map[unit.StateID]string{unit.StateRun: "riding_charge", unit.StateRidingCharge: "riding_sword_strike", unit.StateDie: "die_mounted", unit.StateAttackBow: "riding_bow_shot"} {
		if got := h.Clips[rt.Clip(s, 0)].Name; got != name {
			t.Errorf("rider %v plays %s, want %s", s, got, name)
		}
	}
}

func TestArchetypeResolveErrors(t *testing.T) {
	r := testRegistry(t)
	f := r.Species(1).File
	a, _ := registry.BuiltinArchetype(roster.Humanoid) // the horse file has no humanoid clips
	if _, err := a.Resolve(f); err == nil || !strings.Contains(err.Error(), `needs clip "idle_squat"`) {
		t.Errorf("humanoid table on the horse: %v", err)
	}
	a = registry.Archetype{Name: "empty"}
	if _, err := a.Resolve(f); err == nil {
		t.Error("resolved a table without Idle")
	}
	a = registry.Archetype{Name: "many"}
	a.States[unit.StateIdle] = strings.Fields("idle walk trot canter gallop fight die dead idle")
	if _, err := a.Resolve(f); err == nil {
		t.Error("resolved 9 variants")
	}
	// BuiltinArchetype returns copies: changing one changes no registry.
	h, _ := registry.BuiltinArchetype(roster.Humanoid)
	h.States[unit.StateWalk][0] = "nope"
	if h2, _ := registry.BuiltinArchetype(roster.Humanoid); h2.States[unit.StateWalk][0] != "walk" {
		t.Error("built-in archetype modified through a copy")
	}
}
