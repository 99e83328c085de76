package gltfref

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

func model(t *testing.T, name string) string { return testfiles.Path(t, "gltf", name) }

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func matNear(t *testing.T, what string, got, want [16]float64, tol float64) {
	t.Helper()
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s: element %d (row %d col %d) = %.9g, want %.9g\n got  %v\n want %v",
				what, i, i/4, i%4, got[i], want[i], got, want)
			return
		}
	}
}

// Hand-written row-major matrices, independent of composeTRS.
func translation(x, y, z float64) [16]float64 {
	return [16]float64{1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z, 0, 0, 0, 1}
}

func rotZ(a float64) [16]float64 {
	c, s := math.Cos(a), math.Sin(a)
	return [16]float64{c, -s, 0, 0, s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
}

func rotY(a float64) [16]float64 {
	c, s := math.Cos(a), math.Sin(a)
	return [16]float64{c, 0, s, 0, 0, 1, 0, 0, -s, 0, c, 0, 0, 0, 0, 1}
}

func TestFrameTimes(t *testing.T) {
	loop := FrameTimes(1, 30, true)
	if len(loop) != 30 {
		t.Fatalf("looping D=1 F=30: %d frames, want 30", len(loop))
	}
	for f, want := range map[int]float64{0: 0, 1: 1.0 / 30, 15: 0.5, 29: 29.0 / 30} {
		if !near(loop[f], want, 1e-12) {
			t.Errorf("looping t_%d = %v, want %v", f, loop[f], want)
		}
	}
	one := FrameTimes(1, 30, false)
	if len(one) != 31 {
		t.Fatalf("one-shot D=1 F=30: %d frames, want 31", len(one))
	}
	if one[0] != 0 || one[30] != 1 || !near(one[15], 0.5, 1e-12) || !near(one[1], 1.0/30, 1e-12) {
		t.Errorf("one-shot times: first %v, t_1 %v, t_15 %v, last %v", one[0], one[1], one[15], one[30])
	}
	for _, tc := range []struct {
		d, f  float64
		loops bool
		want  []float64
	}{
		{0, 30, true, []float64{0}},
		{0, 30, false, []float64{0, 0}}, // N = max(1, 0) + 1 = 2, both at D = 0
		{0.01, 30, true, []float64{0}},  // round(0.3) = 0 → N = 1
		{0.01, 30, false, []float64{0, 0.01}},
		{0.5, 8, true, []float64{0, 0.125, 0.25, 0.375}},
		{0.5, 8, false, []float64{0, 0.125, 0.25, 0.375, 0.5}},
		{1, 2.5, true, []float64{0, 1.0 / 3, 2.0 / 3}}, // round(2.5) = 3 (half away from zero)
		{2, -1, true, []float64{0}},
	} {
		got := FrameTimes(tc.d, tc.f, tc.loops)
		if len(got) != len(tc.want) {
			t.Errorf("FrameTimes(%v, %v, %v) = %v, want %v", tc.d, tc.f, tc.loops, got, tc.want)
			continue
		}
		for i := range got {
			if !near(got[i], tc.want[i], 1e-12) {
				t.Errorf("FrameTimes(%v, %v, %v) = %v, want %v", tc.d, tc.f, tc.loops, got, tc.want)
				break
			}
		}
	}
	// Fox "Survey" at 24 fps: 3.4166667·24 = 82.00000 → 82 looping frames.
	if n := len(FrameTimes(3.4166667461395264, 24, true)); n != 82 {
		t.Errorf("Fox Survey at 24 fps: %d frames, want 82", n)
	}
}

func TestSlerp(t *testing.T) {
	s45, c45 := math.Sin(math.Pi/4), math.Cos(math.Pi/4)
	s225, c225 := math.Sin(math.Pi/8), math.Cos(math.Pi/8)
	id := []float64{0, 0, 0, 1}
	y90 := []float64{0, s45, 0, c45} // 90° about y
	want := []float64{0, s225, 0, c225}
	check := func(what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if !near(got[i], want[i], 1e-12) {
				t.Errorf("%s = %v, want %v", what, got, want)
				return
			}
		}
	}
	check("slerp(id, y90, 0.5)", slerp(id, y90, 0.5), want)
	// The same rotation written as -q must take the short way, not the 270° one.
	check("slerp(id, -y90, 0.5)", slerp(id, []float64{0, -s45, 0, -c45}, 0.5), want)
	// A quarter of the way: 22.5° about y.
	check("slerp(id, y90, 0.25)", slerp(id, y90, 0.25), []float64{0, math.Sin(math.Pi / 16), 0, math.Cos(math.Pi / 16)})
	check("slerp at u=0", slerp(id, y90, 0), id)
	check("slerp at u=1", slerp(id, y90, 1), y90)
	// Off-unit keys are normalized, and so is the result.
	check("slerp of scaled keys", slerp([]float64{0, 0, 0, 2}, []float64{0, 3 * s45, 0, 3 * c45}, 0.5), want)
	// Nearly parallel keys fall back to a normalized lerp and stay finite.
	q := slerp(id, []float64{0, 1e-12, 0, 1}, 0.5)
	if math.IsNaN(q[0]) || !near(q[3], 1, 1e-12) {
		t.Errorf("slerp of nearly equal keys = %v", q)
	}
}

func TestComposeTRS(t *testing.T) {
	// T(1,2,3)·Rz(90°)·S(2,1,1): x̂ → (2,0,0) → (0,2,0) → (1,4,3).
	m := composeTRS([3]float64{1, 2, 3}, [4]float64{0, 0, math.Sin(math.Pi / 4), math.Cos(math.Pi / 4)}, [3]float64{2, 1, 1})
	want := [16]float64{0, -1, 0, 1, 2, 0, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1}
	matNear(t, "T·R·S", m, want, 1e-12)
	matNear(t, "inverse·m", mul(inverse(m), m), identity(), 1e-12)
}

func TestSampleModes(t *testing.T) {
	lin := channel{path: pathTranslation, interp: interpLinear, times: []float64{1, 3},
		values: [][]float64{{0, 0, 0}, {2, 4, -6}}}
	for _, c := range []struct{ t, x float64 }{{0, 0}, {1, 0}, {2, 1}, {2.5, 1.5}, {3, 2}, {9, 2}} {
		if got := sample(&lin, c.t)[0]; !near(got, c.x, 1e-12) {
			t.Errorf("LINEAR at %v: x = %v, want %v", c.t, got, c.x)
		}
	}
	step := lin
	step.interp = interpStep
	for _, c := range []struct{ t, x float64 }{{0, 0}, {2.99, 0}, {3, 2}} {
		if got := sample(&step, c.t)[0]; got != c.x {
			t.Errorf("STEP at %v: x = %v, want %v", c.t, got, c.x)
		}
	}
	// CUBICSPLINE keys at 0 and 2, values 0 → 1 in x. x: out-tangent of key 0 = 1,
	// in-tangent of key 1 = 0; y: both 0 and 1. At s = 0.5 (h00 = h01 = 0.5,
	// h10 = 0.125, h11 = −0.125, interval 2):
	// x = 2·0.125·1 + 0.5·1 = 0.75; y = 0.5·1 − 2·0.125·1 = 0.25.
	cub := channel{path: pathTranslation, interp: interpCubic, times: []float64{0, 2},
		values: [][]float64{{9, 9, 9}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {9, 9, 9}}}
	if y := sample(&cub, 1)[1]; !near(y, 0.25, 1e-12) {
		t.Errorf("CUBICSPLINE at 1: y = %v, want 0.25", y)
	}
	for _, c := range []struct{ t, x float64 }{{-1, 0}, {0, 0}, {1, 0.75}, {2, 1}, {5, 1}} {
		if got := sample(&cub, c.t)[0]; !near(got, c.x, 1e-12) {
			t.Errorf("CUBICSPLINE at %v: x = %v, want %v", c.t, got, c.x)
		}
	}
	// A rotation is normalized however it was sampled.
	rot := channel{path: pathRotation, interp: interpStep, times: []float64{0}, values: [][]float64{{0, 0, 0, 2}}}
	if q := sample(&rot, 0); q[3] != 1 {
		t.Errorf("STEP rotation not normalized: %v", q)
	}
}

// --- a synthetic file exercising the accessor rules ----------------------------------

type bufBuilder struct{ b []byte }

func (w *bufBuilder) f32(v ...float64) {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint32(w.b, math.Float32bits(float32(x)))
	}
}
func (w *bufBuilder) i16(v ...int16) {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint16(w.b, uint16(x))
	}
}
func (w *bufBuilder) i8(v ...int8) {
	for _, x := range v {
		w.b = append(w.b, byte(x))
	}
}
func (w *bufBuilder) u16(v ...uint16) {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint16(w.b, x)
	}
}

// syntheticDoc returns the JSON (with the buffer's uri left as "@URI@") and the buffer.
//
// Nodes: 0 root with a column-major matrix translating by (10,0,0), children 1, 2;
// 1 the mesh node of skin 0, translation (0,0,5); 2 a joint.
// Animation 0 on node 2: rotation LINEAR from interleaved times {0,1,2} (byteStride 8),
// normalized SHORT keys identity, 90° about y, (0,-32768,0,32767) = -90° about y
// (-32768 clamps to -1);
// translation LINEAR from a sparse accessor without a bufferView: (0,0,0) twice,
// then (4,5,6). Animation 1 on node 2: rotation STEP with BYTE keys whose accessor
// forgets "normalized", (0,0,0,127) then (0,0,-128,127) → -90° about z (-128 clamps
// to -1); translation
// CUBICSPLINE over
// times {0,2}. Skin 1 has joint 2, no mesh node, and a column-major inverse bind
// matrix translating by (7,8,9).
func syntheticDoc() (string, []byte) {
	var w bufBuilder
	// bufferView 0: interleaved times, stride 8 (each time followed by 4 junk bytes)
	for _, tm := range []float64{0, 1, 2} {
		w.f32(tm)
		w.f32(-99)
	}
	// bufferView 1 @24: rotation keys as normalized shorts
	w.i16(0, 0, 0, 32767)
	w.i16(0, 23170, 0, 23170)
	w.i16(0, -32768, 0, 32767)
	// bufferView 2 @48: sparse indices (uint16) then pad, bufferView 3 @52: sparse values
	w.u16(2, 0)
	w.f32(4, 5, 6)
	// bufferView 4 @64: byte rotation keys
	w.i8(0, 0, 0, 127)
	w.i8(0, 0, -128, 127)
	// bufferView 5 @72: times {0, 2} then cubic outputs (a, v, b per key)
	w.f32(0, 2)
	w.f32(9, 9, 9, 0, 0, 0, 1, 0, 0)
	w.f32(1, 0, 0, 1, 0, 0, 9, 9, 9)
	// bufferView 6 @152: a column-major MAT4
	w.f32(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 8, 9, 1)
	js := `{
 "asset": {"version": "2.0"},
 "buffers": [{"uri": "@URI@", "byteLength": ` + itoa(len(w.b)) + `}],
 "bufferViews": [
  {"buffer": 0, "byteOffset": 0, "byteLength": 24, "byteStride": 8},
  {"buffer": 0, "byteOffset": 24, "byteLength": 24},
  {"buffer": 0, "byteOffset": 48, "byteLength": 4},
  {"buffer": 0, "byteOffset": 52, "byteLength": 12},
  {"buffer": 0, "byteOffset": 64, "byteLength": 8},
  {"buffer": 0, "byteOffset": 72, "byteLength": 80},
  {"buffer": 0, "byteOffset": 152, "byteLength": 64}
 ],
 "accessors": [
  {"bufferView": 0, "componentType": 5126, "count": 3, "type": "SCALAR"},
  {"bufferView": 1, "componentType": 5122, "normalized": true, "count": 3, "type": "VEC4"},
  {"componentType": 5126, "count": 3, "type": "VEC3",
   "sparse": {"count": 1, "indices": {"bufferView": 2, "componentType": 5123}, "values": {"bufferView": 3}}},
  {"bufferView": 4, "componentType": 5120, "count": 2, "type": "VEC4"},
  {"bufferView": 5, "componentType": 5126, "count": 2, "type": "SCALAR"},
  {"bufferView": 5, "byteOffset": 8, "componentType": 5126, "count": 6, "type": "VEC3"},
  {"bufferView": 6, "componentType": 5126, "count": 1, "type": "MAT4"}
 ],
 "nodes": [
  {"children": [1, 2], "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 10,0,0,1]},
  {"skin": 0, "mesh": 0, "translation": [0, 0, 5]},
  {"name": "bone"}
 ],
 "skins": [{"joints": [2]}, {"joints": [2], "inverseBindMatrices": 6}],
 "animations": [
  {"name": "a", "samplers": [{"input": 0, "output": 1}, {"input": 0, "output": 2, "interpolation": "LINEAR"}],
   "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}, {"sampler": 1, "target": {"node": 2, "path": "translation"}}]},
  {"name": "b", "samplers": [{"input": 4, "output": 3, "interpolation": "STEP"}, {"input": 4, "output": 5, "interpolation": "CUBICSPLINE"}],
   "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}, {"sampler": 1, "target": {"node": 2, "path": "translation"}}]}
 ]
}`
	return js, w.b
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func writeGLB(jsonText string, bin []byte) []byte {
	j := []byte(jsonText)
	for len(j)%4 != 0 {
		j = append(j, ' ')
	}
	for len(bin)%4 != 0 {
		bin = append(bin, 0)
	}
	le := binary.LittleEndian
	var out []byte
	out = append(out, "glTF"...)
	out = le.AppendUint32(out, 2)
	out = le.AppendUint32(out, uint32(12+8+len(j)+8+len(bin)))
	out = le.AppendUint32(out, uint32(len(j)))
	out = le.AppendUint32(out, 0x4E4F534A)
	out = append(out, j...)
	out = le.AppendUint32(out, uint32(len(bin)))
	out = le.AppendUint32(out, 0x004E4942)
	return append(out, bin...)
}

func TestSyntheticFile(t *testing.T) {
	js, bin := syntheticDoc()
	// Sampler b's STEP output has one key but its input two: widen the byte keys.
	// (Rebuild: the STEP rotation uses its own 2-key output below.)
	js = strings.Replace(js, `{"bufferView": 4, "componentType": 5120, "count": 2, "type": "VEC4"}`,
		`{"bufferView": 4, "componentType": 5120, "count": 2, "type": "VEC4"}`, 1)
	js = strings.Replace(js, `{"buffer": 0, "byteOffset": 64, "byteLength": 4}`,
		`{"buffer": 0, "byteOffset": 216, "byteLength": 8}`, 1)
	bin = append(bin, 0, 0, 0, 127, 0, 0, 127, 127) // identity-ish (0,0,0,1), then 90° about z
	js = strings.Replace(js, `"byteLength": 216}]`, `"byteLength": 224}]`, 1)

	dir := t.TempDir()
	paths := map[string]string{}
	// data: URI
	p := filepath.Join(dir, "embedded.gltf")
	uri := "data:application/gltf-buffer;base64," + base64.StdEncoding.EncodeToString(bin)
	if err := os.WriteFile(p, []byte(strings.Replace(js, "@URI@", uri, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	paths["data uri"] = p
	// external file with an escaped name
	p = filepath.Join(dir, "external.gltf")
	if err := os.WriteFile(filepath.Join(dir, "the buf.bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(js, "@URI@", "the%20buf.bin", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	paths["external"] = p
	// GLB: buffer 0 without a uri
	p = filepath.Join(dir, "binary.glb")
	if err := os.WriteFile(p, writeGLB(strings.Replace(js, `"uri": "@URI@", `, "", 1), bin), 0o644); err != nil {
		t.Fatal(err)
	}
	paths["glb"] = p

	for kind, p := range paths {
		d, err := Load(p)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		anims := d.Animations()
		if len(anims) != 2 || anims[0].Name != "a" || anims[0].Duration != 2 || anims[1].Duration != 2 {
			t.Fatalf("%s: animations %v", kind, anims)
		}
		if d.JointCount(0) != 1 || d.JointNames(0)[0] != "bone" || d.MeshNode(0) != 1 || d.MeshNode(1) != -1 {
			t.Fatalf("%s: skin 0 joints %d %v mesh node %d", kind, d.JointCount(0), d.JointNames(0), d.MeshNode(0))
		}
		// The joint's global transform, in the scene: the root's (10,0,0). The mesh
		// node's own (0,0,5) does not move a skinned mesh.
		matNear(t, kind+" rest", d.Palette(0, -1, 0)[0], translation(10, 0, 0), 1e-12)
		// Skin 1 has no mesh node: the palette is the joint's global transform.
		matNear(t, kind+" skin 1 rest", d.Palette(1, -1, 0)[0], translation(10, 0, 0), 1e-12)
		matNear(t, kind+" skin 1 IBM", d.InverseBind(1)[0], translation(7, 8, 9), 0)
		matNear(t, kind+" skin 0 IBM", d.InverseBind(0)[0], identity(), 0)
		// t=0.5: halfway between identity and 23170/32767 (≈ 90°) about y = 45°.
		matNear(t, kind+" a@0.5", d.Palette(0, 0, 0.5)[0], mul(translation(10, 0, 0), rotY(math.Pi/4)), 1e-9)
		// t=2: sparse translation (4,5,6), rotation -90° about y, under the root.
		want := [16]float64{0, 0, -1, 10 + 4, 0, 1, 0, 5, 1, 0, 0, 6, 0, 0, 0, 1}
		matNear(t, kind+" a@2", d.Palette(0, 0, 2)[0], want, 1e-12)
		matNear(t, kind+" a@7 (after the last key)", d.Palette(0, 0, 7)[0], want, 1e-12)
		// Animation b at t=1: STEP holds key 0 (identity); cubic from 0 to 1 over 2 s with
		// both tangents 1/s: h10·2 + h01 + h11·2 = 0.25 + 0.5 − 0.25 = 0.5.
		matNear(t, kind+" b@1", d.Palette(0, 1, 1)[0], translation(10.5, 0, 0), 1e-12)
		// At t=2: byte key (0,0,-128,127), not flagged but normalized → -90° about z, x = 1.
		matNear(t, kind+" b@2", d.Palette(0, 1, 2)[0], mul(translation(11, 0, 0), rotZ(-math.Pi/2)), 1e-12)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"bad json":       `{`,
		"missing buffer": `{"buffers":[{"uri":"nope.bin","byteLength":4}]}`,
		"short buffer":   `{"buffers":[{"uri":"data:application/octet-stream;base64,AAAA","byteLength":8}]}`,
		"two parents":    `{"nodes":[{"children":[2]},{"children":[2]},{}]}`,
		"cycle":          `{"nodes":[{"children":[1]},{"children":[0]}]}`,
		"accessor past view": `{"buffers":[{"uri":"data:application/octet-stream;base64,AAAAAA==","byteLength":4}],
			"bufferViews":[{"buffer":0,"byteLength":4}],
			"accessors":[{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR"}],
			"nodes":[{}],"skins":[{"joints":[0],"inverseBindMatrices":0}]}`,
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".gltf")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil {
			t.Errorf("%s: loaded without an error", name)
		}
	}
}

// --- the real models -------------------------------------------------------------------

// simpleSkinKeys reads SimpleSkin's rotation clip straight from the file: the key
// times (accessor 5) and the rotation keys (accessor 6), both in buffer 3.
func simpleSkinKeys(t *testing.T, path string) (times []float64, keys [][4]float64) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Buffers []struct{ URI string } `json:"buffers"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	const prefix = "data:application/gltf-buffer;base64,"
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(f.Buffers[3].URI, prefix))
	if err != nil || len(b) != 240 {
		t.Fatalf("buffer 3: %d bytes, %v", len(b), err)
	}
	fl := func(off int) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[off:]))) }
	for k := 0; k < 12; k++ {
		times = append(times, fl(4*k))
		keys = append(keys, [4]float64{fl(48 + 16*k), fl(52 + 16*k), fl(56 + 16*k), fl(60 + 16*k)})
	}
	return times, keys
}

func TestSimpleSkin(t *testing.T) {
	path := model(t, "SimpleSkin.gltf")
	d, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := d.JointCount(0); n != 2 {
		t.Fatalf("joints = %d, want 2", n)
	}
	if a := d.Animations(); len(a) != 1 || a[0].Duration != 5.5 {
		t.Fatalf("animations = %v, want one of 5.5 s", a)
	}
	rest := d.Palette(0, -1, 0)
	ibm := d.InverseBind(0)
	// Both joints sit at (0,1,0) at rest; both inverse binds translate by (0,-1,0).
	for j := range rest {
		matNear(t, "rest joint", rest[j], translation(0, 1, 0), 0)
		matNear(t, "inverse bind", ibm[j], translation(0, -1, 0), 0)
		matNear(t, "rest·IBM", mul(rest[j], ibm[j]), identity(), 1e-12)
	}

	times, keys := simpleSkinKeys(t, path)
	angle := func(q [4]float64) float64 { // every key is about z: (0, 0, sin a/2, cos a/2)·|q|
		if q[0] != 0 || q[1] != 0 {
			t.Fatalf("key %v is not about z", q)
		}
		return 2 * math.Atan2(q[2], q[3])
	}
	// At each key time joint 1 = T(0,1,0)·Rz(key angle); joint 0 does not move.
	for k, tk := range times {
		p := d.Palette(0, 0, tk)
		matNear(t, "joint 0 animated", p[0], translation(0, 1, 0), 1e-12)
		matNear(t, "joint 1 at key", p[1], mul(translation(0, 1, 0), rotZ(angle(keys[k]))), 1e-12)
	}
	// Key 2 (t = 1 s) is (0, 0, 0.707, 0.707) in the file: 90° about z.
	if times[2] != 1 || !near(angle(keys[2]), math.Pi/2, 1e-12) {
		t.Fatalf("key 2: t=%v angle=%v", times[2], angle(keys[2]))
	}
	// Between keys 1 and 2 (45.03° at 0.5 s, 90° at 1 s), 20% of the way: slerp turns the
	// angle linearly (a normalized lerp would give 0.12° less).
	a1, a2 := angle(keys[1]), angle(keys[2])
	p := d.Palette(0, 0, 0.6)
	matNear(t, "joint 1 at 0.6 s", p[1], mul(translation(0, 1, 0), rotZ(a1+0.2*(a2-a1))), 1e-12)
	// Before the first key and after the last: the end keys (both identity).
	matNear(t, "before", d.Palette(0, 0, -1)[1], translation(0, 1, 0), 1e-12)
	matNear(t, "after", d.Palette(0, 0, 100)[1], translation(0, 1, 0), 1e-12)
}

func TestFox(t *testing.T) {
	d, err := Load(model(t, "Fox.glb"))
	if err != nil {
		t.Fatal(err)
	}
	if n := d.JointCount(0); n != 24 {
		t.Errorf("joints = %d, want 24", n)
	}
	anims := d.Animations()
	want := []Animation{{"Survey", 0, 3.4166667}, {"Walk", 0, 0.7083333}, {"Run", 0, 1.1583333}}
	if len(anims) != len(want) {
		t.Fatalf("animations = %v", anims)
	}
	for i, a := range anims {
		if a.Name != want[i].Name || !near(a.Duration, want[i].Duration, 1e-6) {
			t.Errorf("animation %d = %+v, want %+v", i, a, want[i])
		}
	}
	if d.MeshNode(0) != 1 {
		t.Errorf("mesh node = %d, want 1", d.MeshNode(0))
	}
	// The bind pose is the rest pose (centimetre units; the file's floats agree to ~1e-5).
	rest, ibm := d.Palette(0, -1, 0), d.InverseBind(0)
	for j := range rest {
		matNear(t, "Fox rest·IBM", mul(rest[j], ibm[j]), identity(), 1e-4)
	}
	// The clips are clamped at their ends, and the walk cycle moves the hips.
	for a, an := range anims {
		last := d.Palette(0, a, an.Duration)
		beyond := d.Palette(0, a, an.Duration+5)
		for j := range last {
			matNear(t, "after the end", beyond[j], last[j], 0)
		}
	}
	if p0, p1 := d.Palette(0, 1, 0), d.Palette(0, 1, 0.3); p0[2] == p1[2] {
		t.Errorf("Walk: hip joint does not move between 0 and 0.3 s")
	}
}

func TestCesiumManRest(t *testing.T) {
	d, err := Load(model(t, "CesiumMan.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	if d.JointCount(0) != 19 || len(d.Animations()) != 1 || d.Animations()[0].Duration != 2 {
		t.Fatalf("joints %d, animations %v", d.JointCount(0), d.Animations())
	}
	// The joints and the mesh node sit under the Z_UP node (a −90° turn about x),
	// and the inverse bind matrices were made in the mesh node's space: at rest,
	// G(joint)·IBM is that turn, which stands the man up along +y in the scene.
	rest, ibm := d.Palette(0, -1, 0), d.InverseBind(0)
	for j := range rest {
		matNear(t, "CesiumMan rest·IBM", mul(rest[j], ibm[j]), zUp, 1e-5)
	}
}

// zUp is the Z_UP node of the Khronos samples: rows 1 0 0 / 0 0 1 / 0 −1 0.
var zUp = [16]float64{1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1}

// RiggedSimple's mesh node sits under Z_UP and the "Armature" node (a −90° turn about
// z, given as a matrix) while its inverse bind matrices were made in the Armature's
// parent's space, so rest·IBM in the scene is the Z_UP turn alone for both joints.
func TestRiggedSimpleRest(t *testing.T) {
	d, err := Load(model(t, "RiggedSimple.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	// Blender's exporter keyed it from frame 1 at 24 fps: the first key is at 1/24 s.
	if a := d.Animations(); len(a) != 1 || !near(a[0].Duration, 2.0833333, 1e-6) || !near(a[0].Start, 1.0/24, 1e-6) {
		t.Fatalf("animations %v", a)
	}
	if d.MeshNode(0) != 2 || d.JointCount(0) != 2 {
		t.Fatalf("mesh node %d, joints %d", d.MeshNode(0), d.JointCount(0))
	}
	rest, ibm := d.Palette(0, -1, 0), d.InverseBind(0)
	for j := range rest {
		matNear(t, "RiggedSimple rest·IBM", mul(rest[j], ibm[j]), zUp, 1e-6)
	}
	// Joint 0 ("Bone", a matrix node, sibling of the mesh node) is its own matrix, 4.18
	// down z, under the Armature's turn and Z_UP.
	bone := mul(zUp, mul(rotZ(-math.Pi/2), translation(0, -1.3597299641787688e-07, -4.1803297996521)))
	matNear(t, "Bone", rest[0], bone, 1e-7)
}
