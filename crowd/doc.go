// Package crowd is the online half of bonebake: what a game links to animate
// thousands of baked creatures every frame (docs/formats/bpat.md §5, docs/runtime.md).
//
// A creature at run time is only "(species, clip, phase)". The package turns game
// state into that and that into the per-instance data a GPU skinning shader reads.
// It stands on three packages beside it:
//
//	registry   (crowd/registry) the loaded species: a folder of BPAT files mapped
//	           read-only (registry.Open(registry.Dir(path)); registry.FS for an
//	           embed.FS), one slot per species id, every archetype's clip names
//	           resolved to indices once, at load; gaits, fade tables, LOD
//	           distances, snapshot meshes and sockets per species.
//	unit       (crowd/unit) what a unit is: ids, flags, weapon and speed, the
//	           intent and state they resolve to, and the built-in kinds of unit
//	           (swordsman, spearman, bowman, horse, elephant, ...) whose species,
//	           archetype and weapon fit together; Crowd.Spawn sets a unit to one,
//	           Crowd.Check reports what cannot play.
//	combat     (crowd/combat) the timing of swings: Melee, World, Events.
//
// In this package:
//
//	Crowd      N units as a structure of arrays: each Animate call resolves their
//	           inputs (flags, weapon, speed → intent → state) to clips through
//	           their archetype's table, O(1) with no strings, advances phases (locomotion from speed and the clip's gait,
//	           attacks from the combat timeline, death progress, ambient idles),
//	           cross-fades every clip change (registry.FadeTable), blends walk and run by
//	           speed, and writes one 16-byte Instance per unit (InstanceBytes), with
//	           a 32-byte Blend beside it while the unit fades or blends; Override
//	           shows a unit on a clip picked by number, its inputs resolved beneath.
//	Combat     swings in one call each (Attack), timed on the clips' contact and
//	           weapon_release markers; Step returns the frame's hits, misses,
//	           releases and swing ends as combat.Events.
//	Sockets    any unit's socket transforms at its clip and phase, interpolated
//	           like the palette, in model space or placed in the world (WorldSocket).
//	Batch      the playback kernel alone: phase += rate·dt, then phase → frames by
//	           the rules of docs/formats/bpat.md §5, over plain slices with no
//	           allocation; with level of detail on (EnableLOD), far units drop to
//	           fewer influences or their species' snapshot mesh.
//	GPUClock   the event-driven mode: a unit's 64-byte TimeRecord is rewritten only
//	           when it changes, and a shader computes frames from a time uniform.
//	Player     units on clips picked by number (a viewer, a cutscene), per frame or
//	           in the GPU clock mode.
//
// A frame of a game is then: decide (targets, movement, Combat.Attack for the
// units that swing), Combat.Step and its events, Crowd.Animate, upload
// InstanceBytes (and BlendBytes). The rider archetype (registry.BuiltinArchetype(roster.Rider)) plays a
// mounted humanoid from the humanoid file's riding clips; its horse is a unit of
// its own. The README's "Using it from Go" is such a loop, run as Example_readme.
//
// Nothing here evaluates a skeleton or imports an offline package: the registry
// reads the files the baker wrote, and the hot loops read only arrays built at load.
//
// # Clip cycles and ground speeds
//
// A BPAT file stores frames, fps and the loop flag, not how fast a locomotion clip
// plays in the game. Each clip's cycle (seconds per pass at its ground speed) and
// ground speed come, first found first, from the game (registry.WithGait), from the gait
// sidecar NAME.gait.json that bake writes beside the file (its measured speeds),
// or from a small built-in table keyed by species and clip name (roster's Gaits); a
// clip none of them knows plays once per its own duration and is not speed-driven
// (registry.ResolveGait, docs/formats/gait.md).
package crowd
