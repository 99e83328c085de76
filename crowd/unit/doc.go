// Package unit is what a crowd's unit is, as a game sets it and the runtime
// resolves it (docs/runtime.md §2–§4): its species and clip ids, its flags,
// weapon and ground speed (Inputs), the intent they resolve to by strict
// priority (PoseIntent), the state that intent plays (StateID), and the
// built-in kinds of unit (Kind) whose species, archetype and weapon fit
// together. It holds values and rules only; package crowd plays them.
package unit
