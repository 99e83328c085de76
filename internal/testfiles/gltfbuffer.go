package testfiles

import (
	"encoding/base64"
	"encoding/binary"
	"math"
)

// GLTFBuffer gathers the binary data of a glTF file a test builds by hand: each
// Add stores data (4-byte aligned) in a buffer view of its own and returns a new
// accessor over it; Finish puts the accessors, views and one data-URI buffer in
// the document.
type GLTFBuffer struct {
	data             []byte
	views, accessors []map[string]any
}

// Add stores data and returns the index of an accessor of count elements of typ
// ("SCALAR", "VEC3", "MAT4", …) and componentType comp (5126 float, 5123 ushort,
// 5121 ubyte …), with any extra fields (min, max, normalized).
func (g *GLTFBuffer) Add(data []byte, count int, typ string, comp int, extra map[string]any) int {
	for len(g.data)%4 != 0 {
		g.data = append(g.data, 0)
	}
	g.views = append(g.views, map[string]any{"buffer": 0, "byteOffset": len(g.data), "byteLength": len(data)})
	g.data = append(g.data, data...)
	a := map[string]any{"bufferView": len(g.views) - 1, "count": count, "type": typ, "componentType": comp}
	for k, v := range extra {
		a[k] = v
	}
	g.accessors = append(g.accessors, a)
	return len(g.accessors) - 1
}

// Finish sets doc's accessors, bufferViews and buffers and returns doc.
func (g *GLTFBuffer) Finish(doc map[string]any) map[string]any {
	doc["accessors"], doc["bufferViews"] = g.accessors, g.views
	doc["buffers"] = []any{map[string]any{"byteLength": len(g.data), "uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(g.data)}}
	return doc
}

// Float32s encodes vs as little-endian float32s, as glTF stores FLOAT components.
func Float32s(vs ...float64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
	}
	return b
}
