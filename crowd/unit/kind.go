package unit

import (
	"fmt"

	"github.com/bonebake/bonebake/roster"
)

// Kind is a built-in kind of unit: a species with the archetype it plays and the
// weapon it carries, which must fit together (the militia's is a generic
// one-handed weapon, played as a sword). Crowd.Spawn gives a unit a kind.
// The pairings (docs/runtime.md §5, docs/species.md §1):
//
//	Kind             Species                  Archetype     Weapon       Flags
//	KindMilitia      SpeciesHumanoid          ArchHumanoid  WeaponSword
//	KindBowman       SpeciesHumanoid          ArchHumanoid  WeaponBow
//	KindSwordsman    SpeciesHumanoidSword     ArchHumanoid  WeaponSword
//	KindSpearman     SpeciesHumanoidSpear     ArchHumanoid  WeaponSpear
//	KindSkeleton     SpeciesHumanoidSkeleton  ArchHumanoid  WeaponSword
//	KindHorse        SpeciesHorse             ArchHorse     WeaponNone
//	KindElephant     SpeciesElephant          ArchElephant  WeaponNone
//	KindKnight       SpeciesHumanoidSword     ArchRider     WeaponSword  Mounted
//	KindHorseArcher  SpeciesHumanoid          ArchRider     WeaponBow    Mounted
//
// Any humanoid species may play ArchHumanoid or ArchRider with any weapon; the
// horse and the elephant play only their own archetype, and their weapon changes
// nothing. A rider (KindKnight, KindHorseArcher) is the man in the saddle: its
// horse is a unit of its own (KindHorse) that the game keeps at the rider's
// position and heading, and a renderer draws the rider with roster.MountSeat on
// the horse's saddle socket.
type Kind uint8

const (
	KindMilitia Kind = iota
	KindBowman
	KindSwordsman
	KindSpearman
	KindSkeleton
	KindHorse
	KindElephant
	KindKnight
	KindHorseArcher
	NumKinds
)

// Loadout is what a Kind sets on a unit: the species, archetype, weapon and
// flags that must fit together.
type Loadout struct {
	Species   SpeciesID
	Archetype roster.Archetype
	Weapon    Weapon
	Flags     Flags // Mounted for a rider
}

var kinds = [NumKinds]struct {
	name string
	unit Loadout
}{
	KindMilitia:     {"militia", Loadout{SpeciesHumanoid, ArchHumanoid, WeaponSword, 0}},
	KindBowman:      {"bowman", Loadout{SpeciesHumanoid, ArchHumanoid, WeaponBow, 0}},
	KindSwordsman:   {"swordsman", Loadout{SpeciesHumanoidSword, ArchHumanoid, WeaponSword, 0}},
	KindSpearman:    {"spearman", Loadout{SpeciesHumanoidSpear, ArchHumanoid, WeaponSpear, 0}},
	KindSkeleton:    {"skeleton", Loadout{SpeciesHumanoidSkeleton, ArchHumanoid, WeaponSword, 0}},
	KindHorse:       {"horse", Loadout{SpeciesHorse, ArchHorse, WeaponNone, 0}},
	KindElephant:    {"elephant", Loadout{SpeciesElephant, ArchElephant, WeaponNone, 0}},
	KindKnight:      {"knight", Loadout{SpeciesHumanoidSword, ArchRider, WeaponSword, Mounted}},
	KindHorseArcher: {"horse archer", Loadout{SpeciesHumanoid, ArchRider, WeaponBow, Mounted}},
}

func (k Kind) String() string {
	if k < NumKinds {
		return kinds[k].name
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Loadout returns the species, archetype, weapon and flags of kind k (the zero Loadout
// for an unknown kind).
func (k Kind) Loadout() Loadout {
	if k < NumKinds {
		return kinds[k].unit
	}
	return Loadout{}
}
