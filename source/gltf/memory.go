package gltf

import (
	"fmt"

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
	out, _, err := decode(d, i, what, conv)
	if err != nil {
		return nil, err
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
