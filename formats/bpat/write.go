package bpat

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/bonebake/bonebake/formats/internal/binfmt"
	"github.com/bonebake/bonebake/internal/atomicfile"
)

// Contents is everything a BPAT file holds, as the writer takes it.
type Contents struct {
	// Version is 1 or 2; 0 chooses v1 when no clip has a marker and v2 otherwise.
	Version   uint32
	SpeciesID uint32
	BoneCount int
	// Clips in file order. FrameOffset is ignored, and so is FrameCount when
	// Palettes is given: the writer derives it from them.
	Clips []Clip
	// Palettes[c] holds clip c's frames back to back, BoneCount·16 floats per frame.
	// A StreamWriter takes the frames later and leaves this nil.
	Palettes [][]float32
	Sockets  []Socket
	// SocketData[c] holds clip c's socket data, SocketCount·12 floats per frame. When
	// nil it is computed from the palettes as palette[anchor]·translate(offset).
	SocketData [][]float32
}

// resolvedVersion is the version the writer emits for c.
func (c *Contents) resolvedVersion() (uint32, error) {
	markers := false
	for i := range c.Clips {
		markers = markers || c.Clips[i].Markers.Any()
	}
	switch c.Version {
	case 0:
		if markers {
			return 2, nil
		}
		return 1, nil
	case 1:
		if markers {
			return 0, fmt.Errorf("bpat: version 1 cannot store markers")
		}
		return 1, nil
	case 2:
		return 2, nil
	}
	return 0, fmt.Errorf("bpat: cannot write version %d (only 1 and 2 exist)", c.Version)
}

// layout is the computed placement of every section.
type layout struct {
	header      Header
	strings     []byte
	clipNames   []uint32 // string-table offset of each clip name
	socketNames []uint32
	frameCounts []int
}

func (c *Contents) plan() (*layout, error) {
	version, err := c.resolvedVersion()
	if err != nil {
		return nil, err
	}
	// The reader refuses the same count (RuleBoneCount) in a file from any writer;
	// this writer refuses it before writing, so that it never makes such a file.
	if c.BoneCount < 1 || c.BoneCount > MaxBones {
		return nil, fmt.Errorf("bpat: bone count %d outside [1, %d]", c.BoneCount, MaxBones)
	}
	if len(c.Clips) == 0 {
		return nil, fmt.Errorf("bpat: a file needs at least one clip")
	}
	if c.Palettes != nil && len(c.Palettes) != len(c.Clips) {
		return nil, fmt.Errorf("bpat: %d clips but %d palette blocks", len(c.Clips), len(c.Palettes))
	}
	if c.SocketData != nil && len(c.SocketData) != len(c.Clips) {
		return nil, fmt.Errorf("bpat: %d clips but %d socket data blocks", len(c.Clips), len(c.SocketData))
	}
	l := &layout{}
	frameFloats := c.BoneCount * FloatsPerBone
	total := 0
	for i := range c.Clips {
		cl := &c.Clips[i]
		n := cl.FrameCount
		if c.Palettes != nil {
			n = len(c.Palettes[i]) / frameFloats
			if n*frameFloats != len(c.Palettes[i]) {
				n = 0
			}
		}
		if n < 1 {
			return nil, fmt.Errorf("bpat: clip %d %q: no frames, or a palette block that is not a whole number of %d-bone frames", i, cl.Name, c.BoneCount)
		}
		if !finite32(cl.FPS) || cl.FPS <= 0 {
			return nil, fmt.Errorf("bpat: clip %d %q: fps %v must be finite and > 0", i, cl.Name, cl.FPS)
		}
		for k, m := range cl.Markers {
			if !validMarker(m) {
				return nil, fmt.Errorf("bpat: clip %d %q: marker %s = %v is neither -1 nor in [0,1]", i, cl.Name, Marker(k), m)
			}
		}
		if c.SocketData != nil && len(c.SocketData[i]) != n*len(c.Sockets)*FloatsPerSocket {
			return nil, fmt.Errorf("bpat: clip %d %q: socket data has %d floats, want %d", i, cl.Name, len(c.SocketData[i]), n*len(c.Sockets)*FloatsPerSocket)
		}
		l.frameCounts = append(l.frameCounts, n)
		total += n
		if uint64(total) > math.MaxUint32 {
			return nil, fmt.Errorf("bpat: more than 2^32-1 frames")
		}
	}
	for i, s := range c.Sockets {
		if s.Anchor < 0 || s.Anchor >= c.BoneCount {
			return nil, fmt.Errorf("bpat: socket %d %q: anchor bone %d outside [0, %d)", i, s.Name, s.Anchor, c.BoneCount)
		}
		if k := binfmt.FirstNonFinite(s.Offset[:]); k >= 0 {
			return nil, fmt.Errorf("bpat: socket %d %q: local offset[%d] is %v; it must be finite", i, s.Name, k, s.Offset[k])
		}
	}

	// Interned strings: clip names first in clip order, then socket names.
	var strs binfmt.Strings
	if l.clipNames, err = strs.AddAll("bpat: clip", len(c.Clips), func(i int) string { return c.Clips[i].Name }); err != nil {
		return nil, err
	}
	if l.socketNames, err = strs.AddAll("bpat: socket", len(c.Sockets), func(i int) string { return c.Sockets[i].Name }); err != nil {
		return nil, err
	}
	l.strings = strs.Table

	l.header = Header{
		Version: version, SpeciesID: c.SpeciesID, BoneCount: uint32(c.BoneCount),
		SocketCount: uint32(len(c.Sockets)), ClipCount: uint32(len(c.Clips)),
		FrameTotal: uint32(total), StringTableSize: uint32(len(l.strings)),
	}
	h := &l.header
	h.ClipTableOffset, h.SocketTableOffset, h.StringTableOffset, h.PaletteOffset = h.canonical()
	return l, nil
}

// Size is the size in bytes of the file Write makes of c, from its clips' frame
// counts, bones, sockets and names: the layout of docs/formats/bpat.md §3, without
// the palettes (c.Palettes may be nil). A caller can refuse or announce a large
// file before making it.
func (c *Contents) Size() (int64, error) {
	l, err := c.plan()
	if err != nil {
		return 0, err
	}
	return int64(l.header.SocketDataOffset() + l.header.SocketDataSize()), nil
}

// Write writes c to w in the canonical layout of docs/formats/bpat.md §3.
func Write(w io.Writer, c *Contents) error {
	sw, err := NewStreamWriter(w, c)
	if err != nil {
		return err
	}
	for _, p := range c.Palettes {
		if err := sw.WriteFrames(p); err != nil {
			return err
		}
	}
	return sw.Close()
}

// StreamWriter writes a BPAT file whose palette frames arrive in order, a few at a
// time, so that a bake never holds the whole palette block in memory. Socket data,
// which follows the palette in the file, is computed from the frames as they pass
// (or taken from Contents.SocketData) and written by Close.
type StreamWriter struct {
	w           *bufio.Writer
	c           *Contents
	total       int // frames the header promises
	written     int
	frameFloats int
	sockets     []float32 // socket data of the frames written so far
	header      Header
}

// NewStreamWriter writes the header, tables and strings of c to w. c.Palettes may
// be nil, in which case c.Clips[i].FrameCount says how many frames each clip has.
func NewStreamWriter(w io.Writer, c *Contents) (*StreamWriter, error) {
	l, err := c.plan()
	if err != nil {
		return nil, err
	}
	h := &l.header
	// A small buffer gathers the header and tables; palette frames arrive in big
	// pieces that bufio hands straight to w.
	sw := &StreamWriter{w: bufio.NewWriterSize(w, 4096), c: c, total: int(h.FrameTotal), frameFloats: c.BoneCount * FloatsPerBone, header: *h}
	if len(c.Sockets) > 0 && c.SocketData == nil {
		sw.sockets = make([]float32, 0, sw.total*len(c.Sockets)*FloatsPerSocket)
	}
	bw := sw.w
	var buf [HeaderSize]byte
	le := binary.LittleEndian
	bw.Write(binfmt.PutHeader(buf[:], le, Magic, h))

	offset := 0
	for i, cl := range c.Clips {
		e := buf[:h.ClipEntrySize()]
		clear(e)
		binfmt.PutClipHead(e, le, l.clipNames[i], cl.Name, l.frameCounts[i], offset)
		le.PutUint32(e[16:], math.Float32bits(cl.FPS))
		if cl.Loops {
			e[20] = 1
		}
		if h.Version == 2 {
			for k, m := range cl.Markers {
				le.PutUint32(e[24+4*k:], math.Float32bits(m))
			}
		}
		bw.Write(e)
		offset += l.frameCounts[i]
	}
	for i, s := range c.Sockets {
		e := buf[:SocketEntrySize]
		clear(e)
		le.PutUint32(e[0:], l.socketNames[i])
		le.PutUint32(e[4:], uint32(len(s.Name)))
		le.PutUint32(e[8:], uint32(s.Anchor))
		for k, v := range s.Offset {
			le.PutUint32(e[12+4*k:], math.Float32bits(v))
		}
		bw.Write(e)
	}
	bw.Write(l.strings)
	pad := h.PaletteOffset - h.StringTableOffset - uint64(len(l.strings))
	clear(buf[:pad])
	_, err = bw.Write(buf[:pad])
	return sw, err
}

// Header is the header the writer wrote.
func (sw *StreamWriter) Header() Header { return sw.header }

// WriteFrames writes the next whole frames of the palette block, in file order.
// It does not scan them for NaN and infinite floats (a scan would cost a bake about
// a tenth of its time); strict validation of the written file does.
func (sw *StreamWriter) WriteFrames(p []float32) error {
	n := len(p) / sw.frameFloats
	if n*sw.frameFloats != len(p) {
		return fmt.Errorf("bpat: %d floats is not a whole number of %d-float frames", len(p), sw.frameFloats)
	}
	if sw.written+n > sw.total {
		return fmt.Errorf("bpat: %d frames written, but the header has %d", sw.written+n, sw.total)
	}
	sw.written += n
	if sw.sockets != nil {
		per := len(sw.c.Sockets) * FloatsPerSocket
		for f := 0; f < n; f++ {
			k := len(sw.sockets)
			sw.sockets = sw.sockets[:k+per]
			ComputeSocketData(p[f*sw.frameFloats:(f+1)*sw.frameFloats], sw.c.Sockets, sw.sockets[k:])
		}
	}
	return binfmt.WriteFloats(sw.w, p)
}

// Close writes the socket data and flushes. It fails when fewer frames were written
// than the header promises. It does not close the underlying writer.
func (sw *StreamWriter) Close() error {
	if sw.written != sw.total {
		return fmt.Errorf("bpat: %d frames written, but the header has %d", sw.written, sw.total)
	}
	blocks := sw.c.SocketData
	if sw.sockets != nil {
		blocks = [][]float32{sw.sockets}
	}
	for _, sd := range blocks {
		if k := binfmt.FirstNonFinite(sd); k >= 0 {
			return fmt.Errorf("bpat: socket data float %d is %v; strict validation refuses non-finite floats", k, sd[k])
		}
		if err := binfmt.WriteFloats(sw.w, sd); err != nil {
			return err
		}
	}
	return sw.w.Flush()
}

// ComputeSocketData fills dst (len(sockets)·12 floats) with the top three rows of
// palette[anchor]·translate(offset) for each socket of one frame.
func ComputeSocketData(palette []float32, sockets []Socket, dst []float32) {
	for i, s := range sockets {
		m := palette[s.Anchor*FloatsPerBone : s.Anchor*FloatsPerBone+FloatsPerBone]
		d := dst[i*FloatsPerSocket : i*FloatsPerSocket+FloatsPerSocket]
		ox, oy, oz := float64(s.Offset[0]), float64(s.Offset[1]), float64(s.Offset[2])
		for r := 0; r < 3; r++ {
			row := m[r*4 : r*4+4]
			d[r*4+0] = row[0]
			d[r*4+1] = row[1]
			d[r*4+2] = row[2]
			d[r*4+3] = float32(float64(row[0])*ox + float64(row[1])*oy + float64(row[2])*oz + float64(row[3]))
		}
	}
}

// WriteFile writes c to path atomically: a failed write leaves the old file intact.
func WriteFile(path string, c *Contents) error {
	if _, err := c.plan(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, c) })
}
