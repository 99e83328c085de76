// Package creatures lists the creatures that ship with bonebake (docs/species.md §1), made
// procedurally with no asset files: humanoid (0), horse (1), elephant (2),
// humanoid_sword (3), humanoid_spear (4) and humanoid_skeleton (5).
package creatures

import (
	"sync"

	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/species"
	"github.com/bonebake/bonebake/species/humanoid"
	"github.com/bonebake/bonebake/species/quadruped"
)

// all builds every species once; they are shared and must not be modified.
var all = sync.OnceValue(func() []*species.Creature {
	return []*species.Creature{
		humanoid.Humanoid(),
		quadruped.Horse(),
		quadruped.Elephant(),
		humanoid.Sword(),
		humanoid.Spear(),
		humanoid.Skeleton(),
	}
})

// All returns the built-in species in id order. The values are shared: treat them
// as read-only.
func All() []*species.Creature { return all() }

// ByName returns the built-in species with that file name, or nil. The names
// and ids are the roster's (roster.ByName); All lists the creatures in id order.
func ByName(name string) *species.Creature {
	if r, ok := roster.ByName(name); ok {
		return ByID(r.ID)
	}
	return nil
}

// ByID returns the built-in species with that id, or nil.
func ByID(id uint32) *species.Creature {
	if c := all(); id < uint32(len(c)) {
		return c[id]
	}
	return nil
}

// Names lists the built-in species' names in id order: roster.Names.
func Names() []string { return roster.Names() }
