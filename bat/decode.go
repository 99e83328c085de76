package bat

import (
	"bytes"
	"fmt"

	"github.com/bonebake/bonebake/formats/exr"

	qgltf "github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/x448/float16"
)

// DecodeTexture reads a texture file written with the given encoding (Float32,
// Float16, Unorm16 or Unorm8) into its stored channel values c, before the
// report's c·range + offset (docs/formats/bat.md §4): floats as stored (half
// floats widened exactly), unorm codes divided by their maximum. channels is 3
// for the position texture and 4 for the others. A renderer uses it to sample
// exactly what the files hold.
func DecodeTexture(name string, b []byte, encoding string, channels int) (*Texture, error) {
	return decodeTexture(name, b, encoding, channels)
}

// ReadMesh reads the output mesh's positions (posed at the reference row, in the
// textures' space) and TEXCOORD_1 (each vertex's skin texel centre, §5).
func ReadMesh(name string, b []byte) (pos [][3]float32, uv1 [][2]float32, err error) {
	return readMeshGLB(name, b)
}

// ReadMeshNormals reads the output mesh's normals (nil when it has none).
func ReadMeshNormals(name string, b []byte) ([][3]float32, error) {
	var doc qgltf.Document
	if err := qgltf.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Meshes) != 1 || len(doc.Meshes[0].Primitives) != 1 {
		return nil, fmt.Errorf("%s: want one mesh of one primitive", name)
	}
	ni, ok := doc.Meshes[0].Primitives[0].Attributes[qgltf.NORMAL]
	if !ok || ni >= len(doc.Accessors) {
		return nil, nil
	}
	n, err := modeler.ReadNormal(&doc, doc.Accessors[ni], nil)
	if err != nil {
		return nil, fmt.Errorf("%s: NORMAL: %w", name, err)
	}
	return n, nil
}

// verifySource is what verification reads: the three textures as their files
// decode, and the mesh's positions and TEXCOORD_1.
type verifySource struct {
	pos, rot, skin *Texture
	vpos           [][3]float32
	uv1            [][2]float32
}

// storedValues returns what o's files hold, without reading them from disk: each
// texture's values as decodeTexture reads them from the file (the float32 values;
// float16 and unorm codes turned back into float32 as the decoders do), and the
// mesh's positions and TEXCOORD_1 read from the mesh file's bytes in memory (the
// mesh is posed at the reference row, whatever the preset).
func (o *Output) storedValues() (verifySource, error) {
	r := o.Report
	src := verifySource{
		pos:  storedTexture(o.textures[0], r.Position.Encoding),
		rot:  storedTexture(o.textures[1], r.Rotation.Encoding),
		skin: storedTexture(o.textures[2], r.Skin.Encoding),
	}
	var err error
	src.vpos, src.uv1, err = readMeshGLB(r.Mesh, o.File(r.Mesh))
	return src, err
}

// storedTexture returns t as a file of the encoding stores it, bit for bit what
// decodeTexture reads back: float32 as it is, float16 rounded to half and back
// (exr.Decode), unorm codes (quantize) scaled as decodePNG scales them.
func storedTexture(t *Texture, encoding string) *Texture {
	if encoding == Float32 {
		return t
	}
	s := newTexture(t.Width, t.Height, t.Channels)
	switch encoding {
	case Float16:
		for i, v := range t.Data {
			s.Data[i] = float16.Frombits(float16.Fromfloat32(v).Bits()).Float32()
		}
	case Unorm16:
		scale := float32(1) / 65535
		for i, v := range t.Data {
			s.Data[i] = float32(quantize(v, 65535)) * scale
		}
	case Unorm8:
		for i, v := range t.Data {
			s.Data[i] = float32(quantize(v, 255)) / 255
		}
	}
	return s
}

// decodeTexture reads a texture file of the given encoding into stored values c.
func decodeTexture(name string, b []byte, encoding string, channels int) (*Texture, error) {
	switch encoding {
	case Unorm16:
		return decodePNG(name, b, channels, 16)
	case Unorm8:
		return decodePNG(name, b, channels, 8)
	case Float32, Float16:
		img, err := exr.Decode(name, b, channels)
		return (*Texture)(img), err
	}
	return nil, fmt.Errorf("%s: unknown encoding %q", name, encoding)
}
