package gltf

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // image.DecodeConfig reads their headers
	_ "image/png"
	"strings"

	qgltf "github.com/qmuntal/gltf"
)

// Part is a run of Mesh's triangles drawn with one material: one per glTF
// primitive, in file order.
type Part struct {
	First, Count int // the part's indices: Mesh.Indices[First : First+Count]
	Material     Material
}

// Material is what a primitive's glTF material says of its base colour
// (pbrMetallicRoughness): a linear RGBA factor, times a texture at TEXCOORD_0 when
// there is one and Options.Textures asked for it.
type Material struct {
	Name      string
	BaseColor [4]float32 // (1, 1, 1, 1) for a primitive without a material
	Texture   *Texture
}

// Texture is a base colour image, the bytes the file holds, and how to sample it.
type Texture struct {
	MIME string // "image/png" or "image/jpeg", from the image's own signature
	Data []byte
	// Sampler modes, numbered as glTF and OpenGL number them: wrap 10497 REPEAT,
	// 33071 CLAMP_TO_EDGE, 33648 MIRRORED_REPEAT; filters 9728 NEAREST, 9729
	// LINEAR, 9984–9987 the mipmap modes, 0 where the file leaves it to the viewer.
	WrapS, WrapT         int
	MagFilter, MinFilter int
}

// maxImage bounds the bytes of one image read from a file of its own.
const maxImage = 256 << 20

// material resolves primitive material index mi (nil: none). A texture that cannot
// be used is left out with a warning: it never stops a bake.
func (d *document) material(mi *int, textures bool, warn func(string, ...any)) Material {
	mat := Material{BaseColor: [4]float32{1, 1, 1, 1}}
	if mi == nil {
		return mat
	}
	if *mi < 0 || *mi >= len(d.doc.Materials) || d.doc.Materials[*mi] == nil {
		warn("material %d does not exist (there are %d); drawn plain", *mi, len(d.doc.Materials))
		return mat
	}
	m := d.doc.Materials[*mi]
	mat.Name = m.Name
	pbr := m.PBRMetallicRoughness
	if pbr == nil {
		return mat
	}
	if f := pbr.BaseColorFactor; f != nil {
		for k, x := range f { // JSON has no NaN or infinity
			mat.BaseColor[k] = float32(min(max(x, 0), 1))
		}
	}
	if t := pbr.BaseColorTexture; t != nil && textures {
		tex, err := d.texture(t)
		if err != nil {
			warn("material %d: base colour texture %d: %v; the colour factor alone is used", *mi, t.Index, err)
		} else {
			mat.Texture = tex
		}
	}
	return mat
}

// texture resolves a texture reference. Each image is read (and its pixels
// counted against the memory limit) once per document, and each image and sampler
// pair makes one *Texture: primitives, materials and textures that share them get
// the same one, which a renderer uploads once.
func (d *document) texture(ref *qgltf.TextureInfo) (*Texture, error) {
	if ref.TexCoord != 0 {
		return nil, fmt.Errorf("it uses TEXCOORD_%d; only TEXCOORD_0 is read", ref.TexCoord)
	}
	doc := d.doc
	if ref.Index < 0 || ref.Index >= len(doc.Textures) || doc.Textures[ref.Index] == nil {
		return nil, fmt.Errorf("it does not exist (there are %d textures)", len(doc.Textures))
	}
	t := doc.Textures[ref.Index]
	if t.Source == nil {
		return nil, fmt.Errorf("it has no source image (only an extension's, which is not read)")
	}
	key := textureKey{image: *t.Source, sampler: -1}
	if t.Sampler != nil {
		key.sampler = *t.Sampler
	}
	if r, ok := d.textures[key]; ok {
		return r.tex, r.err
	}
	tex, err := d.readTexture(key)
	if d.textures == nil {
		d.textures = map[textureKey]textureResult{}
	}
	d.textures[key] = textureResult{tex, err}
	return tex, err
}

// textureKey is what makes two textures the same: their image and sampler (−1: none).
type textureKey struct{ image, sampler int }

type textureResult struct {
	tex *Texture
	err error
}

type imageResult struct {
	data []byte
	mime string
	err  error
}

// imageData returns image src's bytes and MIME type, read and checked once.
func (d *document) imageData(src int) ([]byte, string, error) {
	if r, ok := d.images[src]; ok {
		return r.data, r.mime, r.err
	}
	data, mime, err := d.readImage(src)
	if d.images == nil {
		d.images = map[int]imageResult{}
	}
	d.images[src] = imageResult{data, mime, err}
	return data, mime, err
}

func (d *document) readImage(src int) ([]byte, string, error) {
	doc := d.doc
	if src < 0 || src >= len(doc.Images) || doc.Images[src] == nil {
		return nil, "", fmt.Errorf("image %d does not exist (there are %d images)", src, len(doc.Images))
	}
	data, err := d.image(doc.Images[src])
	if err != nil {
		return nil, "", fmt.Errorf("image %d: %w", src, err)
	}
	var mime string
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		mime = "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		mime = "image/jpeg"
	default:
		return nil, "", fmt.Errorf("image %d is neither PNG nor JPEG", src)
	}
	// A renderer decodes the pixels: count them, from the header alone (one
	// that cannot be read is the renderer's to report; it decodes no pixels).
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		if err := d.charge(int64(cfg.Width)*int64(cfg.Height)*4, fmt.Sprintf("image %d (%d × %d pixels)", src, cfg.Width, cfg.Height)); err != nil {
			return nil, "", err
		}
	}
	return data, mime, nil
}

func (d *document) readTexture(key textureKey) (*Texture, error) {
	doc := d.doc
	data, mime, err := d.imageData(key.image)
	if err != nil {
		return nil, err
	}
	tex := &Texture{Data: data, MIME: mime, WrapS: 10497, WrapT: 10497}
	t := &qgltf.Texture{}
	if key.sampler >= 0 {
		t.Sampler = &key.sampler
	}
	if t.Sampler != nil {
		if *t.Sampler < 0 || *t.Sampler >= len(doc.Samplers) || doc.Samplers[*t.Sampler] == nil {
			return nil, fmt.Errorf("sampler %d does not exist (there are %d)", *t.Sampler, len(doc.Samplers))
		}
		s := doc.Samplers[*t.Sampler]
		wrap := map[qgltf.WrappingMode]int{qgltf.WrapRepeat: 10497, qgltf.WrapClampToEdge: 33071, qgltf.WrapMirroredRepeat: 33648}
		tex.WrapS, tex.WrapT = wrap[s.WrapS], wrap[s.WrapT]
		tex.MagFilter = map[qgltf.MagFilter]int{qgltf.MagNearest: 9728, qgltf.MagLinear: 9729}[s.MagFilter]
		tex.MinFilter = map[qgltf.MinFilter]int{qgltf.MinNearest: 9728, qgltf.MinLinear: 9729,
			qgltf.MinNearestMipMapNearest: 9984, qgltf.MinLinearMipMapNearest: 9985,
			qgltf.MinNearestMipMapLinear: 9986, qgltf.MinLinearMipMapLinear: 9987}[s.MinFilter]
	}
	return tex, nil
}

// image returns an image's bytes: from a buffer view, a data URI or a file beside
// the model.
func (d *document) image(im *qgltf.Image) ([]byte, error) {
	switch {
	case im.BufferView != nil:
		// A copy: the Texture outlives the file's mapping.
		b, _, err := d.bufferView(*im.BufferView, "image")
		return bytes.Clone(b), err
	case strings.HasPrefix(im.URI, "data:"):
		return d.dataURI(im.URI)
	case im.URI != "":
		return d.readExternal(im.URI, -maxImage)
	}
	return nil, fmt.Errorf("it has neither a buffer view nor a uri")
}
