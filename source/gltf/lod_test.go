package gltf

import (
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// lodModel is SimpleSkin with one lower level of detail in MSFT_lod: node 3,
// holding mesh 1, which is mesh 0 with only its first two triangles, skinned by
// the same skin and moved 5 m along x (a level need not stand where the full
// mesh does: skinning ignores a node's transform).
func lodModel(t *testing.T) doc {
	d := simpleSkin(t)
	first := bufferBytes(t, d, 0)[:12] // six uint16 indices
	idx := addAccessor(d, first, 5123, "SCALAR", 6, false)
	low := appendTo(d, "meshes", map[string]any{"primitives": []any{map[string]any{
		"attributes": map[string]any{"POSITION": 1, "JOINTS_0": 2, "WEIGHTS_0": 3},
		"indices":    idx,
	}}})
	node := appendTo(d, "nodes", map[string]any{"mesh": low, "skin": 0, "translation": []any{5.0, 0.0, 0.0}})
	obj(d, "nodes", 0)["extensions"] = map[string]any{"MSFT_lod": map[string]any{"ids": []any{node}}}
	d["extensionsUsed"] = []any{"MSFT_lod"}
	return d
}

// restSkinned returns each vertex of m's mesh skinned at rest, in the scene:
// Σ w · palette · InverseBind · position.
func restSkinned(t *testing.T, m *Model) []rig.Vec3 {
	pal := palette(t, m, m.Skeleton.Rest)
	out := make([]rig.Vec3, m.Mesh.VertexCount())
	for v, p := range m.Mesh.Positions {
		pos := rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		for k := range 4 {
			w := float64(m.Mesh.Weights[v][k])
			if w == 0 {
				continue
			}
			j := m.Mesh.Joints[v][k]
			q := pal[j].Mul(m.InverseBind[j]).TransformPoint(pos)
			out[v] = out[v].Add(q.Scale(w))
		}
	}
	return out
}

func TestMSFTLod(t *testing.T) {
	d := lodModel(t)
	path := writeModel(t, d)
	full, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if full.LODLevels != 1 || full.LOD != 0 || full.MeshNode != 0 || full.Mesh.TriangleCount() != 8 {
		t.Fatalf("default load: %d levels, level %d, node %d, %d triangles; want 1, 0, node 0, SimpleSkin's 8",
			full.LODLevels, full.LOD, full.MeshNode, full.Mesh.TriangleCount())
	}
	for _, ask := range []int{-1, 1} {
		low, err := Load(path, Options{LOD: ask})
		if err != nil {
			t.Fatal(err)
		}
		if low.LOD != 1 || low.MeshNode != 3 || low.Mesh.TriangleCount() != 2 {
			t.Fatalf("LOD %d: level %d, node %d, %d triangles; want level 1, node 3, 2 triangles", ask, low.LOD, low.MeshNode, low.Mesh.TriangleCount())
		}
		// The level's node is moved, but skinning ignores a node's transform:
		// every vertex it uses stands and skins where the full mesh's does.
		if low.MeshPlacement != full.MeshPlacement {
			t.Errorf("LOD %d: placement %v, the full mesh's %v", ask, low.MeshPlacement, full.MeshPlacement)
		}
		a, b := restSkinned(t, full), restSkinned(t, low)
		for _, i := range low.Mesh.Indices {
			if a[i].Sub(b[i]).Len() > 1e-5 {
				t.Errorf("LOD %d: vertex %d skins to %v, the full mesh's to %v", ask, i, b[i], a[i])
			}
		}
	}
	// A file without levels ignores the option.
	plain, err := Load(modelPath(t, "SimpleSkin.gltf"), Options{LOD: -1})
	if err != nil || plain.LODLevels != 0 || plain.LOD != 0 || plain.Mesh.TriangleCount() != 8 {
		t.Fatalf("SimpleSkin with LOD -1: %v, levels %d, level %d", err, plain.LODLevels, plain.LOD)
	}
}

func TestMSFTLodRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   func(d doc)
		lod    int
		detail string
	}{
		{"level past the last", func(doc) {}, 2, "level of detail 2 was asked for, but node 0 lists 1"},
		{"level without a mesh", func(d doc) { delete(obj(d, "nodes", 3), "mesh") }, -1, "node 3, which has no mesh"},
		{"level out of range", func(d doc) {
			obj(d, "nodes", 0)["extensions"] = map[string]any{"MSFT_lod": map[string]any{"ids": []any{99}}}
		}, -1, "node 99, which has no mesh"},
		{"level with another skin", func(d doc) {
			appendTo(d, "skins", map[string]any{"joints": []any{1, 2}})
			obj(d, "nodes", 3)["skin"] = 1
		}, -1, "skinned by skin 1 rather than 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := lodModel(t)
			c.edit(d)
			path := writeModel(t, d)
			_, err := Load(path, Options{LOD: c.lod})
			checkErr(t, err, path, RuleSkin, c.detail)
		})
	}
}
