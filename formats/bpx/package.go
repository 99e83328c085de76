package bpx

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// Package section types (docs/formats/bpx.md §9).
const (
	SectionData        = 0x01
	SectionObjectTable = 0x02
)

// DataSectionMax is where a writer closes a package data section and starts the
// next (§9), as the reference SDK does.
const DataSectionMax = 199_991_808

const objectEntrySize = 20

// PackageExt is a package's TypeExt (§9).
type PackageExt struct {
	Arch      uint8 // 0 x86_64, 1 aarch64, 2 x86, 3 armv7hl, 4 any
	Platform  uint8 // 0 linux, 1 mac, 2 windows, 3 android, 4 any
	Generator [2]byte
}

// Architecture and platform values that mean "any".
const (
	ArchAny     = 4
	PlatformAny = 4
)

var (
	archNames     = []string{"x86_64", "aarch64", "x86", "armv7hl", "any"}
	platformNames = []string{"linux", "mac", "windows", "android", "any"}
)

// ArchName names an architecture code.
func ArchName(a uint8) string { return codeName(archNames, a) }

// PlatformName names a platform code.
func PlatformName(p uint8) string { return codeName(platformNames, p) }

// ParseArch and ParsePlatform turn names back into codes.
func ParseArch(s string) (uint8, bool)     { return parseCode(archNames, s) }
func ParsePlatform(s string) (uint8, bool) { return parseCode(platformNames, s) }

func codeName(names []string, c uint8) string {
	if int(c) < len(names) {
		return names[c]
	}
	return fmt.Sprintf("unknown (%d)", c)
}

func parseCode(names []string, s string) (uint8, bool) {
	for i, n := range names {
		if n == s {
			return uint8(i), true
		}
	}
	return 0, false
}

// TypeExt encodes e.
func (e PackageExt) TypeExt() (b [16]byte) {
	b[0], b[1], b[2], b[3] = e.Arch, e.Platform, e.Generator[0], e.Generator[1]
	return b
}

// DecodePackageExt decodes a package's TypeExt.
func DecodePackageExt(b [16]byte) PackageExt {
	return PackageExt{Arch: b[0], Platform: b[1], Generator: [2]byte{b[2], b[3]}}
}

// PackageObject is one object (file) of a package: where its bytes start.
type PackageObject struct {
	Name    string
	Size    uint64
	Section int    // index in the section table of the data section it starts in
	Offset  uint64 // of its first byte in that section's uncompressed bytes
}

// Package is a package container read.
type Package struct {
	File     *File
	Ext      PackageExt
	Objects  []PackageObject
	Metadata *Object // nil when there is none
	data     []int   // the data sections' indexes, in table order
	dataK    map[int]int
	start    []uint64 // start[k]: where data section k starts in the data taken whole
}

// Limits on what reading a package holds in memory, whatever its sections
// declare (docs/formats/bpx.md §8): a few kilobytes of xz can declare gigabytes.
// A program that must read bigger packages raises them before reading
// (bonebake's bpx commands: --max-objects, --max-table).
var (
	// MaxObjects bounds a package's object count (about 60 bytes each in
	// memory, with its name).
	MaxObjects = DefaultMaxObjects
	// MaxTableBytes bounds each of the sections a reader holds whole: the
	// strings (object names), the metadata (BPXSD) and the section a BPXSD
	// dump decodes. The object table is streamed, bounded by MaxObjects.
	MaxTableBytes int64 = DefaultMaxTableBytes
)

// The limits' defaults.
const (
	DefaultMaxObjects    = 1 << 18
	DefaultMaxTableBytes = 16 << 20
)

// MaxNameBytes bounds an object name (the longest path a file system takes).
const MaxNameBytes = 4096

// How to raise each limit, for the errors.
const (
	liftObjects = "raise it with --max-objects, or bpx.MaxObjects in Go"
	liftTable   = "raise it with --max-table, or bpx.MaxTableBytes in Go"
)

// ReadPackage reads the object list and metadata of the package f: from the
// object table (version 2), or by walking the data sections (version 1). What
// it holds is bounded by MaxObjects and MaxTableBytes: names that several
// objects share are held once.
func ReadPackage(f *File) (*Package, error) {
	if f.Header.Type != TypePackage {
		return nil, &formats.FormatError{File: f.Name, Rule: RuleType, Offset: 3, Index: -1, Detail: fmt.Sprintf("container type %q is not a package ('P')", f.Header.Type)}
	}
	p := &Package{File: f, Ext: DecodePackageExt(f.Header.TypeExt), dataK: map[int]int{}}
	strs, table := -1, -1
	for i, s := range f.Sections {
		switch s.Type {
		case SectionData:
			p.dataK[i] = len(p.data)
			p.data = append(p.data, i)
		case SectionStrings:
			if strs < 0 {
				strs = i
			}
		case SectionObjectTable:
			if table < 0 {
				table = i
			}
		case SectionBPXSD:
			if p.Metadata == nil {
				b, err := f.ReadSectionMax(i, MaxTableBytes, "metadata; "+liftTable)
				if err != nil {
					return nil, err
				}
				if p.Metadata, _, err = DecodeBPXSDPrefix(b); err != nil {
					return nil, f.sdFail(i, "metadata", err)
				}
			}
		}
	}
	// start[k]: where the k-th data section starts in the data taken whole.
	p.start = make([]uint64, len(p.data)+1)
	for k, d := range p.data {
		p.start[k+1] = p.start[k] + uint64(f.Sections[d].Size)
	}
	var names string // one copy; each name is a substring of it
	if strs >= 0 {
		b, err := f.ReadSectionMax(strs, MaxTableBytes, "object names; "+liftTable)
		if err != nil {
			return nil, err
		}
		names = string(b)
	}
	name := func(sec int, at uint64, off uint32) (string, error) {
		if int64(off) >= int64(len(names)) {
			return "", f.fail(sec, formats.RuleBounds, at, "name offset %d is outside the %d-byte strings section", off, len(names))
		}
		rest := names[off:]
		end := strings.IndexByte(rest[:min(len(rest), MaxNameBytes+1)], 0)
		if end < 0 && len(rest) > MaxNameBytes {
			return "", f.fail(sec, formats.RuleName, at, "name at offset %d is longer than %d bytes", off, MaxNameBytes)
		}
		if end < 0 {
			return "", f.fail(sec, formats.RuleName, at, "name at offset %d has no NUL", off)
		}
		return rest[:end], nil
	}
	if f.Header.Version == 1 {
		return p, p.walkV1(name)
	}
	if table < 0 {
		if len(p.data) > 0 {
			return nil, &formats.FormatError{File: f.Name, Rule: RuleCount, Offset: 16, Index: -1, Detail: "a version 2 package with data sections but no object table"}
		}
		return p, nil
	}
	ts := f.Sections[table]
	ptr := ts.Pointer
	entry := uint64(HeaderSize+SectionEntrySize*table) + 12 // its size field
	if ts.Size%objectEntrySize != 0 {
		return nil, f.fail(table, RuleCount, entry, "object table is %d bytes, not a multiple of %d", ts.Size, objectEntrySize)
	}
	count := int(ts.Size / objectEntrySize)
	if count > MaxObjects {
		return nil, f.fail(table, RuleCount, entry, "object table declares %d objects, more than the %d a reader takes (%s)", count, MaxObjects, liftObjects)
	}
	tr, err := f.Section(table)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(tr, 64<<10)
	p.Objects = make([]PackageObject, 0, min(count, 1<<12))
	var e [objectEntrySize]byte
	for j := range count {
		if _, err := io.ReadFull(br, e[:]); err != nil {
			return nil, err
		}
		at := ptr + uint64(j*objectEntrySize) // in the file when uncompressed
		o := PackageObject{Size: le.Uint64(e[:]), Section: int(le.Uint32(e[12:])), Offset: uint64(le.Uint32(e[16:]))}
		if o.Name, err = name(table, at+8, le.Uint32(e[8:])); err != nil {
			return nil, err
		}
		k := p.dataIndex(o.Section)
		if k < 0 {
			return nil, f.fail(table, formats.RuleBounds, at+12, "object %d %q starts in section %d, which is not a data section", j, o.Name, o.Section)
		}
		if left := p.start[len(p.data)] - p.start[k]; o.Offset > uint64(f.Sections[o.Section].Size) || o.Size > left-o.Offset {
			return nil, f.fail(table, formats.RuleBounds, at, "object %d %q (%d bytes at offset %d of section %d) runs past the end of the data", j, o.Name, o.Size, o.Offset, o.Section)
		}
		p.Objects = append(p.Objects, o)
	}
	if _, err := br.Read(e[:1]); err != io.EOF { // verify the table's checksum
		if err == nil {
			err = f.fail(table, RuleSize, entry, "object table holds more than its declared size")
		}
		return nil, err
	}
	return p, nil
}

// dataIndex is the position of section sec among the data sections, or -1.
func (p *Package) dataIndex(sec int) int {
	if k, ok := p.dataK[sec]; ok {
		return k
	}
	return -1
}

// dataFrom returns the data sections' bytes from (section sec, offset off) on,
// running on into the following data sections.
func (p *Package) dataFrom(sec int, off uint64) (io.Reader, error) {
	k := p.dataIndex(sec)
	if k < 0 {
		return nil, fmt.Errorf("%s: section %d is not a data section", p.File.Name, sec)
	}
	first, err := p.File.Section(sec)
	if err != nil {
		return nil, err
	}
	if _, err := io.CopyN(io.Discard, first, int64(off)); err != nil {
		return nil, err
	}
	return &chain{p: p, k: k, cur: first}, nil
}

// chain reads data sections one after another, opening each when reached.
type chain struct {
	p   *Package
	k   int
	cur io.Reader
}

func (c *chain) Read(b []byte) (int, error) {
	for {
		n, err := c.cur.Read(b)
		if err != io.EOF || n > 0 {
			return n, err
		}
		c.k++
		if c.k >= len(c.p.data) {
			return 0, io.EOF
		}
		if c.cur, err = c.p.File.Section(c.p.data[c.k]); err != nil {
			return 0, err
		}
	}
}

// position is where object i starts in the data sections' bytes taken one
// after another.
func (p *Package) position(i int) uint64 {
	o := p.Objects[i]
	return p.start[p.dataIndex(o.Section)] + o.Offset
}

// Walk calls fn with each object's bytes in the order they lie in the data,
// reading the data sections once, front to back, and verifying each. fn need
// not read all of r. An object that overlaps the one before it (no writer makes
// those) is read on its own.
func (p *Package) Walk(fn func(i int, r io.Reader) error) error {
	order := make([]int, len(p.Objects))
	pos := make([]uint64, len(p.Objects))
	for i := range order {
		order[i], pos[i] = i, p.position(i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pos[a], pos[b]) })
	if len(p.data) == 0 {
		return nil
	}
	data, err := p.dataFrom(p.data[0], 0)
	if err != nil {
		return err
	}
	var at uint64
	for _, i := range order {
		o := p.Objects[i]
		r := io.Reader(nil)
		if pos[i] < at {
			if r, err = p.Open(i); err != nil {
				return err
			}
		} else {
			if _, err := io.CopyN(io.Discard, data, int64(pos[i]-at)); err != nil {
				return err
			}
			r = &exact{r: io.LimitReader(data, int64(o.Size)), left: int64(o.Size), name: p.File.Name, obj: o.Name}
			at = pos[i] + o.Size
		}
		if err := fn(i, r); err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			return err
		}
	}
	_, err = io.Copy(io.Discard, data) // verify the sections' ends
	return err
}

// Open returns a reader of object i's bytes.
func (p *Package) Open(i int) (io.Reader, error) {
	o := p.Objects[i]
	r, err := p.dataFrom(o.Section, o.Offset)
	if err != nil {
		return nil, err
	}
	return &exact{r: io.LimitReader(r, int64(o.Size)), left: int64(o.Size), name: p.File.Name, obj: o.Name}, nil
}

// exact fails when its reader ends before left bytes.
type exact struct {
	r         io.Reader
	left      int64
	name, obj string
}

func (e *exact) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		return n, fmt.Errorf("%s: object %q: the data ends %d bytes early", e.name, e.obj, e.left)
	}
	return n, err
}

// walkV1 lists a version 1 package's objects: each is [size u64][name u32] and
// its content, one after another through the data sections (§9).
func (p *Package) walkV1(name func(int, uint64, uint32) (string, error)) error {
	if len(p.data) == 0 {
		return nil
	}
	var total uint64
	for _, d := range p.data {
		total += uint64(p.File.Sections[d].Size)
	}
	r, err := p.dataFrom(p.data[0], 0)
	if err != nil {
		return err
	}
	c := r.(*chain)
	var pos uint64 // position in the whole data
	var head [12]byte
	for pos < total {
		sec := p.data[c.k]
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return p.File.fail(sec, RuleCount, p.File.Sections[sec].Pointer, "object header at data byte %d: %v", pos, err)
		}
		pos += 12
		size := le.Uint64(head[:])
		n, err := name(sec, p.File.Sections[sec].Pointer, le.Uint32(head[8:]))
		if err != nil {
			return err
		}
		if size > total-pos {
			return p.File.fail(sec, formats.RuleBounds, p.File.Sections[sec].Pointer, "object %q of %d bytes runs past the end of the data (%d bytes left)", n, size, total-pos)
		}
		if len(p.Objects) >= MaxObjects {
			return p.File.fail(sec, RuleCount, p.File.Sections[sec].Pointer, "more than %d objects, the most a reader takes (%s)", MaxObjects, liftObjects)
		}
		// Where the content starts: the data section holding byte pos.
		k := min(sort.Search(len(p.data), func(k int) bool { return p.start[k+1] > pos }), len(p.data)-1)
		p.Objects = append(p.Objects, PackageObject{Name: n, Size: size, Section: p.data[k], Offset: pos - p.start[k]})
		if _, err := io.CopyN(io.Discard, c, int64(size)); err != nil {
			return err
		}
		pos += size
	}
	return nil
}

// PackInput is one object to pack: its name, size and a way to read it.
type PackInput struct {
	Name string
	Size uint64
	Open func() (io.ReadCloser, error)
}

// PackOptions say how to write a package.
type PackOptions struct {
	Ext         PackageExt
	Compression Compression // of sections over CompressThreshold
	Check       Check       // of data sections; the others get the weak checksum, or none with NoCheck
	Metadata    *Object     // written as a BPXSD section when not nil
	DebugNames  bool        // give the metadata "__debug__" names
	// Progress, when not nil, is told the objects' bytes stored so far, of
	// their total, as they are: with xz once per compressed block (4 MiB)
	// written, so that it follows the compression, not the reading ahead of it.
	Progress func(done, total uint64)
}

// WritePackage writes a version 2 package of objs (§9): the strings, the object
// table, the metadata, then the objects' bytes one after another in data
// sections closed at DataSectionMax. Objects are streamed: memory does not grow
// with their size.
func WritePackage(w io.WriteSeeker, objs []PackInput, o PackOptions) error {
	var strs binfmt.Strings
	table := make([]byte, 0, objectEntrySize*len(objs))
	var total uint64
	for _, ob := range objs {
		off, err := strs.Add(ob.Name)
		if err != nil {
			return fmt.Errorf("object %q: %w", ob.Name, err)
		}
		total += ob.Size
		_ = off
	}
	nData := int((total + DataSectionMax - 1) / DataSectionMax)
	if nData == 0 && len(objs) > 0 {
		nData = 1
	}
	var meta []byte
	sections := 2 + nData
	if o.Metadata != nil {
		var err error
		if meta, err = EncodeBPXSD(o.Metadata, o.DebugNames); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
		sections++
	}
	firstData := sections - nData
	var pos uint64
	for _, ob := range objs {
		off, _ := strs.Add(ob.Name)
		k := pos / DataSectionMax
		if k >= uint64(nData) { // an empty object at the very end
			k = uint64(nData) - 1
		}
		table = le.AppendUint64(table, ob.Size)
		table = le.AppendUint32(table, off)
		table = le.AppendUint32(table, uint32(firstData)+uint32(k))
		table = le.AppendUint32(table, uint32(pos-k*DataSectionMax))
		pos += ob.Size
	}
	small := WeakCheck
	if o.Check == NoCheck {
		small = NoCheck
	}
	pw, err := NewWriter(w, TypePackage, o.Ext.TypeExt(), sections)
	if err != nil {
		return err
	}
	if err := pw.Add(SectionStrings, strs.Table, o.Compression, small); err != nil {
		return err
	}
	if err := pw.Add(SectionObjectTable, table, o.Compression, small); err != nil {
		return err
	}
	if meta != nil {
		if err := pw.Add(SectionBPXSD, meta, o.Compression, small); err != nil {
			return err
		}
	}
	if o.Progress != nil {
		var done uint64
		pw.stored = func(n int) {
			done += uint64(n)
			o.Progress(done, total)
		}
	}
	dw := &dataWriter{w: pw, left: total, comp: o.Compression, check: o.Check, n: nData}
	buf := make([]byte, 1<<20)
	for _, ob := range objs {
		if err := dw.copyObject(ob, buf); err != nil {
			return err
		}
	}
	if err := dw.finish(); err != nil {
		return err
	}
	return pw.Close()
}

// dataWriter spreads the objects' bytes over data sections.
type dataWriter struct {
	w      *Writer
	cur    io.WriteCloser
	room   uint64 // bytes the current section still takes
	left   uint64 // bytes of all objects still to come
	comp   Compression
	check  Check
	n, did int // data sections in all, and opened so far
}

func (d *dataWriter) Write(b []byte) (int, error) {
	done := 0
	for len(b) > 0 {
		if d.room == 0 {
			if err := d.next(); err != nil {
				return done, err
			}
		}
		k := min(uint64(len(b)), d.room)
		n, err := d.cur.Write(b[:k])
		done += n
		d.room -= uint64(n)
		d.left -= uint64(n)
		if err != nil {
			return done, err
		}
		b = b[k:]
	}
	return done, nil
}

func (d *dataWriter) next() error {
	if d.cur != nil {
		if err := d.cur.Close(); err != nil {
			return err
		}
	}
	size := min(d.left, DataSectionMax)
	var err error
	d.cur, err = d.w.Section(SectionData, size, d.comp, d.check)
	d.room = size
	d.did++
	return err
}

func (d *dataWriter) copyObject(ob PackInput, buf []byte) error {
	r, err := ob.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	n, err := io.CopyBuffer(struct{ io.Writer }{d}, io.LimitReader(r, int64(ob.Size)), buf)
	if err != nil {
		return fmt.Errorf("object %q: %w", ob.Name, err)
	}
	if uint64(n) != ob.Size {
		return fmt.Errorf("object %q: read %d bytes, expected %d (did it change while packing?)", ob.Name, n, ob.Size)
	}
	return nil
}

func (d *dataWriter) finish() error {
	if d.did < d.n { // only empty objects: one empty data section
		if err := d.next(); err != nil {
			return err
		}
	}
	if d.cur != nil {
		return d.cur.Close()
	}
	return nil
}
