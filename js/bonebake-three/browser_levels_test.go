package bonebakethree

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/bpsm"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// soldierSockets: a socket on the Soldier's right hand, 10 units (the bone's
// space carries the armature's 0.01 scale: 10 cm) along the hand's y axis,
// for the props the tests and the strategy example attach.
var soldierSockets = []gltfbake.ManifestSocket{{Name: "hand_r", Bone: "mixamorig:RightHand", Offset: [3]float32{0, 10, 0}}}

// writeSnapshot writes m's far-LOD snapshot (bake --snapshot's) to path and
// reads it back.
func writeSnapshot(m *gltfbake.Model, path string) (*bpsm.File, error) {
	snap, err := m.Snapshot(gltfbake.SnapshotSettings{LOD: -1})
	if err != nil {
		return nil, err
	}
	if _, err := snap.Write(path, m.Job); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return bpsm.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
}

var baked struct {
	once   sync.Once
	root   string
	err    error
	mu     sync.Mutex
	models map[string]*bakedModel
}

// bakedRoot is the folder the test server serves under /baked/: the models
// bakeModel bakes, each in a folder of its name.
func bakedRoot(t testing.TB) string {
	t.Helper()
	baked.once.Do(func() {
		baked.root, baked.err = os.MkdirTemp("", "bonebake-three-baked-")
		baked.models = map[string]*bakedModel{}
	})
	if baked.err != nil {
		t.Fatal(baked.err)
	}
	return baked.root
}

type bakedModel struct {
	model *gltfbake.Model
	file  *bpat.File
}

// bakeModel bakes the glTF model rel (under testfiles' "gltf") with settings
// into /baked/name/model.glb and model.bpat, once per name.
func bakeModel(t *testing.T, name, rel string, s gltfbake.Settings) *bakedModel {
	t.Helper()
	glb, ok := testfiles.Find("gltf", rel)
	if !ok {
		t.Skipf("%s is neither in testdata nor in ../shared/testdata", rel)
	}
	root := bakedRoot(t)
	baked.mu.Lock()
	defer baked.mu.Unlock()
	if b := baked.models[name]; b != nil {
		return b
	}
	m, err := gltfbake.Load(glb, s)
	if err != nil {
		t.Fatalf("baking %s: %v", rel, err)
	}
	b, err := m.Bytes()
	if err != nil {
		t.Fatalf("baking %s: %v", rel, err)
	}
	dir := filepath.Join(root, name)
	glbBytes, err := os.ReadFile(glb)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "model.glb"), glbBytes, 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "model.bpat"), b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err := bpat.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
	if err != nil {
		t.Fatal(err)
	}
	bm := &bakedModel{model: m, file: f}
	baked.models[name] = bm
	return bm
}

// The page's front camera: W×H pixels onto [x0,x1]×[y0,y1] metres, looking down −z.
const pageW, pageH, pageX0, pageX1, pageY0, pageY1 = 240.0, 240.0, -1.2, 1.2, -0.3, 2.1

func pixelOf(p rig.Vec3) (x, y float64) {
	return (p[0] - pageX0) / (pageX1 - pageX0) * pageW, (pageY1 - p[1]) / (pageY1 - pageY0) * pageH
}

// pixelBox is the pixel box (x0, y0, x1, y1; y down) of points as the page's camera sees them.
func pixelBox(t *testing.T, points []rig.Vec3) [4]float64 {
	t.Helper()
	if len(points) == 0 {
		t.Fatal("no vertices to project")
	}
	box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range points {
		x, y := pixelOf(p)
		box = [4]float64{min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y)}
	}
	return box
}

// skinnedVertices skins m's mesh on the CPU with f's palette at clip and
// phase (Σ w · palette · inverse bind · position, docs/formats/gltf.md §1),
// each vertex on its `keep` heaviest influences renormalized (4: all of them;
// 2: the reduced level of docs/runtime.md §6.4).
func skinnedVertices(t *testing.T, f *bpat.File, m *gltf.Model, clip string, phase float64, keep int) []rig.Vec3 {
	t.Helper()
	c := f.ClipIndex(clip)
	if c < 0 || m.Mesh == nil {
		t.Fatalf("no clip %s, or no mesh", clip)
	}
	pal := make([]float32, f.BoneCount()*16)
	f.Sample(c, phase, pal, nil)
	skin := make([]rig.Mat4, f.BoneCount())
	for b := range skin {
		var p rig.Mat4
		for i := range 16 {
			p[i] = float64(pal[b*16+i])
		}
		skin[b] = p.Mul(m.InverseBind[b])
	}
	out := make([]rig.Vec3, len(m.Mesh.Positions))
	type inf struct {
		j int
		w float64
	}
	for v, pos := range m.Mesh.Positions {
		var infs []inf
		for k, j := range m.Mesh.Joints[v] {
			if w := float64(m.Mesh.Weights[v][k]); w > 0 {
				infs = append(infs, inf{int(j), w})
			}
		}
		slices.SortStableFunc(infs, func(a, b inf) int { return cmp.Compare(b.w, a.w) })
		infs = infs[:min(keep, len(infs))]
		sum := 0.0
		for _, x := range infs {
			sum += x.w
		}
		var q rig.Vec3
		for _, x := range infs {
			q = q.Add(skin[x.j].TransformPoint(rig.Vec3{float64(pos[0]), float64(pos[1]), float64(pos[2])}).Scale(x.w / sum))
		}
		out[v] = q
	}
	return out
}

// snapshotVertices are the positions the snapshot file holds for clip at
// the floor frame of phase by its own frame count (docs/runtime.md §6.4), and
// that frame's index in the file.
func snapshotVertices(t *testing.T, s *bpsm.File, f *bpat.File, clip string, phase float64) ([]rig.Vec3, int) {
	t.Helper()
	sc, c := s.ClipIndex(clip), f.ClipIndex(clip)
	if sc < 0 || c < 0 {
		t.Fatalf("no clip %s in the snapshot or the BPAT file", clip)
	}
	n := s.Clips()[sc].FrameCount
	frame := bpat.Resolve(phase, int(n), f.Clips()[c].Loops).Frame
	out := make([]rig.Vec3, s.VertexCount())
	for i := range out {
		p := s.Vertex(sc, frame, i).Position
		out[i] = rig.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	return out, int(s.Clips()[sc].FrameOffset) + frame
}

func near(a, b [4]float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// TestBrowserLevelsCullingSockets runs, in one page, the checks of the
// levels of detail, of culling and of props on sockets.
func TestBrowserLevelsCullingSockets(t *testing.T) {
	ctx := openPage(t)
	t.Run("levels", func(t *testing.T) { testLevels(t, ctx) })
	t.Run("culling", func(t *testing.T) { testCulling(t, ctx) })
	t.Run("socket props", func(t *testing.T) { testSocketProps(t, ctx) })
}

// testLevels: one unit running, drawn at each level in turn at the
// same moment (the bands moved across it, its clock untouched), shows the
// phase its clock gives at every level (no pop), and each level's picture is
// the Go reference's at that phase: the full skin, the skin on each vertex's
// two heaviest influences, and the snapshot file's vertices at the floor
// frame of the phase.
func testLevels(t *testing.T, ctx context.Context) {
	if !eval[bool](t, ctx, `window.bonebakeTest.load("soldier", "/model/Soldier.glb", "/model/soldier.bpat", "/model/soldier_minimal.bpsm")`) {
		t.Fatal("the page did not load the soldier")
	}
	const clip, phase0, rate, at = "Run", 0.1, 0.37, 1.5
	phase := phase0 + rate*at
	got := eval[[]struct {
		Level, Frame      int
		Phase             float64
		X0, Y0, X1, Y1, N float64
	}](t, ctx, fmt.Sprintf(`window.bonebakeTest.levels("soldier", %q, %v, %v, %v)`, clip, phase0, rate, at))
	if len(got) != 3 {
		t.Fatalf("%d levels drawn", len(got))
	}
	f, m := soldier.file, soldier.model.GLTF
	snap, frame := snapshotVertices(t, soldier.snapshot, f, clip, phase)
	want := [3][4]float64{
		pixelBox(t, skinnedVertices(t, f, m, clip, phase, 4)),
		pixelBox(t, skinnedVertices(t, f, m, clip, phase, 2)),
		pixelBox(t, snap),
	}
	for l, g := range got {
		box := [4]float64{g.X0, g.Y0, g.X1, g.Y1}
		t.Logf("level %d: phase %.4f, pixel box %v, %v pixels; reference %.1f", g.Level, g.Phase, box, g.N, want[l])
		if g.Level != l {
			t.Errorf("the crowd drew the unit at level %d; the bands put it at %d", g.Level, l)
		}
		if math.Abs(g.Phase-phase) > 1e-9 {
			t.Errorf("level %d: the unit shows phase %v; its clock gives %v", l, g.Phase, phase)
		}
		// The snapshot's 300 triangles leave thin tips (toes, fingers) that
		// cover no pixel centre within a pixel or two of their vertices.
		tol := 2.0
		if l == 2 {
			tol = 3
		}
		if g.N < 300 || !near(box, want[l], tol) {
			t.Errorf("level %d: pixel box %v (%v pixels); the Go reference's vertices span %.1f", l, box, g.N, want[l])
		}
	}
	if got[2].Frame != frame {
		t.Errorf("the snapshot level drew file frame %d; the floor frame of phase %v is %d", got[2].Frame, phase, frame)
	}
	// The reduced and snapshot references differ from the full one, or the
	// comparison would not tell the levels apart.
	if near(want[0], want[2], 0.5) {
		t.Logf("the snapshot's box is within half a pixel of the full mesh's: %v, %v", want[2], want[0])
	}
}

// testCulling: of two units, one 5 m in front of the camera and one 5
// m behind it, update(time, renderer, camera) gives the one behind no
// instance: the renderer draws one unit's triangles, and the one in front
// still covers its pixels; without the camera both are drawn.
func testCulling(t *testing.T, ctx context.Context) {
	if !eval[bool](t, ctx, `window.bonebakeTest.load("soldier", "/model/Soldier.glb", "/model/soldier.bpat", "")`) {
		t.Fatal("the page did not load the soldier")
	}
	type draw struct {
		Instances []int
		Triangles float64
		Pixels    float64
		Levels    []int
	}
	got := eval[struct {
		Culled, All draw
		PerUnit     float64
	}](t, ctx, `window.bonebakeTest.culling("soldier")`)
	t.Logf("culled: %+v; all: %+v; one unit: %v triangles", got.Culled, got.All, got.PerUnit)
	sum := func(s []int) (n int) {
		for _, x := range s {
			n += x
		}
		return n
	}
	if sum(got.Culled.Instances) != 1 || got.Culled.Triangles != got.PerUnit || !slices.Equal(got.Culled.Levels, []int{0, -1}) {
		t.Errorf("culled: %v instances, %v triangles, levels %v; want 1 instance (the unit in front, full), %v triangles", got.Culled.Instances, got.Culled.Triangles, got.Culled.Levels, got.PerUnit)
	}
	if sum(got.All.Instances) != 2 || got.All.Triangles != 2*got.PerUnit {
		t.Errorf("without the camera: %v instances, %v triangles; want 2 and %v", got.All.Instances, got.All.Triangles, 2*got.PerUnit)
	}
	if got.Culled.Pixels < 500 || got.Culled.Pixels != got.All.Pixels {
		t.Errorf("the unit in front covers %v pixels culled, %v not: it must draw, and the same", got.Culled.Pixels, got.All.Pixels)
	}
}

// testSocketProps: cubes attached to a unit's hand socket, drawn from
// the posed texture in the unit's frame, stand where the Go socket matrix
// (bpat.File.Sample's socket rows, the data registry.Species.Socket blends) puts
// them, in the unit's placement: at the socket and at offsets along its
// axes, within a pixel (1 cm); and, unscaled, where that matrix with its
// scale taken out puts them.
func testSocketProps(t *testing.T, ctx context.Context) {
	if !eval[bool](t, ctx, `window.bonebakeTest.load("soldier", "/model/Soldier.glb", "/model/soldier.bpat", "")`) {
		t.Fatal("the page did not load the soldier")
	}
	f := soldier.file
	s := f.SocketIndex("hand_r")
	if s < 0 {
		t.Fatal("the baked soldier has no hand_r socket")
	}
	const x, z, heading = 0.2, -0.3, 0.6
	for _, tc := range []struct {
		clip     string
		phase    float64
		unscaled bool
		size     float64
		offsets  [][3]float64
	}{
		{"Run", 0.3, false, 4, [][3]float64{{0, 0, 0}, {30, 0, 0}, {0, 30, 0}, {0, 0, 30}}},
		{"Walk", 0.65, true, 0.04, [][3]float64{{0, 0, 0}, {0.3, 0, 0}, {0, -0.3, 0}}},
	} {
		got := eval[[]struct{ X, Y, N float64 }](t, ctx, fmt.Sprintf(`window.bonebakeTest.socket("soldier", "hand_r", %q, %v, %v, %v, %v, %v, %v, %s)`,
			tc.clip, tc.phase, x, z, heading, tc.unscaled, tc.size, jsonOf(tc.offsets)))
		sock := make([]float32, 12*len(f.Sockets()))
		f.Sample(f.ClipIndex(tc.clip), tc.phase, make([]float32, 16*f.BoneCount()), sock)
		var m [3][4]float64
		for r := range 3 {
			for c := range 4 {
				m[r][c] = float64(sock[12*s+4*r+c])
			}
		}
		if tc.unscaled {
			for c := range 3 {
				n := math.Sqrt(m[0][c]*m[0][c] + m[1][c]*m[1][c] + m[2][c]*m[2][c])
				for r := range 3 {
					m[r][c] /= n
				}
			}
		}
		sn, cs := math.Sincos(heading)
		for k, o := range tc.offsets {
			var p rig.Vec3
			for r := range 3 {
				p[r] = m[r][0]*o[0] + m[r][1]*o[1] + m[r][2]*o[2] + m[r][3]
			}
			w := rig.Vec3{cs*p[0] + sn*p[2] + x, p[1], -sn*p[0] + cs*p[2] + z} // the unit's placement: about +y, from +z toward +x
			wx, wy := pixelOf(w)
			g := got[k]
			t.Logf("%s %v unscaled=%v offset %v: prop at pixel (%.2f, %.2f) over %v pixels; Go's socket (%.2f, %.2f)", tc.clip, tc.phase, tc.unscaled, o, g.X, g.Y, g.N, wx, wy)
			if g.N < 4 || math.Hypot(g.X-wx, g.Y-wy) > 1 {
				t.Errorf("%s %v unscaled=%v offset %v: the prop's %v pixels centre on (%.2f, %.2f); Go's socket matrix puts it at (%.2f, %.2f)", tc.clip, tc.phase, tc.unscaled, o, g.N, g.X, g.Y, wx, wy)
			}
		}
	}
}

// TestBrowserReducedRig: Xbot.glb, 67 joints, baked to 52 bones (its 15
// unweighted joints dropped), draws from GLTFLoader's own scene as the Go
// reference skins bonebake's reduced mesh; baked to 40 bones (leaf joints
// merged too) it draws so given the palette's bone names.
func TestBrowserReducedRig(t *testing.T) {
	full := bakeModel(t, "xbot", "threejs/Xbot.glb", gltfbake.Settings{})
	merged := bakeModel(t, "xbot40", "threejs/Xbot.glb", gltfbake.Settings{MaxBones: 40})
	if full.file.BoneCount() != 52 || merged.model.Reduction == nil || len(merged.model.Reduction.Merged) == 0 {
		t.Fatalf("Xbot baked to %d bones, and to 40 with %+v: the test expects 52 by dropping alone, then merges", full.file.BoneCount(), merged.model.Reduction)
	}
	ctx := openPage(t)
	for _, name := range []string{"xbot", "xbot40"} {
		if !eval[bool](t, ctx, fmt.Sprintf(`window.bonebakeTest.load(%q, "/baked/%[1]s/model.glb", "/baked/%[1]s/model.bpat", "")`, name)) {
			t.Fatalf("the page did not load %s", name)
		}
	}
	for _, tc := range []struct {
		name string
		b    *bakedModel
		opts string
	}{{"xbot", full, "{}"}, {"xbot40", merged, fmt.Sprintf("{ bones: %s }", jsonOf(merged.model.GLTF.JointNames))}} {
		for _, pose := range []struct {
			clip  string
			phase float64
		}{{"run", 0.3}, {"walk", 0.8}} {
			want := pixelBox(t, skinnedVertices(t, tc.b.file, tc.b.model.GLTF, pose.clip, pose.phase, 4))
			got := eval[struct{ X0, Y0, X1, Y1, N float64 }](t, ctx, fmt.Sprintf(`window.bonebakeTest.silhouetteOf(%q, %q, %v, %s)`, tc.name, pose.clip, pose.phase, tc.opts))
			box := [4]float64{got.X0, got.Y0, got.X1, got.Y1}
			t.Logf("%s at %s %v: pixel box %v, %v pixels; reference %.1f", tc.name, pose.clip, pose.phase, box, got.N, want)
			if got.N < 500 || !near(box, want, 2) {
				t.Errorf("%s at %s %v: pixel box %v (%v pixels); the Go reference's vertices span %.1f", tc.name, pose.clip, pose.phase, box, got.N, want)
			}
		}
	}
	// Without the names, the 40-bone file cannot be told from the mesh: refused, saying what to give.
	msg := eval[string](t, ctx, `(() => { try { window.bonebakeTest.silhouetteOf("xbot40", "run", 0.3); return "drawn"; } catch (e) { return String(e.message); } })()`)
	if !strings.Contains(msg, "give the palette's bone names") {
		t.Errorf("the 40-bone Xbot without bone names: %q; want a refusal asking for them", msg)
	}
}

// TestBrowserStrategyExample: examples/strategy.html, as shipped, on the
// baked Soldier with its hand socket and snapshot, draws both armies without
// an error: units at all three levels, spears on their hands, and a picture
// with the soldiers in it.
func TestBrowserStrategyExample(t *testing.T) {
	ctx := openURL(t, "examples/strategy.html?units=120&rotate=0", "strategyReady", "strategyError")
	// The armies march, so which units stand in which band depends on when the
	// page looks, and a unit is drawn from the snapshot only while it plays one
	// clip the snapshot holds, not fading or blending two gaits (a snapshot
	// holds one clip's pose): marching ranks fade and blend, so whether any far
	// unit could be a snapshot depended on the moment. So the test stands every
	// unit at Idle (counted a second later, when its fade has ended), puts the bands where the units past the 30th and the 70th
	// percentiles of their distances from the camera are past each boundary
	// and its hysteresis (a unit goes out past boundary·1.1: LOD_HYSTERESIS),
	// and updates and counts the crowd in the same task, before the page's next
	// frame moves anyone.
	eval[bool](t, ctx, `new Promise((res) => { let n = 0; (function f() { if (++n > 2) res(true); else requestAnimationFrame(f); })(); })`)
	st := eval[struct{ Full, Reduced, Snapshot, Culled, Props int }](t, ctx, `(() => {
		const { crowd, camera, renderer } = window.strategy, m = crowd.instanceMatrix.array, d = [], t = performance.now() / 1000;
		for (let i = 0; i < crowd.count; i++) {
			crowd.play(i, 'Idle', { time: t });
			d.push(Math.hypot(m[16 * i + 12] - camera.position.x, m[16 * i + 13] - camera.position.y, m[16 * i + 14] - camera.position.z));
		}
		d.sort((a, b) => a - b);
		crowd.lod = { reduced: 0.99 * d[Math.floor(0.3 * d.length)] / 1.1, snapshot: 0.99 * d[Math.floor(0.7 * d.length)] / 1.1 };
		crowd.update(t + 1, renderer, camera);
		const [full, reduced, snapshot] = crowd.levels.map((l) => l.count);
		return { full, reduced, snapshot, culled: crowd.count - full - reduced - snapshot, props: crowd.props.reduce((s, p) => s + p.count, 0) };
	})()`)
	failed := eval[string](t, ctx, `String(window.strategyError || "")`)
	t.Logf("%+v", st)
	if failed != "" {
		t.Fatalf("the page failed: %s", failed)
	}
	if st.Full == 0 || st.Reduced == 0 || st.Snapshot == 0 || st.Full+st.Reduced+st.Snapshot+st.Culled != 120 {
		t.Errorf("levels full %d, reduced %d, snapshot %d, culled %d: the bands put units at every level, 120 in all", st.Full, st.Reduced, st.Snapshot, st.Culled)
	}
	// Two spear meshes (shaft and head) on full and reduced units, the shaft alone on snapshot ones.
	if want := 2*(st.Full+st.Reduced) + st.Snapshot; st.Props != want {
		t.Errorf("%d prop instances; want %d (two on each full and reduced unit, one on each snapshot unit)", st.Props, want)
	}
	dark := screenPixels(t, ctx, "strategy.png", func(r, g, b uint32) bool { return r+g+b < 150 })
	t.Logf("%v dark pixels", dark)
	if dark < 200 {
		t.Errorf("%v dark pixels: the demo drew no armies", dark)
	}
}
