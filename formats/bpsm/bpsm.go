// Package bpsm reads, writes and validates BPSM files: snapshot meshes, the far level
// of detail of a creature, as specified in docs/formats/bpsm.md. A snapshot mesh stores the
// creature's triangle mesh already skinned at every baked frame of every clip, so a
// renderer draws a distant creature by uploading (or indexing into) one frame of
// vertices, with no bones and no skinning at all.
//
// Little-endian throughout, IEEE-754 float32. The file is:
//
//	offset  size
//	0       72          header
//	72      32·clips    clip table
//	…       strings     string table: interned names, each NUL-terminated
//	…       0–15        zero bytes up to a 16-byte boundary
//	…       4·indices   index data, u32, three per triangle
//	…       0–15        zero bytes up to a 16-byte boundary
//	…       56·V·F      vertex data: frame_total frames of vertex_count vertices
//
// This is the canonical layout: the writer starts both the index data and the
// vertex data on a 16-byte boundary (the vertex gap is at most 12 bytes, since the
// index data is a whole number of u32), and strict validation demands exactly this
// placement. Lenient validation demands only 4-byte alignment of both, which is
// what decoding u32 and float32 in place needs. Frame f of clip c starts at
// vertex_data_offset + (frame_offset_c + f)·vertex_count·56.
//
// Open maps a file read-only and validates it: header, clip table, names, layout,
// padding and every index are checked, and every vertex float is proven finite by
// a scan at memory speed (formats.SkipFloatScan leaves the scan out, so that a huge
// trusted file opens without being read). The other per-vertex rules (bone weights,
// zero pad bytes) are checked on request by File.CheckVertices.
//
// Lenient validation (formats.Lenient) accepts what a reader that seeks by the
// header's offsets can read: it lets non-zero pad, reserved and gap bytes,
// overlapping sections, trailing bytes, a non-canonical layout, non-finite vertex
// floats and an unknown species id pass, listing each in File.Warnings.
package bpsm

import (
	"math"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// Magic is the four bytes every BPSM file starts with.
const Magic = "BPSM"

// Version is the only format version there is.
const Version = 1

// Sizes of the fixed records (docs/formats/bpsm.md).
const (
	HeaderSize    = 72
	ClipEntrySize = 32
	IndexSize     = 4
	VertexSize    = 56
	// DataAlign is where the writer starts the index and vertex data.
	DataAlign = 16
	// MinDataAlign is the alignment the validator demands of the index and vertex data.
	MinDataAlign = 4
)

// Byte offsets of the fields of one vertex record.
const (
	vertexPosition = 0  // f32[3]
	vertexNormal   = 12 // f32[3]
	vertexUV       = 24 // f32[2]
	vertexJoints   = 32 // u8[4]
	vertexWeights  = 36 // f32[4]
	vertexRole     = 52 // u8
	vertexPad      = 53 // u8[3], zero
)

// Levels of detail a file can hold.
const (
	LODFull    = 0 // the full far-LOD mesh
	LODMinimal = 1 // the minimal mesh (file names <name>_minimal.bpsm)
)

// WeightTolerance is how far a vertex's bone weights may sum from 1.
const WeightTolerance = 0.01

// Header is the fixed 72-byte header, field for field (the blank fields are the
// magic and the reserved u32 at offset 36, always zero).
type Header struct {
	_                 [4]byte
	Version           uint32
	SpeciesID         uint32
	LOD               uint32
	VertexCount       uint32
	IndexCount        uint32
	ClipCount         uint32
	FrameTotal        uint32
	StringTableSize   uint32
	_                 uint32
	ClipTableOffset   uint64
	StringTableOffset uint64
	IndexDataOffset   uint64
	VertexDataOffset  uint64
}

// IndexDataSize is the size in bytes of the index data.
func (h *Header) IndexDataSize() uint64 { return uint64(h.IndexCount) * IndexSize }

// FrameSize is the size in bytes of one frame of vertices.
func (h *Header) FrameSize() uint64 { return uint64(h.VertexCount) * VertexSize }

// VertexDataSize is the size in bytes of the vertex data. It is only meaningful
// for a validated header: for arbitrary counts the product can overflow.
func (h *Header) VertexDataSize() uint64 { return uint64(h.FrameTotal) * h.FrameSize() }

// Clip describes one clip of a file: a run of frames in the vertex data. Clips share
// names with the creature's BPAT clips, and their frames are the same poses; it
// is not a bpat.Clip because the format stores no fps, loop flag or markers (a
// snapshot plays by its BPAT clip's).
type Clip struct {
	Name        string
	FrameCount  int // number of frames, ≥ 1
	FrameOffset int // index of the clip's first frame in the vertex data
}

// Vertex is one pre-skinned vertex of one frame, decoded. Joints and Weights are the
// source mesh's skin influences, kept for effects that need them (the position and
// normal are already skinned); Role is a colour role that a renderer maps to a tint.
type Vertex struct {
	Position [3]float32
	Normal   [3]float32
	UV       [2]float32
	Joints   [4]uint8
	Weights  [4]float32
	Role     uint8
}

// Section is one region of a file, as reported by File.Sections.
type Section = formats.Section

// canonical returns where the canonical layout (the writer's, in the package
// documentation) puts the clip table, string table, index data and vertex data of
// a file with h's counts: each right after the one before, the index and vertex
// data on the next 16-byte boundary.
func (h *Header) canonical() (clips, strs, indices, vertices uint64) {
	clips = HeaderSize
	strs = clips + uint64(h.ClipCount)*ClipEntrySize
	indices = binfmt.AlignUp(strs+uint64(h.StringTableSize), DataAlign)
	return clips, strs, indices, binfmt.AlignUp(indices+h.IndexDataSize(), DataAlign)
}

// finiteBits reports whether the float32 with bits u is neither NaN nor infinite.
func finiteBits(u uint32) bool { return u&0x7f800000 != 0x7f800000 }

func finite32(v float32) bool { return finiteBits(math.Float32bits(v)) }
