package registry

import (
	"fmt"

	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
)

// MaxArchetypes bounds the archetype ids a registry accepts.
const MaxArchetypes = 8

// MaxVariants is the most clips one state may offer.
const MaxVariants = 8

// Archetype maps each animation state to clips by name: the first is variant 0, and a
// unit's variant v plays clip min(v, count−1). A state with no names is unmapped and
// plays the Idle state's clips. Names are resolved to indices once, when a file is
// loaded; a name the file lacks refuses the file.
type Archetype struct {
	Name   string
	States [unit.NumStates][]string
}

var humanoidArchetype = Archetype{Name: "humanoid", States: [unit.NumStates][]string{
	unit.StateIdle:         {"idle", "idle_squat", "idle_jump", "idle_weapon", "idle_weave"},
	unit.StateWalk:         {"walk"},
	unit.StateRun:          {"run"},
	unit.StateHold:         {"hold"},
	unit.StateAttackMelee:  {"hold"},
	unit.StateAttackRanged: {"hold"},
	unit.StateDie:          {"die_infantry"},
	unit.StateDead:         {"dead_infantry"},
	unit.StateAttackSword:  {"attack_sword_a", "attack_sword_b", "attack_sword_c"},
	unit.StateAttackSpear:  {"attack_spear_a", "attack_spear_b", "attack_spear_c"},
	unit.StateAttackBow:    {"attack_bow"},
	unit.StateCast:         {"attack_bow"},
}}

var (
	horseArchetype    = quadrupedArchetype("horse", "gallop")
	elephantArchetype = quadrupedArchetype("elephant", "run")
)

// quadrupedArchetype is the table of a creature with idle, walk, a run clip, one
// fight clip for every attack, die and dead (docs/runtime.md §5's horse and elephant columns).
func quadrupedArchetype(name, run string) Archetype {
	return Archetype{Name: name, States: [unit.NumStates][]string{
		unit.StateIdle:         {"idle"},
		unit.StateWalk:         {"walk"},
		unit.StateRun:          {run},
		unit.StateHold:         {"idle"},
		unit.StateAttackMelee:  {"fight"},
		unit.StateAttackRanged: {"fight"},
		unit.StateDie:          {"die"},
		unit.StateDead:         {"dead"},
		unit.StateAttackSword:  {"fight"},
		unit.StateAttackSpear:  {"fight"},
		unit.StateAttackBow:    {"fight"},
		unit.StateCast:         {"fight"},
	}}
}

// The rider: a humanoid in the saddle. Its horse is a separate unit (horse
// archetype) that walks, gallops and dies under it; the rider only needs the
// upper-body riding clips, so every state lands on one of them.
var riderArchetype = Archetype{Name: "rider", States: [unit.NumStates][]string{
	unit.StateIdle:          {"riding_idle"},
	unit.StateWalk:          {"riding_idle"},   // seated; the horse does the walking
	unit.StateRun:           {"riding_charge"}, // leaning into the gallop
	unit.StateHold:          {"riding_reining"},
	unit.StateAttackMelee:   {"riding_sword_strike"},
	unit.StateAttackRanged:  {"riding_bow_shot"},
	unit.StateDie:           {"die_mounted"},
	unit.StateDead:          {"dead_mounted"},
	unit.StateAttackSword:   {"riding_sword_strike"},
	unit.StateAttackSpear:   {"riding_sword_strike"}, // a lance thrust shares the strike
	unit.StateAttackBow:     {"riding_bow_shot"},
	unit.StateCast:          {"riding_bow_shot"}, // as on foot: casting uses the bow clip
	unit.StateRidingIdle:    {"riding_idle"},
	unit.StateRidingCharge:  {"riding_sword_strike"}, // the mounted melee attack: it carries the contact marker
	unit.StateRidingReining: {"riding_reining"},
	unit.StateRidingBowShot: {"riding_bow_shot"},
}}

// BuiltinArchetype returns the table of a built-in archetype id (docs/runtime.md §5):
//
//   - roster.Humanoid: Idle 0 (5 variants), Walk 5, Run 6, Hold 7, AttackMelee 7,
//     AttackRanged 7, Die 21, Dead 22, AttackSword 9 (3 variants), AttackSpear
//     12 (3 variants), AttackBow 15, Cast 15; riding states unmapped.
//
//   - roster.Horse: Idle 0, Walk 1, Run 4 (gallop), Hold 0, every attack and
//     Cast 5 (fight), Die 6, Dead 7.
//
//   - roster.Elephant: Idle 0, Walk 1, Run 2, Hold 0, every attack and Cast 3
//     (fight), Die 4, Dead 5.
//
//   - roster.Rider: a humanoid on horseback, played from the humanoid file's
//     riding clips (indices of docs/species.md §3):
//
//     Idle, Walk, RidingIdle            → riding_idle (16)
//     Run                               → riding_charge (17)
//     Hold, RidingReining               → riding_reining (18)
//     AttackRanged, AttackBow, Cast,
//     RidingBowShot                     → riding_bow_shot (19)
//     AttackMelee, AttackSword,
//     AttackSpear, RidingCharge         → riding_sword_strike (20)
//     Die                               → die_mounted (23)
//     Dead                              → dead_mounted (24)
//
// A mounted melee attack resolves to RidingCharge (docs/runtime.md §5); it plays the
// mounted sword strike, whose contact marker times the deferred hit. The
// riding_charge clip (markers: exit_safe only) is the rider's run: it is what the
// rider shows while its horse gallops toward the enemy.
func BuiltinArchetype(id roster.Archetype) (Archetype, bool) {
	switch id {
	case roster.Humanoid:
		return clone(humanoidArchetype), true
	case roster.Horse:
		return clone(horseArchetype), true
	case roster.Elephant:
		return clone(elephantArchetype), true
	case roster.Rider:
		return clone(riderArchetype), true
	}
	return Archetype{}, false
}

func clone(a Archetype) Archetype {
	for s := range a.States {
		a.States[s] = append([]string(nil), a.States[s]...)
	}
	return a
}

// ClipTable is an archetype resolved against one file: for every state, its clips
// by variant. Lookups are array reads.
type ClipTable struct {
	// clips[s][v] is the clip of state s for variant v, already clamped to the
	// state's last variant, so Clip needs only min(v, MaxVariants−1).
	clips  [unit.NumStates][MaxVariants]unit.ClipID
	count  [unit.NumStates]uint8
	mapped [unit.NumStates]bool
}

// Resolve looks up the archetype's clip names in f. It fails, naming the state and
// the clip, when a name is missing or a state has more than MaxVariants clips.
func (a *Archetype) Resolve(f *bpat.File) (ClipTable, error) {
	var t ClipTable
	if len(a.States[unit.StateIdle]) == 0 {
		return t, fmt.Errorf("archetype %s maps no clip to Idle", a.Name)
	}
	for s := range a.States {
		names := a.States[s]
		if len(names) > MaxVariants {
			return t, fmt.Errorf("archetype %s: state %s has %d clips; at most %d", a.Name, unit.StateID(s), len(names), MaxVariants)
		}
		for v, name := range names {
			c := f.ClipIndex(name)
			if c < 0 {
				return t, fmt.Errorf("archetype %s: state %s needs clip %q, which the file lacks", a.Name, unit.StateID(s), name)
			}
			if c > 0xffff {
				return t, fmt.Errorf("archetype %s: clip %q has index %d; at most 65535", a.Name, name, c)
			}
			t.clips[s][v] = unit.ClipID(c)
		}
		t.count[s] = uint8(len(names))
		t.mapped[s] = len(names) > 0
	}
	for s := range t.clips {
		if !t.mapped[s] { // unmapped: play Idle
			t.clips[s], t.count[s] = t.clips[unit.StateIdle], t.count[unit.StateIdle]
		}
		for v := t.count[s]; v < MaxVariants; v++ {
			t.clips[s][v] = t.clips[s][t.count[s]-1]
		}
	}
	return t, nil
}

// Clip returns the clip of state s for variant v: the state's first clip plus
// min(v, count−1). An unmapped state plays Idle's clips.
func (t *ClipTable) Clip(s unit.StateID, v uint8) unit.ClipID {
	return t.clips[s%unit.NumStates][min(v, MaxVariants-1)]
}

// Variants is the number of clips state s offers.
func (t *ClipTable) Variants(s unit.StateID) int { return int(t.count[s%unit.NumStates]) }

// Mapped reports whether the archetype maps state s to clips of its own.
func (t *ClipTable) Mapped(s unit.StateID) bool { return t.mapped[s%unit.NumStates] }
