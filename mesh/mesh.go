// Package mesh holds skinned triangle meshes, the form every source (glTF models,
// built-in creatures) hands to exporters, snapshot bakers and viewers, and the CPU
// reference of linear blend skinning.
package mesh

// Skinned is a triangle mesh bound to a skeleton, in its model space at the bind
// pose. Joints index the palette (the skin's joint order); a vertex's weights sum
// to 1 and its unused influences have weight 0. Attributes a source lacks are nil.
type Skinned struct {
	Positions [][3]float32
	Normals   [][3]float32
	UVs       [][2]float32
	Joints    [][4]uint16
	Weights   [][4]float32
	Indices   []uint32 // three per triangle
	// Roles is an optional per-vertex colour role (body, hair, cloth, metal, ...)
	// that a renderer maps to a tint; nil when the source has none.
	Roles []uint8
}

// VertexCount is the number of vertices.
func (m *Skinned) VertexCount() int { return len(m.Positions) }

// TriangleCount is the number of triangles.
func (m *Skinned) TriangleCount() int { return len(m.Indices) / 3 }
