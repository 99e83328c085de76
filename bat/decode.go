package bat

import (
	"bytes"
	"fmt"

	qgltf "github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
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
