package bpsm

import (
	"fmt"
	"slices"

	"bonebake/internal/binfile"
)

// File is an open, validated BPSM file. Its methods are safe for concurrent use; the
// slices they return view the file and must not be modified.
type File struct {
	name       string
	data       []byte
	unmap      func() error // nil when the bytes came from Parse
	header     Header
	clips      []Clip
	clipIndex  map[string]int
	indices    []uint32
	vertexData []byte
	frameSize  int // bytes per frame of vertices
	lenient    bool
}

// Option adjusts how a file is validated.
type Option = binfile.Option

// Lenient skips the zero-byte, overlap and trailing-byte checks (and, in
// CheckVertices, the vertex pad bytes), accepting files from writers that leave
// garbage in padding or share bytes between sections.
func Lenient() Option { return func(o *binfile.Options) { o.Lenient = true } }

// Species registers species ids beyond the built-in ones as valid.
func Species(ids ...uint32) Option {
	return func(o *binfile.Options) { o.Species = append(o.Species, ids...) }
}

// Name sets the file name that Parse's errors report.
func Name(name string) Option { return func(o *binfile.Options) { o.Name = name } }

// Open maps path read-only and validates it. The vertex data is neither read nor
// copied, so opening takes the same time for any number of frames; the index data
// is read once to check every index. Close unmaps the file.
func Open(path string, opts ...Option) (*File, error) {
	opts = append(opts, Name(path))
	f, unmap, err := binfile.Open(path, HeaderSize, func(b []byte) (*File, error) { return Parse(b, opts...) })
	if err != nil {
		return nil, err
	}
	f.unmap = unmap
	return f, nil
}

// Parse validates b as a BPSM file, all but the per-vertex rules (see CheckVertices).
// The File keeps b and views it without copying.
func Parse(b []byte, opts ...Option) (*File, error) {
	v := validator{Checker: binfile.NewChecker(b, binfile.Apply(opts))}
	f := v.run()
	if err := v.Err("bpsm"); err != nil {
		return nil, err
	}
	return f, nil
}

// Close releases the mapping. The File and every slice it returned must not be used
// after Close.
func (f *File) Close() error {
	if f.unmap == nil {
		return nil
	}
	err := f.unmap()
	f.unmap = nil
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
	v := validator{Checker: binfile.NewChecker(nil, binfile.Options{Name: f.name, Lenient: f.lenient})}
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
					v.Fail(RuleZeroBytes, off+uint64(k), ci, "clip %d %q frame %d vertex %d: pad byte is 0x%02x, not zero", ci, c.Name, fr, i, rec[k])
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

// validator checks one file against FACTS §2.5, collecting every problem it can.
type validator struct {
	binfile.Checker
}

func (v *validator) run() *File {
	if v.Size < HeaderSize {
		v.Fail(RuleTruncated, v.Size, -1, "file is %d bytes; a BPSM header alone is %d", v.Size, HeaderSize)
		return nil
	}
	if string(v.B[:4]) != Magic {
		v.Fail(RuleMagic, 0, -1, "starts with %q, not %q: not a BPSM file", v.B[:4], Magic)
		return nil
	}
	h := Header{
		Version: v.U32(4), SpeciesID: v.U32(8), LOD: v.U32(12), VertexCount: v.U32(16),
		IndexCount: v.U32(20), ClipCount: v.U32(24), FrameTotal: v.U32(28),
		StringTableSize: v.U32(32), ClipTableOffset: v.U64(40), StringTableOffset: v.U64(48),
		IndexDataOffset: v.U64(56), VertexDataOffset: v.U64(64),
	}
	if h.Version != Version {
		v.Fail(RuleVersion, 4, -1, "version %d is not supported (this reader knows 1)", h.Version)
		return nil
	}
	if !slices.Contains(BuiltinSpecies, h.SpeciesID) && !slices.Contains(v.Opts.Species, h.SpeciesID) {
		v.Fail(RuleSpecies, 8, -1, "species id %d is not registered (built-in ids are 0-5)", h.SpeciesID)
	}
	if h.LOD != LODFull && h.LOD != LODMinimal {
		v.Fail(RuleLOD, 12, -1, "lod %d is neither 0 (full) nor 1 (minimal)", h.LOD)
	}
	if h.VertexCount < 1 {
		v.Fail(RuleVertexCount, 16, -1, "the file has no vertices")
	}
	if h.IndexCount%3 != 0 {
		v.Fail(RuleIndexCount, 20, -1, "index count %d is not a multiple of 3 (indices form a triangle list)", h.IndexCount)
	}
	if h.ClipCount < 1 {
		v.Fail(RuleClipCount, 24, -1, "the file has no clips")
	}
	v.Zeros(36, 40, -1, "header reserved")

	// Sections, in the order they must appear.
	header := binfile.Span{Name: "header", Start: 0, End: HeaderSize, OK: true}
	clipTable := v.Section("clip table", 40, h.ClipTableOffset, uint64(h.ClipCount), 1, ClipEntrySize)
	strTable := v.Section("string table", 48, h.StringTableOffset, uint64(h.StringTableSize), 1, 1)
	indexData := v.Section("index data", 56, h.IndexDataOffset, uint64(h.IndexCount), 1, IndexSize)
	vertexData := v.Section("vertex data", 64, h.VertexDataOffset, uint64(h.FrameTotal), uint64(h.VertexCount), VertexSize)
	v.checkLayout(&h, []binfile.Span{header, clipTable, strTable, indexData, vertexData})

	var clips []Clip
	if clipTable.OK {
		clips = v.clips(&h, clipTable.Start, strTable)
	}
	if indexData.OK {
		v.indices(&h, indexData)
	}
	if len(v.Problems) > 0 {
		return nil
	}
	f := &File{
		name: v.Opts.Name, data: v.B, header: h, clips: clips,
		clipIndex:  make(map[string]int, len(clips)),
		indices:    binfile.Uint32s(v.B[indexData.Start:indexData.End]),
		vertexData: v.B[vertexData.Start:vertexData.End:vertexData.End],
		frameSize:  int(h.VertexCount) * VertexSize,
		lenient:    v.Opts.Lenient,
	}
	for i := range clips {
		if _, dup := f.clipIndex[clips[i].Name]; !dup {
			f.clipIndex[clips[i].Name] = i
		}
	}
	return f
}

// checkLayout checks alignment, order, overlap, gaps and trailing bytes.
func (v *validator) checkLayout(h *Header, spans []binfile.Span) {
	align := func(name string, field, off uint64) {
		if off%MinDataAlign != 0 {
			v.Fail(RuleAlignment, field, -1, "%s offset %d is not a multiple of %d", name, off, MinDataAlign)
		}
	}
	align("clip table", 40, h.ClipTableOffset)
	align("index data", 56, h.IndexDataOffset)
	align("vertex data", 64, h.VertexDataOffset)
	for _, s := range spans {
		if !s.OK {
			return // a section outside the file: order and gaps mean nothing yet
		}
	}
	ordered, disjoint := true, true
	for i := 1; i < len(spans); i++ {
		prev, cur := spans[i-1], spans[i]
		if cur.Start < prev.Start {
			v.Fail(RuleSectionOrder, cur.Start, -1, "%s at %d comes before %s at %d; the order is header, clips, strings, indices, vertices", cur.Name, cur.Start, prev.Name, prev.Start)
			ordered = false
		} else if cur.Start < prev.End && !v.Opts.Lenient {
			v.Fail(RuleOverlap, cur.Start, -1, "%s at %d overlaps %s, which ends at %d", cur.Name, cur.Start, prev.Name, prev.End)
			disjoint = false
		}
	}
	end := spans[len(spans)-1].End
	if v.Opts.Lenient || !ordered || !disjoint {
		return
	}
	for i := 1; i < len(spans); i++ {
		for off := spans[i-1].End; off < spans[i].Start; off++ {
			if v.B[off] != 0 {
				v.Fail(RuleZeroBytes, off, -1, "gap byte before the %s is 0x%02x, not zero", spans[i].Name, v.B[off])
				break
			}
		}
	}
	if v.Size > end {
		v.Fail(RuleTrailingBytes, end, -1, "%d bytes after the vertex data", v.Size-end)
	}
}

func (v *validator) clips(h *Header, table uint64, strTable binfile.Span) []Clip {
	clips := make([]Clip, h.ClipCount)
	sum := uint64(0)
	for i := range clips {
		e := table + uint64(i)*ClipEntrySize
		c := &clips[i]
		c.Name = v.Name("clip", i, e, strTable)
		count, offset := v.U32(e+8), v.U32(e+12)
		c.FrameCount, c.FrameOffset = int(count), int(offset)
		if count < 1 {
			v.Fail(RuleFrameCount, e+8, i, "clip %d %q has no frames", i, c.Name)
		}
		if uint64(offset) != sum {
			v.Fail(RuleFrameOffset, e+12, i, "clip %d %q starts at frame %d; the frames before it end at %d", i, c.Name, offset, sum)
		}
		sum += uint64(count)
		v.Zeros(e+16, e+32, i, fmt.Sprintf("clip %d reserved", i))
	}
	if sum != uint64(h.FrameTotal) {
		v.Fail(RuleFrameTotal, 28, -1, "frame_total is %d but the clips hold %d frames", h.FrameTotal, sum)
	}
	return clips
}

// indices checks that every index names a vertex. It reports the first bad index
// and how many more there are, one problem in all.
func (v *validator) indices(h *Header, s binfile.Span) {
	bad, first := 0, uint64(0)
	for off := s.Start; off < s.End; off += IndexSize {
		if v.U32(off) >= h.VertexCount {
			if bad == 0 {
				first = off
			}
			bad++
		}
	}
	if bad == 0 {
		return
	}
	pos := (first - s.Start) / IndexSize
	more := ""
	if bad > 1 {
		more = fmt.Sprintf(" (and %d more indices out of range)", bad-1)
	}
	v.Fail(RuleIndex, first, int(pos), "index %d is %d; the file has %d vertices%s", pos, v.U32(first), h.VertexCount, more)
}
