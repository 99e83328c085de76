package bpx

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
	"github.com/bonebake/bonebake/formats/internal/xz"
	"github.com/bonebake/bonebake/internal/regfile"
)

// Rules of this format, besides those of package format.
const (
	RuleChecksum    = "checksum"    // a header or section checksum does not match
	RuleFlags       = "flags"       // two compressions, or two checks, on one section
	RuleCompression = "compression" // a compressed stream that does not decode
	RuleSize        = "size"        // a section's bytes do not come to its declared size
	RuleCount       = "count"       // a count that runs past its section
	RuleDepth       = "depth"       // BPXSD nested deeper than the reader allows
	RuleType        = "type"        // a type code or container type this reader does not know
)

// maxSections bounds the section table a reader accepts before reading it: more
// entries than this could not fit a 4 GiB table, and no writer makes so many.
const maxSections = 1 << 24

// maxDict is the largest xz dictionary a reader accepts: the decoder allocates it
// whole, so a hostile stream declaring 4 GiB must be refused up front.
const maxDict = 64 << 20

// xzMemory bounds the blocks an xz section's reader decodes ahead on other
// cores (compressed and decoded bytes together), so that an unpack stays under
// 64 MiB whatever the file.
const xzMemory = 24 << 20

// File is an opened container: its header and section table. Sections are read
// when asked for.
type File struct {
	Name     string
	Header   Header
	Sections []SectionHeader
	Size     int64 // the real size of the file (Header.FileSize may differ)
	r        io.ReaderAt
	closer   io.Closer
}

// NewReader reads and checks the header and section table of the container in r,
// which is size bytes long. It checks the signature, version, header checksum,
// flags and that every section lies inside the file; sections' contents are
// checked when read.
func NewReader(r io.ReaderAt, size int64, opts ...formats.Option) (*File, error) {
	o := formats.Apply(opts)
	head := make([]byte, min(size, HeaderSize))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	c := binfmt.NewChecker(head, le, o)
	c.Size = uint64(size)
	var raw [HeaderSize]byte // the fields are decoded below, by decodeHeader
	if !c.Start("BPX", "BPX", &raw) {
		return nil, c.Err("bpx")
	}
	h := decodeHeader(head)
	if h.Version != 1 && h.Version != 2 {
		c.Fail(formats.RuleVersion, 20, -1, "version %d; this reader knows 1 and 2", h.Version)
		return nil, c.Err("bpx")
	}
	table := c.Section("section table", 16, HeaderSize, uint64(h.SectionCount), SectionEntrySize)
	if !table.OK || h.SectionCount > maxSections {
		if table.OK {
			c.Fail(RuleCount, 16, -1, "section_count %d is more than a reader accepts (%d)", h.SectionCount, maxSections)
		}
		return nil, c.Err("bpx")
	}
	all := make([]byte, HeaderSize+SectionEntrySize*int(h.SectionCount))
	if _, err := r.ReadAt(all, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	c.B = all
	f := &File{Name: o.Name, Header: h, Size: size, r: r, Sections: make([]SectionHeader, h.SectionCount)}
	for i := range f.Sections {
		at := uint64(HeaderSize + SectionEntrySize*i)
		s := decodeSection(all[at:])
		f.Sections[i] = s
		c.Section(fmt.Sprintf("section %d", i), at, s.Pointer, uint64(s.CSize))
		if s.Flags&FlagZlib != 0 && s.Flags&FlagXZ != 0 {
			c.Fail(RuleFlags, at+21, i, "section %d is flagged both zlib and xz", i)
		}
		if s.Flags&FlagCRC32 != 0 && s.Flags&FlagWeak != 0 {
			c.Fail(RuleFlags, at+21, i, "section %d is flagged both crc32 and weak", i)
		}
		if s.Flags&(FlagZlib|FlagXZ) == 0 && s.CSize != s.Size {
			c.Fail(RuleSize, at+8, i, "section %d is not compressed but its csize %d differs from its size %d", i, s.CSize, s.Size)
		}
	}
	f.checkOverlap(&c)
	if sum := headerChecksum(all); sum != h.Checksum {
		c.Fail(RuleChecksum, 4, -1, "header checksum is 0x%08X; the header and table sum to 0x%08X", h.Checksum, sum)
	}
	if err := c.Err("bpx"); err != nil {
		return nil, err
	}
	return f, nil
}

// checkOverlap refuses sections whose bytes overlap each other or the header
// and section table (§8): each section's bytes are its own, so that reading
// every section costs at most what the file holds (64 sections sharing one xz
// stream would otherwise each inflate it). Empty sections overlap nothing.
func (f *File) checkOverlap(c *binfmt.Checker) {
	order := make([]int, 0, len(f.Sections))
	for i, s := range f.Sections {
		if s.CSize > 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(f.Sections[a].Pointer, f.Sections[b].Pointer) })
	tableEnd := uint64(HeaderSize + SectionEntrySize*len(f.Sections))
	end, prev := tableEnd, -1
	for _, i := range order {
		s := f.Sections[i]
		at := uint64(HeaderSize + SectionEntrySize*i)
		if s.Pointer < end {
			if prev < 0 {
				c.Fail(formats.RuleOverlap, at, i, "section %d (bytes %d to %d) overlaps the header and section table (bytes 0 to %d)", i, s.Pointer, s.Pointer+uint64(s.CSize), tableEnd)
			} else {
				p := f.Sections[prev]
				c.Fail(formats.RuleOverlap, at, i, "section %d (bytes %d to %d) overlaps section %d (bytes %d to %d); each section's bytes must be its own", i, s.Pointer, s.Pointer+uint64(s.CSize), prev, p.Pointer, p.Pointer+uint64(p.CSize))
			}
			continue
		}
		end, prev = s.Pointer+uint64(s.CSize), i
	}
}

// Open opens the container at path; Close closes the file.
func Open(path string, opts ...formats.Option) (*File, error) {
	fh, st, err := regfile.Open(path) // a pipe or device is refused (formats.ErrNotRegular)
	if err != nil {
		return nil, err
	}
	f, err := NewReader(fh, st.Size(), append(opts[:len(opts):len(opts)], formats.Name(path))...)
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Close closes the file Open opened; it does nothing for NewReader's.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	return f.closer.Close()
}

// ReaderAt is the bytes the container was opened over.
func (f *File) ReaderAt() io.ReaderAt { return f.r }

func (f *File) fail(i int, rule string, at uint64, detail string, args ...any) error {
	return &formats.FormatError{File: f.Name, Rule: rule, Offset: int64(at), Index: i, Detail: fmt.Sprintf("section %d: ", i) + fmt.Sprintf(detail, args...)}
}

// sdFail is the error for section i's BPXSD object that does not decode: it
// breaks the rule the decoder names (depth, truncated, type, name, …), not
// "type" for all; the offset is the section's, the byte within its decoded
// bytes is said in words (a compressed section's has no place in the file).
func (f *File) sdFail(i int, what string, err error) error {
	var sd *SDError
	if !errors.As(err, &sd) {
		return f.fail(i, RuleType, f.Sections[i].Pointer, "%s: %v", what, err)
	}
	return f.fail(i, sd.Rule, f.Sections[i].Pointer, "%s (BPXSD), byte %d of the section: %s", what, sd.Offset, sd.Detail)
}

// Raw returns a reader of section i's bytes as stored (compressed or not).
func (f *File) Raw(i int) *io.SectionReader {
	s := f.Sections[i]
	return io.NewSectionReader(f.r, int64(s.Pointer), int64(s.CSize))
}

// Section returns a reader of section i's uncompressed bytes. It fails with a
// *formats.FormatError when the stream does not decode, when it yields more or
// fewer bytes than the section's size (found as soon as it passes the size: a
// bomb is not inflated), or, at the end, when the checksum does not match.
func (f *File) Section(i int) (io.Reader, error) {
	if i < 0 || i >= len(f.Sections) {
		return nil, fmt.Errorf("%s: no section %d (the file has %d)", f.Name, i, len(f.Sections))
	}
	s := f.Sections[i]
	at := uint64(HeaderSize + SectionEntrySize*i)
	var src io.Reader = f.Raw(i)
	switch {
	case s.Flags&FlagXZ != 0:
		x, err := xz.NewReader(src, xz.ReaderConfig{MaxDict: maxDict, MaxMemory: xzMemory})
		if err != nil {
			return nil, f.fail(i, RuleCompression, s.Pointer, "%v", err)
		}
		src = x
	case s.Flags&FlagZlib != 0:
		z, err := zlib.NewReader(bufio.NewReaderSize(src, 64<<10))
		if err != nil {
			return nil, f.fail(i, RuleCompression, s.Pointer, "zlib: %v", err)
		}
		src = z
	}
	return &verifier{f: f, i: i, at: at, src: src, left: int64(s.Size), sum: newSummer(s.Flags), want: s.Checksum, compressed: s.Flags&(FlagXZ|FlagZlib) != 0}, nil
}

// ReadSection reads section i whole (see Section). Its buffer grows with what
// the stream yields, so a section that declares a size it does not hold costs
// only what it holds.
func (f *File) ReadSection(i int) ([]byte, error) {
	return f.readSection(i, -1, "")
}

// ReadSectionMax is ReadSection refusing, before reading, a section that
// declares more than max bytes: what a reader uses for the small sections
// (strings, tables, metadata) that it holds whole. what names the limit in the
// error (how to raise it).
func (f *File) ReadSectionMax(i int, max int64, what string) ([]byte, error) {
	return f.readSection(i, max, what)
}

func (f *File) readSection(i int, max int64, what string) ([]byte, error) {
	if i >= 0 && i < len(f.Sections) && max >= 0 && int64(f.Sections[i].Size) > max {
		return nil, f.fail(i, RuleSize, uint64(HeaderSize+SectionEntrySize*i)+12, "declares %d bytes; a reader holds at most %d for such a section (%s)", f.Sections[i].Size, max, what)
	}
	r, err := f.Section(i)
	if err != nil {
		return nil, err
	}
	s := f.Sections[i]
	var buf bytes.Buffer
	buf.Grow(int(min(uint64(s.Size), 4*uint64(s.CSize)+4096)))
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// verifier yields a section's uncompressed bytes and checks their length and
// checksum.
type verifier struct {
	f          *File
	i          int
	at         uint64
	src        io.Reader
	left       int64
	sum        summer
	want       uint32
	compressed bool
	done       bool
}

func (v *verifier) Read(p []byte) (int, error) {
	if v.done {
		return 0, io.EOF
	}
	s := v.f.Sections[v.i]
	if v.left == 0 {
		// The declared size is reached: the stream must end here.
		var one [1]byte
		n, err := io.ReadFull(v.src, one[:])
		if n > 0 {
			return 0, v.f.fail(v.i, RuleSize, v.at+12, "decompresses to more than its declared size %d", s.Size)
		}
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return 0, v.f.fail(v.i, RuleCompression, s.Pointer, "%v", err)
		}
		v.done = true
		if v.sum != nil && v.sum.Sum32() != v.want {
			return 0, v.f.fail(v.i, RuleChecksum, v.at+16, "checksum is 0x%08X but the %s bytes give 0x%08X", v.want, s.Flags.String(), v.sum.Sum32())
		}
		return 0, io.EOF
	}
	if int64(len(p)) > v.left {
		p = p[:v.left]
	}
	n, err := v.src.Read(p)
	v.left -= int64(n)
	if v.sum != nil {
		v.sum.Write(p[:n])
	}
	if v.left == 0 && n > 0 {
		// Check the end now, with the last bytes, so that a reader that stops
		// at the section's size (an object ending with it) still sees a bad
		// checksum or an overlong stream.
		if _, cerr := v.Read(nil); cerr != io.EOF {
			return n, cerr
		}
		v.done = true
		return n, nil
	}
	if err == io.EOF {
		if v.left > 0 {
			return n, v.f.fail(v.i, RuleSize, v.at+12, "holds %d bytes, fewer than its declared size %d", int64(s.Size)-v.left, s.Size)
		}
		err = nil
	} else if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || v.compressed {
			return n, v.f.fail(v.i, RuleCompression, s.Pointer, "%v", err)
		}
		return n, err
	}
	return n, err
}
