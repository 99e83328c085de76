package gltfbake

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/rig"
)

// Size measures the character's mesh at rest where the glTF spec puts it
// (gltf.Model.RestPositions: every mesh of it, skinned at the rest pose), or its
// joints' positions when it has no readable mesh.
func (m *Model) Size() Size {
	s := Size{Lo: rig.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, Hi: rig.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	add := func(p rig.Vec3) {
		for k := range 3 {
			s.Lo[k], s.Hi[k] = min(s.Lo[k], p[k]), max(s.Hi[k], p[k])
		}
	}
	if g := m.GLTF; g.Mesh != nil && len(g.Mesh.Positions) > 0 {
		for _, p := range g.RestPositions() {
			add(rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])})
		}
	} else {
		s.Joints = true
		rest := g.Skeleton.RestModelSpace()
		for _, b := range g.Joints {
			add(rest[b].Translation())
		}
	}
	return s
}

// Size is a model's extent at rest in the space its palettes are baked in (the
// scene's, whose up is +y in glTF), in metres: what a user needs to catch a
// wrong unit or axis (Hint names Settings.Scale) before using the bake.
type Size struct {
	Lo, Hi rig.Vec3
	// Joints says the size is the joints' (the model has no mesh): a BVH
	// file's end sites, which its height in its note includes, are not
	// joints.
	Joints bool
}

// Extent is the size along x, y and z.
func (s Size) Extent() rig.Vec3 { return s.Hi.Sub(s.Lo) }

// String says the model's height along +y (glTF's up) and its other two sides.
func (s Size) String() string {
	e := s.Extent()
	at := ""
	if s.Joints {
		at = " (its joints at rest: no mesh)"
	}
	return fmt.Sprintf("%s m tall along +y (up) × %s m along x × %s m along z%s", metres(e[1]), metres(e[0]), metres(e[2]), at)
}

func metres(v float64) string { return fmt.Sprintf("%.3g", v) }

// Hint says what the size suggests is wrong, or "": a creature tens of metres
// tall was most likely modelled in centimetres (or millimetres), one a few
// millimetres tall in other units; one whose height is its smallest side by far
// is likely lying down (made Z-up).
func (s Size) Hint() string {
	e := s.Extent()
	big := max(e[0], e[1], e[2])
	switch {
	case big >= 2000:
		return fmt.Sprintf("%s m across looks like millimetres: Settings.Scale 0.001 bakes it in metres", metres(big))
	case big >= 20:
		return fmt.Sprintf("%s m across looks like centimetres: Settings.Scale 0.01 bakes it in metres", metres(big))
	case big > 0 && big < 0.02:
		return fmt.Sprintf("%s m across is very small: if the model is in other units, Settings.Scale bakes it in metres", metres(big))
	case e[1] < 0.35*max(e[0], e[2]) && e[1] <= min(e[0], e[2]):
		axis := "z"
		if e[0] > e[2] {
			axis = "x"
		}
		return fmt.Sprintf("its longest side lies along %s and it is flat along +y: it may be lying down (a Z-up model); glTF's up is +y", axis)
	}
	return ""
}
