// Package combat times swings (docs/runtime.md §8–§9): the timeline of one
// swing (Timeline, AttackPhase: the attack clip's phase over it), the deferred
// strike that lands when that phase crosses the clip's contact marker, rechecked
// against the World (Melee), and the Events a fight reports. It knows nothing of
// clips or units beyond their indices: package crowd's Combat ties it to a
// crowd's units and their clips' markers.
package combat
