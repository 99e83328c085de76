package gltfbake

import (
	"math"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/rig"
)

// Size measures the model's mesh at rest, or its joints' positions when it has
// no readable mesh.
func (m *Model) Size() bake.Size {
	s := bake.Size{Lo: rig.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, Hi: rig.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	add := func(p rig.Vec3) {
		for k := range 3 {
			s.Lo[k], s.Hi[k] = min(s.Lo[k], p[k]), max(s.Hi[k], p[k])
		}
	}
	if g := m.GLTF; g.Mesh != nil && len(g.Mesh.Positions) > 0 {
		for _, p := range g.Mesh.Positions {
			add(rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])})
		}
	} else {
		rest := g.Skeleton.RestModelSpace()
		for _, b := range g.Joints {
			add(rest[b].Translation())
		}
	}
	return s
}
