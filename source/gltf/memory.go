package gltf

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	qgltf "github.com/qmuntal/gltf"
)

// What a file may make Load allocate: decoded accessors, the merged mesh and
// decoded texture pixels count against a limit in proportion to the file's own
// bytes (docs/formats/gltf.md §6). Legitimate files stay far below it: decoding
// the most compact encodings (bytes and shorts into floats, joints into 16-bit
// indices, then merging the primitives) takes under 8× their bytes. A file that
// reuses one accessor hundreds of times, or names one image from hundreds of
// textures, is decoded once; what it asks beyond that is refused with a clear
// error instead of exhausting memory.
const (
	// MemoryPerFileByte is how many bytes Load may allocate per byte of the file
	// and its buffers.
	MemoryPerFileByte = 16
	// MemoryFloor is what any file may use, however small.
	MemoryFloor = 64 << 20
)

// memory meters what Load allocates against its limit.
type memory struct {
	limit, used int64 // limit < 0: no limit
}

// charge counts n more bytes for what, or refuses them.
func (d *document) charge(n int64, what string) error {
	m := &d.memory
	if m.limit == 0 {
		m.limit = max(MemoryFloor, MemoryPerFileByte*d.budget)
	}
	if m.limit > 0 && (n > m.limit || m.used > m.limit-n) {
		return d.fail(RuleMemory, "%s would need %s more, past the %s this %s file may use (%d× its size): "+
			"a file that reuses its data many times over; Options.NoMemoryLimit lifts the limit", what, mib(n), mib(m.limit), mib(d.budget), MemoryPerFileByte)
	}
	m.used += n
	return nil
}

// mib writes a size in decimal MB, as every limit message of bonebake does
// (bake.MB; this floor cannot import it).
func mib(n int64) string {
	if n < 1_000_000 {
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// accessorKey names a decoded accessor: its index and how it was converted.
type accessorKey struct {
	index int
	uints bool
}

// cachedDecode decodes accessor i once per document: every later use (another
// sampler, another primitive) shares the same elements, which no one modifies.
// Floats the buffer holds as they would be decoded are not copied (see
// floatsInPlace); the charge is the same either way.
func cachedDecode[T any](d *document, i int, what string, uints bool, conv func(qgltf.ComponentType, float64) T) ([]T, error) {
	key := accessorKey{i, uints}
	if v, ok := d.accessors[key]; ok {
		return v.([]T), nil
	}
	v, err := d.accessorView(i, what) // its own rules first, then its cost
	if err != nil {
		return nil, err
	}
	var zero T
	if err := d.charge(int64(v.acc.Count)*int64(v.comps)*int64(sizeOf(zero)), fmt.Sprintf("%s: accessor %d", what, i)); err != nil {
		return nil, err
	}
	out, inPlace := floatsInPlace[T](d, v)
	if !inPlace {
		if out, _, err = decode(d, i, what, conv); err != nil {
			return nil, err
		}
	}
	if d.accessors == nil {
		d.accessors = map[accessorKey]any{}
	}
	d.accessors[key] = out
	return out, nil
}

func sizeOf(x any) int {
	switch x.(type) {
	case float32, uint32:
		return 4
	}
	return 8
}

// floatsInPlace returns accessor v's elements as the buffer holds them, without
// a copy, when they are what decoding them as floats would give: T is float32,
// the accessor's components are floats packed one after another with no sparse
// substitution, the host is little-endian, and the bytes are in memory of the
// process's own (not the file's mapping, which is released after loading: see
// withDocument). A copy would be fresh memory that each new page of costs a
// page fault (CesiumMan's floats: 55 of them). The elements keep the buffer
// alive, and no one modifies them (see cachedDecode).
func floatsInPlace[T any](d *document, v *view) ([]T, bool) {
	var zero T
	if _, isFloat := any(zero).(float32); !isFloat || !littleEndian || v.data == nil ||
		v.acc.ComponentType != qgltf.ComponentFloat || v.acc.Sparse != nil ||
		v.elemSize != 4*v.comps || v.stride != v.elemSize || d.isMapped(v.data) {
		return nil, false
	}
	p := unsafe.Pointer(unsafe.SliceData(v.data))
	if uintptr(p)%4 != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(p), v.acc.Count*v.comps), true
}

// littleEndian says whether the host stores a float's bytes in glTF's order.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// isMapped reports whether b lies in the file's mapping.
func (d *document) isMapped(b []byte) bool {
	if len(d.mapped) == 0 || len(b) == 0 {
		return false
	}
	start, p := uintptr(unsafe.Pointer(unsafe.SliceData(d.mapped))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= start && p-start < uintptr(len(d.mapped))
}
