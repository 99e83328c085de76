package viewer

import (
	"encoding/binary"
	"math"

	"github.com/bonebake/bonebake/mesh"
)

// MeshMagic starts the binary mesh that /api/assets/{id}/mesh returns.
const MeshMagic = "BBVM"

// MeshHeaderSize is the size of that mesh's header.
const MeshHeaderSize = 32

// Mesh flags.
const (
	MeshHasRoles     = 1 << 0 // the roles block holds the source's colour roles (else zeros)
	MeshHasUVs       = 1 << 1 // a block of texture coordinates follows the roles
	MeshHasMaterials = 1 << 2 // the parts' colours and textures replace the role colours
)

// MeshPart is a run of a mesh's indices drawn with one material.
type MeshPart struct {
	First, Count int        // Indices[First : First+Count]
	Color        [4]float32 // linear base colour, multiplied by the texture
	Texture      int        // index into the asset's textures, −1 for none
}

// EncodeMesh writes a skinned mesh, its inverse bind matrices and its parts in the
// compact little-endian form the page reads with typed-array views (every block
// starts 4-byte aligned):
//
//	 0 magic "BBVM"
//	 4 version u32 (2)
//	 8 vertex_count u32
//	12 index_count u32
//	16 bone_count u32 (inverse bind matrices)
//	20 flags u32 (MeshHasRoles, MeshHasUVs, MeshHasMaterials)
//	24 part_count u32
//	28 reserved u32
//	32 positions f32[3]·V, normals f32[3]·V, joints u16[4]·V, weights f32[4]·V,
//	   roles u8·V zero-padded to 4 bytes, uvs f32[2]·V (with MeshHasUVs),
//	   indices u32·I, inverse binds f32[16]·B (row-major, like palette entries),
//	   parts of 32 bytes: first u32, count u32, texture i32, reserved u32, colour f32[4]
//
// Normals a mesh lacks are computed from its triangles; missing joints and
// weights bind every vertex to bone 0. Without parts the mesh is one part, white
// and untextured, drawn in its role colours.
func EncodeMesh(m *mesh.Skinned, inverseBind [][16]float32, parts []MeshPart) []byte {
	v, ni := len(m.Positions), len(m.Indices)
	rolesSize := (v + 3) &^ 3
	flags := uint32(0)
	if len(m.Roles) == v && v > 0 {
		flags |= MeshHasRoles
	}
	uvSize := 0
	if len(m.UVs) == v && v > 0 {
		flags |= MeshHasUVs
		uvSize = v * 8
	}
	if len(parts) > 0 {
		flags |= MeshHasMaterials
	} else {
		parts = []MeshPart{{First: 0, Count: ni, Color: [4]float32{1, 1, 1, 1}, Texture: -1}}
	}
	size := MeshHeaderSize + v*(12+12+8+16) + rolesSize + uvSize + ni*4 + len(inverseBind)*64 + len(parts)*32
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	b = append(b, MeshMagic...)
	for _, x := range []uint32{2, uint32(v), uint32(ni), uint32(len(inverseBind)), flags, uint32(len(parts)), 0} {
		b = le.AppendUint32(b, x)
	}
	f32 := func(x float32) { b = le.AppendUint32(b, math.Float32bits(x)) }
	for _, p := range m.Positions {
		f32(p[0])
		f32(p[1])
		f32(p[2])
	}
	normals := m.Normals
	if len(normals) != v {
		normals = computeNormals(m)
	}
	for _, n := range normals {
		f32(n[0])
		f32(n[1])
		f32(n[2])
	}
	for i := 0; i < v; i++ {
		var j [4]uint16
		if i < len(m.Joints) {
			j = m.Joints[i]
		}
		for _, x := range j {
			b = le.AppendUint16(b, x)
		}
	}
	for i := 0; i < v; i++ {
		w := [4]float32{1}
		if i < len(m.Weights) {
			w = m.Weights[i]
		}
		for _, x := range w {
			f32(x)
		}
	}
	for i := 0; i < rolesSize; i++ {
		r := uint8(0)
		if flags&MeshHasRoles != 0 && i < v {
			r = m.Roles[i]
		}
		b = append(b, r)
	}
	if flags&MeshHasUVs != 0 {
		for _, uv := range m.UVs {
			f32(uv[0])
			f32(uv[1])
		}
	}
	for _, x := range m.Indices {
		b = le.AppendUint32(b, x)
	}
	for _, mat := range inverseBind {
		for _, x := range mat {
			f32(x)
		}
	}
	for _, p := range parts {
		b = le.AppendUint32(b, uint32(p.First))
		b = le.AppendUint32(b, uint32(p.Count))
		b = le.AppendUint32(b, uint32(int32(p.Texture)))
		b = le.AppendUint32(b, 0)
		for _, x := range p.Color {
			f32(x)
		}
	}
	return b
}

// computeNormals returns area-weighted vertex normals.
func computeNormals(m *mesh.Skinned) [][3]float32 {
	acc := make([][3]float64, len(m.Positions))
	for t := 0; t+2 < len(m.Indices); t += 3 {
		i0, i1, i2 := m.Indices[t], m.Indices[t+1], m.Indices[t+2]
		if int(i0) >= len(acc) || int(i1) >= len(acc) || int(i2) >= len(acc) {
			continue
		}
		p0, p1, p2 := m.Positions[i0], m.Positions[i1], m.Positions[i2]
		var e1, e2 [3]float64
		for k := 0; k < 3; k++ {
			e1[k] = float64(p1[k] - p0[k])
			e2[k] = float64(p2[k] - p0[k])
		}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		for _, i := range [3]uint32{i0, i1, i2} {
			for k := 0; k < 3; k++ {
				acc[i][k] += n[k]
			}
		}
	}
	out := make([][3]float32, len(acc))
	for i, n := range acc {
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l == 0 {
			out[i] = [3]float32{0, 1, 0}
			continue
		}
		out[i] = [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
	}
	return out
}
