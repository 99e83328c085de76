package unit

import (
	"fmt"

	"github.com/bonebake/bonebake/roster"
)

// SpeciesID names a species slot of a registry: the species_id its file carries. It
// is what Crowd.Species and Batch.Species hold, what Instance.Species carries to
// the GPU and what Registry.Species takes. The built-in species have the named
// constants below (docs/species.md §1).
type SpeciesID uint8

// The built-in species (roster.Builtin).
const (
	SpeciesHumanoid         SpeciesID = 0 // unarmed (fists, tools) or bow
	SpeciesHorse            SpeciesID = 1
	SpeciesElephant         SpeciesID = 2
	SpeciesHumanoidSword    SpeciesID = 3 // carries a sword
	SpeciesHumanoidSpear    SpeciesID = 4 // carries a spear
	SpeciesHumanoidSkeleton SpeciesID = 5 // a skeleton with a sword
)

// String is the built-in species' name (its file's base name), or "species N".
func (s SpeciesID) String() string {
	if d, ok := roster.ByID(uint32(s)); ok {
		return d.Name
	}
	return fmt.Sprintf("species %d", uint8(s))
}

// ClipID is a clip's index within its species' file (the order of its clip table):
// what Crowd.Clip and Batch.Clip hold and what Species.Clips, Species.Socket and
// Species.Contact take.
type ClipID uint16

// NoClip is the clip of a unit that has not been animated yet (New, Spawn, Set):
// its first clip starts without a fade. It plays nothing (row 0).
const NoClip ClipID = 0xFFFF

// The built-in archetypes, for Crowd.Archetype: which state → clip table a unit
// plays (docs/runtime.md §5). Which species support which is in Kind's pairings.
const (
	ArchHumanoid = roster.Humanoid // a unit on foot of a humanoid species
	ArchHorse    = roster.Horse    // a horse
	ArchElephant = roster.Elephant // an elephant
	ArchRider    = roster.Rider    // a humanoid on horseback; its horse is a unit of its own
)
