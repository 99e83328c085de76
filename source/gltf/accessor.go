package gltf

import (
	"encoding/binary"
	"fmt"
	"math"

	qgltf "github.com/qmuntal/gltf"
)

// view is a checked window onto an accessor's elements: every element the accessor
// claims lies inside its buffer view and buffer.
type view struct {
	acc       *qgltf.Accessor
	comps     int // components per element
	csize     int // bytes per component
	rows      int // rows of a matrix type (its columns are padded to 4 bytes), 0 otherwise
	colStride int
	elemSize  int
	stride    int
	data      []byte // starts at the first element; nil when the accessor has no buffer view
}

func componentSize(c qgltf.ComponentType) int {
	switch c {
	case qgltf.ComponentByte, qgltf.ComponentUbyte:
		return 1
	case qgltf.ComponentShort, qgltf.ComponentUshort:
		return 2
	case qgltf.ComponentUint, qgltf.ComponentFloat:
		return 4
	}
	return 0
}

func componentCount(t qgltf.AccessorType) (comps, rows int) {
	switch t {
	case qgltf.AccessorScalar:
		return 1, 0
	case qgltf.AccessorVec2:
		return 2, 0
	case qgltf.AccessorVec3:
		return 3, 0
	case qgltf.AccessorVec4:
		return 4, 0
	case qgltf.AccessorMat2:
		return 4, 2
	case qgltf.AccessorMat3:
		return 9, 3
	case qgltf.AccessorMat4:
		return 16, 4
	}
	return 0, 0
}

// layout fills the element geometry of v from its component type and accessor type.
func (v *view) layout(ct qgltf.ComponentType, t qgltf.AccessorType) bool {
	v.csize = componentSize(ct)
	v.comps, v.rows = componentCount(t)
	if v.csize == 0 || v.comps == 0 {
		return false
	}
	if v.rows > 0 {
		v.colStride = (v.rows*v.csize + 3) &^ 3
		v.elemSize = v.rows * v.colStride
	} else {
		v.elemSize = v.comps * v.csize
	}
	return true
}

func (v *view) offset(k int) int {
	if v.rows > 0 {
		return (k/v.rows)*v.colStride + (k%v.rows)*v.csize
	}
	return k * v.csize
}

// raw returns component k of element e as stored (not normalized).
func (v *view) raw(ct qgltf.ComponentType, e, k int) float64 {
	if v.data == nil {
		return 0
	}
	b := v.data[e*v.stride+v.offset(k):]
	switch ct {
	case qgltf.ComponentByte:
		return float64(int8(b[0]))
	case qgltf.ComponentUbyte:
		return float64(b[0])
	case qgltf.ComponentShort:
		return float64(int16(binary.LittleEndian.Uint16(b)))
	case qgltf.ComponentUshort:
		return float64(binary.LittleEndian.Uint16(b))
	case qgltf.ComponentUint:
		return float64(binary.LittleEndian.Uint32(b))
	default:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	}
}

// bufferView returns the bytes of buffer view i, checked against its buffer.
func (d *document) bufferView(i int, what string) ([]byte, int, error) {
	if i < 0 || i >= len(d.doc.BufferViews) {
		return nil, 0, d.fail(RuleBufferView, "%s: buffer view %d does not exist (there are %d)", what, i, len(d.doc.BufferViews))
	}
	bv := d.doc.BufferViews[i]
	if bv.Buffer < 0 || bv.Buffer >= len(d.buffers) {
		return nil, 0, d.fail(RuleBufferView, "buffer view %d: buffer %d does not exist (there are %d)", i, bv.Buffer, len(d.buffers))
	}
	if bv.ByteStride != 0 && (bv.ByteStride < 4 || bv.ByteStride > 252) {
		return nil, 0, d.fail(RuleBufferView, "buffer view %d: byteStride %d is outside [4, 252]", i, bv.ByteStride)
	}
	if name, m, err := d.meshoptExtension(bv.Extensions, fmt.Sprintf("buffer view %d", i)); err != nil {
		return nil, 0, err
	} else if m != nil {
		b, err := d.decodeMeshopt(i, name, m)
		if err != nil {
			return nil, 0, err
		}
		return b, bv.ByteStride, nil
	}
	buf := d.buffers[bv.Buffer]
	if buf == nil {
		return nil, 0, d.fail(RuleBufferView, "buffer view %d: buffer %d is a meshopt fallback buffer with no data, and the view has no meshopt extension to decode", i, bv.Buffer)
	}
	if bv.ByteOffset < 0 || bv.ByteLength < 1 || bv.ByteOffset > len(buf) || bv.ByteLength > len(buf)-bv.ByteOffset {
		return nil, 0, d.fail(RuleBufferView, "buffer view %d: bytes [%d, +%d) are outside buffer %d (%d bytes)", i, bv.ByteOffset, bv.ByteLength, bv.Buffer, len(buf))
	}
	return buf[bv.ByteOffset : bv.ByteOffset+bv.ByteLength], bv.ByteStride, nil
}

// fits reports whether count elements of elemSize bytes, stride apart, starting at
// off, fit in n bytes, without overflowing.
func fits(n, off, count, elemSize, stride int) bool {
	if off < 0 || count < 1 || off > n || elemSize > n-off {
		return false
	}
	return count-1 <= (n-off-elemSize)/stride
}

// accessorView checks accessor i and returns a view of its (dense) elements.
// what names the use, for error messages.
func (d *document) accessorView(i int, what string) (*view, error) {
	if i < 0 || i >= len(d.doc.Accessors) {
		return nil, d.fail(RuleAccessor, "%s: accessor %d does not exist (there are %d)", what, i, len(d.doc.Accessors))
	}
	a := d.doc.Accessors[i]
	v := &view{acc: a}
	if !v.layout(a.ComponentType, a.Type) {
		return nil, d.fail(RuleAccessor, "%s: accessor %d has an unknown component type or type", what, i)
	}
	if a.Count < 1 {
		return nil, d.fail(RuleAccessor, "%s: accessor %d has count %d", what, i, a.Count)
	}
	if a.BufferView == nil {
		// All zeros (then maybe sparse): nothing in the file backs the elements, so
		// refuse counts the file could not have held.
		if int64(a.Count) > d.budget/int64(v.elemSize) {
			return nil, d.fail(RuleAccessor, "%s: accessor %d has no buffer view and claims %d elements, more than the file could hold", what, i, a.Count)
		}
		return v, nil
	}
	bytes, stride, err := d.bufferView(*a.BufferView, what)
	if err != nil {
		return nil, err
	}
	if stride == 0 {
		stride = v.elemSize
	} else if stride < v.elemSize {
		return nil, d.fail(RuleAccessor, "%s: accessor %d: elements of %d bytes do not fit buffer view %d's stride %d", what, i, v.elemSize, *a.BufferView, stride)
	}
	if !fits(len(bytes), a.ByteOffset, a.Count, v.elemSize, stride) {
		return nil, d.fail(RuleAccessor, "%s: accessor %d: %d elements of %d bytes (stride %d) from offset %d run past the end of buffer view %d (%d bytes)",
			what, i, a.Count, v.elemSize, stride, a.ByteOffset, *a.BufferView, len(bytes))
	}
	v.stride = stride
	v.data = bytes[a.ByteOffset:]
	return v, nil
}

// decode reads every component of accessor i, sparse substitution applied, and
// converts each with conv(componentType, raw value).
func decode[T any](d *document, i int, what string, conv func(ct qgltf.ComponentType, x float64) T) ([]T, *qgltf.Accessor, error) {
	v, err := d.accessorView(i, what)
	if err != nil {
		return nil, nil, err
	}
	a := v.acc
	out := make([]T, a.Count*v.comps)
	for e := 0; e < a.Count; e++ {
		for k := 0; k < v.comps; k++ {
			out[e*v.comps+k] = conv(a.ComponentType, v.raw(a.ComponentType, e, k))
		}
	}
	if a.Sparse == nil {
		return out, a, nil
	}
	sp := a.Sparse
	if sp.Count < 1 || sp.Count > a.Count {
		return nil, nil, d.fail(RuleAccessor, "%s: accessor %d: sparse count %d is outside [1, %d]", what, i, sp.Count, a.Count)
	}
	idx := &view{}
	if !idx.layout(sp.Indices.ComponentType, qgltf.AccessorScalar) || sp.Indices.ComponentType == qgltf.ComponentFloat ||
		sp.Indices.ComponentType == qgltf.ComponentByte || sp.Indices.ComponentType == qgltf.ComponentShort {
		return nil, nil, d.fail(RuleAccessor, "%s: accessor %d: sparse indices must be unsigned integers", what, i)
	}
	ib, _, err := d.bufferView(sp.Indices.BufferView, what)
	if err != nil {
		return nil, nil, err
	}
	if !fits(len(ib), sp.Indices.ByteOffset, sp.Count, idx.elemSize, idx.elemSize) {
		return nil, nil, d.fail(RuleAccessor, "%s: accessor %d: sparse indices run past the end of buffer view %d", what, i, sp.Indices.BufferView)
	}
	idx.stride, idx.data = idx.elemSize, ib[sp.Indices.ByteOffset:]
	vals := &view{}
	vals.layout(a.ComponentType, a.Type)
	vb, _, err := d.bufferView(sp.Values.BufferView, what)
	if err != nil {
		return nil, nil, err
	}
	if !fits(len(vb), sp.Values.ByteOffset, sp.Count, vals.elemSize, vals.elemSize) {
		return nil, nil, d.fail(RuleAccessor, "%s: accessor %d: sparse values run past the end of buffer view %d", what, i, sp.Values.BufferView)
	}
	vals.stride, vals.data = vals.elemSize, vb[sp.Values.ByteOffset:]
	for s := 0; s < sp.Count; s++ {
		e := int(idx.raw(sp.Indices.ComponentType, s, 0))
		if e >= a.Count {
			return nil, nil, d.fail(RuleAccessor, "%s: accessor %d: sparse index %d is past its count %d", what, i, e, a.Count)
		}
		for k := 0; k < v.comps; k++ {
			out[e*v.comps+k] = conv(a.ComponentType, vals.raw(a.ComponentType, s, k))
		}
	}
	return out, a, nil
}

// asFloat converts a raw component to float32, normalizing integers when the
// accessor says so (glTF 2.0 §3.11).
func asFloat(normalized bool) func(qgltf.ComponentType, float64) float32 {
	if !normalized {
		return func(_ qgltf.ComponentType, x float64) float32 { return float32(x) }
	}
	return func(ct qgltf.ComponentType, x float64) float32 {
		switch ct {
		case qgltf.ComponentByte:
			return float32(max(x/127, -1))
		case qgltf.ComponentUbyte:
			return float32(x / 255)
		case qgltf.ComponentShort:
			return float32(max(x/32767, -1))
		case qgltf.ComponentUshort:
			return float32(x / 65535)
		case qgltf.ComponentUint:
			return float32(x / 4294967295)
		}
		return float32(x)
	}
}

func asUint(_ qgltf.ComponentType, x float64) uint32 { return uint32(x) }

// accessorSpec says what a use of an accessor accepts.
type accessorSpec struct {
	types      []qgltf.AccessorType
	floatOK    bool                  // FLOAT components
	normalized []qgltf.ComponentType // integer types accepted when normalized
	integers   []qgltf.ComponentType // integer types accepted when not normalized
}

func (d *document) checkSpec(i int, what string, spec accessorSpec) error {
	if i < 0 || i >= len(d.doc.Accessors) {
		return d.fail(RuleAccessor, "%s: accessor %d does not exist (there are %d)", what, i, len(d.doc.Accessors))
	}
	a := d.doc.Accessors[i]
	typeOK := false
	for _, t := range spec.types {
		typeOK = typeOK || a.Type == t
	}
	if !typeOK {
		return d.fail(RuleAccessor, "%s: accessor %d has type %s, want %v", what, i, a.Type, spec.types)
	}
	ct := a.ComponentType
	ok := false
	switch {
	case ct == qgltf.ComponentFloat:
		ok = spec.floatOK
	case a.Normalized:
		for _, c := range spec.normalized {
			ok = ok || c == ct
		}
	default:
		for _, c := range spec.integers {
			ok = ok || c == ct
		}
	}
	if !ok {
		norm := ""
		if a.Normalized && ct != qgltf.ComponentFloat {
			norm = "normalized "
		}
		return d.fail(RuleAccessor, "%s: accessor %d has %s%s components, which this use does not allow", what, i, norm, ct)
	}
	return nil
}

// floats reads accessor i as float32 components after checking it against spec.
func (d *document) floats(i int, what string, spec accessorSpec) ([]float32, error) {
	if err := d.checkSpec(i, what, spec); err != nil {
		return nil, err
	}
	return cachedDecode(d, i, what, false, asFloat(d.doc.Accessors[i].Normalized))
}

// uints reads accessor i as unsigned integers after checking it against spec.
func (d *document) uints(i int, what string, spec accessorSpec) ([]uint32, error) {
	if err := d.checkSpec(i, what, spec); err != nil {
		return nil, err
	}
	return cachedDecode(d, i, what, true, asUint)
}

var (
	anyInt      = []qgltf.ComponentType{qgltf.ComponentByte, qgltf.ComponentUbyte, qgltf.ComponentShort, qgltf.ComponentUshort}
	unsignedInt = []qgltf.ComponentType{qgltf.ComponentUbyte, qgltf.ComponentUshort}
	indexTypes  = []qgltf.ComponentType{qgltf.ComponentUbyte, qgltf.ComponentUshort, qgltf.ComponentUint}
	scalar      = []qgltf.AccessorType{qgltf.AccessorScalar}
	vec2        = []qgltf.AccessorType{qgltf.AccessorVec2}
	vec3        = []qgltf.AccessorType{qgltf.AccessorVec3}
	vec4        = []qgltf.AccessorType{qgltf.AccessorVec4}
	mat4        = []qgltf.AccessorType{qgltf.AccessorMat4}
)

// The accessor uses this package reads. Positions, normals and translations also
// accept the integer encodings of KHR_mesh_quantization.
var (
	specTime     = accessorSpec{types: scalar, floatOK: true}
	specMatrix   = accessorSpec{types: mat4, floatOK: true}
	specVec3     = accessorSpec{types: vec3, floatOK: true, normalized: anyInt, integers: anyInt}
	specRotation = accessorSpec{types: vec4, floatOK: true, normalized: anyInt}
	specUV       = accessorSpec{types: vec2, floatOK: true, normalized: unsignedInt, integers: anyInt}
	specJoints   = accessorSpec{types: vec4, integers: unsignedInt}
	specWeights  = accessorSpec{types: vec4, floatOK: true, normalized: unsignedInt}
	specIndices  = accessorSpec{types: scalar, integers: indexTypes}
)
