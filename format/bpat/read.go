package bpat

import (
	"fmt"
	"slices"

	"bonebake/internal/binfile"
)

// File is an open, validated BPAT file. Its methods are safe for concurrent use; the
// slices they return view the file and must not be modified.
type File struct {
	name       string
	data       []byte
	unmap      func() error // nil when the bytes came from Parse
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
type Option = binfile.Option

// Lenient accepts what the game's own reader accepts: it skips the zero-byte,
// overlap, trailing-byte, fps and marker checks (FACTS §1.4).
func Lenient() Option { return func(o *binfile.Options) { o.Lenient = true } }

// Species registers species ids beyond the built-in ones as valid.
func Species(ids ...uint32) Option {
	return func(o *binfile.Options) { o.Species = append(o.Species, ids...) }
}

// Name sets the file name that Parse's errors report.
func Name(name string) Option { return func(o *binfile.Options) { o.Name = name } }

// Open maps path read-only and validates it. The palette block is neither read nor
// copied, so opening takes the same time for any file size. Close unmaps it.
func Open(path string, opts ...Option) (*File, error) {
	opts = append(opts, Name(path))
	f, unmap, err := binfile.Open(path, HeaderSize, func(b []byte) (*File, error) { return Parse(b, opts...) })
	if err != nil {
		return nil, err
	}
	f.unmap = unmap
	return f, nil
}

// Parse validates b as a BPAT file. The File keeps b and views it without copying.
func Parse(b []byte, opts ...Option) (*File, error) {
	v := validator{Checker: binfile.NewChecker(b, binfile.Apply(opts))}
	f := v.run()
	if err := v.Err("bpat"); err != nil {
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

// validator checks one file against FACTS §1.4, collecting every problem it can.
type validator struct {
	binfile.Checker
}

func (v *validator) run() *File {
	if v.Size < HeaderSize {
		v.Fail(RuleTruncated, v.Size, -1, "file is %d bytes; a BPAT header alone is %d", v.Size, HeaderSize)
		return nil
	}
	if string(v.B[:4]) != Magic {
		v.Fail(RuleMagic, 0, -1, "starts with %q, not %q: not a BPAT file", v.B[:4], Magic)
		return nil
	}
	h := Header{
		Version: v.U32(4), SpeciesID: v.U32(8), BoneCount: v.U32(12), SocketCount: v.U32(16),
		ClipCount: v.U32(20), FrameTotal: v.U32(24), StringTableSize: v.U32(28),
		ClipTableOffset: v.U64(32), SocketTableOffset: v.U64(40),
		StringTableOffset: v.U64(48), PaletteOffset: v.U64(56),
	}
	if h.Version != 1 && h.Version != 2 {
		v.Fail(RuleVersion, 4, -1, "version %d is not supported (this reader knows 1 and 2)", h.Version)
		return nil
	}
	if !slices.Contains(BuiltinSpecies, h.SpeciesID) && !slices.Contains(v.Opts.Species, h.SpeciesID) {
		v.Fail(RuleSpecies, 8, -1, "species id %d is not registered (built-in ids are 0-5)", h.SpeciesID)
	}
	if h.BoneCount < 1 || h.BoneCount > MaxBones {
		v.Fail(RuleBoneCount, 12, -1, "bone count %d outside [1, %d]", h.BoneCount, MaxBones)
	}
	if h.ClipCount < 1 {
		v.Fail(RuleClipCount, 20, -1, "the file has no clips")
	}
	if (h.SocketTableOffset == 0) != (h.SocketCount == 0) {
		v.Fail(RuleSocketTable, 40, -1, "socket_table_offset is %d with %d sockets: it must be 0 exactly when there are none", h.SocketTableOffset, h.SocketCount)
	}

	// Sections, in the order they must appear.
	spans := []binfile.Span{{Name: "header", Start: 0, End: HeaderSize, OK: true}}
	clipTable := v.Section("clip table", 32, h.ClipTableOffset, uint64(h.ClipCount), h.ClipEntrySize())
	spans = append(spans, clipTable)
	socketTable := binfile.Span{}
	if h.SocketCount > 0 && h.SocketTableOffset != 0 {
		socketTable = v.Section("socket table", 40, h.SocketTableOffset, uint64(h.SocketCount), SocketEntrySize)
		spans = append(spans, socketTable)
	}
	strTable := v.Section("string table", 48, h.StringTableOffset, uint64(h.StringTableSize), 1)
	spans = append(spans, strTable)
	palette := v.Section("palette", 56, h.PaletteOffset, uint64(h.FrameTotal)*uint64(h.BoneCount), FloatsPerBone*4)
	spans = append(spans, palette)
	var sockData binfile.Span
	if palette.OK {
		sockData = v.Section("socket data", 56, palette.End, uint64(h.FrameTotal)*uint64(h.SocketCount), FloatsPerSocket*4)
		spans = append(spans, sockData)
	}
	v.checkLayout(&h, spans, strTable)

	// Tables.
	var clips []Clip
	if clipTable.OK {
		clips = v.clips(&h, clipTable.Start, strTable)
	}
	var sockets []Socket
	if socketTable.OK {
		sockets = v.sockets(&h, socketTable.Start, strTable)
	}
	if len(v.Problems) > 0 {
		return nil
	}
	f := &File{
		name: v.Opts.Name, data: v.B, header: h, clips: clips, sockets: sockets,
		clipIndex:  make(map[string]int, len(clips)),
		frameSize:  int(h.BoneCount) * FloatsPerBone,
		socketSize: int(h.SocketCount) * FloatsPerSocket,
	}
	for i := range clips {
		if _, dup := f.clipIndex[clips[i].Name]; !dup {
			f.clipIndex[clips[i].Name] = i
		}
	}
	f.palette = binfile.Float32s(v.B[palette.Start:palette.End])
	f.socketData = binfile.Float32s(v.B[sockData.Start:sockData.End])
	return f
}

// checkLayout checks order, overlap, alignment, gaps and trailing bytes.
func (v *validator) checkLayout(h *Header, spans []binfile.Span, strTable binfile.Span) {
	align := func(name string, field, off, a uint64) {
		if off%a != 0 {
			v.Fail(RuleAlignment, field, -1, "%s offset %d is not a multiple of %d", name, off, a)
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
		if !s.OK {
			return // a section outside the file: order and gaps mean nothing yet
		}
	}
	ordered, disjoint := true, true
	for i := 1; i < len(spans); i++ {
		prev, cur := spans[i-1], spans[i]
		if cur.Start < prev.Start {
			v.Fail(RuleSectionOrder, uint64(cur.Start), -1, "%s at %d comes before %s at %d; the order is header, clips, sockets, strings, palette, socket data", cur.Name, cur.Start, prev.Name, prev.Start)
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
		v.Fail(RuleTrailingBytes, end, -1, "%d bytes after the last section", v.Size-end)
	}
}

func (v *validator) clips(h *Header, table uint64, strTable binfile.Span) []Clip {
	clips := make([]Clip, h.ClipCount)
	sum := uint64(0)
	for i := range clips {
		e := table + uint64(i)*h.ClipEntrySize()
		c := &clips[i]
		c.Name = v.Name("clip", i, e, strTable)
		count, offset := v.U32(e+8), v.U32(e+12)
		c.FrameCount, c.FrameOffset = int(count), int(offset)
		c.FPS = v.F32(e + 16)
		c.Loops = v.B[e+20] == 1
		c.Markers = NoMarkers()
		if count < 1 {
			v.Fail(RuleFrameCount, e+8, i, "clip %d %q has no frames", i, c.Name)
		}
		if uint64(offset) != sum {
			v.Fail(RuleFrameOffset, e+12, i, "clip %d %q starts at frame %d; the frames before it end at %d", i, c.Name, offset, sum)
		}
		sum += uint64(count)
		if !v.Opts.Lenient && (!finite32(c.FPS) || c.FPS <= 0) {
			v.Fail(RuleFPS, e+16, i, "clip %d %q has fps %v; it must be finite and > 0", i, c.Name, c.FPS)
		}
		if l := v.B[e+20]; l > 1 {
			v.Fail(RuleLoops, e+20, i, "clip %d %q has loops = %d; it must be 0 or 1", i, c.Name, l)
		}
		v.Zeros(e+21, e+24, i, fmt.Sprintf("clip %d pad", i))
		if h.Version == 1 {
			v.Zeros(e+24, e+32, i, fmt.Sprintf("clip %d reserved", i))
			continue
		}
		for k := range c.Markers {
			m := v.F32(e + 24 + 4*uint64(k))
			c.Markers[k] = m
			if !v.Opts.Lenient && !validMarker(m) {
				v.Fail(RuleMarker, e+24+4*uint64(k), i, "clip %d %q marker %s = %v is neither -1 nor in [0,1]", i, c.Name, Marker(k), m)
			}
		}
	}
	if sum != uint64(h.FrameTotal) {
		v.Fail(RuleFrameTotal, 24, -1, "frame_total is %d but the clips hold %d frames", h.FrameTotal, sum)
	}
	return clips
}

func (v *validator) sockets(h *Header, table uint64, strTable binfile.Span) []Socket {
	sockets := make([]Socket, h.SocketCount)
	for i := range sockets {
		e := table + uint64(i)*SocketEntrySize
		s := &sockets[i]
		s.Name = v.Name("socket", i, e, strTable)
		anchor := v.U32(e + 8)
		s.Anchor = int(anchor)
		if anchor >= h.BoneCount {
			v.Fail(RuleAnchorBone, e+8, i, "socket %d %q anchors to bone %d; the file has %d bones", i, s.Name, anchor, h.BoneCount)
		}
		for k := range s.Offset {
			s.Offset[k] = v.F32(e + 12 + 4*uint64(k))
		}
		v.Zeros(e+24, e+32, i, fmt.Sprintf("socket %d reserved", i))
	}
	return sockets
}
