package gltfbake

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/source/gltf"
)

// chainAmplitudes are the rotations (radians, about z) the joints of each chain
// of chainRig swing through: the first chain barely moves, the last a lot.
var chainAmplitudes = []float64{0.02, 0.1, 0.5}

const chainLength = 23

// chainRig writes a rig of 70 deforming joints: "Root" at (0,1,0) and three
// chains of 23 joints ("c<K>_<I>") standing up from it, 0.1 apart, each joint
// weighted by two vertices of its own (one fully, one half with its parent).
// "Wave" swings every chain joint about z by its chain's amplitude and back
// over 1 s. It returns the path and the vertices' rest positions, joints and
// weights (joint indices in the skin's order).
func chainRig(t *testing.T) (path string, pos [][3]float64, joints [][2]int, weights [][2]float64) {
	t.Helper()
	nodes := []map[string]any{{"name": "Root", "translation": []float64{0, 1, 0}}}
	var rootChildren []int
	global := [][3]float64{{0, 1, 0}}
	parent := []int{-1}
	for k := range chainAmplitudes {
		for i := range chainLength {
			n := len(nodes)
			tr := []float64{0, 0.1, 0}
			p := n - 1
			if i == 0 {
				tr[0] = 0.3 * float64(k-1)
				p = 0
				rootChildren = append(rootChildren, n)
			} else {
				nodes[p]["children"] = []int{n}
			}
			nodes = append(nodes, map[string]any{"name": fmt.Sprintf("c%d_%d", k, i), "translation": tr})
			g := global[p]
			global = append(global, [3]float64{g[0] + tr[0], g[1] + tr[1], g[2]})
			parent = append(parent, p)
		}
	}
	nodes[0]["children"] = rootChildren
	nj := len(nodes)
	nodes = append(nodes, map[string]any{"name": "Body", "mesh": 0, "skin": 0})

	var gb testfiles.GLTFBuffer
	add, floats := gb.Add, testfiles.Float32s
	var ibm, pv, wv []float64
	var jv []byte
	var idx []byte
	for j := range nj {
		g := global[j]
		ibm = append(ibm, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -g[0], -g[1], -g[2], 1) // column-major
		p := max(parent[j], 0)
		for _, v := range []struct {
			d    [3]float64
			j    [2]int
			w    [2]float64
			jpar bool
		}{{[3]float64{0.03, 0.05, 0}, [2]int{j, 0}, [2]float64{1, 0}, false}, {[3]float64{-0.03, 0, 0.02}, [2]int{j, p}, [2]float64{0.5, 0.5}, true}} {
			q := [3]float64{g[0] + v.d[0], g[1] + v.d[1], g[2] + v.d[2]}
			w := v.w
			if j == 0 {
				w = [2]float64{1, 0}
			}
			pos, joints, weights = append(pos, q), append(joints, v.j), append(weights, w)
			pv = append(pv, q[:]...)
			jv = append(jv, byte(v.j[0]), byte(v.j[1]), 0, 0)
			wv = append(wv, w[0], w[1], 0, 0)
		}
		for _, i := range []uint16{uint16(2 * j), uint16(2*j + 1), uint16(2 * p)} {
			idx = binary.LittleEndian.AppendUint16(idx, i)
		}
	}
	nv := len(pos)
	lo, hi := []float64{math.Inf(1), math.Inf(1), math.Inf(1)}, []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, q := range pos {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], q[k]), max(hi[k], q[k])
		}
	}
	ibmAcc := add(floats(ibm...), nj, "MAT4", 5126, nil)
	posAcc := add(floats(pv...), nv, "VEC3", 5126, map[string]any{"min": lo, "max": hi})
	jAcc := add(jv, nv, "VEC4", 5121, nil)
	wAcc := add(floats(wv...), nv, "VEC4", 5126, nil)
	iAcc := add(idx, len(idx)/2, "SCALAR", 5123, nil)
	times := add(floats(0, 0.5, 1), 3, "SCALAR", 5126, map[string]any{"min": []float64{0}, "max": []float64{1}})
	var samplers, channels []any
	for k, a := range chainAmplitudes {
		s, c := math.Sin(a/2), math.Cos(a/2)
		out := add(floats(0, 0, 0, 1, 0, 0, s, c, 0, 0, 0, 1), 3, "VEC4", 5126, nil)
		samplers = append(samplers, map[string]any{"input": times, "output": out})
		for i := range chainLength {
			channels = append(channels, map[string]any{"sampler": k, "target": map[string]any{"node": 1 + k*chainLength + i, "path": "rotation"}})
		}
	}
	joints0 := make([]int, nj)
	for j := range joints0 {
		joints0[j] = j
	}
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0, nj}}},
		"nodes":  nodes,
		"skins":  []any{map[string]any{"joints": joints0, "inverseBindMatrices": ibmAcc}},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{
			"attributes": map[string]any{"POSITION": posAcc, "JOINTS_0": jAcc, "WEIGHTS_0": wAcc}, "indices": iAcc}}}},
		"animations": []any{map[string]any{"name": "Wave", "samplers": samplers, "channels": channels}},
	}
	b, err := json.Marshal(gb.Finish(doc))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "chains.gltf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, pos, joints, weights
}

// mulPoint applies a row-major matrix to a point.
func mulPoint(m [16]float64, p [3]float64) [3]float64 {
	var q [3]float64
	for r := range 3 {
		q[r] = m[r*4]*p[0] + m[r*4+1]*p[1] + m[r*4+2]*p[2] + m[r*4+3]
	}
	return q
}

// reducedDeviation skins the reduced model's mesh with its baked palettes at
// every frame and compares each vertex with full(clip's animation, time,
// vertex), the full rig's skinning; it returns the largest distance.
func reducedDeviation(t *testing.T, m *Model, full func(anim int, tm float64, v int) [3]float64, every int) float64 {
	t.Helper()
	c, err := bake.Bake(m.Job)
	if err != nil {
		t.Fatal(err)
	}
	mm, nb := m.GLTF.Mesh, len(m.GLTF.Joints)
	worst := 0.0
	for ci, cl := range m.Job.Clips {
		start, dur := m.Job.Span(&cl)
		n := c.Clips[ci].FrameCount
		for f := 0; f < n; f += every {
			tm := start + bake.FrameTime(f, n, dur, cl.Loops)
			pal := c.Palettes[ci][f*nb*16:]
			for v, p := range mm.Positions {
				var got [3]float64
				for k, j := range mm.Joints[v] {
					w := float64(mm.Weights[v][k])
					if w == 0 {
						continue
					}
					var pm [16]float64
					for i := range pm {
						pm[i] = float64(pal[int(j)*16+i])
					}
					q := mulPoint(pm, mulPoint(m.GLTF.InverseBind[j], [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}))
					for i := range got {
						got[i] += w * q[i]
					}
				}
				want := full(cl.Motion, tm, v)
				worst = max(worst, math.Sqrt((got[0]-want[0])*(got[0]-want[0])+(got[1]-want[1])*(got[1]-want[1])+(got[2]-want[2])*(got[2]-want[2])))
			}
		}
	}
	return worst
}

// TestMergeChainRig: a rig of 70 deforming joints bakes into 64 with no flag:
// the six joints merged are leaves when merged, the first is the least
// animated chain's tip and the most animated chain keeps every joint; every
// vertex, skinned with the baked palettes, lies within the deviation the bake
// reports of where the full rig (the independent evaluator's palettes, the
// file's own vertices and weights) puts it, and that bound is reached.
func TestMergeChainRig(t *testing.T) {
	path, pos, joints, weights := chainRig(t)
	m, err := Load(path, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Job.Rig.Bones); n != 64 {
		t.Fatalf("%d bones, want 64", n)
	}
	red := m.Reduction
	if red == nil || red.Joints != 70 || len(red.Dropped) != 0 || len(red.Merged) != 6 {
		t.Fatalf("reduction %+v, want 70 joints, none dropped, 6 merged", red)
	}
	if want := fmt.Sprintf("c0_%d", chainLength-1); red.Merged[0].Joint != want {
		t.Errorf("first merge %+v, want %s (the least animated tip)", red.Merged[0], want)
	}
	gone := map[string]bool{}
	for _, mg := range red.Merged {
		gone[mg.Joint] = true
	}
	for _, mg := range red.Merged {
		k, i := 0, 0
		fmt.Sscanf(mg.Joint, "c%d_%d", &k, &i)
		if strings.HasPrefix(mg.Joint, "c2_") {
			t.Errorf("merged %s of the most animated chain", mg.Joint)
		}
		if want := fmt.Sprintf("c%d_%d", k, i-1); mg.Into != want {
			t.Errorf("merged %s into %s, want its parent %s", mg.Joint, mg.Into, want)
		}
		if i+1 < chainLength && !gone[fmt.Sprintf("c%d_%d", k, i+1)] {
			t.Errorf("merged %s, which is not a leaf: c%d_%d stays", mg.Joint, k, i+1)
		}
		if slices.Contains(m.GLTF.JointNames, mg.Joint) {
			t.Errorf("%s is still in the palette", mg.Joint)
		}
	}
	if !(red.Deviation > 0) {
		t.Fatalf("deviation %v, want > 0", red.Deviation)
	}

	ref, err := gltfref.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ibm := ref.InverseBind(0)
	full := func(a int, tm float64, v int) [3]float64 {
		pal := ref.Palette(0, a, tm)
		var out [3]float64
		for k := range 2 {
			q := mulPoint(pal[joints[v][k]], mulPoint(ibm[joints[v][k]], pos[v]))
			for i := range out {
				out[i] += weights[v][k] * q[i]
			}
		}
		return out
	}
	got := reducedDeviation(t, m, full, 1)
	const tol = 1e-5 // float32 palettes
	if got > red.Deviation+tol || got < red.Deviation-tol {
		t.Errorf("vertices lie up to %.6g m from the full rig's, but the bake reports %.6g m", got, red.Deviation)
	}
	if printed, _ := strconv.ParseFloat(strings.TrimSuffix(red.DeviationText(), " m"), 64); printed < red.Deviation {
		t.Errorf("printed %s, below the deviation %v", red.DeviationText(), red.Deviation)
	}
}

// TestMaxBonesRefused: a limit no merging reaches is refused naming the joint
// count, the flag and the least reachable; a limit outside 1-64 is refused.
func TestMaxBonesRefused(t *testing.T) {
	path, _, _, _ := chainRig(t)
	// A socket on the most animated chain's tip keeps that chain and the root.
	tip := fmt.Sprintf("c2_%d", chainLength-1)
	_, err := Load(path, Settings{MaxBones: 10, Sockets: []ManifestSocket{{Name: "hand", Bone: tip}}})
	se := (*bake.SettingError)(nil)
	if !errors.As(err, &se) || se.Setting != "MaxBones" {
		t.Fatalf("error %v, want a max-bones setting error", err)
	}
	for _, w := range []string{"70 joints", "Settings.MaxBones 10", "at least 24", path} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
	// Without the socket everything can fold into the root.
	m, err := Load(path, Settings{MaxBones: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.GLTF.JointNames; len(got) != 1 || got[0] != "Root" {
		t.Errorf("--max-bones 1 kept %v, want [Root]", got)
	}
	for _, n := range []int{-1, 65} {
		if _, err := Load(path, Settings{MaxBones: n}); !errors.As(err, &se) || !strings.Contains(err.Error(), "1 to 64") {
			t.Errorf("MaxBones %d: error %v, want one saying 1 to 64", n, err)
		}
	}
	mf := &Manifest{MaxBones: 66}
	if _, err := Load(path, Settings{Manifest: mf}); err == nil || !strings.Contains(err.Error(), "max_bones 66") || errors.As(err, &se) {
		t.Errorf("manifest max_bones 66: error %v, want one naming the manifest's key, not a flag", err)
	}
	yml := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(yml, []byte("max_bones: 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(yml); err == nil || !strings.Contains(err.Error(), yml) {
		t.Errorf("max_bones 0.5: error %v, want one naming %s", err, yml)
	}
	if err := os.WriteFile(yml, []byte("max_bones: 65\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(yml); err == nil || !strings.Contains(err.Error(), "manifest "+yml+": max_bones 65: a BPAT file holds 1 to 64 bones") {
		t.Errorf("max_bones 65: error %v", err)
	}
	if err := os.WriteFile(yml, []byte("max_bones: 3\nsockets: [{name: hand, bone: "+tip+"}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if mf, err = ReadManifest(yml); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, Settings{Manifest: mf}); err == nil || errors.As(err, &se) || !strings.Contains(err.Error(), "more than max_bones 3") || !strings.Contains(err.Error(), yml) {
		t.Errorf("manifest max_bones 3: error %v, want one naming the manifest and its key", err)
	}
}

// TestXbotFitsWithNoFlag: Xbot's 67 joints bake with no flag into at most 64
// bones, and with --max-bones 20 into 20 (merging moves vertices, and its feet,
// which measure ground speed, stay); every vertex skinned with the baked
// palettes lies within the reported deviation of the full rig (the independent
// evaluator's palettes of all 67 joints on the mesh as the loader reads it,
// unreduced).
func TestXbotFitsWithNoFlag(t *testing.T) {
	path := testfiles.Path(t, "gltf", "threejs/Xbot.glb")
	whole, err := gltf.Load(path, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := gltfref.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var cache struct {
		a   int
		tm  float64
		pal [][16]float64
	}
	cache.a = -2
	full := func(a int, tm float64, v int) [3]float64 {
		if a != cache.a || tm != cache.tm {
			cache.a, cache.tm, cache.pal = a, tm, ref.Palette(0, a, tm)
		}
		p := whole.Mesh.Positions[v]
		var out [3]float64
		for k, j := range whole.Mesh.Joints[v] {
			w := float64(whole.Mesh.Weights[v][k])
			if w == 0 {
				continue
			}
			q := mulPoint(cache.pal[j], mulPoint(whole.InverseBind[j], [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}))
			for i := range out {
				out[i] += w * q[i]
			}
		}
		return out
	}
	every := 1
	if testing.Short() {
		every = 5
	}
	for _, limit := range []int{0, 20} {
		m, err := Load(path, Settings{MaxBones: limit})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(m.Job.Rig.Bones); n > max(limit, 64) || limit > 0 && n != limit || m.Reduction == nil || m.Reduction.Joints != 67 {
			t.Fatalf("max %d: %d bones, reduction %+v; want at most 64 of 67 joints", limit, n, m.Reduction)
		}
		if limit > 0 && (len(m.Reduction.Merged) == 0 || !slices.Contains(m.GLTF.JointNames, "mixamorig:LeftToeBase") || !slices.Contains(m.GLTF.JointNames, "mixamorig:RightToeBase")) {
			t.Errorf("max %d: merged %v, joints %v: want merges, and the feet kept", limit, m.Reduction.Merged, m.GLTF.JointNames)
		}
		if _, err := m.Bytes(); err != nil {
			t.Fatal(err)
		}
		if len(whole.Mesh.Positions) != len(m.GLTF.Mesh.Positions) {
			t.Fatalf("%d vertices reduced, %d whole", len(m.GLTF.Mesh.Positions), len(whole.Mesh.Positions))
		}
		got := reducedDeviation(t, m, full, every)
		if got > m.Reduction.Deviation+1e-5 {
			t.Errorf("max %d: vertices lie up to %.6g m from the full rig's, beyond the reported %.6g m", limit, got, m.Reduction.Deviation)
		}
		if limit > 0 && !(got > 0.5*m.Reduction.Deviation) {
			t.Errorf("max %d: vertices lie up to %.6g m from the full rig's, far below the reported %.6g m", limit, got, m.Reduction.Deviation)
		}
	}
}

// TestSnapshotMeshOfMergedRig: a far mesh bound by joint names (--snapshot-mesh,
// MSFT_lod) to a rig whose joints were merged binds a merged joint's vertices
// to the joint it was merged into, as the model's own: skinned with the baked
// palettes, the full rig's file read as the far mesh lands where the model's
// own mesh does.
func TestSnapshotMeshOfMergedRig(t *testing.T) {
	path, _, _, _ := chainRig(t)
	m, err := Load(path, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	low, err := gltf.Load(path, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	far, ibm, err := bindByName(low, m.GLTF, m.Reduction)
	if err != nil {
		t.Fatal(err)
	}
	c, err := bake.Bake(m.Job)
	if err != nil {
		t.Fatal(err)
	}
	nb := len(m.GLTF.Joints)
	for _, f := range []int{0, c.Clips[0].FrameCount / 2} {
		pal := c.Palettes[0][f*nb*16 : (f+1)*nb*16]
		want, _, err := m.GLTF.Mesh.SkinPalette(pal, m.GLTF.InverseBind)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := far.SkinPalette(pal, ibm)
		if err != nil {
			t.Fatal(err)
		}
		for v := range want {
			for k := range 3 {
				if d := math.Abs(float64(got[v][k] - want[v][k])); d > 1e-5 {
					t.Fatalf("frame %d vertex %d: far mesh at %v, the model's at %v", f, v, got[v], want[v])
				}
			}
		}
	}
}
