package bpx

import (
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/bonebake/bonebake/formats/internal/xz"
)

// Compression is how a writer stores a section larger than CompressThreshold.
type Compression uint8

// The compressions.
const (
	NoCompression Compression = iota
	XZ
	Zlib
)

// Check is the checksum a writer gives a section.
type Check uint8

// The checks.
const (
	NoCheck Check = iota
	CRC32         // the BPX CRC (§4), not the standard CRC-32
	WeakCheck
)

// xzWorkers is how many xz blocks a section's writer compresses at once. Each
// takes about 20.4 MiB (its match finder and two 4 MiB blocks, each with room
// for its compressed form), so two keep a pack under 64 MiB on any machine.
var xzWorkers = min(runtime.GOMAXPROCS(0), 2)

// Writer writes a container: NewWriter reserves room for the header and the
// table of a known number of sections, each section is streamed after it, and
// Close writes the table and header (version 2, the true file size, the
// checksums of docs/formats/bpx.md §4).
type Writer struct {
	w      io.WriteSeeker
	start  int64
	header Header
	secs   []SectionHeader
	off    uint64 // next section's pointer
	open   *sectionWriter
	closed bool
	// stored, when not nil, is told the uncompressed bytes of the sections
	// opened after it is set as they are stored: an xz section's per block,
	// once compressed and written; another's as written.
	stored func(n int)
}

// NewWriter starts a container of the given type and TypeExt with room for
// sections sections at the current position of w.
func NewWriter(w io.WriteSeeker, typ byte, typeExt [16]byte, sections int) (*Writer, error) {
	start, err := w.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	if sections < 0 || sections > maxSections {
		return nil, fmt.Errorf("bpx: %d sections; a writer makes 0 to %d", sections, maxSections)
	}
	n := HeaderSize + SectionEntrySize*sections
	if _, err := w.Write(make([]byte, n)); err != nil {
		return nil, err
	}
	return &Writer{w: w, start: start, header: Header{Type: typ, Version: 2, TypeExt: typeExt}, secs: make([]SectionHeader, 0, sections), off: uint64(n)}, nil
}

// Section starts the next section: size bytes of the given type, to be written
// to the returned writer and closed. It is compressed as comp says when size is
// over CompressThreshold, and checksummed as check says.
func (w *Writer) Section(typ uint8, size uint64, comp Compression, check Check) (io.WriteCloser, error) {
	if w.open != nil {
		return nil, errors.New("bpx: a section is still open")
	}
	if len(w.secs) == cap(w.secs) {
		return nil, fmt.Errorf("bpx: more sections than the %d reserved", cap(w.secs))
	}
	if size > 1<<32-1 {
		return nil, fmt.Errorf("bpx: a %d-byte section; a section holds at most 4 GiB - 1", size)
	}
	sw := &sectionWriter{w: w, size: size, h: SectionHeader{Pointer: w.off, Size: uint32(size), Type: typ}}
	sw.count = &countWriter{w: w.w}
	var out io.Writer = sw.count
	switch check {
	case CRC32:
		sw.h.Flags |= FlagCRC32
	case WeakCheck:
		sw.h.Flags |= FlagWeak
	}
	sw.sum = newSummer(sw.h.Flags)
	if size > CompressThreshold {
		switch comp {
		case XZ:
			x, err := xz.NewWriter(out, xz.WriterConfig{Workers: xzWorkers, Written: w.stored})
			if err != nil {
				return nil, err
			}
			sw.h.Flags |= FlagXZ
			sw.comp, out = x, x
		case Zlib:
			z := zlib.NewWriter(out)
			sw.h.Flags |= FlagZlib
			sw.comp, out = z, z
		}
	}
	if sw.h.Flags&FlagXZ == 0 {
		sw.stored = w.stored
	}
	sw.out = out
	w.open = sw
	return sw, nil
}

// Add writes a whole section from b.
func (w *Writer) Add(typ uint8, b []byte, comp Compression, check Check) error {
	s, err := w.Section(typ, uint64(len(b)), comp, check)
	if err != nil {
		return err
	}
	if _, err := s.Write(b); err != nil {
		return err
	}
	return s.Close()
}

// Close writes the section table and header, then leaves w at the end of the
// container. Every reserved section must have been written.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	if w.open != nil {
		return errors.New("bpx: a section is still open")
	}
	if len(w.secs) != cap(w.secs) {
		return fmt.Errorf("bpx: %d of the %d reserved sections written", len(w.secs), cap(w.secs))
	}
	w.closed = true
	b := make([]byte, HeaderSize+SectionEntrySize*len(w.secs))
	w.header.FileSize = w.off
	w.header.SectionCount = uint32(len(w.secs))
	w.header.encode(b)
	for i := range w.secs {
		w.secs[i].encode(b[HeaderSize+SectionEntrySize*i:])
	}
	w.header.Checksum = headerChecksum(b)
	le.PutUint32(b[4:], w.header.Checksum)
	if _, err := w.w.Seek(w.start, io.SeekStart); err != nil {
		return err
	}
	if _, err := w.w.Write(b); err != nil {
		return err
	}
	_, err := w.w.Seek(w.start+int64(w.off), io.SeekStart)
	return err
}

type countWriter struct {
	w io.Writer
	n uint64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

type sectionWriter struct {
	w       *Writer
	h       SectionHeader
	size    uint64
	written uint64
	count   *countWriter
	comp    io.WriteCloser // the compressor, when there is one
	out     io.Writer
	sum     summer
	stored  func(n int) // Writer.stored, when the compressor does not tell it
}

func (s *sectionWriter) Write(p []byte) (int, error) {
	if s.written+uint64(len(p)) > s.size {
		return 0, fmt.Errorf("bpx: section %d: more than its declared %d bytes written", len(s.w.secs), s.size)
	}
	n, err := s.out.Write(p)
	s.written += uint64(n)
	if s.sum != nil {
		s.sum.Write(p[:n])
	}
	if s.stored != nil && n > 0 {
		s.stored(n)
	}
	return n, err
}

func (s *sectionWriter) Close() error {
	if s.w.open != s {
		return nil
	}
	s.w.open = nil
	if s.written != s.size {
		return fmt.Errorf("bpx: section %d: %d bytes written of its declared %d", len(s.w.secs), s.written, s.size)
	}
	if s.comp != nil {
		if err := s.comp.Close(); err != nil {
			return err
		}
	}
	if s.count.n > 1<<32-1 {
		return fmt.Errorf("bpx: section %d compresses to %d bytes, over 4 GiB - 1", len(s.w.secs), s.count.n)
	}
	s.h.CSize = uint32(s.count.n)
	if s.sum != nil {
		s.h.Checksum = s.sum.Sum32()
	}
	s.w.secs = append(s.w.secs, s.h)
	s.w.off += s.count.n
	return nil
}

// Buffer is an in-memory io.WriteSeeker for building a container in memory.
type Buffer struct {
	b   []byte
	pos int
}

func (b *Buffer) Write(p []byte) (int, error) {
	if end := b.pos + len(p); end > len(b.b) {
		b.b = append(b.b, make([]byte, end-len(b.b))...)
	}
	copy(b.b[b.pos:], p)
	b.pos += len(p)
	return len(p), nil
}

// Seek moves the write position.
func (b *Buffer) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += int64(b.pos)
	case io.SeekEnd:
		off += int64(len(b.b))
	}
	if off < 0 {
		return 0, errors.New("bpx: seek before the start")
	}
	b.pos = int(off)
	return off, nil
}

// Bytes returns what was written.
func (b *Buffer) Bytes() []byte { return b.b }

// SectionBytes is one section for Encode.
type SectionBytes struct {
	Type        uint8
	Data        []byte
	Compression Compression
	Check       Check
}

// Encode returns a whole container as bytes, built in memory.
func Encode(typ byte, typeExt [16]byte, sections []SectionBytes) ([]byte, error) {
	var buf Buffer
	w, err := NewWriter(&buf, typ, typeExt, len(sections))
	if err != nil {
		return nil, err
	}
	for _, s := range sections {
		if err := w.Add(s.Type, s.Data, s.Compression, s.Check); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
