package crowd

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

// Unit is what a Kind sets on a unit: the inputs that must fit together.
type Unit struct {
	Species   SpeciesID
	Archetype roster.Archetype
	Weapon    Weapon
	Flags     Flags // Mounted for a rider
}

var kinds = [NumKinds]struct {
	name string
	unit Unit
}{
	KindMilitia:     {"militia", Unit{SpeciesHumanoid, ArchHumanoid, WeaponSword, 0}},
	KindBowman:      {"bowman", Unit{SpeciesHumanoid, ArchHumanoid, WeaponBow, 0}},
	KindSwordsman:   {"swordsman", Unit{SpeciesHumanoidSword, ArchHumanoid, WeaponSword, 0}},
	KindSpearman:    {"spearman", Unit{SpeciesHumanoidSpear, ArchHumanoid, WeaponSpear, 0}},
	KindSkeleton:    {"skeleton", Unit{SpeciesHumanoidSkeleton, ArchHumanoid, WeaponSword, 0}},
	KindHorse:       {"horse", Unit{SpeciesHorse, ArchHorse, WeaponNone, 0}},
	KindElephant:    {"elephant", Unit{SpeciesElephant, ArchElephant, WeaponNone, 0}},
	KindKnight:      {"knight", Unit{SpeciesHumanoidSword, ArchRider, WeaponSword, Mounted}},
	KindHorseArcher: {"horse archer", Unit{SpeciesHumanoid, ArchRider, WeaponBow, Mounted}},
}

func (k Kind) String() string {
	if k < NumKinds {
		return kinds[k].name
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Unit returns the species, archetype, weapon and flags of kind k (the zero Unit
// for an unknown kind).
func (k Kind) Unit() Unit {
	if k < NumKinds {
		return kinds[k].unit
	}
	return Unit{}
}

// Spawn makes unit i a fresh unit of kind k: its species, archetype, weapon and
// flags (Mounted for a rider, nothing else) from k, standing still. Its variant is
// kept, so that a game may choose it. Spawn panics on an unknown kind.
func (c *Crowd) Spawn(i int, k Kind) {
	if k >= NumKinds {
		panic(fmt.Sprintf("crowd: Spawn of unknown %v", k))
	}
	c.Set(i, k.Unit())
}

// Set gives unit i the species, archetype, weapon and flags of u, standing still:
// Spawn for a unit that is not of a built-in kind. Check tells whether the
// species is loaded and supports the archetype.
func (c *Crowd) Set(i int, u Unit) {
	c.Species[i], c.Archetype[i], c.Weapon[i], c.Flags[i], c.Speed[i] = u.Species, u.Archetype, u.Weapon, u.Flags, 0
	c.Play(i, NoClip, c.Phase[i], 0, 0) // a new unit: its first clip does not fade in
}
