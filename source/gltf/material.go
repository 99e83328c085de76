package gltf

import (
	"bytes"
	"fmt"
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

// texture resolves a texture reference. Each texture is read once per document:
// primitives that share one get the same *Texture.
func (d *document) texture(ref *qgltf.TextureInfo) (*Texture, error) {
	if ref.TexCoord != 0 {
		return nil, fmt.Errorf("it uses TEXCOORD_%d; only TEXCOORD_0 is read", ref.TexCoord)
	}
	if r, ok := d.textures[ref.Index]; ok {
		return r.tex, r.err
	}
	tex, err := d.readTexture(ref.Index)
	if d.textures == nil {
		d.textures = map[int]textureResult{}
	}
	d.textures[ref.Index] = textureResult{tex, err}
	return tex, err
}

type textureResult struct {
	tex *Texture
	err error
}

func (d *document) readTexture(index int) (*Texture, error) {
	doc := d.doc
	if index < 0 || index >= len(doc.Textures) || doc.Textures[index] == nil {
		return nil, fmt.Errorf("it does not exist (there are %d textures)", len(doc.Textures))
	}
	t := doc.Textures[index]
	if t.Source == nil {
		return nil, fmt.Errorf("it has no source image (only an extension's, which is not read)")
	}
	src := *t.Source
	if src < 0 || src >= len(doc.Images) || doc.Images[src] == nil {
		return nil, fmt.Errorf("image %d does not exist (there are %d images)", src, len(doc.Images))
	}
	data, err := d.image(doc.Images[src])
	if err != nil {
		return nil, fmt.Errorf("image %d: %w", src, err)
	}
	tex := &Texture{Data: data, WrapS: 10497, WrapT: 10497}
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		tex.MIME = "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		tex.MIME = "image/jpeg"
	default:
		return nil, fmt.Errorf("image %d is neither PNG nor JPEG", src)
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
		b, _, err := d.bufferView(*im.BufferView, "image")
		return b, err
	case strings.HasPrefix(im.URI, "data:"):
		return decodeDataURI(im.URI)
	case im.URI != "":
		return readExternal(d.dir, im.URI, -maxImage)
	}
	return nil, fmt.Errorf("it has neither a buffer view nor a uri")
}
