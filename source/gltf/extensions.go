package gltf

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	qgltf "github.com/qmuntal/gltf"
)

// Extension names this package acts on.
const (
	extMeshoptEXT   = "EXT_meshopt_compression"
	extMeshoptKHR   = "KHR_meshopt_compression"
	extDraco        = "KHR_draco_mesh_compression"
	extQuantization = "KHR_mesh_quantization"
	extLOD          = "MSFT_lod"
)

// Support says how bonebake treats an extension (docs/formats/gltf.md).
type Support string

// The ways bonebake treats an extension.
const (
	// Handled: bonebake reads what the extension encodes.
	Handled Support = "handled"
	// Partial: the skeleton and animations are read, the mesh is not.
	Partial Support = "partial"
	// Ignored: the extension does not change the skeleton, the animations or the
	// mesh's geometry and skin, so a file that requires it still bakes right.
	Ignored Support = "ignored"
	// Unsupported: the extension may change what bonebake reads; a file that
	// requires it is refused.
	Unsupported Support = "unsupported"
)

// extensionSupport lists the extensions bonebake knows, each with why it is
// treated so. Any other extension is Unsupported.
var extensionSupport = map[string]struct {
	support Support
	why     string
}{
	extQuantization: {Handled, "integer vertex and animation data is read and normalized"},
	extMeshoptEXT:   {Handled, "compressed buffer views are decoded"},
	extMeshoptKHR:   {Handled, "compressed buffer views are decoded"},
	extDraco:        {Partial, "skeleton and animations are read (Draco compresses only meshes); there is no maintained pure-Go Draco decoder, so a Draco-compressed mesh is not read"},

	extLOD: {Handled, "lower levels of detail: the full mesh is the node's own, a far-LOD snapshot takes the coarsest level"},

	"KHR_materials_unlit":             {Ignored, "shading only; the viewer draws the base colour"},
	"KHR_materials_emissive_strength": {Ignored, "shading only; the viewer draws the base colour"},
	"KHR_materials_variants":          {Ignored, "alternative materials; the default material is used"},
	"KHR_lights_punctual":             {Ignored, "lights are not read"},
	"KHR_texture_transform":           {Ignored, "texture coordinates transform: the mesh is unchanged; the viewer draws the texture untransformed"},
	"KHR_texture_basisu":              {Ignored, "KTX2 images: the viewer uses an image's PNG or JPEG source, else the base colour alone"},
	"EXT_texture_webp":                {Ignored, "WebP images: the viewer uses an image's PNG or JPEG source, else the base colour alone"},
	"EXT_texture_avif":                {Ignored, "AVIF images: the viewer uses an image's PNG or JPEG source, else the base colour alone"},
	"KHR_xmp_json_ld":                 {Ignored, "metadata only"},
	"KHR_xmp":                         {Ignored, "metadata only"},
	"EXT_mesh_gpu_instancing":         {Ignored, "instances static meshes; a skinned mesh is not instanced"},
	"KHR_animation_pointer":           {Unsupported, "animates properties by JSON pointer, node transforms included, which bonebake does not evaluate"},
}

// ExtensionSupport says how bonebake treats the named glTF extension, and why.
func ExtensionSupport(name string) (Support, string) {
	if e, ok := extensionSupport[name]; ok {
		return e.support, e.why
	}
	if strings.HasPrefix(name, "KHR_materials_") {
		return Ignored, "shading only; the viewer draws the base colour"
	}
	return Unsupported, "bonebake does not implement it"
}

// checkRequired refuses a file whose extensionsRequired names an extension that
// may change what bonebake reads.
func (d *document) checkRequired() error {
	for _, name := range d.doc.ExtensionsRequired {
		if s, why := ExtensionSupport(name); s == Unsupported {
			return d.fail(RuleExtension, "extensionsRequired lists %s, which bonebake does not implement (%s); the file cannot be read without it", name, why)
		}
	}
	return nil
}

// required reports whether the file requires the named extension.
func (d *document) required(name string) bool { return slices.Contains(d.doc.ExtensionsRequired, name) }

// extension decodes the named extension's object from ext into v; false when
// ext does not have it.
func extension(ext qgltf.Extensions, name string, v any) (bool, error) {
	raw, ok := ext[name]
	if !ok {
		return false, nil
	}
	b, isRaw := raw.(json.RawMessage)
	if !isRaw {
		var err error
		if b, err = json.Marshal(raw); err != nil {
			return true, err
		}
	}
	return true, json.Unmarshal(b, v)
}

// checkVersion refuses anything but glTF 2.x, before the 2.0 schema decode would
// fail on it with a less helpful message.
func (d *document) checkVersion(jsonBytes []byte) error {
	var pre struct {
		Asset struct {
			Version any `json:"version"`
		} `json:"asset"`
	}
	if json.Unmarshal(jsonBytes, &pre) != nil || pre.Asset.Version == nil {
		return nil // the full decode reports it
	}
	return d.checkVersionOf(fmt.Sprint(pre.Asset.Version))
}

// checkVersionOf refuses an asset.version other than 2.x.
func (d *document) checkVersionOf(v string) error {
	if v == "" {
		return nil
	}
	if major, _, _ := strings.Cut(v, "."); major != "2" {
		return d.fail(RuleVersion, "glTF %s is not supported (asset.version %s); convert it to 2.0 with %s", v, v, convertHint)
	}
	return nil
}

// convertHint says how to turn a glTF 1.0 file into 2.0.
const convertHint = "gltf-pipeline (npx gltf-pipeline -i IN -o OUT.gltf upgrades 1.0 files) or Blender's glTF importer and exporter"

// dracoMesh returns why mesh mi cannot be read when a primitive of it is
// Draco-compressed with no uncompressed fallback (the extension is required, or
// POSITION has no buffer view), else nil.
func (d *document) dracoMesh(mi int) error {
	for pi, p := range d.doc.Meshes[mi].Primitives {
		if _, ok := p.Extensions[extDraco]; !ok {
			continue
		}
		fallback := !d.required(extDraco)
		if acc, ok := p.Attributes[qgltf.POSITION]; ok && acc >= 0 && acc < len(d.doc.Accessors) {
			fallback = fallback && d.doc.Accessors[acc].BufferView != nil
		}
		if !fallback {
			return d.fail(RuleExtension, "%s primitive %d is Draco-compressed (%s), which bonebake cannot decode (there is no maintained pure-Go Draco decoder): "+
				"palettes bake from the skeleton and animations, but what needs the mesh (bonebake view's skinned mesh, bone animation textures) does not have it; "+
				"re-export the model without Draco compression", label("mesh", mi, d.doc.Meshes[mi].Name), pi, extDraco)
		}
	}
	return nil
}
