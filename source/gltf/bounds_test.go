package gltf

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// A file that reuses one 1 MiB rotation accessor behind 400 animations is decoded
// once: every clip's track shares the same keys, and Load allocates a small
// multiple of the file, not 400 copies of the accessor.
func TestReusedAccessorDecodedOnce(t *testing.T) {
	d := simpleSkin(t)
	keys := 1 << 16
	if testing.Short() {
		keys = 1 << 13 // 128 KiB: 400 copies would still be 50 MiB
	}
	times, rots := make([]byte, 0, 4*keys), make([]byte, 0, 16*keys)
	for k := range keys {
		times = binary.LittleEndian.AppendUint32(times, mathFloat32bits(float32(k)/30))
		for _, v := range []float32{0, 0, 0, 1} {
			rots = binary.LittleEndian.AppendUint32(rots, mathFloat32bits(v))
		}
	}
	in := addAccessor(d, times, 5126, "SCALAR", keys, false)
	obj(d, "accessors", in)["min"], obj(d, "accessors", in)["max"] = []any{0}, []any{float32(keys-1) / 30}
	out := addAccessor(d, rots, 5126, "VEC4", keys, false)
	var anims []any
	for range 400 {
		anims = append(anims, map[string]any{
			"samplers": []any{map[string]any{"input": in, "output": out}},
			"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 2, "path": "rotation"}}},
		})
	}
	d["animations"] = anims
	path := writeModel(t, d)
	var m *Model
	n := testfiles.Allocated(func() {
		var err error
		if m, err = Load(path, Options{}); err != nil {
			t.Fatal(err)
		}
	})
	first := &m.Clips[0].Tracks[0].Values[0]
	for i, c := range m.Clips {
		if &c.Tracks[0].Values[0] != first {
			t.Fatalf("clip %d decoded the shared accessor again", i)
		}
	}
	st, _ := os.Stat(path)
	t.Logf("a %d KiB file: Load allocated %d MiB", st.Size()>>10, n>>20)
	if n > 8*uint64(st.Size()) {
		t.Errorf("Load allocated %d MiB for a %d KiB file", n>>20, st.Size()>>10)
	}
}

func mathFloat32bits(f float32) uint32 { return math.Float32bits(f) }

func jsonMarshal(d doc) ([]byte, error) { return json.Marshal(d) }

// A file that merges one 768 KiB POSITION accessor into a mesh 300 times asks
// for about 1 GiB: refused by the memory rule before it is allocated.
func TestReusedPositionsRefused(t *testing.T) {
	d := simpleSkin(t)
	const verts = 65535
	pos := make([]byte, 12*verts)
	acc := addAccessor(d, pos, 5126, "VEC3", verts, false)
	obj(d, "accessors", acc)["min"], obj(d, "accessors", acc)["max"] = []any{0, 0, 0}, []any{0, 0, 0}
	var prims []any
	for range 300 {
		prims = append(prims, map[string]any{"attributes": map[string]any{"POSITION": acc}})
	}
	obj(d, "meshes", 0)["primitives"] = prims
	path := writeModel(t, d)
	var err error
	n := testfiles.Allocated(func() { _, err = Load(path, Options{}) })
	var ge *Error
	if !errors.As(err, &ge) || ge.Rule != RuleMemory || !strings.Contains(err.Error(), "Options.NoMemoryLimit") {
		t.Fatalf("err = %v; want the memory rule", err)
	}
	t.Logf("refused after allocating %d MiB: %v", n>>20, err)
	if n > 100<<20 {
		t.Errorf("allocated %d MiB before refusing", n>>20)
	}
	// The limit can be lifted (a gigabyte to load: not with -short).
	if testing.Short() {
		return
	}
	if _, err := Load(path, Options{NoMemoryLimit: true}); err != nil {
		t.Errorf("NoMemoryLimit: %v", err)
	}
}

// pngOf returns a 1×1 PNG whose header claims w × h pixels.
func pngOf(t *testing.T, w, h uint32) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	binary.BigEndian.PutUint32(p[16:], w) // IHDR data starts at 16
	binary.BigEndian.PutUint32(p[20:], h)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}

// 300 materials and textures naming one image make one texture, read once; an
// image whose header claims 60000 × 60000 pixels (14 GB decoded) is left out with
// a warning instead of being handed to a renderer.
func TestTexturesShareImages(t *testing.T) {
	d := simpleSkin(t)
	d["images"] = []any{map[string]any{"uri": "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngOf(t, 1, 1))}}
	var mats, texs, prims []any
	prim := obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)
	for k := range 300 {
		texs = append(texs, map[string]any{"source": 0})
		mats = append(mats, map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": k}}})
		p := map[string]any{}
		for key, v := range prim {
			p[key] = v
		}
		p["material"] = k
		prims = append(prims, p)
	}
	d["textures"], d["materials"] = texs, mats
	obj(d, "meshes", 0)["primitives"] = prims
	m, err := Load(writeModel(t, d), Options{Textures: true})
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range m.Parts {
		if p.Material.Texture == nil || p.Material.Texture != m.Parts[0].Material.Texture {
			t.Fatalf("part %d: texture %p, part 0's %p: want one shared", k, p.Material.Texture, m.Parts[0].Material.Texture)
		}
	}

	d["images"] = []any{map[string]any{"uri": "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngOf(t, 60000, 60000))}}
	m, err = Load(writeModel(t, d), Options{Textures: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts[0].Material.Texture != nil || len(m.Warnings) == 0 || !strings.Contains(m.Warnings[0], "60000 × 60000") {
		t.Errorf("a 60000 × 60000 image: texture %v, warnings %q", m.Parts[0].Material.Texture != nil, m.Warnings[:min(1, len(m.Warnings))])
	}
}

// External files are read inside the model's folder: a symbolic link out of it is
// refused like "../", and Options.FilesRoot names a wider folder.
func TestExternalFilesStayInside(t *testing.T) {
	d := simpleSkin(t)
	top := t.TempDir()
	model, outside := filepath.Join(top, "model"), filepath.Join(top, "shared")
	for _, dir := range []string{model, outside} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b := bufferBytes(t, d, 0)
	if err := os.WriteFile(filepath.Join(outside, "data.bin"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "shared", "data.bin"), filepath.Join(model, "data.bin")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	obj(d, "buffers", 0)["uri"] = "data.bin"
	data, _ := jsonMarshal(d)
	path := filepath.Join(model, "m.gltf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, Options{})
	var ge *Error
	if !errors.As(err, &ge) || ge.Rule != RuleBuffer || !strings.Contains(err.Error(), "symbolic link out of") || !strings.Contains(err.Error(), "Options.FilesRoot") {
		t.Fatalf("a buffer linked out of the folder: %v", err)
	}
	if _, err := Load(path, Options{FilesRoot: top}); err != nil {
		t.Errorf("with the wider root: %v", err)
	}
	obj(d, "buffers", 0)["uri"] = "../shared/data.bin"
	data, _ = jsonMarshal(d)
	os.WriteFile(path, data, 0o644)
	if _, err := Load(path, Options{}); err == nil || !strings.Contains(err.Error(), "leaves") {
		t.Errorf("../: %v", err)
	}
	if _, err := Load(path, Options{FilesRoot: top}); err != nil {
		t.Errorf("../ with the wider root: %v", err)
	}
}

// A skin that lists a joint twice is refused, naming both places.
func TestDuplicateJoint(t *testing.T) {
	d := simpleSkin(t)
	obj(d, "skins", 0)["joints"] = []any{1, 1}
	_, err := Load(writeModel(t, d), Options{})
	var ge *Error
	if !errors.As(err, &ge) || ge.Rule != RuleSkin || !strings.Contains(err.Error(), "joint 1 is node 1 again (joint 0 already is)") {
		t.Errorf("err = %v", err)
	}
}
