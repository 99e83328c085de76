package bpsm

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/edsrzf/mmap-go"
)

// File is an open, validated BPSM file. Its methods are safe for concurrent use; the
// slices they return view the file and must not be modified.
type File struct {
	name       string
	data       []byte
	mapped     mmap.MMap // nil when the bytes came from Parse
	header     Header
	clips      []Clip
	clipIndex  map[string]int
	indices    []uint32
	vertexData []byte
	frameSize  int // bytes per frame of vertices
	lenient    bool
}

// Option adjusts how a file is validated.
type Option func(*options)

type options struct {
	name    string
	lenient bool
	species []uint32
}

// Lenient skips the zero-byte, overlap and trailing-byte checks (and, in
// CheckVertices, the vertex pad bytes), accepting files from writers that leave
// garbage in padding or share bytes between sections.
func Lenient() Option { return func(o *options) { o.lenient = true } }

// Species registers species ids beyond the built-in ones as valid.
func Species(ids ...uint32) Option {
	return func(o *options) { o.species = append(o.species, ids...) }
}

// Name sets the file name that Parse's errors report.
func Name(name string) Option { return func(o *options) { o.name = name } }

// Open maps path read-only and validates it. The vertex data is neither read nor
// copied, so opening takes the same time for any number of frames; the index data
// is read once to check every index. Close unmaps the file.
func Open(path string, opts ...Option) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	opts = append(opts, Name(path))
	if st.Size() < HeaderSize {
		// Too small to map usefully (and an empty file cannot be mapped): read it
		// so that validation reports what is missing.
		b, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		return Parse(b, opts...)
	}
	m, err := mmap.Map(f, mmap.RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: mapping: %w", path, err)
	}
	sf, err := Parse(m, opts...)
	if err != nil {
		m.Unmap()
		return nil, err
	}
	sf.mapped = m
	return sf, nil
}

// Parse validates b as a BPSM file, all but the per-vertex rules (see CheckVertices).
// The File keeps b and views it without copying.
func Parse(b []byte, opts ...Option) (*File, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	v := validator{opts: o, b: b, size: uint64(len(b))}
	f := v.run()
	if len(v.problems) > 0 {
		return nil, v.err()
	}
	return f, nil
}

// Close releases the mapping. The File and every slice it returned must not be used
// after Close.
func (f *File) Close() error {
	if f.mapped == nil {
		return nil
	}
	err := f.mapped.Unmap()
	f.mapped = nil
	f.data, f.indices, f.vertexData = nil, nil, nil
	return err
}

// Name is the path the file was opened from (or the name given to Parse).
func (f *File) Name() string { return f.name }

// Size is the file's length in bytes.
func (f *File) Size() int64 { return int64(len(f.data)) }

// Header returns the decoded header.
func (f *File) Header() Header { return f.header }

// VertexCount is the number of vertices in every frame.
func (f *File) VertexCount() int { return int(f.header.VertexCount) }

// Clips returns the clip table in file order.
func (f *File) Clips() []Clip { return f.clips }

// ClipIndex returns the index of the first clip named name, or -1.
func (f *File) ClipIndex(name string) int {
	if i, ok := f.clipIndex[name]; ok {
		return i
	}
	return -1
}

// Indices returns the triangle list, three indices per triangle, each below
// VertexCount. It is a view of the file on little-endian hosts (when the bytes are
// 4-byte aligned in memory, as a mapped file always is) and a copy decoded at open
// otherwise.
func (f *File) Indices() []uint32 { return f.indices }

// IndexBytes returns the index data as stored: little-endian u32, ready for upload
// as an index buffer.
func (f *File) IndexBytes() []byte {
	h := &f.header
	return f.data[h.IndexDataOffset : h.IndexDataOffset+h.IndexDataSize()]
}

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
func (f *File) Sections() []Section {
	h := &f.header
	s := []Section{
		{"header", 0, HeaderSize},
		{"clip table", h.ClipTableOffset, uint64(h.ClipCount) * ClipEntrySize},
		{"string table", h.StringTableOffset, uint64(h.StringTableSize)},
	}
	if end := h.StringTableOffset + uint64(h.StringTableSize); h.IndexDataOffset > end {
		s = append(s, Section{"padding", end, h.IndexDataOffset - end})
	}
	s = append(s, Section{"index data", h.IndexDataOffset, h.IndexDataSize()})
	if end := h.IndexDataOffset + h.IndexDataSize(); h.VertexDataOffset > end {
		s = append(s, Section{"padding", end, h.VertexDataOffset - end})
	}
	return append(s, Section{"vertex data", h.VertexDataOffset, h.VertexDataSize()})
}

// MaxVertexProblems is the most problems CheckVertices reports; it stops there.
const MaxVertexProblems = 100

// CheckVertices checks the per-vertex rules that Open leaves out to stay independent
// of the vertex data's size: every float finite, every bone weight in [0,1] with the
// four summing to 1 within WeightTolerance (or all zero, a vertex without skin data),
// and, unless the file was opened Lenient, the three pad bytes zero. It reads the
// whole vertex block once and returns a *ValidationError listing the first
// MaxVertexProblems problems (at most one per vertex), or nil.
func (f *File) CheckVertices() error {
	v := validator{opts: options{name: f.name, lenient: f.lenient}}
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
					v.fail(rule, off+uint64(field), ci, "clip %d %q frame %d vertex %d: %s", ci, c.Name, fr, i, detail)
				} else if !f.lenient && (rec[vertexPad]|rec[vertexPad+1]|rec[vertexPad+2]) != 0 {
					k := vertexPad
					for rec[k] == 0 {
						k++
					}
					v.fail(RuleZeroBytes, off+uint64(k), ci, "clip %d %q frame %d vertex %d: pad byte is 0x%02x, not zero", ci, c.Name, fr, i, rec[k])
				} else {
					continue
				}
				if len(v.problems) == MaxVertexProblems {
					return v.err()
				}
			}
		}
	}
	if len(v.problems) > 0 {
		return v.err()
	}
	return nil
}

// littleEndianHost is true where u32 slices can view the file's bytes directly.
var littleEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// uint32View returns b as uint32s: a zero-copy view on little-endian hosts when b
// is 4-byte aligned, a decoded copy otherwise.
func uint32View(b []byte) []uint32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndianHost && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// validator checks one file against FACTS §2.5, collecting every problem it can.
type validator struct {
	opts     options
	b        []byte
	size     uint64
	problems []*FormatError
}

func (v *validator) fail(rule string, offset uint64, index int, format string, args ...any) {
	v.problems = append(v.problems, &FormatError{
		File: v.opts.name, Rule: rule, Offset: int64(min(offset, math.MaxInt64)), Index: index,
		Detail: fmt.Sprintf(format, args...),
	})
}

// err returns the problems, sorted by offset, as a *ValidationError.
func (v *validator) err() error {
	slices.SortStableFunc(v.problems, func(a, b *FormatError) int { return cmp.Compare(a.Offset, b.Offset) })
	return &ValidationError{File: v.opts.name, Problems: v.problems}
}

func (v *validator) u32(off uint64) uint32 { return binary.LittleEndian.Uint32(v.b[off:]) }
func (v *validator) u64(off uint64) uint64 { return binary.LittleEndian.Uint64(v.b[off:]) }

// span is a section's [start, end) with overflow already excluded.
type span struct {
	name       string
	start, end uint64
	ok         bool // inside the file
}

// section checks that count·size bytes at offset fit in the file, where count is
// itself the product of two counts (pass 1 for a single one). Every product is
// taken with overflow detection.
func (v *validator) section(name string, offsetField, offset, count1, count2, size uint64) span {
	s := span{name: name, start: offset}
	hi1, count := bits.Mul64(count1, count2)
	hi2, bytes := bits.Mul64(count, size)
	if hi1 != 0 || hi2 != 0 {
		v.fail(RuleBounds, offsetField, -1, "%s at %d is %d·%d·%d bytes long, more than 2^64", name, offset, count1, count2, size)
		return s
	}
	if offset > v.size || bytes > v.size-offset {
		v.fail(RuleBounds, offsetField, -1, "%s at %d, %d bytes long, runs past the end of the %d-byte file", name, offset, bytes, v.size)
		return s
	}
	s.end, s.ok = offset+bytes, true
	return s
}

func (v *validator) run() *File {
	if v.size < HeaderSize {
		v.fail(RuleTruncated, v.size, -1, "file is %d bytes; a BPSM header alone is %d", v.size, HeaderSize)
		return nil
	}
	if string(v.b[:4]) != Magic {
		v.fail(RuleMagic, 0, -1, "starts with %q, not %q: not a BPSM file", v.b[:4], Magic)
		return nil
	}
	h := Header{
		Version: v.u32(4), SpeciesID: v.u32(8), LOD: v.u32(12), VertexCount: v.u32(16),
		IndexCount: v.u32(20), ClipCount: v.u32(24), FrameTotal: v.u32(28),
		StringTableSize: v.u32(32), ClipTableOffset: v.u64(40), StringTableOffset: v.u64(48),
		IndexDataOffset: v.u64(56), VertexDataOffset: v.u64(64),
	}
	if h.Version != Version {
		v.fail(RuleVersion, 4, -1, "version %d is not supported (this reader knows 1)", h.Version)
		return nil
	}
	if !slices.Contains(BuiltinSpecies, h.SpeciesID) && !slices.Contains(v.opts.species, h.SpeciesID) {
		v.fail(RuleSpecies, 8, -1, "species id %d is not registered (built-in ids are 0-5)", h.SpeciesID)
	}
	if h.LOD != LODFull && h.LOD != LODMinimal {
		v.fail(RuleLOD, 12, -1, "lod %d is neither 0 (full) nor 1 (minimal)", h.LOD)
	}
	if h.VertexCount < 1 {
		v.fail(RuleVertexCount, 16, -1, "the file has no vertices")
	}
	if h.IndexCount%3 != 0 {
		v.fail(RuleIndexCount, 20, -1, "index count %d is not a multiple of 3 (indices form a triangle list)", h.IndexCount)
	}
	if h.ClipCount < 1 {
		v.fail(RuleClipCount, 24, -1, "the file has no clips")
	}
	v.zeros(36, 40, -1, "header reserved")

	// Sections, in the order they must appear.
	header := span{name: "header", start: 0, end: HeaderSize, ok: true}
	clipTable := v.section("clip table", 40, h.ClipTableOffset, uint64(h.ClipCount), 1, ClipEntrySize)
	strTable := v.section("string table", 48, h.StringTableOffset, uint64(h.StringTableSize), 1, 1)
	indexData := v.section("index data", 56, h.IndexDataOffset, uint64(h.IndexCount), 1, IndexSize)
	vertexData := v.section("vertex data", 64, h.VertexDataOffset, uint64(h.FrameTotal), uint64(h.VertexCount), VertexSize)
	v.checkLayout(&h, []span{header, clipTable, strTable, indexData, vertexData})

	var clips []Clip
	if clipTable.ok {
		clips = v.clips(&h, clipTable.start, strTable)
	}
	if indexData.ok {
		v.indices(&h, indexData)
	}
	if len(v.problems) > 0 {
		return nil
	}
	f := &File{
		name: v.opts.name, data: v.b, header: h, clips: clips,
		clipIndex:  make(map[string]int, len(clips)),
		indices:    uint32View(v.b[indexData.start:indexData.end]),
		vertexData: v.b[vertexData.start:vertexData.end:vertexData.end],
		frameSize:  int(h.VertexCount) * VertexSize,
		lenient:    v.opts.lenient,
	}
	for i := range clips {
		if _, dup := f.clipIndex[clips[i].Name]; !dup {
			f.clipIndex[clips[i].Name] = i
		}
	}
	return f
}

// checkLayout checks alignment, order, overlap, gaps and trailing bytes.
func (v *validator) checkLayout(h *Header, spans []span) {
	align := func(name string, field, off uint64) {
		if off%MinDataAlign != 0 {
			v.fail(RuleAlignment, field, -1, "%s offset %d is not a multiple of %d", name, off, MinDataAlign)
		}
	}
	align("clip table", 40, h.ClipTableOffset)
	align("index data", 56, h.IndexDataOffset)
	align("vertex data", 64, h.VertexDataOffset)
	for _, s := range spans {
		if !s.ok {
			return // a section outside the file: order and gaps mean nothing yet
		}
	}
	ordered, disjoint := true, true
	for i := 1; i < len(spans); i++ {
		prev, cur := spans[i-1], spans[i]
		if cur.start < prev.start {
			v.fail(RuleSectionOrder, cur.start, -1, "%s at %d comes before %s at %d; the order is header, clips, strings, indices, vertices", cur.name, cur.start, prev.name, prev.start)
			ordered = false
		} else if cur.start < prev.end && !v.opts.lenient {
			v.fail(RuleOverlap, cur.start, -1, "%s at %d overlaps %s, which ends at %d", cur.name, cur.start, prev.name, prev.end)
			disjoint = false
		}
	}
	end := spans[len(spans)-1].end
	if v.opts.lenient || !ordered || !disjoint {
		return
	}
	for i := 1; i < len(spans); i++ {
		for off := spans[i-1].end; off < spans[i].start; off++ {
			if v.b[off] != 0 {
				v.fail(RuleZeroBytes, off, -1, "gap byte before the %s is 0x%02x, not zero", spans[i].name, v.b[off])
				break
			}
		}
	}
	if v.size > end {
		v.fail(RuleTrailingBytes, end, -1, "%d bytes after the vertex data", v.size-end)
	}
}

// name reads and checks a clip name from the string table.
func (v *validator) name(index int, entry uint64, strTable span) string {
	off, n := uint64(v.u32(entry)), uint64(v.u32(entry+4))
	size := strTable.end - strTable.start
	if !strTable.ok || off > size || n+1 > size-off {
		v.fail(RuleBounds, entry, index, "clip %d name at string offset %d, length %d, is outside the %d-byte string table", index, off, n, size)
		return ""
	}
	s := v.b[strTable.start+off : strTable.start+off+n]
	switch {
	case v.b[strTable.start+off+n] != 0:
		v.fail(RuleName, strTable.start+off+n, index, "clip %d name is not followed by a NUL byte", index)
	case slices.Contains(s, 0):
		v.fail(RuleName, strTable.start+off, index, "clip %d name contains a NUL byte", index)
	case !utf8.Valid(s):
		v.fail(RuleName, strTable.start+off, index, "clip %d name is not valid UTF-8", index)
	}
	return string(s)
}

func (v *validator) zeros(from, to uint64, index int, what string) {
	if v.opts.lenient {
		return
	}
	for off := from; off < to; off++ {
		if v.b[off] != 0 {
			v.fail(RuleZeroBytes, off, index, "%s byte is 0x%02x, not zero", what, v.b[off])
			return
		}
	}
}

func (v *validator) clips(h *Header, table uint64, strTable span) []Clip {
	clips := make([]Clip, h.ClipCount)
	sum := uint64(0)
	for i := range clips {
		e := table + uint64(i)*ClipEntrySize
		c := &clips[i]
		c.Name = v.name(i, e, strTable)
		count, offset := v.u32(e+8), v.u32(e+12)
		c.FrameCount, c.FrameOffset = int(count), int(offset)
		if count < 1 {
			v.fail(RuleFrameCount, e+8, i, "clip %d %q has no frames", i, c.Name)
		}
		if uint64(offset) != sum {
			v.fail(RuleFrameOffset, e+12, i, "clip %d %q starts at frame %d; the frames before it end at %d", i, c.Name, offset, sum)
		}
		sum += uint64(count)
		v.zeros(e+16, e+32, i, fmt.Sprintf("clip %d reserved", i))
	}
	if sum != uint64(h.FrameTotal) {
		v.fail(RuleFrameTotal, 28, -1, "frame_total is %d but the clips hold %d frames", h.FrameTotal, sum)
	}
	return clips
}

// indices checks that every index names a vertex. It reports the first bad index
// and how many more there are, one problem in all.
func (v *validator) indices(h *Header, s span) {
	bad, first := 0, uint64(0)
	for off := s.start; off < s.end; off += IndexSize {
		if v.u32(off) >= h.VertexCount {
			if bad == 0 {
				first = off
			}
			bad++
		}
	}
	if bad == 0 {
		return
	}
	pos := (first - s.start) / IndexSize
	more := ""
	if bad > 1 {
		more = fmt.Sprintf(" (and %d more indices out of range)", bad-1)
	}
	v.fail(RuleIndex, first, int(pos), "index %d is %d; the file has %d vertices%s", pos, v.u32(first), h.VertexCount, more)
}
