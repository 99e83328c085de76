package bat

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// movedMeshModel writes a glTF file shaped like Blender's export of a character
// whose mesh object was moved relative to its armature, and returns its path and
// the mesh's vertices, joints and weights as written:
//
//   - node 0 "Armature": turned −90° about x and scaled 0.01 (bones in
//     centimetres, Z up), the parent of the joints and of the mesh node;
//   - joints "Hips" (0,0,100) → "Spine" (0,0,50) → "Head" (0,0,30);
//   - node 4 "Body", the skinned mesh, moved by the artist to (50,0,0), with
//     inverse bind matrices inverse(G(joint))·G(Body), as Blender writes them;
//   - "Walk": the hips walk 10 cm forward per key (root motion) while the spine
//     bends about x; "Wave": the head turns about z while the hips rise.
//
// Vertices 0–3 follow one bone each; 4–6 blend two bones.
func movedMeshModel(t *testing.T) (path string, pos [][3]float64, joints [][4]int, weights [][4]float64) {
	t.Helper()
	nodes := []map[string]any{
		{"name": "Armature", "rotation": []float64{-math.Sqrt2 / 2, 0, 0, math.Sqrt2 / 2}, "scale": []float64{0.01, 0.01, 0.01}, "children": []int{1, 4}},
		{"name": "Hips", "translation": []float64{0, 0, 100}, "children": []int{2}},
		{"name": "Spine", "translation": []float64{0, 0, 50}, "children": []int{3}},
		{"name": "Head", "translation": []float64{0, 0, 30}},
		{"name": "Body", "mesh": 0, "skin": 0, "translation": []float64{50, 0, 0}},
	}
	arm := rig.Transform{Rotation: rig.QuatFromAxisAngle(rig.Vec3{1, 0, 0}, -math.Pi/2), Scale: rig.Vec3{0.01, 0.01, 0.01}}.Matrix()
	hips := arm.Mul(rig.Translate(rig.Vec3{0, 0, 100}))
	spine := hips.Mul(rig.Translate(rig.Vec3{0, 0, 50}))
	head := spine.Mul(rig.Translate(rig.Vec3{0, 0, 30}))
	body := arm.Mul(rig.Translate(rig.Vec3{50, 0, 0}))

	var gb testfiles.GLTFBuffer
	add, floats := gb.Add, testfiles.Float32s
	var ibm []float64
	for _, g := range []rig.Mat4{hips, spine, head} {
		inv, _ := g.Inverse()
		m := inv.Mul(body).Transpose() // glTF stores matrices column-major
		ibm = append(ibm, m[:]...)
	}
	ibmAcc := add(floats(ibm...), 3, "MAT4", 5126, nil)
	// The mesh's own space is the armature's shifted by −50 in x (Body's move).
	pos = [][3]float64{{-50, 0, 100}, {-40, 0, 150}, {-50, 10, 180}, {-60, 0, 150}, {-45, 5, 125}, {-55, -5, 165}, {-50, 8, 140}}
	joints = [][4]int{{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {1, 2, 0, 0}, {1, 0, 0, 0}}
	weights = [][4]float64{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {0.3, 0.7, 0, 0}, {0.75, 0.25, 0, 0}}
	var pv, wv []float64
	var jb []byte
	for k := range pos {
		pv = append(pv, pos[k][:]...)
		wv = append(wv, weights[k][:]...)
		for _, j := range joints[k] {
			jb = append(jb, byte(j))
		}
	}
	posAcc := add(floats(pv...), len(pos), "VEC3", 5126, map[string]any{"min": []float64{-60, -5, 100}, "max": []float64{-40, 10, 180}})
	jAcc := add(jb, len(pos), "VEC4", 5121, nil)
	wAcc := add(floats(wv...), len(pos), "VEC4", 5126, nil)
	var idx []byte
	for _, i := range []uint16{0, 1, 2, 0, 2, 3, 4, 5, 6} {
		idx = binary.LittleEndian.AppendUint16(idx, i)
	}
	indices := add(idx, 9, "SCALAR", 5123, nil)

	quat := func(axis rig.Vec3, a float64) []float64 {
		q := rig.QuatFromAxisAngle(axis, a)
		return q[:]
	}
	var walkT, walkHips, walkSpine, waveT, waveHead, waveHips []float64
	for k := 1; k <= 25; k++ {
		walkT = append(walkT, float64(k)/24)
		walkHips = append(walkHips, 0, -10*float64(k-1), 100+3*math.Sin(float64(k)))
		walkSpine = append(walkSpine, quat(rig.Vec3{1, 0, 0}, 0.4*math.Sin(float64(k)/4))...)
	}
	for k := range 13 {
		waveT = append(waveT, float64(k)/24)
		waveHead = append(waveHead, quat(rig.Vec3{0, 0, 1}, 0.1*float64(k))...)
		waveHips = append(waveHips, 20, 0, 100+2*float64(k))
	}
	wt := add(floats(walkT...), 25, "SCALAR", 5126, map[string]any{"min": []float64{walkT[0]}, "max": []float64{walkT[24]}})
	wh := add(floats(walkHips...), 25, "VEC3", 5126, nil)
	ws := add(floats(walkSpine...), 25, "VEC4", 5126, nil)
	vt := add(floats(waveT...), 13, "SCALAR", 5126, map[string]any{"min": []float64{0}, "max": []float64{waveT[12]}})
	vh := add(floats(waveHead...), 13, "VEC4", 5126, nil)
	vp := add(floats(waveHips...), 13, "VEC3", 5126, nil)
	channel := func(s, node int, path string) map[string]any {
		return map[string]any{"sampler": s, "target": map[string]any{"node": node, "path": path}}
	}
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0}}},
		"nodes":  nodes,
		"skins":  []any{map[string]any{"joints": []int{1, 2, 3}, "inverseBindMatrices": ibmAcc}},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{
			"attributes": map[string]any{"POSITION": posAcc, "JOINTS_0": jAcc, "WEIGHTS_0": wAcc}, "indices": indices}}}},
		"animations": []any{
			map[string]any{"name": "Walk", "samplers": []any{map[string]any{"input": wt, "output": wh}, map[string]any{"input": wt, "output": ws}},
				"channels": []any{channel(0, 1, "translation"), channel(1, 2, "rotation")}},
			map[string]any{"name": "Wave", "samplers": []any{map[string]any{"input": vt, "output": vh}, map[string]any{"input": vt, "output": vp}},
				"channels": []any{channel(0, 3, "rotation"), channel(1, 1, "translation")}},
		},
	}
	b, err := json.Marshal(gb.Finish(doc))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "moved_mesh.gltf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, pos, joints, weights
}

// The add-on's space, written out by hand: Blender's glTF importer puts glTF's
// (x, y, z) at Blender's (x, −z, y); the add-on's defaults negate Blender's y
// (unit_invert_y) and multiply by unit_scale 100. So its (a, b, c) is glTF's
// 100·(x, z, y), and back.
func toAddon(v [3]float64) [3]float64   { return [3]float64{100 * v[0], 100 * v[2], 100 * v[1]} }
func fromAddon(v [3]float64) [3]float64 { return [3]float64{v[0] / 100, v[2] / 100, v[1] / 100} }

// addonDecode rebuilds vertex k at texture row `row` as the add-on's material
// functions do with its default textures (its wiki, "bat_ue_02" to "bat_ue_06"):
// the vertex's skin texel (TEXCOORD_1) gives four bone indices and the texel below
// their weights; for each bone the position texture's row 0 is its pivot p, row
// `row` its offset d, the rotation texture's row `row` an axis and an angle in turns
// (1 = 360°, not remapped); the vertex is rotated about p, offset by d, weighted
// and summed. v is the vertex in the add-on's space. Rows are counted from the top
// of the files (the add-on's unit_invert_v).
func addonDecode(posT, rotT, skinT *Texture, uv [2]float32, v [3]float64, row int) [3]float64 {
	x := int(float64(uv[0]) * float64(skinT.Width))
	y := int(float64(uv[1]) * float64(skinT.Height))
	texel := func(t *Texture, x, y int) []float32 {
		i := (y*t.Width + x) * t.Channels
		return t.Data[i : i+t.Channels]
	}
	idx, w := texel(skinT, x, y), texel(skinT, x, y+1)
	var out [3]float64
	for i := range 4 {
		if w[i] == 0 {
			continue
		}
		b := int(math.Round(float64(idx[i])))
		p, d, r := texel(posT, b, 0), texel(posT, b, row), texel(rotT, b, row)
		axis := [3]float64{float64(r[0]), float64(r[1]), float64(r[2])}
		n := math.Sqrt(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2])
		angle := float64(r[3]) * 2 * math.Pi
		rel := [3]float64{v[0] - float64(p[0]), v[1] - float64(p[1]), v[2] - float64(p[2])}
		rot := rel
		if n > 0 { // Rodrigues' rotation formula
			k := [3]float64{axis[0] / n, axis[1] / n, axis[2] / n}
			c, s := math.Cos(angle), math.Sin(angle)
			dot := k[0]*rel[0] + k[1]*rel[1] + k[2]*rel[2]
			cross := [3]float64{k[1]*rel[2] - k[2]*rel[1], k[2]*rel[0] - k[0]*rel[2], k[0]*rel[1] - k[1]*rel[0]}
			for a := range 3 {
				rot[a] = rel[a]*c + cross[a]*s + k[a]*dot*(1-c)
			}
		}
		for a := range 3 {
			out[a] += float64(w[i]) * (rot[a] + float64(p[a]) + float64(d[a]))
		}
	}
	return out
}

// mat helpers on gltfref's row-major [16]float64.
func mul16(a, b [16]float64) [16]float64 {
	var m [16]float64
	for r := range 4 {
		for c := range 4 {
			for k := range 4 {
				m[r*4+c] += a[r*4+k] * b[k*4+c]
			}
		}
	}
	return m
}

func apply16(m [16]float64, v [3]float64) [3]float64 {
	return [3]float64{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2] + m[3],
		m[4]*v[0] + m[5]*v[1] + m[6]*v[2] + m[7],
		m[8]*v[0] + m[9]*v[1] + m[10]*v[2] + m[11],
	}
}

// skinRef is glTF's skinning of one vertex, Σ w·G(joint)·IBM·v, from gltfref.
func skinRef(pal, ibm [][16]float64, v [3]float64, j [4]int, w [4]float64) [3]float64 {
	var out [3]float64
	sum := w[0] + w[1] + w[2] + w[3] // glTF's weights sum to 1; some files' do not
	for i := range 4 {
		if w[i] == 0 {
			continue
		}
		p := apply16(mul16(pal[j[i]], ibm[j[i]]), v)
		for a := range 3 {
			out[a] += w[i] / sum * p[a]
		}
	}
	return out
}

// rigidOf returns m without scale: each of its 3×3 columns normalized.
func rigidOf(m [16]float64) [16]float64 {
	for c := range 3 {
		n := math.Sqrt(m[c]*m[c] + m[4+c]*m[4+c] + m[8+c]*m[8+c])
		for r := range 3 {
			m[r*4+c] /= n
		}
	}
	return m
}

func inverseRigid(m [16]float64) [16]float64 {
	var o [16]float64
	for r := range 3 {
		for c := range 3 {
			o[r*4+c] = m[c*4+r]
		}
	}
	for r := range 3 {
		o[r*4+3] = -(o[r*4]*m[3] + o[r*4+1]*m[7] + o[r*4+2]*m[11])
	}
	o[15] = 1
	return o
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// addonCase is a glTF model and its skinned mesh as the file has it.
type addonCase struct {
	path    string
	pos     [][3]float64
	joints  [][4]int
	weights [][4]float64
	ibm     [][16]float64
}

// checkAddonDecode bakes c with the gametools preset (opt.GameTools), decodes the
// files as the add-on's materials do and compares every vertex at every clip's
// first, middle and last frame and at the padding rows with what gltfref puts
// there: the true skinning (Σ w·G(joint)·IBM·v, with the file's IBMs and
// vertices), and the add-on's formula evaluated on gltfref's joints (for a
// reference that is not the bind pose, blended vertices follow that formula, not
// skinning). It returns the worst distances from each, in metres.
func checkAddonDecode(t *testing.T, c addonCase, g AddonSettings) (fromSkin, fromFormula float64) {
	t.Helper()
	m, err := gltfbake.Load(c.path, gltfbake.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := FromModel(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, err := Write(dir, in, Options{Preset: GameTools, GameTools: &g})
	if err != nil {
		t.Fatal(err)
	}
	r := out.Report
	read := func(name, enc string, ch int) *Texture {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		tx, err := DecodeTexture(name, b, enc, ch)
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	posT, rotT, skinT := read(r.Position.File, Float32, 3), read(r.Rotation.File, Float32, 4), read(r.Skin.File, Float32, 4)
	mb, err := os.ReadFile(filepath.Join(dir, r.Mesh))
	if err != nil {
		t.Fatal(err)
	}
	mpos, uv, err := ReadMesh(r.Mesh, mb)
	if err != nil || len(mpos) != len(c.pos) {
		t.Fatalf("mesh: %v, %d vertices, want %d", err, len(mpos), len(c.pos))
	}
	ref, err := gltfref.Load(c.path)
	if err != nil {
		t.Fatal(err)
	}
	anims := ref.Animations()
	// Each row's (animation, time), from the layout the add-on writes.
	type at struct {
		anim int
		t    float64
	}
	var frames [][]at
	for ai, a := range anims {
		var fs []at
		for _, tm := range gltfref.FrameTimes(a.Duration-a.Start, gltfbake.DefaultFPS, r.Clips[ai].Loops) {
			fs = append(fs, at{ai, a.Start + tm})
		}
		frames = append(frames, fs)
	}
	first, last := frames[0][0], frames[len(frames)-1][len(frames[len(frames)-1])-1]
	refAt := first
	switch g.Reference {
	case RefEnd:
		refAt = last
	case RefBind:
		refAt = at{-1, 0}
	}
	rows := map[int]at{}
	for ci, rc := range r.Clips {
		if ci == 0 && g.RefPadding && rc.FirstRow != 2 {
			t.Errorf("clip %s starts at row %d; the add-on's first clip starts at row 2", rc.Name, rc.FirstRow)
		}
		if rc.Frames != len(frames[ci]) {
			t.Fatalf("clip %s: %d frames, gltfref's times %d", rc.Name, rc.Frames, len(frames[ci]))
		}
		for _, f := range []int{0, rc.Frames / 2, rc.Frames - 1} {
			rows[rc.FirstRow+f] = frames[ci][f]
		}
	}
	if g.RefPadding {
		rows[1], rows[r.Rows-1] = last, first
	}
	palette := func(a at) [][16]float64 { return ref.Palette(0, a.anim, a.t) }
	refPal := palette(refAt)
	// The mesh stands in the reference pose (row 0 holds that pose's absolute
	// bones, which the materials only read as pivots).
	for k := range c.pos {
		want := skinRef(refPal, c.ibm, c.pos[k], c.joints[k], c.weights[k])
		got := [3]float64{float64(mpos[k][0]), float64(mpos[k][1]), float64(mpos[k][2])}
		fromSkin, fromFormula = max(fromSkin, dist(got, want)), max(fromFormula, dist(got, want))
	}
	for row, a := range rows {
		pal := palette(a)
		for k := range c.pos {
			want := skinRef(pal, c.ibm, c.pos[k], c.joints[k], c.weights[k])
			// The add-on's formula: the reference-posed vertex moved by each
			// bone's rigid change since the reference, weighted.
			vRef := skinRef(refPal, c.ibm, c.pos[k], c.joints[k], c.weights[k])
			var formula [3]float64
			sum := c.weights[k][0] + c.weights[k][1] + c.weights[k][2] + c.weights[k][3]
			for i := range 4 {
				if w := c.weights[k][i] / sum; w != 0 {
					j := c.joints[k][i]
					p := apply16(mul16(rigidOf(pal[j]), inverseRigid(rigidOf(refPal[j]))), vRef)
					for x := range 3 {
						formula[x] += w * p[x]
					}
				}
			}
			v := toAddon([3]float64{float64(mpos[k][0]), float64(mpos[k][1]), float64(mpos[k][2])})
			got := fromAddon(addonDecode(posT, rotT, skinT, uv[k], v, row))
			fromSkin, fromFormula = max(fromSkin, dist(got, want)), max(fromFormula, dist(got, formula))
		}
	}
	return fromSkin, fromFormula
}

// TestGameToolsMovedMesh is issue 31's case: a Blender-style character whose
// mesh object was moved relative to its scaled, turned armature, with root
// motion. Decoded the add-on's way, the gametools textures must put every vertex
// where glTF's skinning puts it (gltfref, from the file alone) to 1e-4 of the
// character's 0.8 m, at every clip's first, middle and last frame, at the padding
// rows and at the reference row: no jump when a clip starts. With the add-on's
// default reference (the first frame) the one-bone vertices are exact and the
// blended ones follow the add-on's formula; with --reference bind all are exact.
func TestGameToolsMovedMesh(t *testing.T) {
	path, pos, joints, weights := movedMeshModel(t)
	ref, err := gltfref.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := addonCase{path: path, pos: pos, joints: joints, weights: weights, ibm: ref.InverseBind(0)}
	const tol = 1e-4 * 0.8
	for _, reference := range []string{RefStart, RefEnd, RefBind} {
		g := AddonDefaults()
		g.Reference = reference
		fromSkin, fromFormula := checkAddonDecode(t, c, g)
		t.Logf("reference %s: worst vertex %.3g m from glTF skinning, %.3g m from the add-on's formula", reference, fromSkin, fromFormula)
		if fromFormula > tol {
			t.Errorf("reference %s: a decoded vertex is %.3g m from the add-on's formula on gltfref's joints, more than %.3g", reference, fromFormula, tol)
		}
		if reference == RefBind && fromSkin > tol {
			t.Errorf("reference bind: a decoded vertex is %.3g m from glTF skinning, more than %.3g", fromSkin, tol)
		}
	}
}

// TestGameToolsSharedModels decodes the gametools textures of the shared glTF
// models the add-on's way and compares them with gltfref's joints (G(joint) from
// the file alone) applied to the mesh and inverse bind matrices bonebake read
// (placed in the scene, docs/formats/gltf.md §1: their product is the file's).
func TestGameToolsSharedModels(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes every vertex of every shared model in float64")
	}
	for _, name := range []string{"Fox.glb", "CesiumMan.gltf", "RiggedFigure.glb"} {
		p, ok := testfiles.Find("gltf", name)
		if !ok {
			continue
		}
		m, err := gltfbake.Load(p, gltfbake.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		in, err := FromModel(m)
		if err != nil {
			t.Fatal(err)
		}
		c := addonCase{path: p}
		for k, v := range in.Mesh.Positions {
			c.pos = append(c.pos, [3]float64{float64(v[0]), float64(v[1]), float64(v[2])})
			var j [4]int
			var w [4]float64
			for i := range 4 {
				j[i], w[i] = int(in.Mesh.Joints[k][i]), float64(in.Mesh.Weights[k][i])
			}
			c.joints, c.weights = append(c.joints, j), append(c.weights, w)
		}
		for _, ibm := range in.InverseBind {
			c.ibm = append(c.ibm, [16]float64(ibm))
		}
		lo, hi := bounds(in.Mesh.Positions, false)
		size := hi.Sub(lo).Len()
		for _, reference := range []string{RefStart, RefBind} {
			g := AddonDefaults()
			g.Reference = reference
			fromSkin, fromFormula := checkAddonDecode(t, c, g)
			t.Logf("%s reference %s: worst vertex %.3g m from glTF skinning, %.3g m from the add-on's formula (size %.3g m)", name, reference, fromSkin, fromFormula, size)
			if fromFormula > 1e-4*size || (reference == RefBind && fromSkin > 1e-4*size) {
				t.Errorf("%s reference %s: %.3g m from skinning, %.3g m from the formula: more than 1e-4 of %.3g m", name, reference, fromSkin, fromFormula, size)
			}
		}
	}
}
