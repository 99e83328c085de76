package bat

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/bonebake/bonebake/mesh"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"

	qgltf "github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// outPositions returns the mesh's positions and normals in the output's axes.
func outPositions(in *Input, zUp bool) (pos, nrm [][3]float32) {
	conv := func(src [][3]float32) [][3]float32 {
		if src == nil {
			return nil
		}
		out := make([][3]float32, len(src))
		for i, p := range src {
			out[i] = p
			if zUp { // (x, y, z) → (x, −z, y)
				out[i] = [3]float32{p[0], -p[2], p[1]}
			}
		}
		return out
	}
	return conv(in.Mesh.Positions), conv(in.Mesh.Normals)
}

// bounds returns the smallest and largest coordinates of the positions, in the
// output's axes.
func bounds(ps [][3]float32, zUp bool) (lo, hi rig.Vec3) {
	lo = rig.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = rig.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range ps {
		v := rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		if zUp {
			v = rig.Vec3{v[0], -v[2], v[1]}
		}
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
		}
	}
	return lo, hi
}

// texelCentre is TEXCOORD_1 of vertex k (§5) for a skin texture of w × h.
func texelCentre(k, w, h int, invertV bool) [2]float32 {
	u := (float64(k%w) + 0.5) / float64(w)
	v := (float64(2*(k/w)) + 0.5) / float64(h)
	if invertV {
		v = 1 - v
	}
	return [2]float32{float32(u), float32(v)}
}

// meshGLB writes the static output mesh as binary glTF: the input mesh at the
// bind pose, or posed at stack frame ref when ref ≥ 0 (no skin), its normals and TEXCOORD_0 when it has them, and each
// vertex's skin texel centre as TEXCOORD_1.
func meshGLB(in *Input, ref, w, h int, opt Options) ([]byte, error) {
	m := in.Mesh
	var pos, nrm [][3]float32
	if ref >= 0 { // posed at the reference frame (gametools), in glTF's axes
		var err error
		nm, _ := normalized(m)
		pos, nrm, err = nm.SkinPalette(in.Palettes[ref*in.Bones*16:(ref+1)*in.Bones*16], in.InverseBind)
		if err != nil {
			return nil, err
		}
		if len(m.Normals) != len(pos) {
			nrm = nil
		}
	} else {
		pos, nrm = outPositions(in, opt.ZUp)
	}
	uv1 := make([][2]float32, len(pos))
	for k := range uv1 {
		uv1[k] = texelCentre(k, w, h, opt.InvertV)
	}
	return gltf.EncodeStaticMesh(&gltf.StaticMesh{Name: in.Name, Generator: "bonebake bat",
		Positions: pos, Normals: nrm, UV0: m.UVs, UV1: uv1, Indices: m.Indices})
}

// readMeshGLB reads back the positions and TEXCOORD_1 of a mesh meshGLB wrote.
func readMeshGLB(name string, b []byte) (pos [][3]float32, uv1 [][2]float32, err error) {
	var doc qgltf.Document
	if err := qgltf.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Meshes) != 1 || len(doc.Meshes[0].Primitives) != 1 {
		return nil, nil, fmt.Errorf("%s: want one mesh of one primitive", name)
	}
	a := doc.Meshes[0].Primitives[0].Attributes
	pi, ok1 := a[qgltf.POSITION]
	ui, ok2 := a[qgltf.TEXCOORD_1]
	if !ok1 || !ok2 || pi >= len(doc.Accessors) || ui >= len(doc.Accessors) {
		return nil, nil, fmt.Errorf("%s: the mesh lacks POSITION or TEXCOORD_1", name)
	}
	if pos, err = modeler.ReadPosition(&doc, doc.Accessors[pi], nil); err != nil {
		return nil, nil, fmt.Errorf("%s: POSITION: %w", name, err)
	}
	if uv1, err = modeler.ReadTextureCoord(&doc, doc.Accessors[ui], nil); err != nil {
		return nil, nil, fmt.Errorf("%s: TEXCOORD_1: %w", name, err)
	}
	if len(uv1) != len(pos) {
		return nil, nil, fmt.Errorf("%s: %d positions but %d TEXCOORD_1", name, len(pos), len(uv1))
	}
	return pos, uv1, nil
}

// normalized returns a copy of m with its weights normalized by the one rule
// every source's are (mesh.NormalizeWeights, glTF's: docs/formats/gltf.md
// §1.3), as the skin texture stores them (§5): the reference skinning, and how
// many vertices the rule changed.
func normalized(m *mesh.Skinned) (*mesh.Skinned, int) {
	c := *m
	c.Joints, c.Weights = slices.Clone(m.Joints), slices.Clone(m.Weights)
	n := mesh.NormalizeWeights(c.Joints, c.Weights, 0)
	return &c, n
}

// normalizedWeights returns in with its mesh's weights normalized (normalized)
// and how many vertices that changed; in itself when none. Sources normalize
// at load (gltf.Load), so only a mesh handed in otherwise is changed here.
func (in *Input) normalizedWeights() (*Input, int) {
	m, n := normalized(in.Mesh)
	if n == 0 {
		return in, 0
	}
	c := *in
	c.Mesh = m
	return &c, n
}
