package unit

import (
	"fmt"
	"sync"
)

// Flags are the per-unit booleans the intent is resolved from.
type Flags uint16

const (
	Dying        Flags = 1 << iota // playing its death
	Dead                           // lying dead
	HitReacting                    // flinching from a hit
	Mounted                        // riding
	Attacking                      // in a swing or shot
	InMelee                        // the attack is a melee attack (a bow unit may fight in melee)
	Casting                        // casting a spell
	Healing                        // healing another unit
	Constructing                   // building
	HoldStance                     // holding position
	GuardStance                    // guarding
	Running                        // moving at a run rather than a walk

	numFlagBits = iota
)

// Weapon is a unit's weapon family.
type Weapon uint8

const (
	WeaponNone Weapon = iota // fists, tools
	WeaponSword
	WeaponSpear
	WeaponBow
	numWeapons
)

// MoveThreshold is the ground speed in m/s above which a unit is moving: below it a
// unit plays no locomotion clip.
const MoveThreshold = 0.05

// Inputs is one unit's animation inputs for a frame.
type Inputs struct {
	Flags  Flags
	Weapon Weapon
	Speed  float32 // ground speed in m/s
}

// PoseIntent is what a unit is doing, as far as its pose goes (docs/runtime.md §2).
type PoseIntent uint8

const (
	IntentIdle PoseIntent = iota
	IntentWalk
	IntentRun
	IntentHold
	IntentAttackMelee
	IntentAttackSpear
	IntentAttackRanged
	IntentCast
	IntentHitReaction
	IntentHealing
	IntentConstruct
	IntentRidingIdle
	IntentRidingCharge
	IntentRidingReining
	IntentRidingBowShot
	IntentDying
	IntentDead
	NumIntents
)

var intentNames = [NumIntents]string{"Idle", "Walk", "Run", "Hold", "AttackMelee", "AttackSpear",
	"AttackRanged", "Cast", "HitReaction", "Healing", "Construct", "RidingIdle", "RidingCharge",
	"RidingReining", "RidingBowShot", "Dying", "Dead"}

func (p PoseIntent) String() string {
	if p < NumIntents {
		return intentNames[p]
	}
	return fmt.Sprintf("PoseIntent(%d)", uint8(p))
}

// StateID is the animation state an intent selects; a per-archetype table maps it to
// clips (docs/runtime.md §4).
type StateID uint8

const (
	StateIdle StateID = iota
	StateWalk
	StateRun
	StateHold
	StateAttackMelee
	StateAttackRanged
	StateDie
	StateDead
	StateAttackSword
	StateAttackSpear
	StateAttackBow
	StateCast
	StateRidingIdle
	StateRidingCharge
	StateRidingReining
	StateRidingBowShot
	NumStates
)

var stateNames = [NumStates]string{"Idle", "Walk", "Run", "Hold", "AttackMelee", "AttackRanged",
	"Die", "Dead", "AttackSword", "AttackSpear", "AttackBow", "Cast", "RidingIdle", "RidingCharge",
	"RidingReining", "RidingBowShot"}

func (s StateID) String() string {
	if s < NumStates {
		return stateNames[s]
	}
	return fmt.Sprintf("StateID(%d)", uint8(s))
}

// intentState is docs/runtime.md §4's intent → state mapping.
var intentState = [NumIntents]StateID{
	IntentIdle:          StateIdle,
	IntentWalk:          StateWalk,
	IntentRun:           StateRun,
	IntentHold:          StateHold,
	IntentAttackMelee:   StateAttackSword,
	IntentAttackSpear:   StateAttackSpear,
	IntentAttackRanged:  StateAttackBow,
	IntentCast:          StateCast,
	IntentHitReaction:   StateIdle,
	IntentHealing:       StateIdle,
	IntentConstruct:     StateAttackSword,
	IntentRidingIdle:    StateRidingIdle,
	IntentRidingCharge:  StateRidingCharge,
	IntentRidingReining: StateRidingReining,
	IntentRidingBowShot: StateRidingBowShot,
	IntentDying:         StateDie,
	IntentDead:          StateDead,
}

// State returns the animation state the intent selects: AttackMelee → AttackSword,
// AttackSpear → AttackSpear, AttackRanged → AttackBow, HitReaction and Healing →
// Idle, Construct → AttackSword, Dying → Die, the others by name.
func (p PoseIntent) State() StateID {
	if p < NumIntents {
		return intentState[p]
	}
	return StateIdle
}

// Resolve collapses a unit's inputs into one intent; the first rule that matches wins
// (docs/runtime.md §3):
//
//	dying                                   → Dying
//	dead                                    → Dead
//	hit-reacting                            → HitReaction
//	mounted and attacking in melee          → RidingCharge
//	attacking: ranged (a bow, not in melee) → AttackRanged
//	           spear                        → AttackSpear
//	           otherwise                    → AttackMelee
//	casting                                 → Cast
//	moving (Speed > MoveThreshold)          → Run if Running, else Walk
//	healing                                 → Healing
//	constructing                            → Construct
//	hold or guard stance                    → Hold
//	otherwise                               → Idle
//
// Attacks and casting have priority over locomotion (a unit swings or casts while
// it moves); healing and constructing do not (a unit walks to its patient or site).
// Resolve is the readable reference; Crowd uses a table built from it.
func (in Inputs) Resolve() PoseIntent {
	f := in.Flags
	switch {
	case f&Dying != 0:
		return IntentDying
	case f&Dead != 0:
		return IntentDead
	case f&HitReacting != 0:
		return IntentHitReaction
	}
	if f&Attacking != 0 {
		ranged := f&InMelee == 0 && in.Weapon == WeaponBow
		switch {
		case f&Mounted != 0 && !ranged:
			return IntentRidingCharge
		case ranged:
			return IntentAttackRanged
		case in.Weapon == WeaponSpear:
			return IntentAttackSpear
		default:
			return IntentAttackMelee
		}
	}
	if f&Casting != 0 {
		return IntentCast
	}
	if in.Speed > MoveThreshold {
		if f&Running != 0 {
			return IntentRun
		}
		return IntentWalk
	}
	switch {
	case f&Healing != 0:
		return IntentHealing
	case f&Constructing != 0:
		return IntentConstruct
	case f&(HoldStance|GuardStance) != 0:
		return IntentHold
	}
	return IntentIdle
}

// intentKey packs what Resolve reads into a table index: the flag bits, whether the
// unit moves, and the weapon family.
func intentKey(f Flags, moving bool, w Weapon) uint32 {
	k := uint32(f) & (1<<numFlagBits - 1)
	if moving {
		k |= 1 << numFlagBits
	}
	return k | uint32(w&3)<<(numFlagBits+1)
}

const intentKeys = 1 << (numFlagBits + 3)

// Swung reports whether state s is an attack: a swing, a shot or a cast, whose
// phase comes from the combat timeline while the unit swings (docs/runtime.md §8).
func (s StateID) Swung() bool {
	switch s {
	case StateAttackMelee, StateAttackRanged, StateAttackSword, StateAttackSpear,
		StateAttackBow, StateCast, StateRidingCharge, StateRidingBowShot:
		return true
	}
	return false
}

// StateTable is Inputs.Resolve().State() for every input, resolved ahead: the
// hot path's whole intent resolution, one load per unit.
type StateTable [intentKeys]StateID

// Of is the state of a unit with flags f and weapon w, moving (its speed above
// MoveThreshold) or not: what Inputs.Resolve().State() gives.
func (t *StateTable) Of(f Flags, moving bool, w Weapon) StateID {
	return t[intentKey(f, moving, w)&(intentKeys-1)]
}

// States returns the StateTable. Its 32,768 entries are resolved on first use
// (the first Animate or Commit), not when a program that links the package starts.
var States = sync.OnceValue(func() *StateTable {
	var t StateTable
	for k := range t {
		in := Inputs{Flags: Flags(k & (1<<numFlagBits - 1)), Weapon: Weapon(k >> (numFlagBits + 1) & 3)}
		if k&(1<<numFlagBits) != 0 {
			in.Speed = 1
		}
		t[k] = in.Resolve().State()
	}
	return &t
})
