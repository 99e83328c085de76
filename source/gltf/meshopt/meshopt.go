// Package meshopt decodes the buffer codecs of meshoptimizer that glTF's
// EXT_meshopt_compression and KHR_meshopt_compression extensions use: the vertex
// codec (versions 0 and 1), the triangle index codec (versions 0 and 1), the index
// sequence codec, and the OCTAHEDRAL, QUATERNION, EXPONENTIAL and COLOR filters
// (docs/formats/gltf.md describes where they appear in a file).
//
// The decoders check every read against the input and every structural rule the
// reference decoder enforces (header byte, exact end of data), so malformed input
// gives an *Error and never a panic; output is never larger than dst.
package meshopt

import "fmt"

// Mode is how a buffer view was encoded: the extension's "mode".
type Mode string

// The modes of EXT_meshopt_compression and KHR_meshopt_compression.
const (
	Attributes Mode = "ATTRIBUTES" // vertex codec
	Triangles  Mode = "TRIANGLES"  // index codec (a triangle list)
	Indices    Mode = "INDICES"    // index sequence codec
)

// Filter is the post-processing applied after the vertex codec: the extension's
// "filter".
type Filter string

// The filters of EXT_meshopt_compression (COLOR is KHR_meshopt_compression only).
const (
	None        Filter = "NONE"
	Octahedral  Filter = "OCTAHEDRAL"
	Quaternion  Filter = "QUATERNION"
	Exponential Filter = "EXPONENTIAL"
	Color       Filter = "COLOR"
)

// Error is malformed encoded data: what is wrong and at which byte of the
// encoded input (−1 when it is about the parameters, not the bytes).
type Error struct {
	Offset int
	Detail string
}

func (e *Error) Error() string {
	if e.Offset < 0 {
		return "meshopt: " + e.Detail
	}
	return fmt.Sprintf("meshopt: byte %d: %s", e.Offset, e.Detail)
}

func fail(off int, format string, args ...any) error {
	return &Error{Offset: off, Detail: fmt.Sprintf(format, args...)}
}

// Decode decodes count elements of stride bytes from src into dst, which must be
// count·stride bytes long, the way a glTF buffer view with the extension says:
// mode picks the codec and filter (ATTRIBUTES only; "" means NONE) post-processes
// the decoded vertex data in place.
func Decode(dst []byte, count, stride int, src []byte, mode Mode, filter Filter) error {
	if filter != "" && filter != None && mode != Attributes {
		return fail(-1, "filter %s applies only to mode ATTRIBUTES, not %s", filter, mode)
	}
	switch mode {
	case Attributes:
		if err := DecodeVertexBuffer(dst, count, stride, src); err != nil {
			return err
		}
		return ApplyFilter(dst, count, stride, filter)
	case Triangles:
		return DecodeIndexBuffer(dst, count, stride, src)
	case Indices:
		return DecodeIndexSequence(dst, count, stride, src)
	}
	return fail(-1, "unknown mode %q (want ATTRIBUTES, TRIANGLES or INDICES)", mode)
}

// MinEncodedSize is the fewest bytes a valid encoding of count elements of stride
// bytes can have in the given mode, or −1 for parameters no encoding has. A
// caller can refuse a claimed count before allocating count·stride bytes: the
// decoded size is at most a fixed multiple (1024 for the vertex codec) of it.
func MinEncodedSize(mode Mode, count, stride int) int {
	if count < 0 || stride < 1 {
		return -1
	}
	switch mode {
	case Attributes:
		if stride%4 != 0 || stride > maxVertexSize {
			return -1
		}
		// version 1, every byte column "all zero": stride/4 control bytes a block
		blocks := (count + blockElements(stride) - 1) / blockElements(stride)
		return 1 + blocks*(stride/4) + max(stride+stride/4, tailMinV1)
	case Triangles:
		if count%3 != 0 || (stride != 2 && stride != 4) {
			return -1
		}
		return 1 + count/3 + 16
	case Indices:
		if stride != 2 && stride != 4 {
			return -1
		}
		return 1 + count + 4
	}
	return -1
}

// unzig8 undoes zigzag encoding of a byte delta.
func unzig16(v uint16) uint16 { return (v >> 1) ^ -(v & 1) }

func unzig32(v uint32) uint32 { return (v >> 1) ^ -(v & 1) }
