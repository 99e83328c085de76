package gltfbake

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

// blenderModel writes a glTF file the way Blender's exporter writes a Mixamo-style
// character, and returns its path:
//
//   - node 0 "Armature": turned −90° about x (its bones are Z-up) and scaled 0.01
//     (they are in centimetres), the parent of everything else;
//   - joints "Hips" (0,0,100) → "Spine" (0,0,50) → "Head" (0,0,30), and "IK_foot"
//     (20,0,0), a control bone no vertex is weighted to;
//   - node 5 "Body", the skinned mesh, moved by the artist to (50,0,0);
//   - inverse bind matrices as the exporter computes them, inverse(G(joint)) ·
//     G(mesh object), so that at rest a vertex stands where Blender shows it;
//   - "Walk": 25 keys at t = k/24, k = 1…25 (Blender's frames 1…25, the last the
//     loop's first again), the hips going 10 cm forward per frame along their y;
//   - "Attack": keys from t = 1/60, lasting 0.792 s, the head going 20 cm along y.
//
// Where the scene puts things follows from the nodes alone: a point p of the
// armature's space lands at 0.01·(p.x, p.z, −p.y), so the hips stand at (0,1,0)
// metres and a vertex v of the mesh at 0.01·(v.x+50, v.z, −v.y).
func blenderModel(t *testing.T) string { return blenderModelAttack(t, 0.792) }

// blenderModelAttack is blenderModel with an Attack of the given length.
func blenderModelAttack(t *testing.T, attack float64) string {
	t.Helper()
	nodes := []map[string]any{
		{"name": "Armature", "rotation": []float64{-math.Sqrt2 / 2, 0, 0, math.Sqrt2 / 2}, "scale": []float64{0.01, 0.01, 0.01}, "children": []int{1, 4, 5}},
		{"name": "Hips", "translation": []float64{0, 0, 100}, "children": []int{2}},
		{"name": "Spine", "translation": []float64{0, 0, 50}, "children": []int{3}},
		{"name": "Head", "translation": []float64{0, 0, 30}},
		{"name": "IK_foot", "translation": []float64{20, 0, 0}},
		{"name": "Body", "mesh": 0, "skin": 0, "translation": []float64{50, 0, 0}},
	}
	// Rest globals, from the nodes above (the exporter's own arithmetic).
	arm := rig.Transform{Rotation: rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, -math.Pi/2), Scale: rig.Vec3{0.01, 0.01, 0.01}}.Matrix()
	hips := arm.Mul(rig.Translate(rig.Vec3{0, 0, 100}))
	spine := hips.Mul(rig.Translate(rig.Vec3{0, 0, 50}))
	head := spine.Mul(rig.Translate(rig.Vec3{0, 0, 30}))
	ik := arm.Mul(rig.Translate(rig.Vec3{20, 0, 0}))
	body := arm.Mul(rig.Translate(rig.Vec3{50, 0, 0}))

	var gb testfiles.GLTFBuffer
	add, floats := gb.Add, testfiles.Float32s
	var ibm []float64
	for _, g := range []rig.Mat4{hips, spine, head, ik} {
		inv, _ := g.Inverse()
		m := inv.Mul(body).Transpose() // glTF stores matrices column-major
		ibm = append(ibm, m[:]...)
	}
	ibmAcc := add(floats(ibm...), 4, "MAT4", 5126, nil)
	pos := add(floats(0, 0, 100, 10, 0, 150, 0, 10, 180, -10, 0, 150), 4, "VEC3", 5126,
		map[string]any{"min": []float64{-10, 0, 100}, "max": []float64{10, 10, 180}})
	joints := add([]byte{0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0}, 4, "VEC4", 5121, nil)
	weights := add(floats(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), 4, "VEC4", 5126, nil)
	var idx []byte
	for _, i := range []uint16{0, 1, 2, 0, 2, 3} {
		idx = binary.LittleEndian.AppendUint16(idx, i)
	}
	indices := add(idx, 6, "SCALAR", 5123, nil)

	var walkT, walkV []float64
	for k := 1; k <= 25; k++ {
		walkT = append(walkT, float64(k)/24)
		walkV = append(walkV, 0, 10*float64(k-1), 100)
	}
	wt := add(floats(walkT...), 25, "SCALAR", 5126, map[string]any{"min": []float64{walkT[0]}, "max": []float64{walkT[24]}})
	wv := add(floats(walkV...), 25, "VEC3", 5126, nil)
	at := add(floats(1.0/60, 1.0/60+attack), 2, "SCALAR", 5126, map[string]any{"min": []float64{1.0 / 60}, "max": []float64{1.0/60 + attack}})
	av := add(floats(0, 0, 30, 0, 20, 30), 2, "VEC3", 5126, nil)

	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0", "generator": "Khronos glTF Blender I/O (as bonebake's test writes it)"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0}}},
		"nodes":  nodes,
		"skins":  []any{map[string]any{"joints": []int{1, 2, 3, 4}, "inverseBindMatrices": ibmAcc, "skeleton": 1}},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{
			"attributes": map[string]any{"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights}, "indices": indices}}}},
		"animations": []any{
			map[string]any{"name": "Walk", "samplers": []any{map[string]any{"input": wt, "output": wv}},
				"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 1, "path": "translation"}}}},
			map[string]any{"name": "Attack", "samplers": []any{map[string]any{"input": at, "output": av}},
				"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 3, "path": "translation"}}}},
		},
	}
	b, err := json.Marshal(gb.Finish(doc))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mixamo_style.gltf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// scene is where a point of the armature's space lands: 0.01·(x, z, −y).
func scene(x, y, z float64) rig.Vec3 { return rig.Vec3{0.01 * x, 0.01 * z, -0.01 * y} }

func near3(t *testing.T, what string, got, want rig.Vec3, tol float64) {
	t.Helper()
	if got.Sub(want).Len() > tol {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

func bakeModel(t *testing.T, path string, s Settings) (*Model, *bpat.File) {
	t.Helper()
	m, err := Load(path, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bake.Bytes(m.Job)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bpat.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
	if err != nil {
		t.Fatal(err)
	}
	return m, f
}

func paletteAt(f *bpat.File, clip, frame, bone int) rig.Mat4 {
	var m rig.Mat4
	for i, v := range f.Palette(clip, frame)[bone*16 : bone*16+16] {
		m[i] = float64(v)
	}
	return m
}

// TestBlenderExport bakes the model as Blender's exporter writes it: upright, in
// metres, where Blender shows it (the mesh object's move is not added to the
// bones), with the artist's 24 frames, and a one-shot that lasts as long as its
// source.
func TestBlenderExport(t *testing.T) {
	path := blenderModel(t)
	m, f := bakeModel(t, path, Settings{OneShot: []string{"Attack"}, FPS: 24, Sockets: []ManifestSocket{{Name: "head", Bone: "Head", Offset: [3]float32{0, 0, 10}}}})
	cl := f.Clips()
	if len(cl) != 2 || cl[0].Name != "Walk" || cl[0].FrameCount != 24 || cl[0].FPS != 24 {
		t.Fatalf("Walk: %+v; want the artist's 24 frames at 24 fps", cl)
	}
	for fr := range 24 { // frame f is Blender's frame f+1: the hips 10·f cm along their y
		near3(t, "Walk hips", paletteAt(f, 0, fr, 0).Translation(), scene(0, 10*float64(fr), 100), 1e-5)
		near3(t, "Walk head", paletteAt(f, 0, fr, 2).Translation(), scene(0, 10*float64(fr), 180), 1e-5)
	}
	// Attack: 0.792 s from its first key; at 24 fps round(19.008) + 1 = 20 frames
	// whose fps plays them in exactly 0.792 s.
	if c := cl[1]; c.Loops || c.FrameCount != 20 || math.Abs(float64(19/c.FPS)-0.792) > 1e-6 {
		t.Errorf("Attack: %+v; want 20 frames lasting 0.792 s", c)
	}
	near3(t, "Attack head at the start", paletteAt(f, 1, 0, 2).Translation(), scene(0, 0, 180), 1e-5)
	near3(t, "Attack head at the end", paletteAt(f, 1, 19, 2).Translation(), scene(0, 20, 180), 1e-5)
	// The socket's offset is in the bone's space (centimetres here): 10 cm above the head.
	sock := f.SocketData(0, 0)
	near3(t, "head socket", rig.Vec3{float64(sock[3]), float64(sock[7]), float64(sock[11])}, scene(0, 0, 190), 1e-5)

	// The mesh at rest stands where Blender shows it, and skinning it with frame 0
	// puts each vertex there too.
	want := []rig.Vec3{scene(50, 0, 100), scene(60, 0, 150), scene(50, 10, 180), scene(40, 0, 150)}
	for i, p := range m.GLTF.Mesh.Positions {
		near3(t, "mesh at rest", rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}, want[i], 1e-6)
	}
	skinned, _, err := m.GLTF.Mesh.SkinPalette(f.Palette(0, 0), m.GLTF.InverseBind)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range skinned {
		near3(t, "skinned at frame 0", rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}, want[i], 1e-5)
	}
	size := m.Size()
	if e := size.Extent(); math.Abs(e[1]-0.8) > 1e-5 || size.Hint() != "" {
		t.Errorf("size %v (hint %q): want 0.8 m tall along +y and no hint", size, size.Hint())
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "Walk 0.04167 s") {
		t.Errorf("notes %q do not say that Walk's lead-in was dropped", m.Notes)
	}
}

// TestBlenderExportOptions: --keep-lead-in gives back glTF's t = 0 (25 frames, the
// first two the same pose), --deforming-only drops the IK bone, --scale scales the
// palettes, sockets and mesh alike.
func TestBlenderExportOptions(t *testing.T) {
	path := blenderModel(t)
	_, f := bakeModel(t, path, Settings{FPS: 24, KeepLeadIn: true})
	if c := f.Clips()[0]; c.FrameCount != 25 {
		t.Errorf("Walk with its lead-in: %d frames, want 25", c.FrameCount)
	}
	if a, b := paletteAt(f, 0, 0, 0), paletteAt(f, 0, 1, 0); a != b {
		t.Errorf("with the lead-in, frames 0 and 1 should hold the same pose: %v %v", a.Translation(), b.Translation())
	}

	m, f := bakeModel(t, path, Settings{FPS: 24, DeformingOnly: true, Scale: 2,
		Sockets: []ManifestSocket{{Name: "head", Bone: "Head", Offset: [3]float32{0, 0, 10}}}})
	if f.BoneCount() != 3 || strings.Join(m.GLTF.JointNames, ",") != "Hips,Spine,Head" || !strings.Contains(strings.Join(m.Notes, "\n"), "IK_foot") {
		t.Fatalf("deforming only: %d bones %v, notes %q", f.BoneCount(), m.GLTF.JointNames, m.Notes)
	}
	near3(t, "scaled hips", paletteAt(f, 0, 3, 0).Translation(), scene(0, 30, 100).Scale(2), 1e-5)
	sock := f.SocketData(0, 0)
	near3(t, "scaled socket", rig.Vec3{float64(sock[3]), float64(sock[7]), float64(sock[11])}, scene(0, 0, 190).Scale(2), 1e-5)
	skinned, _, err := m.GLTF.Mesh.SkinPalette(f.Palette(0, 0), m.GLTF.InverseBind)
	if err != nil {
		t.Fatal(err)
	}
	near3(t, "scaled head vertex", rig.Vec3{float64(skinned[2][0]), float64(skinned[2][1]), float64(skinned[2][2])}, scene(50, 10, 180).Scale(2), 1e-5)
	if e := m.Size().Extent(); math.Abs(e[1]-1.6) > 1e-5 {
		t.Errorf("scaled size %v", m.Size())
	}
	// A socket keeps a joint no vertex uses.
	m, _ = bakeModel(t, path, Settings{DeformingOnly: true, Sockets: []ManifestSocket{{Name: "foot", Bone: "IK_foot"}}})
	if len(m.GLTF.Joints) != 4 {
		t.Errorf("a socket's joint was dropped: %v", m.GLTF.JointNames)
	}
}

// A model whose Attack lasts a day asks for 2.6 M frames at 30 fps (about 660 MB
// of palettes): every bake of it (bake, and so view and bat, which bake through
// Bytes and Bake) is refused before sampling, unless the limit is lifted.
func TestBakeSizeLimit(t *testing.T) {
	path := blenderModelAttack(t, 86400)
	m, err := Load(path, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, run := range []func() error{
		func() error { _, err := bake.Bytes(m.Job); return err },
		func() error { _, err := bake.Bake(m.Job); return err },
		func() error { return bake.BakeFile(filepath.Join(t.TempDir(), "x.bpat"), m.Job) },
	} {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		err := run()
		runtime.ReadMemStats(&b)
		n = max(n, b.TotalAlloc-a.TotalAlloc)
		if err == nil || !strings.Contains(err.Error(), "256 MB limit") || !strings.Contains(err.Error(), "Job.MaxBytes") {
			t.Errorf("err = %v; want the size limit", err)
		}
	}
	if n > 50<<20 {
		t.Errorf("allocated %d MiB before refusing", n>>20)
	}
	// The limit lifted (Settings.NoLimits): the job says what it would write
	// without refusing (bake's TestMaxBytes checks that a lifted job plans).
	m, err = Load(path, Settings{NoLimits: true})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := m.Job.Output(); err != nil || m.Job.MaxBytes >= 0 || o.Bytes <= bake.DefaultMaxBytes {
		t.Errorf("with the limit lifted: MaxBytes %d, output %+v, %v", m.Job.MaxBytes, o, err)
	}
}

// Two animations of one name cannot both be baked under it: the second bakes
// as Walk_2 (docs/formats/gltf.md §3), and a manifest names them as it likes,
// by index ("#1").
func TestSourceByIndex(t *testing.T) {
	path := blenderModel(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"name":"Attack"`, `"name":"Walk"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, Settings{}); err != nil {
		t.Fatal(err)
	}
	_, f0 := bakeModel(t, path, Settings{})
	if c := f0.Clips(); len(c) != 2 || c[0].Name != "Walk" || c[1].Name != "Walk_2" {
		t.Fatalf("two Walks bake as %+v; want Walk and Walk_2", c)
	}
	mf := &Manifest{Clips: []ManifestClip{{Name: "walk", Source: "#0"}, {Name: "attack", Source: "#1", Loops: new(false)}}}
	_, f := bakeModel(t, path, Settings{Manifest: mf, FPS: 24})
	if c := f.Clips(); len(c) != 2 || c[0].Name != "walk" || c[0].FrameCount != 24 || c[1].Name != "attack" || c[1].FrameCount != 20 {
		t.Errorf("clips %+v", c)
	}
	bad := &Manifest{Clips: []ManifestClip{{Name: "x", Source: "#2"}}}
	if _, err := Load(path, Settings{Manifest: bad}); err == nil || !strings.Contains(err.Error(), "#0 to #1") {
		t.Errorf("source #2: %v", err)
	}
}

// A manifest says what it means: fps 0 is refused (it read as "no fps", 30), and
// a range past the source's end is refused with the source's length (it baked a
// held pose for as long as asked).
func TestManifestRefusesWhatItCannotMean(t *testing.T) {
	path := blenderModel(t)
	dir := t.TempDir()
	for _, c := range []struct{ yaml, want string }{
		{"fps: 0\n", "fps 0 is outside [0.001, 1e+06]"},
		{"clips:\n  - name: walk\n    source: Walk\n    fps: 0\n", "line 2: clip: fps 0 is outside"},
		{"clips:\n  - name: walk\n    source: Walk\n    end: 99\n", `runs past the end of "Walk", which is 1.042 s long`},
	} {
		mp := filepath.Join(dir, "m.yaml")
		if err := os.WriteFile(mp, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		mf, err := ReadManifest(mp)
		if err == nil {
			_, err = Load(path, Settings{Manifest: mf})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.yaml, err, c.want)
		}
	}
}
