package unit

import (
	"math/rand/v2"
	"testing"
)

// Every rule of docs/runtime.md §3, and each rule against the ones below it.
func TestResolvePriority(t *testing.T) {
	const walking, still = 1.2, 0
	atk := Attacking | InMelee
	for _, c := range []struct {
		name   string
		flags  Flags
		weapon Weapon
		speed  float32
		want   PoseIntent
	}{
		{"nothing", 0, WeaponNone, still, IntentIdle},
		{"dying", Dying, WeaponSword, still, IntentDying},
		{"dying beats dead", Dying | Dead, WeaponSword, still, IntentDying},
		{"dying beats everything", Flags(1<<numFlagBits - 1), WeaponSword, walking, IntentDying},
		{"dead", Dead, WeaponNone, still, IntentDead},
		{"dead beats everything below", Flags(1<<numFlagBits-1) &^ Dying, WeaponBow, walking, IntentDead},
		{"hit-reacting", HitReacting, WeaponNone, still, IntentHitReaction},
		{"hit beats attack, mount and move", HitReacting | Mounted | atk | Running, WeaponSword, walking, IntentHitReaction},
		{"mounted melee attack", Mounted | atk, WeaponSword, still, IntentRidingCharge},
		{"mounted spear attack", Mounted | atk, WeaponSpear, walking, IntentRidingCharge},
		{"mounted melee beats casting", Mounted | atk | Casting, WeaponSword, still, IntentRidingCharge},
		{"mounted archer shooting", Mounted | Attacking, WeaponBow, walking, IntentAttackRanged},
		{"mounted archer in melee", Mounted | Attacking | InMelee, WeaponBow, still, IntentRidingCharge},
		{"sword attack", atk, WeaponSword, still, IntentAttackMelee},
		{"unarmed attack", atk, WeaponNone, still, IntentAttackMelee},
		{"spear attack", atk, WeaponSpear, still, IntentAttackSpear},
		{"bow attack", Attacking, WeaponBow, still, IntentAttackRanged},
		{"archer in melee", atk, WeaponBow, still, IntentAttackMelee},
		{"attack beats locomotion", atk | Running, WeaponSword, walking, IntentAttackMelee},
		{"attack beats casting", atk | Casting, WeaponSword, still, IntentAttackMelee},
		{"cast", Casting, WeaponNone, still, IntentCast},
		{"cast beats locomotion", Casting | Running, WeaponNone, walking, IntentCast},
		{"cast beats healing", Casting | Healing, WeaponNone, still, IntentCast},
		{"walk", 0, WeaponNone, walking, IntentWalk},
		{"run", Running, WeaponNone, walking, IntentRun},
		{"running flag without speed", Running, WeaponNone, still, IntentIdle},
		{"speed at the threshold is still", 0, WeaponNone, MoveThreshold, IntentIdle},
		{"locomotion beats healing", Healing, WeaponNone, walking, IntentWalk},
		{"locomotion beats construct", Constructing | Running, WeaponNone, walking, IntentRun},
		{"locomotion beats hold", HoldStance, WeaponNone, walking, IntentWalk},
		{"mounted walk", Mounted, WeaponSword, walking, IntentWalk},
		{"healing", Healing, WeaponNone, still, IntentHealing},
		{"healing beats construct", Healing | Constructing, WeaponNone, still, IntentHealing},
		{"construct", Constructing, WeaponNone, still, IntentConstruct},
		{"construct beats hold", Constructing | GuardStance, WeaponNone, still, IntentConstruct},
		{"hold stance", HoldStance, WeaponSpear, still, IntentHold},
		{"guard stance", GuardStance, WeaponSword, still, IntentHold},
		{"mounted idle", Mounted, WeaponSword, still, IntentIdle},
	} {
		in := Inputs{Flags: c.flags, Weapon: c.weapon, Speed: c.speed}
		if got := in.Resolve(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if got, want := States().Of(c.flags, c.speed > MoveThreshold, c.weapon), c.want.State(); got != want {
			t.Errorf("%s: table gives %v, want %v", c.name, got, want)
		}
	}
}

func TestIntentState(t *testing.T) {
	want := map[PoseIntent]StateID{
		IntentIdle: StateIdle, IntentWalk: StateWalk, IntentRun: StateRun, IntentHold: StateHold,
		IntentAttackMelee: StateAttackSword, IntentAttackSpear: StateAttackSpear, IntentAttackRanged: StateAttackBow,
		IntentCast: StateCast, IntentHitReaction: StateIdle, IntentHealing: StateIdle, IntentConstruct: StateAttackSword,
		IntentRidingIdle: StateRidingIdle, IntentRidingCharge: StateRidingCharge, IntentRidingReining: StateRidingReining,
		IntentRidingBowShot: StateRidingBowShot, IntentDying: StateDie, IntentDead: StateDead,
	}
	if len(want) != int(NumIntents) {
		t.Fatal("table incomplete")
	}
	for p, s := range want {
		if p.State() != s {
			t.Errorf("%v → %v, want %v", p, p.State(), s)
		}
	}
	// docs/runtime.md numbering of the states.
	if StateDie != 6 || StateDead != 7 || StateAttackSword != 8 || StateCast != 11 || StateRidingBowShot != 15 {
		t.Error("state ids differ from docs/runtime.md §4")
	}
	if IntentDead != 16 || IntentHitReaction != 8 || IntentRidingIdle != 11 {
		t.Error("intent order differs from docs/runtime.md §2")
	}
	if IntentRidingCharge.String() != "RidingCharge" || StateAttackBow.String() != "AttackBow" || PoseIntent(99).String() != "PoseIntent(99)" {
		t.Error("names")
	}
}

// The hot path's table agrees with Resolve on random inputs.
func TestStateTableMatchesResolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		in := Inputs{Flags: Flags(rng.Uint32()) & (1<<numFlagBits - 1), Weapon: Weapon(rng.IntN(int(numWeapons))),
			Speed: []float32{0, .01, MoveThreshold, .06, 1, 5}[rng.IntN(6)]}
		if got, want := States().Of(in.Flags, in.Speed > MoveThreshold, in.Weapon), in.Resolve().State(); got != want {
			t.Fatalf("%+v: table %v, Resolve %v", in, got, want)
		}
	}
}
