package gltf

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doc is a glTF document as generic JSON, for tests to mutate.
type doc = map[string]any

func simpleSkin(t testing.TB) doc {
	t.Helper()
	data, err := os.ReadFile(modelPath(t, "SimpleSkin.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// obj returns d[key][i] as an object.
func obj(d doc, key string, i int) doc { return d[key].([]any)[i].(map[string]any) }

func writeModel(t testing.TB, d doc) string {
	t.Helper()
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "model.gltf")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func bufferBytes(t testing.TB, d doc, i int) []byte {
	t.Helper()
	uri := obj(d, "buffers", i)["uri"].(string)
	_, payload, _ := strings.Cut(uri, ",")
	b, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func setBufferBytes(d doc, i int, b []byte) {
	obj(d, "buffers", i)["uri"] = "data:application/gltf-buffer;base64," + base64.StdEncoding.EncodeToString(b)
	obj(d, "buffers", i)["byteLength"] = len(b)
}

func appendTo(d doc, key string, v any) int {
	list, _ := d[key].([]any)
	d[key] = append(list, v)
	return len(list)
}

// addAccessor stores data in a new buffer with its own view and returns a new
// accessor over it.
func addAccessor(d doc, data []byte, componentType int, typ string, count int, normalized bool) int {
	buf := appendTo(d, "buffers", map[string]any{})
	setBufferBytes(d, buf, data)
	view := appendTo(d, "bufferViews", map[string]any{"buffer": buf, "byteLength": len(data)})
	acc := map[string]any{"bufferView": view, "componentType": componentType, "type": typ, "count": count}
	if normalized {
		acc["normalized"] = true
	}
	return appendTo(d, "accessors", acc)
}

// SimpleSkin.gltf accessors: 0 indices, 1 POSITION, 2 JOINTS_0, 3 WEIGHTS_0,
// 4 inverse bind matrices, 5 key times (buffer 3 at 0), 6 rotations (buffer 3 at 48).
// Nodes: 0 mesh+skin, 1 joint (child 2), 2 joint. Skin joints [1, 2].

func putFloat(b []byte, off int, v float32) {
	binary.LittleEndian.PutUint32(b[off:], math.Float32bits(v))
}

func TestBadModels(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, d doc)
		opt    Options
		rule   Rule
		detail string // a word the message must contain
	}{
		{"missing buffer file", func(t *testing.T, d doc) { obj(d, "buffers", 1)["uri"] = "missing.bin" }, Options{}, RuleBuffer, "missing.bin"},
		{"buffer path escapes", func(t *testing.T, d doc) { obj(d, "buffers", 1)["uri"] = "../x.bin" }, Options{}, RuleBuffer, "leaves"},
		{"data URI shorter than byteLength", func(t *testing.T, d doc) { obj(d, "buffers", 0)["byteLength"] = 1000 }, Options{}, RuleBuffer, "byteLength"},
		{"skin without joints", func(t *testing.T, d doc) { obj(d, "skins", 0)["joints"] = []any{} }, Options{}, RuleSkin, "no joints"},
		{"too many joints", func(t *testing.T, d doc) {
			j := make([]any, 1<<16+1)
			for i := range j {
				j[i] = 1
			}
			obj(d, "skins", 0)["joints"] = j
		}, Options{}, RuleSkin, "65537 joints"},
		{"skin joint out of range", func(t *testing.T, d doc) { obj(d, "skins", 0)["joints"] = []any{1, 40} }, Options{}, RuleSkin, "node 40"},
		{"NaN key value", func(t *testing.T, d doc) {
			b := bufferBytes(t, d, 3)
			putFloat(b, 48+5*16+8, float32(math.NaN()))
			setBufferBytes(d, 3, b)
		}, Options{}, RuleKeys, "NaN"},
		{"Inf key time", func(t *testing.T, d doc) {
			b := bufferBytes(t, d, 3)
			putFloat(b, 3*4, float32(math.Inf(1)))
			setBufferBytes(d, 3, b)
		}, Options{}, RuleKeys, "Inf"},
		{"key times not increasing", func(t *testing.T, d doc) {
			b := bufferBytes(t, d, 3)
			putFloat(b, 2*4, 0.1)
			setBufferBytes(d, 3, b)
		}, Options{}, RuleKeys, "increase"},
		{"zero rotation key", func(t *testing.T, d doc) {
			b := bufferBytes(t, d, 3)
			copy(b[48+2*16:48+3*16], make([]byte, 16))
			setBufferBytes(d, 3, b)
		}, Options{}, RuleKeys, "zero quaternion"},
		{"accessor past its buffer view", func(t *testing.T, d doc) { obj(d, "accessors", 1)["count"] = 11 }, Options{}, RuleAccessor, "accessor 1"},
		{"accessor offset past its buffer view", func(t *testing.T, d doc) { obj(d, "accessors", 6)["byteOffset"] = 1 << 40 }, Options{}, RuleAccessor, "accessor 6"},
		{"huge accessor count", func(t *testing.T, d doc) { obj(d, "accessors", 0)["count"] = math.MaxInt64 }, Options{}, RuleAccessor, "accessor 0"},
		{"huge accessor without buffer view", func(t *testing.T, d doc) {
			delete(obj(d, "accessors", 1), "bufferView")
			obj(d, "accessors", 1)["count"] = 1 << 40
		}, Options{}, RuleAccessor, "no buffer view"},
		{"buffer view past its buffer", func(t *testing.T, d doc) { obj(d, "bufferViews", 4)["byteLength"] = 241 }, Options{}, RuleBufferView, "buffer view 4"},
		{"buffer view on a missing buffer", func(t *testing.T, d doc) { obj(d, "bufferViews", 4)["buffer"] = 9 }, Options{}, RuleBufferView, "buffer 9"},
		{"node is its own child", func(t *testing.T, d doc) { obj(d, "nodes", 2)["children"] = []any{2} }, Options{}, RuleNodeGraph, "own child"},
		{"cycle of two nodes", func(t *testing.T, d doc) { obj(d, "nodes", 2)["children"] = []any{1} }, Options{}, RuleNodeGraph, "cycle"},
		{"node with two parents", func(t *testing.T, d doc) { obj(d, "nodes", 0)["children"] = []any{2} }, Options{}, RuleNodeGraph, "two parents"},
		{"child out of range", func(t *testing.T, d doc) { obj(d, "nodes", 0)["children"] = []any{-1} }, Options{}, RuleNodeGraph, "child -1"},
		{"channel on a missing node", func(t *testing.T, d doc) {
			obj(d, "animations", 0)["channels"].([]any)[0].(map[string]any)["target"].(map[string]any)["node"] = 99
		}, Options{}, RuleChannelTarget, "node 99"},
		{"channel with an unknown path", func(t *testing.T, d doc) {
			obj(d, "animations", 0)["channels"].([]any)[0].(map[string]any)["target"].(map[string]any)["path"] = "colour"
		}, Options{}, RuleChannelTarget, "colour"},
		{"skin index out of range", func(t *testing.T, d doc) {}, Options{Skin: 3}, RuleSkinIndex, "skin 3"},
		{"negative skin index", func(t *testing.T, d doc) {}, Options{Skin: -1}, RuleSkinIndex, "skin -1"},
		{"node skin out of range", func(t *testing.T, d doc) { obj(d, "nodes", 0)["skin"] = 7 }, Options{}, RuleSkinIndex, "skin 7"},
		{"no skins", func(t *testing.T, d doc) { delete(d, "skins"); delete(obj(d, "nodes", 0), "skin") }, Options{}, RuleSkinIndex, "no skins"},
		{"sampler output shorter than input", func(t *testing.T, d doc) { obj(d, "accessors", 6)["count"] = 11 }, Options{}, RuleSampler, "11"},
		{"sampler output longer than input", func(t *testing.T, d doc) { obj(d, "accessors", 5)["count"] = 11 }, Options{}, RuleSampler, "11"},
		{"cubic spline with too few outputs", func(t *testing.T, d doc) {
			obj(d, "animations", 0)["samplers"].([]any)[0].(map[string]any)["interpolation"] = "CUBICSPLINE"
		}, Options{}, RuleSampler, "CUBICSPLINE"},
		{"missing sampler", func(t *testing.T, d doc) {
			obj(d, "animations", 0)["channels"].([]any)[0].(map[string]any)["sampler"] = 4
		}, Options{}, RuleSampler, "sampler 4"},
		{"sampler on a missing accessor", func(t *testing.T, d doc) {
			obj(d, "animations", 0)["samplers"].([]any)[0].(map[string]any)["output"] = 60
		}, Options{}, RuleSampler, "accessor 60"},
		{"rotation output of unnormalized shorts", func(t *testing.T, d doc) {
			obj(d, "accessors", 6)["componentType"] = 5122
		}, Options{}, RuleAccessor, "SHORT"},
		{"key times not float", func(t *testing.T, d doc) { obj(d, "accessors", 5)["componentType"] = 5125 }, Options{}, RuleAccessor, "accessor 5"},
		{"lines instead of triangles", func(t *testing.T, d doc) { obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)["mode"] = 1 }, Options{}, RuleMesh, "primitive 0"},
		{"no POSITION", func(t *testing.T, d doc) {
			delete(obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)["attributes"].(map[string]any), "POSITION")
		}, Options{}, RuleMesh, "POSITION"},
		{"index past the vertices", func(t *testing.T, d doc) {
			b := bufferBytes(t, d, 0)
			binary.LittleEndian.PutUint16(b[2:], 10)
			setBufferBytes(d, 0, b)
		}, Options{}, RuleMesh, "index 1"},
		{"vertex joint past the skin", func(t *testing.T, d doc) {
			b := bufferBytes(t, d, 1)
			binary.LittleEndian.PutUint16(b[16:], 2)
			setBufferBytes(d, 1, b)
		}, Options{}, RuleMesh, "joint 2"},
		{"indices not whole triangles", func(t *testing.T, d doc) { obj(d, "accessors", 0)["count"] = 23 }, Options{}, RuleMesh, "23 indices"},
		{"attribute count mismatch", func(t *testing.T, d doc) { obj(d, "accessors", 3)["count"] = 9 }, Options{}, RuleMesh, "WEIGHTS_0"},
		{"matrix with shear", func(t *testing.T, d doc) {
			n := obj(d, "nodes", 1)
			delete(n, "translation")
			n["matrix"] = []any{1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1}
		}, Options{}, RuleNodeTransform, "node 1"},
		{"matrix with a zero scale", func(t *testing.T, d doc) {
			n := obj(d, "nodes", 1)
			delete(n, "translation")
			n["matrix"] = []any{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1}
		}, Options{}, RuleNodeTransform, "node 1"},
		{"zero rotation", func(t *testing.T, d doc) { obj(d, "nodes", 2)["rotation"] = []any{0, 0, 0, 0} }, Options{}, RuleNodeTransform, "node 2"},
		{"inverse bind matrices too few", func(t *testing.T, d doc) { obj(d, "accessors", 4)["count"] = 1 }, Options{}, RuleSkin, "1 matrices"},
		{"inverse bind matrices not MAT4", func(t *testing.T, d doc) { obj(d, "skins", 0)["inverseBindMatrices"] = 6 }, Options{}, RuleAccessor, "MAT4"},
		{"mesh index out of range", func(t *testing.T, d doc) { obj(d, "nodes", 0)["mesh"] = 3 }, Options{}, RuleMesh, "mesh 3"},
		{"null node", func(t *testing.T, d doc) { d["nodes"].([]any)[2] = nil }, Options{}, RuleSyntax, "nodes[2]"},
		{"no asset", func(t *testing.T, d doc) { delete(d, "asset") }, Options{}, RuleSyntax, "asset"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := simpleSkin(t)
			tc.mutate(t, d)
			path := writeModel(t, d)
			m, err := Load(path, tc.opt)
			checkErr(t, err, path, tc.rule, tc.detail)
			if m != nil {
				t.Error("a model came back with the error")
			}
		})
	}
}

func checkErr(t *testing.T, err error, path string, rule Rule, detail string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want rule %s", rule)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *gltf.Error", err, err)
	}
	msg := err.Error()
	if e.Rule != rule || !strings.Contains(msg, string(rule)) {
		t.Errorf("rule %s, want %s: %v", e.Rule, rule, err)
	}
	if e.File != path || !strings.Contains(msg, path) {
		t.Errorf("file %q not named: %v", path, err)
	}
	if !strings.Contains(msg, detail) {
		t.Errorf("message does not mention %q: %v", detail, err)
	}
}

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	glb := func(jsonText string, chunkLen uint32, total uint32) []byte {
		b := []byte("glTF")
		b = binary.LittleEndian.AppendUint32(b, 2)
		b = binary.LittleEndian.AppendUint32(b, total)
		b = binary.LittleEndian.AppendUint32(b, chunkLen)
		b = binary.LittleEndian.AppendUint32(b, 0x4e4f534a)
		return append(b, jsonText...)
	}
	js := `{"asset":{"version":"2.0"}}`
	cases := []struct {
		name   string
		data   []byte
		rule   Rule
		detail string
	}{
		{"not JSON", []byte("hello"), RuleSyntax, "JSON"},
		{"empty", nil, RuleSyntax, "JSON"},
		{"GLB chunk past the end", glb(js, 1000, uint32(20+len(js))), RuleSyntax, "chunk"},
		{"GLB length past the end", glb(js, uint32(len(js)), 5000), RuleSyntax, "5000"},
		{"GLB short header", []byte("glTF\x02\x00\x00\x00"), RuleSyntax, "header"},
		{"GLB version 1", append([]byte("glTF\x01\x00\x00\x00"), make([]byte, 20)...), RuleVersion, "glTF 1.0 is not supported (GLB version 1, KHR_binary_glTF); convert it to 2.0 with gltf-pipeline"},
		{"GLB version 3", append([]byte("glTF\x03\x00\x00\x00"), make([]byte, 20)...), RuleVersion, "GLB version is 3, only 2 is supported"},
		{"glTF 1.0 JSON", []byte(`{"asset":{"version":"1.0"},"meshes":{"m":{"primitives":[]}},"scene":"s"}`), RuleVersion, "glTF 1.0 is not supported (asset.version 1.0); convert it to 2.0 with gltf-pipeline"},
		{"glTF 1.0 number version", []byte(`{"asset":{"version":1},"meshes":{}}`), RuleVersion, "glTF 1 is not supported (asset.version 1)"},
		{"GLB without BIN for buffer 0", glb(`{"asset":{"version":"2.0"},"buffers":[{"byteLength":4}]}`, 56, 76), RuleBuffer, "BIN"},
		{"no skins", []byte(js), RuleSkinIndex, "no skins"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := write(strings.ReplaceAll(tc.name, " ", "_")+".glb", tc.data)
			_, err := Load(path, Options{})
			checkErr(t, err, path, tc.rule, tc.detail)
		})
	}
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(dir, "nope.gltf")
		_, err := Load(path, Options{})
		checkErr(t, err, path, RuleFile, "read")
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v does not wrap os.ErrNotExist", err)
		}
		_, err = Inspect(path)
		checkErr(t, err, path, RuleFile, "read")
	})
}

// Inspect checks what it reads as Load does.
func TestInspectBadModels(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(d doc)
		rule   Rule
	}{
		{"cycle", func(d doc) { obj(d, "nodes", 2)["children"] = []any{1} }, RuleNodeGraph},
		{"missing buffer", func(d doc) { obj(d, "buffers", 1)["uri"] = "missing.bin" }, RuleBuffer},
		{"sampler mismatch", func(d doc) { obj(d, "accessors", 6)["count"] = 11 }, RuleSampler},
		{"channel target", func(d doc) {
			obj(d, "animations", 0)["channels"].([]any)[0].(map[string]any)["target"].(map[string]any)["node"] = 99
		}, RuleChannelTarget},
		{"positions past the view", func(d doc) { obj(d, "accessors", 1)["count"] = 11 }, RuleAccessor},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := simpleSkin(t)
			tc.mutate(d)
			path := writeModel(t, d)
			_, err := Inspect(path)
			checkErr(t, err, path, tc.rule, "")
		})
	}
}
