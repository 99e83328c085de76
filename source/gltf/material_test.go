package gltf

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	qgltf "github.com/qmuntal/gltf"
)

// The shared models' materials as the files state them (read with qmuntal/gltf
// here, not with this package): Fox a PNG in the GLB's buffer, CesiumMan a JPEG
// data URI, RiggedSimple a colour factor only, SimpleSkin no material.
func TestMaterials(t *testing.T) {
	for _, c := range []struct {
		file                     string
		mime                     string
		factor                   [4]float32
		wrapS, wrapT, mag, minif int
	}{
		{"Fox.glb", "image/png", [4]float32{1, 1, 1, 1}, 10497, 10497, 9729, 9987},
		{"CesiumMan.gltf", "image/jpeg", [4]float32{1, 1, 1, 1}, 10497, 10497, 9729, 9986},
		{"RiggedSimple.gltf", "", [4]float32{0.27963539958000183, 0.6399999856948853, 0.21094390749931335, 1}, 0, 0, 0, 0},
		{"SimpleSkin.gltf", "", [4]float32{1, 1, 1, 1}, 0, 0, 0, 0},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := modelPath(t, c.file)
			m, err := Load(path, Options{Textures: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Warnings) != 0 {
				t.Errorf("warnings: %q", m.Warnings)
			}
			if len(m.Parts) != 1 || m.Parts[0].First != 0 || m.Parts[0].Count != len(m.Mesh.Indices) {
				t.Fatalf("parts %+v for %d indices, want one covering all", m.Parts, len(m.Mesh.Indices))
			}
			mat := m.Parts[0].Material
			if mat.BaseColor != c.factor {
				t.Errorf("base colour %v, want %v", mat.BaseColor, c.factor)
			}
			tex := mat.Texture
			if c.mime == "" {
				if tex != nil {
					t.Errorf("a texture the file does not have: %s", tex.MIME)
				}
				return
			}
			if tex == nil {
				t.Fatal("no texture")
			}
			if tex.MIME != c.mime || tex.WrapS != c.wrapS || tex.WrapT != c.wrapT || tex.MagFilter != c.mag || tex.MinFilter != c.minif {
				t.Errorf("texture %s wrap %d/%d filters %d/%d, want %s %d/%d %d/%d", tex.MIME, tex.WrapS, tex.WrapT,
					tex.MagFilter, tex.MinFilter, c.mime, c.wrapS, c.wrapT, c.mag, c.minif)
			}
			if !bytes.Equal(tex.Data, referenceImage(t, path)) {
				t.Error("the texture's bytes are not the file's image")
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(tex.Data))
			if err != nil || "image/"+format != c.mime || cfg.Width < 64 || cfg.Height < 64 {
				t.Errorf("image decodes as %s %dx%d (%v)", format, cfg.Width, cfg.Height, err)
			}
			plain, err := Load(path, Options{})
			if err != nil || plain.Parts[0].Material.Texture != nil || plain.Parts[0].Material.BaseColor != c.factor {
				t.Errorf("without Textures: %+v, %v", plain.Parts, err)
			}
		})
	}
}

// referenceImage returns image 0's bytes as qmuntal/gltf reads them.
func referenceImage(t *testing.T, path string) []byte {
	t.Helper()
	d, err := qgltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	im := d.Images[0]
	if im.BufferView != nil {
		bv := d.BufferViews[*im.BufferView]
		return d.Buffers[bv.Buffer].Data[bv.ByteOffset : bv.ByteOffset+bv.ByteLength]
	}
	_, payload, _ := strings.Cut(im.URI, ",")
	b, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A colour factor outside [0, 1] is clamped into it.
func TestColourFactorClamped(t *testing.T) {
	d := simpleSkin(t)
	d["materials"] = []any{map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorFactor": []any{2, -1, 0.5, 1e30}}}}
	obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)["material"] = 0
	m, err := Load(writeModel(t, d), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Parts[0].Material.BaseColor; got != [4]float32{1, 0, 0.5, 1} {
		t.Errorf("base colour %v, want [1 0 0.5 1]", got)
	}
}

// A texture that cannot be used leaves a warning naming it and the colour factor;
// the model still loads.
func TestBadTextures(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n rest of a png")
	for _, c := range []struct {
		name, want string
		edit       func(d doc, dir string)
	}{
		{"missing material", "material 3 does not exist", func(d doc, _ string) { obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)["material"] = 3 }},
		{"missing texture", "texture 2: it does not exist", func(d doc, _ string) { texInfo(d)["index"] = 2 }},
		{"second uv set", "TEXCOORD_1", func(d doc, _ string) { texInfo(d)["texCoord"] = 1 }},
		{"missing image", "image 5 does not exist", func(d doc, _ string) { obj(d, "textures", 0)["source"] = 5 }},
		{"no source", "no source image", func(d doc, _ string) { delete(obj(d, "textures", 0), "source") }},
		{"missing sampler", "sampler 4 does not exist", func(d doc, _ string) { obj(d, "textures", 0)["sampler"] = 4 }},
		{"not an image", "neither PNG nor JPEG", func(d doc, _ string) {
			obj(d, "images", 0)["uri"] = "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("GIF89a..."))
		}},
		{"bad data URI", "only base64", func(d doc, _ string) { obj(d, "images", 0)["uri"] = "data:image/png,abc" }},
		{"outside folder", "leaves ", func(d doc, _ string) { obj(d, "images", 0)["uri"] = "../secret.png" }},
		{"absent file", "skin.png", func(d doc, _ string) { obj(d, "images", 0)["uri"] = "skin.png" }},
		{"view past buffer", "buffer view 9", func(d doc, _ string) { delete(obj(d, "images", 0), "uri"); obj(d, "images", 0)["bufferView"] = 9 }},
		{"nothing", "neither a buffer view nor a uri", func(d doc, _ string) { delete(obj(d, "images", 0), "uri") }},
		{"file beside the model", "", func(d doc, dir string) {
			os.WriteFile(filepath.Join(dir, "skin.png"), png, 0o644)
			obj(d, "images", 0)["uri"] = "skin.png"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := simpleSkin(t)
			d["materials"] = []any{map[string]any{"pbrMetallicRoughness": map[string]any{
				"baseColorFactor": []any{0.5, 0.25, 1, 1}, "baseColorTexture": map[string]any{"index": 0}}}}
			d["textures"] = []any{map[string]any{"source": 0}}
			d["images"] = []any{map[string]any{"uri": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)}}
			obj(d, "meshes", 0)["primitives"].([]any)[0].(map[string]any)["material"] = 0
			dir := t.TempDir()
			c.edit(d, dir)
			js, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "model.gltf")
			if err := os.WriteFile(path, js, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := Load(path, Options{Textures: true})
			if err != nil {
				t.Fatalf("the model did not load: %v", err)
			}
			tex := m.Parts[0].Material.Texture
			if c.want == "" {
				if len(m.Warnings) != 0 || tex == nil || !bytes.Equal(tex.Data, png) {
					t.Fatalf("warnings %q, texture %v", m.Warnings, tex)
				}
				return
			}
			if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], c.want) || !strings.Contains(m.Warnings[0], "mesh 0 primitive 0") {
				t.Fatalf("warnings %q, want one about %q", m.Warnings, c.want)
			}
			if tex != nil {
				t.Error("kept a texture that cannot be used")
			}
			info, err := Inspect(path)
			if err != nil {
				t.Fatal(err)
			}
			if mi := info.Meshes[0].Primitives[0].Material; !strings.Contains(mi.Warning, c.want) || mi.Texture != "" {
				t.Errorf("inspect: material %+v, want a warning about %q", mi, c.want)
			}
		})
	}
}

func texInfo(d doc) map[string]any {
	return obj(d, "materials", 0)["pbrMetallicRoughness"].(map[string]any)["baseColorTexture"].(map[string]any)
}

// Each primitive becomes a part over its own indices, with its own material.
func TestPartsPerPrimitive(t *testing.T) {
	d := simpleSkin(t)
	d["materials"] = []any{map[string]any{"name": "red", "pbrMetallicRoughness": map[string]any{"baseColorFactor": []any{1, 0, 0, 1}}}}
	prims := obj(d, "meshes", 0)["primitives"].([]any)
	second := map[string]any{}
	for k, v := range prims[0].(map[string]any) {
		second[k] = v
	}
	second["material"] = 0
	obj(d, "meshes", 0)["primitives"] = append(prims, second)
	m, err := Load(writeModel(t, d), Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(m.Mesh.Indices) / 2 // SimpleSkin has 8 triangles, 24 indices, per primitive
	if n != 24 || len(m.Parts) != 2 || m.Parts[0] != (Part{0, 24, Material{BaseColor: [4]float32{1, 1, 1, 1}}}) ||
		m.Parts[1] != (Part{24, 24, Material{Name: "red", BaseColor: [4]float32{1, 0, 0, 1}}}) {
		t.Errorf("parts %+v over %d indices", m.Parts, len(m.Mesh.Indices))
	}
}

// Primitives that share a texture share one read of it.
func TestSharedTextureReadOnce(t *testing.T) {
	d := simpleSkin(t)
	d["materials"] = []any{map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": 0}}}}
	d["textures"] = []any{map[string]any{"source": 0}}
	d["images"] = []any{map[string]any{"uri": "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n..."))}}
	prims := obj(d, "meshes", 0)["primitives"].([]any)
	prims[0].(map[string]any)["material"] = 0
	obj(d, "meshes", 0)["primitives"] = append(prims, prims[0])
	m, err := Load(writeModel(t, d), Options{Textures: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Parts) != 2 || m.Parts[0].Material.Texture == nil || m.Parts[0].Material.Texture != m.Parts[1].Material.Texture {
		t.Errorf("parts %+v: want one texture shared by both", m.Parts)
	}
}

// An image file over the limit is refused saying both sizes as every limit
// message does, in decimal MB (README, Limits): 300,000,000 bytes against
// 256 MiB, 268,435,456 bytes. A sparse file, so nothing is written or read.
func TestImageOverLimitSaysMB(t *testing.T) {
	src, err := os.ReadFile(modelPath(t, "CesiumMan.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	doc["images"] = []any{map[string]any{"uri": "big.png"}}
	dir := t.TempDir()
	b, _ := json.Marshal(doc)
	model := filepath.Join(dir, "m.gltf")
	if err := os.WriteFile(model, b, 0o644); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(dir, "big.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(300_000_000); err != nil {
		t.Fatal(err)
	}
	big.Close()
	m, err := Load(model, Options{Textures: true})
	msg := fmt.Sprint(err)
	if m != nil {
		msg += strings.Join(m.Warnings, "\n")
	}
	if !strings.Contains(msg, "is 300 MB, more than the 268 MB allowed") {
		t.Errorf("an image of 300,000,000 bytes: %s; want it said in MB against the 268 MB allowed", msg)
	}
}
