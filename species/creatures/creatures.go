// Package creatures lists the creatures that ship with bonebake (docs/species.md §1), made
// procedurally with no asset files: humanoid (0), horse (1), elephant (2),
// humanoid_sword (3), humanoid_spear (4) and humanoid_skeleton (5).
package creatures

import (
	"sync"

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

// ByName returns the built-in species with that file name, or nil.
func ByName(name string) *species.Creature {
	for _, s := range all() {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// ByID returns the built-in species with that id, or nil.
func ByID(id uint32) *species.Creature {
	for _, s := range all() {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Names lists the built-in species' names in id order.
func Names() []string {
	var names []string
	for _, s := range all() {
		names = append(names, s.Name)
	}
	return names
}
