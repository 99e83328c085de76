// Package crowd is the online half of bonebake: what a game links to animate
// thousands of baked creatures every frame (docs/formats/bpat.md §5, docs/runtime.md).
//
// A creature at run time is only "(species, clip, phase)". The package turns game
// state into that and that into the per-instance data a GPU skinning shader reads:
//
//	Registry   maps a directory of BPAT files read-only, one slot per species id,
//	           and resolves every archetype's clip names to indices once, at load.
//	Inputs     per-unit booleans, weapon family and speed → PoseIntent (strict
//	           priority) → StateID → clip index through a per-archetype table with
//	           variants: O(1), no strings.
//	Crowd      N units as a structure of arrays: each Animate call resolves intents
//	           to clips, advances phases (locomotion from speed and the clip's cycle,
//	           attacks from the combat timeline, death progress, ambient idles) and
//	           writes one Instance per unit: species, clip, frame, next frame, lerp.
//	Batch      the playback kernel alone: phase += rate·dt, then phase → frames by
//	           the rules of docs/formats/bpat.md §5, over plain slices with no allocation.
//	Melee      the combat timeline of docs/runtime.md §8 and the deferred melee strike that
//	           lands when the attack clip's contact marker is crossed; its Phase
//	           slice is the attack phase a Crowd plays (Crowd.Swing = Melee.Phase).
//	Sockets    any unit's socket transforms at its clip and phase, interpolated
//	           like the palette.
//
// A frame of a game is then: decide (targets, movement, Melee.Start), Melee.Step,
// set each unit's Flags, Crowd.Animate, upload Crowd.Out. The rider archetype (see
// RiderArchetype) plays a mounted humanoid from the humanoid file's riding clips;
// its horse is a unit of its own.
//
// Nothing here evaluates a skeleton or imports an offline package: the registry
// reads the files the baker wrote, and the hot loops read only arrays built at load.
//
// # Clip cycles and ground speeds
//
// A BPAT file stores frames, fps and the loop flag, not how fast a locomotion clip
// plays in the game. The registry takes each clip's cycle (seconds per pass at its
// ground speed) and ground speed from a small built-in table keyed by species and
// clip name (see Gait and BuiltinGaits); a clip the table does not know plays once
// per its own duration and is not speed-driven. WithGait overrides an entry.
package crowd
