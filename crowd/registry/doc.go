// Package registry holds the species a crowd plays (docs/runtime.md §5–§7):
// their BPAT files mapped read-only (or held in memory), one slot per species
// id, found by the rule that matches a file to its species (its name, else its
// species_id). Each is loaded with what belongs to it: its archetypes' state →
// clip tables resolved once, its clips' gaits (the game's, the gait sidecar's,
// the built-in table's), its fade table and level-of-detail distances, its
// snapshot mesh, its sockets and palettes.
//
// There is one way in: Load of a Source (Dir, FS, Files or Memory, optionally
// Into a slot); Open is New then Load. A View is the species at one moment,
// which package crowd compiles into the tables its hot loops read.
package registry
