package bpat

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

// File is an open, validated BPAT file. Its methods are safe for concurrent use; the
// slices they return view the file and must not be modified.
type File struct {
	name       string
	data       []byte
	mapped     mmap.MMap // nil when the bytes came from Parse
	header     Header
	clips      []Clip
	clipIndex  map[string]int
	sockets    []Socket
	palette    []float32
	socketData []float32
	frameSize  int // floats per palette frame
	socketSize int // floats per socket data frame
}

// Option adjusts how a file is validated.
type Option func(*options)

type options struct {
	name    string
	lenient bool
	species []uint32
}

// Lenient accepts what the game's own reader accepts: it skips the zero-byte,
// overlap, trailing-byte, fps and marker checks (FACTS §1.4).
func Lenient() Option { return func(o *options) { o.lenient = true } }

// Species registers species ids beyond the built-in ones as valid.
func Species(ids ...uint32) Option {
	return func(o *options) { o.species = append(o.species, ids...) }
}

// Name sets the file name that Parse's errors report.
func Name(name string) Option { return func(o *options) { o.name = name } }

// Open maps path read-only and validates it. The palette block is neither read nor
// copied, so opening takes the same time for any file size. Close unmaps it.
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
	bf, err := Parse(m, opts...)
	if err != nil {
		m.Unmap()
		return nil, err
	}
	bf.mapped = m
	return bf, nil
}

// Parse validates b as a BPAT file. The File keeps b and views it without copying.
func Parse(b []byte, opts ...Option) (*File, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	v := validator{opts: o, b: b, size: uint64(len(b))}
	f := v.run()
	if len(v.problems) > 0 {
		slices.SortStableFunc(v.problems, func(a, b *FormatError) int { return cmp.Compare(a.Offset, b.Offset) })
		return nil, &ValidationError{File: o.name, Problems: v.problems}
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
	f.data, f.palette, f.socketData = nil, nil, nil
	return err
}

// Name is the path the file was opened from (or the name given to Parse).
func (f *File) Name() string { return f.name }

// Size is the file's length in bytes.
func (f *File) Size() int64 { return int64(len(f.data)) }

// Header returns the decoded header.
func (f *File) Header() Header { return f.header }

// BoneCount is the number of palette entries per frame.
func (f *File) BoneCount() int { return int(f.header.BoneCount) }

// Clips returns the clip table in file order.
func (f *File) Clips() []Clip { return f.clips }

// Sockets returns the socket table in file order.
func (f *File) Sockets() []Socket { return f.sockets }

// ClipIndex returns the index of the first clip named name, or -1.
func (f *File) ClipIndex(name string) int {
	if i, ok := f.clipIndex[name]; ok {
		return i
	}
	return -1
}

// SocketIndex returns the index of the first socket named name, or -1.
func (f *File) SocketIndex(name string) int {
	for i := range f.sockets {
		if f.sockets[i].Name == name {
			return i
		}
	}
	return -1
}

// Palette returns frame frame of clip clip: BoneCount·16 floats, bone after bone,
// each a row-major model-space matrix. It panics if clip or frame is out of range.
func (f *File) Palette(clip, frame int) []float32 {
	c := &f.clips[clip]
	if uint(frame) >= uint(c.FrameCount) {
		panic(fmt.Sprintf("bpat: frame %d out of range [0,%d) of clip %d", frame, c.FrameCount, clip))
	}
	i := (c.FrameOffset + frame) * f.frameSize
	return f.palette[i : i+f.frameSize : i+f.frameSize]
}

// SocketData returns the socket transforms of one frame: SocketCount·12 floats, the
// top three rows of each socket's matrix. It is empty when the file has no sockets.
func (f *File) SocketData(clip, frame int) []float32 {
	c := &f.clips[clip]
	if uint(frame) >= uint(c.FrameCount) {
		panic(fmt.Sprintf("bpat: frame %d out of range [0,%d) of clip %d", frame, c.FrameCount, clip))
	}
	i := (c.FrameOffset + frame) * f.socketSize
	return f.socketData[i : i+f.socketSize : i+f.socketSize]
}

// PaletteBytes returns the whole palette block as stored: upload it unchanged as an
// RGBA32F texture of width BoneCount·4 and height FrameTotal.
func (f *File) PaletteBytes() []byte {
	h := &f.header
	return f.data[h.PaletteOffset : h.PaletteOffset+h.PaletteSize()]
}

// SocketDataBytes returns the socket data block as stored (empty without sockets).
func (f *File) SocketDataBytes() []byte {
	h := &f.header
	o := h.SocketDataOffset()
	return f.data[o : o+h.SocketDataSize()]
}

// Sections lists the file's regions in file order, with the padding before the
// palette as its own entry.
func (f *File) Sections() []Section {
	h := &f.header
	s := []Section{{"header", 0, HeaderSize}}
	s = append(s, Section{"clip table", h.ClipTableOffset, uint64(h.ClipCount) * h.ClipEntrySize()})
	if h.SocketCount > 0 {
		s = append(s, Section{"socket table", h.SocketTableOffset, uint64(h.SocketCount) * SocketEntrySize})
	}
	s = append(s, Section{"string table", h.StringTableOffset, uint64(h.StringTableSize)})
	if end := h.StringTableOffset + uint64(h.StringTableSize); h.PaletteOffset > end {
		s = append(s, Section{"padding", end, h.PaletteOffset - end})
	}
	s = append(s, Section{"palette", h.PaletteOffset, h.PaletteSize()})
	if h.SocketCount > 0 {
		s = append(s, Section{"socket data", h.SocketDataOffset(), h.SocketDataSize()})
	}
	return s
}

// littleEndianHost is true where float32 slices can view the file's bytes directly.
var littleEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// floatView returns b as float32s: a zero-copy view on little-endian hosts when b is
// 4-byte aligned, a decoded copy otherwise.
func floatView(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndianHost && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// validator checks one file against FACTS §1.4, collecting every problem it can.
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

func (v *validator) u32(off uint64) uint32 { return binary.LittleEndian.Uint32(v.b[off:]) }
func (v *validator) u64(off uint64) uint64 { return binary.LittleEndian.Uint64(v.b[off:]) }
func (v *validator) f32(off uint64) float32 {
	return math.Float32frombits(v.u32(off))
}

// span is a section's [start, end) with overflow already excluded.
type span struct {
	name       string
	start, end uint64
	ok         bool // inside the file
}

// section checks that count entries of size bytes at offset fit in the file.
func (v *validator) section(name string, offsetField uint64, offset, count, size uint64) span {
	s := span{name: name, start: offset}
	hi, bytes := bits.Mul64(count, size)
	if hi != 0 || offset > v.size || bytes > v.size-offset {
		v.fail(RuleBounds, offsetField, -1, "%s at %d, %d bytes long, runs past the end of the %d-byte file", name, offset, bytes, v.size)
		return s
	}
	s.end, s.ok = offset+bytes, true
	return s
}

func (v *validator) run() *File {
	if v.size < HeaderSize {
		v.fail(RuleTruncated, v.size, -1, "file is %d bytes; a BPAT header alone is %d", v.size, HeaderSize)
		return nil
	}
	if string(v.b[:4]) != Magic {
		v.fail(RuleMagic, 0, -1, "starts with %q, not %q: not a BPAT file", v.b[:4], Magic)
		return nil
	}
	h := Header{
		Version: v.u32(4), SpeciesID: v.u32(8), BoneCount: v.u32(12), SocketCount: v.u32(16),
		ClipCount: v.u32(20), FrameTotal: v.u32(24), StringTableSize: v.u32(28),
		ClipTableOffset: v.u64(32), SocketTableOffset: v.u64(40),
		StringTableOffset: v.u64(48), PaletteOffset: v.u64(56),
	}
	if h.Version != 1 && h.Version != 2 {
		v.fail(RuleVersion, 4, -1, "version %d is not supported (this reader knows 1 and 2)", h.Version)
		return nil
	}
	if !slices.Contains(BuiltinSpecies, h.SpeciesID) && !slices.Contains(v.opts.species, h.SpeciesID) {
		v.fail(RuleSpecies, 8, -1, "species id %d is not registered (built-in ids are 0-5)", h.SpeciesID)
	}
	if h.BoneCount < 1 || h.BoneCount > MaxBones {
		v.fail(RuleBoneCount, 12, -1, "bone count %d outside [1, %d]", h.BoneCount, MaxBones)
	}
	if h.ClipCount < 1 {
		v.fail(RuleClipCount, 20, -1, "the file has no clips")
	}
	if (h.SocketTableOffset == 0) != (h.SocketCount == 0) {
		v.fail(RuleSocketTable, 40, -1, "socket_table_offset is %d with %d sockets: it must be 0 exactly when there are none", h.SocketTableOffset, h.SocketCount)
	}

	// Sections, in the order they must appear.
	spans := []span{{name: "header", start: 0, end: HeaderSize, ok: true}}
	clipTable := v.section("clip table", 32, h.ClipTableOffset, uint64(h.ClipCount), h.ClipEntrySize())
	spans = append(spans, clipTable)
	socketTable := span{}
	if h.SocketCount > 0 && h.SocketTableOffset != 0 {
		socketTable = v.section("socket table", 40, h.SocketTableOffset, uint64(h.SocketCount), SocketEntrySize)
		spans = append(spans, socketTable)
	}
	strTable := v.section("string table", 48, h.StringTableOffset, uint64(h.StringTableSize), 1)
	spans = append(spans, strTable)
	palette := v.section("palette", 56, h.PaletteOffset, uint64(h.FrameTotal)*uint64(h.BoneCount), FloatsPerBone*4)
	spans = append(spans, palette)
	var sockData span
	if palette.ok {
		sockData = v.section("socket data", 56, palette.end, uint64(h.FrameTotal)*uint64(h.SocketCount), FloatsPerSocket*4)
		spans = append(spans, sockData)
	}
	v.checkLayout(&h, spans, strTable)

	// Tables.
	var clips []Clip
	if clipTable.ok {
		clips = v.clips(&h, clipTable.start, strTable)
	}
	var sockets []Socket
	if socketTable.ok {
		sockets = v.sockets(&h, socketTable.start, strTable)
	}
	if len(v.problems) > 0 {
		return nil
	}
	f := &File{
		name: v.opts.name, data: v.b, header: h, clips: clips, sockets: sockets,
		clipIndex:  make(map[string]int, len(clips)),
		frameSize:  int(h.BoneCount) * FloatsPerBone,
		socketSize: int(h.SocketCount) * FloatsPerSocket,
	}
	for i := range clips {
		if _, dup := f.clipIndex[clips[i].Name]; !dup {
			f.clipIndex[clips[i].Name] = i
		}
	}
	f.palette = floatView(v.b[palette.start:palette.end])
	f.socketData = floatView(v.b[sockData.start:sockData.end])
	return f
}

// checkLayout checks order, overlap, alignment, gaps and trailing bytes.
func (v *validator) checkLayout(h *Header, spans []span, strTable span) {
	align := func(name string, field, off, a uint64) {
		if off%a != 0 {
			v.fail(RuleAlignment, field, -1, "%s offset %d is not a multiple of %d", name, off, a)
		}
	}
	align("palette", 56, h.PaletteOffset, PaletteAlign)
	tableAlign := uint64(4)
	if h.Version == 1 {
		tableAlign = 16 // every v1 record is a multiple of 16 bytes
	}
	align("clip table", 32, h.ClipTableOffset, tableAlign)
	if h.SocketCount > 0 {
		align("socket table", 40, h.SocketTableOffset, tableAlign)
	}
	if h.Version == 1 {
		align("string table", 48, h.StringTableOffset, 16)
	}
	for _, s := range spans {
		if !s.ok {
			return // a section outside the file: order and gaps mean nothing yet
		}
	}
	ordered, disjoint := true, true
	for i := 1; i < len(spans); i++ {
		prev, cur := spans[i-1], spans[i]
		if cur.start < prev.start {
			v.fail(RuleSectionOrder, uint64(cur.start), -1, "%s at %d comes before %s at %d; the order is header, clips, sockets, strings, palette, socket data", cur.name, cur.start, prev.name, prev.start)
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
		v.fail(RuleTrailingBytes, end, -1, "%d bytes after the last section", v.size-end)
	}
}

// name reads and checks a name from the string table.
func (v *validator) name(what string, index int, entry uint64, strTable span) string {
	off, n := uint64(v.u32(entry)), uint64(v.u32(entry+4))
	size := strTable.end - strTable.start
	if !strTable.ok || off > size || n+1 > size-off {
		v.fail(RuleBounds, entry, index, "%s %d name at string offset %d, length %d, is outside the %d-byte string table", what, index, off, n, size)
		return ""
	}
	s := v.b[strTable.start+off : strTable.start+off+n]
	switch {
	case v.b[strTable.start+off+n] != 0:
		v.fail(RuleName, strTable.start+off+n, index, "%s %d name is not followed by a NUL byte", what, index)
	case slices.Contains(s, 0):
		v.fail(RuleName, strTable.start+off, index, "%s %d name contains a NUL byte", what, index)
	case !utf8.Valid(s):
		v.fail(RuleName, strTable.start+off, index, "%s %d name is not valid UTF-8", what, index)
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
		e := table + uint64(i)*h.ClipEntrySize()
		c := &clips[i]
		c.Name = v.name("clip", i, e, strTable)
		count, offset := v.u32(e+8), v.u32(e+12)
		c.FrameCount, c.FrameOffset = int(count), int(offset)
		c.FPS = v.f32(e + 16)
		c.Loops = v.b[e+20] == 1
		c.Markers = NoMarkers()
		if count < 1 {
			v.fail(RuleFrameCount, e+8, i, "clip %d %q has no frames", i, c.Name)
		}
		if uint64(offset) != sum {
			v.fail(RuleFrameOffset, e+12, i, "clip %d %q starts at frame %d; the frames before it end at %d", i, c.Name, offset, sum)
		}
		sum += uint64(count)
		if !v.opts.lenient && (!finite32(c.FPS) || c.FPS <= 0) {
			v.fail(RuleFPS, e+16, i, "clip %d %q has fps %v; it must be finite and > 0", i, c.Name, c.FPS)
		}
		if l := v.b[e+20]; l > 1 {
			v.fail(RuleLoops, e+20, i, "clip %d %q has loops = %d; it must be 0 or 1", i, c.Name, l)
		}
		v.zeros(e+21, e+24, i, fmt.Sprintf("clip %d pad", i))
		if h.Version == 1 {
			v.zeros(e+24, e+32, i, fmt.Sprintf("clip %d reserved", i))
			continue
		}
		for k := range c.Markers {
			m := v.f32(e + 24 + 4*uint64(k))
			c.Markers[k] = m
			if !v.opts.lenient && !validMarker(m) {
				v.fail(RuleMarker, e+24+4*uint64(k), i, "clip %d %q marker %s = %v is neither -1 nor in [0,1]", i, c.Name, Marker(k), m)
			}
		}
	}
	if sum != uint64(h.FrameTotal) {
		v.fail(RuleFrameTotal, 24, -1, "frame_total is %d but the clips hold %d frames", h.FrameTotal, sum)
	}
	return clips
}

func (v *validator) sockets(h *Header, table uint64, strTable span) []Socket {
	sockets := make([]Socket, h.SocketCount)
	for i := range sockets {
		e := table + uint64(i)*SocketEntrySize
		s := &sockets[i]
		s.Name = v.name("socket", i, e, strTable)
		anchor := v.u32(e + 8)
		s.Anchor = int(anchor)
		if anchor >= h.BoneCount {
			v.fail(RuleAnchorBone, e+8, i, "socket %d %q anchors to bone %d; the file has %d bones", i, s.Name, anchor, h.BoneCount)
		}
		for k := range s.Offset {
			s.Offset[k] = v.f32(e + 12 + 4*uint64(k))
		}
		v.zeros(e+24, e+32, i, fmt.Sprintf("socket %d reserved", i))
	}
	return sockets
}
