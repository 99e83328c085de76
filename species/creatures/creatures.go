// Package creatures lists the creatures that ship with bonebake (docs/species.md §1), made
// procedurally with no asset files: humanoid (0), horse (1), elephant (2),
// humanoid_sword (3), humanoid_spear (4) and humanoid_skeleton (5).
package creatures

import (
	"fmt"
	"slices"
	"strings"
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

// Pick returns the built-in species the names name, in the order given, each
// once (names are trimmed of spaces); all of them when names is empty. A name
// that is none of them is an error that quotes it and lists the names.
func Pick(names []string) ([]*species.Creature, error) {
	if len(names) == 0 {
		return All(), nil
	}
	var out []*species.Creature
	for _, name := range names {
		s := ByName(strings.TrimSpace(name))
		if s == nil {
			return nil, fmt.Errorf("%q: no such built-in creature (there are: %s)", name, strings.Join(Names(), ", "))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
