package gltf

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const packedDir = "../../testdata/gltf/meshopt"

// readGLB splits a GLB file into its JSON document and BIN chunk.
func readGLB(t testing.TB, path string) (doc, []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint32(b[12:])
	var d doc
	if err := json.Unmarshal(b[20:20+n], &d); err != nil {
		t.Fatal(err)
	}
	return d, b[20+n+8:]
}

// writeGLB writes a GLB file from a JSON document and a BIN chunk.
func writeGLB(t testing.TB, d doc, bin []byte) string {
	t.Helper()
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	bin = append([]byte(nil), bin...)
	for len(bin)%4 != 0 {
		bin = append(bin, 0)
	}
	out := binary.LittleEndian.AppendUint32([]byte("glTF"), 2)
	out = binary.LittleEndian.AppendUint32(out, uint32(12+8+len(js)+8+len(bin)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	out = binary.LittleEndian.AppendUint32(append(out, "JSON"...), 0)[:len(out)+4]
	out = append(out, js...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(bin)))
	out = append(append(out, 'B', 'I', 'N', 0), bin...)
	p := filepath.Join(t.TempDir(), "model.glb")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRequiredExtensions(t *testing.T) {
	for _, c := range []struct {
		ext    string
		refuse string // "" when the file must load
	}{
		{"KHR_animation_pointer", "extensionsRequired lists KHR_animation_pointer, which bonebake does not implement (animates properties by JSON pointer"},
		{"EXT_made_up", "extensionsRequired lists EXT_made_up, which bonebake does not implement"},
		{"KHR_materials_unlit", ""},
		{"KHR_materials_clearcoat", ""},
		{"KHR_texture_transform", ""},
		{"KHR_mesh_quantization", ""},
		{"EXT_meshopt_compression", ""},
	} {
		d := simpleSkin(t)
		d["extensionsUsed"] = []any{c.ext}
		d["extensionsRequired"] = []any{c.ext}
		path := writeModel(t, d)
		m, err := Load(path, Options{})
		if c.refuse == "" {
			if err != nil || m.Mesh == nil {
				t.Errorf("%s required: %v", c.ext, err)
			}
			continue
		}
		checkErr(t, err, path, RuleExtension, c.refuse)
		// inspect still describes the file, and says the extension is not handled
		info, err := Inspect(path)
		if err != nil {
			t.Fatalf("inspect with %s required: %v", c.ext, err)
		}
		if len(info.Extensions) != 1 || !info.Extensions[0].Required || info.Extensions[0].Support != Unsupported {
			t.Errorf("inspect extensions = %+v", info.Extensions)
		}
	}
}

// A Draco-compressed mesh: the skeleton and clips load, the mesh does not, and
// MeshError says why; without the extension required and with uncompressed
// attributes (the fallback) the mesh loads.
func TestDraco(t *testing.T) {
	d := simpleSkin(t)
	d["extensionsUsed"] = []any{"KHR_draco_mesh_compression"}
	d["extensionsRequired"] = []any{"KHR_draco_mesh_compression"}
	prim := obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)
	prim["extensions"] = map[string]any{"KHR_draco_mesh_compression": map[string]any{"bufferView": 0, "attributes": map[string]any{"POSITION": 0}}}
	path := writeModel(t, d)
	m, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Mesh != nil || len(m.Clips) != 1 || len(m.Joints) != 2 {
		t.Fatalf("mesh %v, %d clips, %d joints", m.Mesh, len(m.Clips), len(m.Joints))
	}
	checkErr(t, m.MeshError, path, RuleExtension, "mesh 0 primitive 0 is Draco-compressed (KHR_draco_mesh_compression), which bonebake cannot decode")
	if !strings.Contains(m.MeshError.Error(), "bonebake view") || len(m.Warnings) != 1 {
		t.Errorf("message does not say which commands need the mesh, or no warning: %v", m.Warnings)
	}
	d["extensionsRequired"] = []any{}
	if m, err = Load(writeModel(t, d), Options{}); err != nil || m.Mesh == nil || m.MeshError != nil {
		t.Fatalf("Draco with fallback attributes: %v, %v", err, m.MeshError)
	}
}

// Broken meshopt data is refused with the file, the extension, the buffer view
// and the byte.
func TestBadMeshopt(t *testing.T) {
	src := filepath.Join(packedDir, "SimpleSkin.meshopt.glb")
	ext := func(d doc, bv int) map[string]any {
		return obj(d, "bufferViews", bv)["extensions"].(map[string]any)["EXT_meshopt_compression"].(map[string]any)
	}
	for _, c := range []struct {
		name   string
		change func(d doc, bin []byte)
		rule   Rule
		detail string
	}{
		{"bad header", func(d doc, bin []byte) { bin[int(ext(d, 0)["byteOffset"].(float64))] = 0x77 }, RuleExtension,
			"buffer view 0: EXT_meshopt_compression (mode ATTRIBUTES, filter NONE, 10 × 12 bytes encoded in buffer 0 at byte 0): bad data at byte 0 of buffer 0: meshopt: byte 0: not vertex codec data"},
		{"bad mode", func(d doc, _ []byte) { ext(d, 3)["mode"] = "POINTS" }, RuleExtension, `buffer view 3: EXT_meshopt_compression (mode POINTS`},
		{"too short", func(d doc, _ []byte) { ext(d, 0)["count"] = 1000000.0 }, RuleExtension, "encoded bytes cannot hold 1000000 elements"},
		{"view too small", func(d doc, _ []byte) { obj(d, "bufferViews", 0)["byteLength"] = 60.0 }, RuleExtension, "120 decoded bytes do not fit the buffer view's byteLength 60"},
		{"source buffer missing", func(d doc, _ []byte) { ext(d, 0)["buffer"] = 7.0 }, RuleExtension, "buffer view 0: EXT_meshopt_compression: buffer 7 does not exist"},
		{"source is the fallback", func(d doc, _ []byte) { ext(d, 0)["buffer"] = 1.0 }, RuleExtension, "buffer 1 holds no data (it is a fallback buffer)"},
		{"no fallback flag", func(d doc, _ []byte) { delete(obj(d, "buffers", 1), "extensions") }, RuleBuffer, "buffer 1 has no uri"},
		{"view without extension", func(d doc, _ []byte) { delete(obj(d, "bufferViews", 0), "extensions") }, RuleBufferView, "buffer view 0: buffer 1 is a meshopt fallback buffer with no data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, bin := readGLB(t, src)
			bin = append([]byte(nil), bin...)
			c.change(d, bin)
			path := writeGLB(t, d, bin)
			_, err := Load(path, Options{})
			checkErr(t, err, path, c.rule, c.detail)
		})
	}
}
