package main

import "github.com/bonebake/bonebake/crowd/registry"

// The meter's reference forms, which only its tests call: farthest poses two
// poses in full, as the meter's farthestFrom does in parts (farthestOne, pose,
// farthestPosed); boneBound is boneRules' per-bone pass alone, without its
// one-bone-first shortcut (boneTerms.wide). The tests check the meter's
// shortcuts against them.

// farthest returns the largest squared move of any bone's origin from pose
// was to pose now. Each origin is what Species.OriginsOf writes, in the same
// float32 operations in the same order: sides added one by one to zero, each
// its weight times the lerp of its two frames (o and q: room for each
// pose's origins).
func (sp *speciesPaths) farthest(now, was []posedSide, o, q []float32) float64 {
	if len(now) == 1 && len(was) == 1 && now[0].wgt == 1 && was[0].wgt == 1 {
		return farthestOne(&now[0], &was[0])
	}
	k3 := 3 * sp.bones
	o, q = o[:k3], q[:k3]
	pose(o, now)
	pose(q, was)
	return farthestPosed(o, q)
}

// boneBound is the bone-by-bone bound of boneTerms, from p to cur (ok false:
// a clip the species lacks).
func (sp *speciesPaths) boneBound(p, cur *[3]registry.Side) (float64, bool) {
	var bt boneTerms
	if !sp.terms(p, cur, &bt) {
		return 0, false
	}
	return bt.perBone(sp.bones), true
}
