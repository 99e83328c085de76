package bpsm

import (
	"encoding/binary"
	"fmt"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// File is an open, validated BPSM file. Its methods are safe for concurrent use; the
// slices they return view the file and must not be modified.
type File struct {
	parsed     // the name, the bytes and their mapping, the warnings: see Name, Size, Warnings
	header     Header
	indexBytes []byte       // the index data as stored
	indices    []uint32     // the same as numbers
	vertexData []byte       // FrameTotal frames of VertexCount records
	frameSize  int          // bytes per frame of vertices
	clips      []Clip       // in file order
	clipIndex  binfmt.Index // by name, the first of equal names
	lenient    bool         // CheckVertices leaves out the pad bytes
	sections   []Section
}

// Parse validates b as a BPSM file, all but the per-vertex rules that CheckVertices
// adds (weights, pad bytes). The File keeps b and views it without copying.
func Parse(b []byte, opts ...Option) (*File, error) {
	return binfmt.Parse(b, binary.LittleEndian, opts, "bpsm", func(c *binfmt.Checker) *File { return (&validator{c}).run() })
}

// Open maps path read-only and validates it (see Parse). The vertex data is not
// copied. Close unmaps the file.
func Open(path string, opts ...Option) (*File, error) {
	return binfmt.Open(path, HeaderSize, opts, Parse)
}

// Header returns the decoded header.
func (f *File) Header() Header { return f.header }

// VertexCount is the number of vertices in every frame.
func (f *File) VertexCount() int { return int(f.header.VertexCount) }

// Clips returns the clip table in file order.
func (f *File) Clips() []Clip { return f.clips }

// ClipIndex returns the index of the first clip named name, or -1.
func (f *File) ClipIndex(name string) int { return f.clipIndex.Of(name) }

// Indices returns the triangle list, three indices per triangle, each below
// VertexCount. It is a view of the file on little-endian hosts (when the bytes are
// 4-byte aligned in memory, as a mapped file always is) and a copy decoded at open
// otherwise.
func (f *File) Indices() []uint32 { return f.indices }

// IndexBytes returns the index data as stored: little-endian u32, ready for upload
// as an index buffer.
func (f *File) IndexBytes() []byte { return f.indexBytes }

// Vertex decodes vertex i of frame frame of clip clip. It panics if any of the three
// is out of range.
func (f *File) Vertex(clip, frame, i int) (v Vertex) {
	decodeVertex(&v, f.record(clip, frame, i))
	return v
}

// VertexTo is Vertex decoding into *dst, which is about twice as fast in a loop
// over many vertices.
func (f *File) VertexTo(dst *Vertex, clip, frame, i int) {
	decodeVertex(dst, f.record(clip, frame, i))
}

// record returns the bytes of one vertex.
func (f *File) record(clip, frame, i int) []byte {
	c := &f.clips[clip]
	if uint(frame) >= uint(c.FrameCount) {
		panic(fmt.Sprintf("bpsm: frame %d out of range [0,%d) of clip %d", frame, c.FrameCount, clip))
	}
	if uint(i) >= uint(f.header.VertexCount) {
		panic(fmt.Sprintf("bpsm: vertex %d out of range [0,%d)", i, f.header.VertexCount))
	}
	off := (c.FrameOffset+frame)*f.frameSize + i*VertexSize
	return f.vertexData[off : off+VertexSize : off+VertexSize]
}

// FrameBytes returns the vertices of frame frame of clip clip as stored,
// VertexCount·56 bytes, without copying: upload them unchanged as a vertex buffer
// (stride 56: position at 0, normal at 12, uv at 24, joints at 32, weights at 36,
// role at 52) or decode one record with DecodeVertex. It panics if clip or frame is
// out of range.
func (f *File) FrameBytes(clip, frame int) []byte {
	c := &f.clips[clip]
	if uint(frame) >= uint(c.FrameCount) {
		panic(fmt.Sprintf("bpsm: frame %d out of range [0,%d) of clip %d", frame, c.FrameCount, clip))
	}
	i := (c.FrameOffset + frame) * f.frameSize
	return f.vertexData[i : i+f.frameSize : i+f.frameSize]
}

// VertexDataBytes returns the whole vertex block as stored: FrameTotal frames of
// VertexCount vertices, clip after clip.
func (f *File) VertexDataBytes() []byte { return f.vertexData }

// Sections lists the file's regions in file order, with the padding before the index
// data and before the vertex data as entries of their own.
func (f *File) Sections() []Section { return f.sections }

// MaxVertexProblems is the most problems CheckVertices reports; it stops there.
const MaxVertexProblems = 100

// CheckVertices checks the per-vertex rules that Open leaves out to stay independent
// of the vertex data's size: every float finite, every bone weight in [0,1] with the
// four summing to 1 within WeightTolerance (or all zero, a vertex without skin data),
// and, unless the file was opened Lenient, the three pad bytes zero. It reads the
// whole vertex block once and returns a *ValidationError listing the first
// MaxVertexProblems problems (at most one per vertex), or nil.
func (f *File) CheckVertices() error {
	c := binfmt.NewChecker(nil, binary.LittleEndian, formats.Options{Name: f.Name(), Lenient: f.lenient})
	v := validator{&c}
	base := f.header.VertexDataOffset
	vc := int(f.header.VertexCount)
	var vx Vertex
	for ci := range f.clips {
		c := &f.clips[ci]
		for fr := 0; fr < c.FrameCount; fr++ {
			frame := f.FrameBytes(ci, fr)
			for i := 0; i < vc; i++ {
				rec := frame[i*VertexSize : (i+1)*VertexSize]
				decodeVertex(&vx, rec)
				off := base + uint64((c.FrameOffset+fr)*f.frameSize+i*VertexSize)
				if rule, field, detail := vertexProblem(&vx); rule != "" {
					v.Fail(rule, off+uint64(field), ci, "clip %d %q frame %d vertex %d: %s", ci, c.Name, fr, i, detail)
				} else if !f.lenient && (rec[vertexPad]|rec[vertexPad+1]|rec[vertexPad+2]) != 0 {
					k := vertexPad
					for rec[k] == 0 {
						k++
					}
					v.Fail(formats.RuleZeroBytes, off+uint64(k), ci, "clip %d %q frame %d vertex %d: pad byte is 0x%02x, not zero", ci, c.Name, fr, i, rec[k])
				} else {
					continue
				}
				if len(v.Problems) == MaxVertexProblems {
					return v.Err("bpsm")
				}
			}
		}
	}
	return v.Err("bpsm")
}

// parsed is embedded under a name of this package's own, so that File's
// documentation does not show a type users cannot name; binfmt.Parse needs it
// embedded.
type parsed = binfmt.Parsed

// Name is the path the file was opened from, or the name given to Parse with
// formats.Name.
func (f *File) Name() string { return f.parsed.Name() }

// Size is the file's length in bytes.
func (f *File) Size() int64 { return f.parsed.Size() }

// Warnings lists what a lenient parse (formats.Lenient) let pass that strict
// validation refuses, in file order; it is empty for a file that validates
// strictly.
func (f *File) Warnings() []*formats.FormatError { return f.parsed.Warnings() }

// Close releases the mapping. The File and every slice it returned must not be used
// after Close.
func (f *File) Close() error {
	f.indexBytes, f.indices, f.vertexData = nil, nil, nil
	return f.parsed.Close()
}
