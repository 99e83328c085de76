package mesh

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/rig"
)

// SkinMatrices writes each bone's skinning matrix into dst (16 floats per bone,
// row-major): palette[b] · inverseBind[b]. A BPAT palette entry is the bone's posed
// model-space transform, so this is what moves a bind-pose vertex with the bone
// (docs/formats/bpat.md §1); at the bind pose it is the identity. palette holds 16 floats per
// bone, as bpat.File.Palette returns them.
func SkinMatrices(dst, palette []float32, inverseBind []rig.Mat4) error {
	n := len(inverseBind)
	if len(palette) < n*16 || len(dst) < n*16 {
		return fmt.Errorf("mesh: %d inverse bind matrices need %d palette and destination floats; have %d and %d", n, n*16, len(palette), len(dst))
	}
	for b := range n {
		var p rig.Mat4
		for k, v := range palette[b*16 : b*16+16] {
			p[k] = float64(v)
		}
		m := p.Mul(inverseBind[b])
		m.PutFloat32(dst[b*16 : b*16+16])
	}
	return nil
}

// Skin is the CPU reference of linear blend skinning, the result the GPU path and
// the snapshot meshes are checked against. skin holds one row-major skinning
// matrix per bone (16 floats, see SkinMatrices). Each vertex's matrix is the
// weighted sum of its influences' matrices; its position is that matrix times the
// bind-pose position, and its normal the matrix's upper 3×3 times the bind normal,
// renormalized (exact for rotations and uniform scales). Sums run in float64.
//
// pos receives VertexCount positions; nrm, which may be nil, VertexCount normals
// (it is left alone when the mesh has none). Influences of weight 0 are skipped. Skin
// does not allocate; it fails, changing nothing, when a weighted influence names a
// bone skin lacks or a destination is too short.
func (m *Skinned) Skin(skin []float32, pos, nrm [][3]float32) error {
	nv := m.VertexCount()
	if len(pos) < nv {
		return fmt.Errorf("mesh: %d vertices but room for %d positions", nv, len(pos))
	}
	doNormals := nrm != nil && len(m.Normals) >= nv
	if doNormals && len(nrm) < nv {
		return fmt.Errorf("mesh: %d vertices but room for %d normals", nv, len(nrm))
	}
	if len(m.Joints) < nv || len(m.Weights) < nv {
		return fmt.Errorf("mesh: %d vertices but %d joint and %d weight sets", nv, len(m.Joints), len(m.Weights))
	}
	bones := len(skin) / 16
	for v := range nv {
		for k, w := range m.Weights[v] {
			if w != 0 && int(m.Joints[v][k]) >= bones {
				return fmt.Errorf("mesh: vertex %d influence %d names bone %d; the palette has %d", v, k, m.Joints[v][k], bones)
			}
		}
	}
	for v := range nv {
		var b [12]float64 // the top three rows of the blended matrix
		js, ws := &m.Joints[v], &m.Weights[v]
		for k := range 4 {
			w := float64(ws[k])
			if w == 0 {
				continue
			}
			s := skin[int(js[k])*16:][:12]
			for i := range b {
				b[i] += w * float64(s[i])
			}
		}
		p := &m.Positions[v]
		x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
		pos[v] = [3]float32{
			float32(b[0]*x + b[1]*y + b[2]*z + b[3]),
			float32(b[4]*x + b[5]*y + b[6]*z + b[7]),
			float32(b[8]*x + b[9]*y + b[10]*z + b[11]),
		}
		if doNormals {
			n := &m.Normals[v]
			x, y, z := float64(n[0]), float64(n[1]), float64(n[2])
			nx := b[0]*x + b[1]*y + b[2]*z
			ny := b[4]*x + b[5]*y + b[6]*z
			nz := b[8]*x + b[9]*y + b[10]*z
			if l := math.Sqrt(nx*nx + ny*ny + nz*nz); l > 0 {
				nx, ny, nz = nx/l, ny/l, nz/l
			}
			nrm[v] = [3]float32{float32(nx), float32(ny), float32(nz)}
		}
	}
	return nil
}

// SkinPalette skins the mesh at a BPAT palette: SkinMatrices then Skin, into new
// slices. It is the convenient form for checks; Skin is the one that does not
// allocate.
func (m *Skinned) SkinPalette(palette []float32, inverseBind []rig.Mat4) (pos, nrm [][3]float32, err error) {
	skin := make([]float32, len(inverseBind)*16)
	if err := SkinMatrices(skin, palette, inverseBind); err != nil {
		return nil, nil, err
	}
	pos = make([][3]float32, m.VertexCount())
	if len(m.Normals) >= m.VertexCount() {
		nrm = make([][3]float32, m.VertexCount())
	}
	if err := m.Skin(skin, pos, nrm); err != nil {
		return nil, nil, err
	}
	return pos, nrm, nil
}
