package gltfbake

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

// capeModel writes a character as Blender exports one with a cape and a helmet,
// and returns its path:
//
//   - node 0 "Armature": turned −90° about x and scaled 0.01, as blenderModel's;
//   - joints Hips (0,0,100) → Spine (0,0,50) → Head (0,0,30), Spine → Cape1
//     (0,−10,0) → Cape2 (0,0,−30), and IK_foot (20,0,0) that nothing uses;
//   - "Body", skinned by skin 0 (every joint), its object moved to (50,0,0) and
//     its inverse binds inverse(G(joint)) · G(body), Blender's; its weights do
//     not sum to 1 (0.5 + 0.25, 0.9, and one vertex with none);
//   - "Cape", skinned by skin 1 (Spine, Cape1, Cape2: joints of skin 0, in
//     another order), its node moved to (0,0,5) but its inverse binds
//     inverse(G(joint)) · G(Armature), as Xbot's are: glTF ignores a skinned
//     node's transform, so the cape stands where the armature puts its data;
//   - "Helmet", no skin, under "Socket" (0,0,10), a plain node under Head, at
//     (0,5,0): a rigid part;
//   - "Ground", no skin, beside the armature: not part of the character;
//   - "Turn": Spine turned 90° about the armature's z (its up), held.
//
// A point p of the armature's space lands in the scene at scene(p) (blender_test.go).
func capeModel(t *testing.T) string {
	t.Helper()
	nodes := []map[string]any{
		{"name": "Armature", "rotation": []float64{-math.Sqrt2 / 2, 0, 0, math.Sqrt2 / 2}, "scale": []float64{0.01, 0.01, 0.01}, "children": []int{1, 6, 7, 9}},
		{"name": "Hips", "translation": []float64{0, 0, 100}, "children": []int{2}},
		{"name": "Spine", "translation": []float64{0, 0, 50}, "children": []int{3, 4}},
		{"name": "Head", "translation": []float64{0, 0, 30}, "children": []int{8}},
		{"name": "Cape1", "translation": []float64{0, -10, 0}, "children": []int{5}},
		{"name": "Cape2", "translation": []float64{0, 0, -30}},
		{"name": "IK_foot", "translation": []float64{20, 0, 0}},
		{"name": "Body", "mesh": 0, "skin": 0, "translation": []float64{50, 0, 0}},
		{"name": "Socket", "translation": []float64{0, 0, 10}, "children": []int{10}},
		{"name": "Cape", "mesh": 1, "skin": 1, "translation": []float64{0, 0, 5}},
		{"name": "Helmet", "mesh": 2, "translation": []float64{0, 5, 0}},
		{"name": "Ground", "mesh": 2},
	}
	arm := rig.Transform{Rotation: rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, -math.Pi/2), Scale: rig.Vec3{0.01, 0.01, 0.01}}.Matrix()
	hips := arm.Mul(rig.Translate(rig.Vec3{0, 0, 100}))
	spine := hips.Mul(rig.Translate(rig.Vec3{0, 0, 50}))
	head := spine.Mul(rig.Translate(rig.Vec3{0, 0, 30}))
	cape1 := spine.Mul(rig.Translate(rig.Vec3{0, -10, 0}))
	cape2 := cape1.Mul(rig.Translate(rig.Vec3{0, 0, -30}))
	ik := arm.Mul(rig.Translate(rig.Vec3{20, 0, 0}))
	body := arm.Mul(rig.Translate(rig.Vec3{50, 0, 0}))
	ibms := func(bind rig.Mat4, gs ...rig.Mat4) []float64 {
		var out []float64
		for _, g := range gs {
			inv, _ := g.Inverse()
			m := inv.Mul(bind).Transpose() // glTF stores matrices column-major
			out = append(out, m[:]...)
		}
		return out
	}
	var gb testfiles.GLTFBuffer
	add, floats := gb.Add, testfiles.Float32s
	u16 := func(vs ...uint16) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint16(b, v)
		}
		return b
	}
	prim := func(pos []float64, joints []byte, weights []float64, idx ...uint16) map[string]any {
		n := len(pos) / 3
		attrs := map[string]any{"POSITION": add(floats(pos...), n, "VEC3", 5126, nil)}
		if joints != nil {
			attrs["JOINTS_0"] = add(joints, n, "VEC4", 5121, nil)
			attrs["WEIGHTS_0"] = add(floats(weights...), n, "VEC4", 5126, nil)
		}
		return map[string]any{"attributes": attrs, "indices": add(u16(idx...), len(idx), "SCALAR", 5123, nil)}
	}
	// The body's vertices are in its object's space: the armature's minus (50,0,0).
	bodyPrim := prim([]float64{-40, 0, 100, -40, 0, 150, -50, 10, 150, -60, 0, 150},
		[]byte{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
		[]float64{0.5, 0.25, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0.9, 0, 0, 0}, 0, 1, 2, 0, 2, 3)
	capePrim := prim([]float64{0, -10, 150, 10, -10, 120, -10, -10, 120},
		[]byte{1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0}, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, 0, 1, 2)
	helmetPrim := prim([]float64{0, 0, 0, 5, 0, 0, 0, 0, 5}, nil, nil, 0, 1, 2)
	turn := rig.QuatFromAxisAngle(rig.Vec3{0, 0, 1}, math.Pi/2)
	tt := add(floats(0, 1), 2, "SCALAR", 5126, map[string]any{"min": []float64{0}, "max": []float64{1}})
	tv := add(floats(turn[0], turn[1], turn[2], turn[3], turn[0], turn[1], turn[2], turn[3]), 2, "VEC4", 5126, nil)
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0", "generator": "Khronos glTF Blender I/O (as bonebake's test writes it)"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0, 11}}},
		"nodes":  nodes,
		"skins": []any{
			map[string]any{"joints": []int{1, 2, 3, 4, 5, 6}, "inverseBindMatrices": add(floats(ibms(body, hips, spine, head, cape1, cape2, ik)...), 6, "MAT4", 5126, nil)},
			map[string]any{"joints": []int{2, 4, 5}, "inverseBindMatrices": add(floats(ibms(arm, spine, cape1, cape2)...), 3, "MAT4", 5126, nil)},
		},
		"meshes": []any{
			map[string]any{"name": "body", "primitives": []any{bodyPrim}},
			map[string]any{"name": "cape", "primitives": []any{capePrim}},
			map[string]any{"name": "helmet", "primitives": []any{helmetPrim}},
		},
		"animations": []any{map[string]any{"name": "Turn", "samplers": []any{map[string]any{"input": tt, "output": tv}},
			"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 2, "path": "rotation"}}}}},
	}
	b, err := json.Marshal(gb.Finish(doc))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "caped.gltf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// capeRest is where each vertex of capeModel stands at rest in the armature's
// space (body, cape, helmet), from the nodes alone; turned is the same under
// Turn: Spine's 90° about z around its axis (x, y) = (0, 0) takes every point it
// carries from (x, y, z) to (−y, x, z), and a vertex weighted to Hips and Spine
// blends the two by its normalized weights.
var (
	capeRest = []rig.Vec3{
		{10, 0, 100}, {10, 0, 150}, {0, 10, 150}, {-10, 0, 150}, // body
		{0, -10, 150}, {10, -10, 120}, {-10, -10, 120}, // cape
		{0, 5, 190}, {5, 5, 190}, {0, 5, 195}, // helmet: Head (0,0,180) + Socket + Helmet
	}
	capeTurned = []rig.Vec3{
		{10 * 2 / 3.0, 10 / 3.0, 100}, {0, 10, 150}, {0, 10, 150}, {0, -10, 150},
		{10, 0, 150}, {10, 10, 120}, {10, -10, 120},
		{-5, 0, 190}, {-5, 5, 190}, {-5, 0, 195},
	}
)

// TestCapedCharacter: every mesh of a Blender character comes through (body,
// separately skinned cape, rigid helmet; not the ground beside it), at rest
// where the spec puts it, following a clip, with its weights normalized and a
// note saying so; --deforming-only keeps the cape's and the helmet's joints;
// the size line measures the whole character.
func TestCapedCharacter(t *testing.T) {
	path := capeModel(t)
	m, f := bakeModel(t, path, Settings{FPS: 10})
	g := m.GLTF
	var how []string
	for _, mb := range g.Members {
		how = append(how, mb.Name+": "+mb.How)
	}
	want := []string{"Body: skinned by skin 0", "Cape: skin 1, on joints of skin 0", "Helmet: rigid on joint Head"}
	if !slices.Equal(how, want) {
		t.Fatalf("members %q, want %q", how, want)
	}
	if g.Mesh.VertexCount() != 10 || len(g.Parts) != 3 {
		t.Fatalf("%d vertices in %d parts, want 10 in 3", g.Mesh.VertexCount(), len(g.Parts))
	}
	for v, p := range g.Mesh.Positions {
		c := capeRest[v]
		near3(t, "at rest", rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}, scene(c[0], c[1], c[2]), 1e-6)
	}
	for v, w := range g.Mesh.Weights {
		if s := w[0] + w[1] + w[2] + w[3]; math.Abs(float64(s)-1) > 1e-6 {
			t.Errorf("vertex %d: weights %v sum to %v", v, w, s)
		}
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "normalized the weights of 3 vertices of 10") {
		t.Errorf("notes %q do not count the 3 vertices normalized", m.Notes)
	}
	skinned, _, err := g.Mesh.SkinPalette(f.Palette(0, 0), g.InverseBind)
	if err != nil {
		t.Fatal(err)
	}
	for v, p := range skinned {
		c := capeTurned[v]
		near3(t, "turned", rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}, scene(c[0], c[1], c[2]), 1e-5)
	}
	// Lowest: the body's (10,0,100); highest: the helmet's top at z = 195.
	if e := m.Size().Extent(); math.Abs(e[1]-0.95) > 1e-5 {
		t.Errorf("size %v, want 0.95 m tall", m.Size())
	}

	d, _ := bakeModel(t, path, Settings{FPS: 10, DeformingOnly: true})
	if want := []string{"Hips", "Spine", "Head", "Cape1", "Cape2"}; !slices.Equal(d.GLTF.JointNames, want) {
		t.Errorf("deforming only keeps %v, want %v", d.GLTF.JointNames, want)
	}
}

// TestCesiumManSnapshot: CesiumMan's 210 vertices whose weights sum to 0.18–0.99
// (counted by a separate script) are normalized at load with a note, and its
// snapshot validates strictly (it was refused: "weights sum to 0.685, not 1").
func TestCesiumManSnapshot(t *testing.T) {
	m, err := Load(sharedModel(t, "CesiumMan.gltf"), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "normalized the weights of 210 vertices of 3273") {
		t.Errorf("notes %q do not count the 210 vertices", m.Notes)
	}
	snap, err := m.Snapshot(SnapshotSettings{Triangles: 400, FPS: 6})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "cesium_minimal.bpsm")
	if _, err := snap.Write(p, m.Job); err != nil {
		t.Fatal(err)
	}
	sf, err := bpsm.Open(p, formats.KnownSpecies(m.Job.SpeciesID))
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	if err := sf.CheckVertices(); err != nil {
		t.Fatal(err)
	}
}

// TestXbotSize: Xbot's mesh nodes sit under its armature's 0.01 scale, which
// its inverse binds already hold: the size line says about 1.8 m (three.js
// shows it 1.8 units tall), not 0.016 m, and hints nothing.
func TestXbotSize(t *testing.T) {
	m, err := Load(sharedModel(t, "threejs/Xbot.glb"), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Size()
	if h := s.Extent()[1]; h < 1.75 || h > 1.85 || s.Hint() != "" {
		t.Errorf("size %v, hint %q; want about 1.8 m tall and no hint", s, s.Hint())
	}
}

// TestRigidPartOnAnimatedNode: a clip that animates the plain node a rigid part
// hangs through (capeModel's Socket, under Head) moves nothing in the palette
// (only joints are baked): the load says so, naming the part, the node and the
// clip.
func TestRigidPartOnAnimatedNode(t *testing.T) {
	path := capeModel(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	turn := doc["animations"].([]any)[0].(map[string]any)
	turn["channels"] = append(turn["channels"].([]any), map[string]any{"sampler": 0, "target": map[string]any{"node": 8, "path": "rotation"}})
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := `node 10 (Helmet) hangs on joint "Head" through node 8 (Socket), which clip Turn animates: only joints are baked`
	if !strings.Contains(strings.Join(m.Notes, "\n"), want) {
		t.Errorf("notes %q do not say %q", m.Notes, want)
	}
}
