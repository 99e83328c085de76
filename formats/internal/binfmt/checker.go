// Package binfmt holds the mechanics bonebake's binary file formats share: a
// checker that reads fields in either byte order and collects every broken rule
// with its offset, overflow-safe section spans and the canonical-layout check,
// string tables (reading and the interned builder), the finiteness scan of bulk
// float data, zero-copy numeric views, and read-only mapping of files.
package binfmt

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bonebake/bonebake/formats"
)

// Checker reads a file's fields and collects the rules it breaks. A format's
// validator embeds it.
type Checker struct {
	Opts     formats.Options
	Order    binary.ByteOrder
	big      bool // Order is big-endian: U32 and U64 test this, not call through Order
	B        []byte
	Size     uint64
	Problems []*formats.FormatError
	// Warnings are the problems of strict-only rules that a lenient checker let pass.
	Warnings []*formats.FormatError
}

// NewChecker returns a checker over b, reading fields in the given byte order.
func NewChecker(b []byte, order binary.ByteOrder, o formats.Options) Checker {
	return Checker{Opts: o, Order: order, big: order == binary.BigEndian, B: b, Size: uint64(len(b))}
}

func (c *Checker) problem(rule string, offset uint64, index int, detail string, args []any) *formats.FormatError {
	return &formats.FormatError{
		File: c.Opts.Name, Rule: rule, Offset: int64(min(offset, math.MaxInt64)), Index: index,
		Detail: fmt.Sprintf(detail, args...),
	}
}

// Fail records a broken rule.
func (c *Checker) Fail(rule string, offset uint64, index int, detail string, args ...any) {
	c.Problems = append(c.Problems, c.problem(rule, offset, index, detail, args))
}

// Strict records a broken rule that only strict mode enforces: an error when
// strict, a warning when lenient.
func (c *Checker) Strict(rule string, offset uint64, index int, detail string, args ...any) {
	p := c.problem(rule, offset, index, detail, args)
	if c.Opts.Lenient {
		c.Warnings = append(c.Warnings, p)
	} else {
		c.Problems = append(c.Problems, p)
	}
}

// Err returns nil when no rule was broken, else the problems sorted by offset as a
// *formats.ValidationError of the named format.
func (c *Checker) Err(formatName string) error {
	if len(c.Problems) == 0 {
		return nil
	}
	byOffset(c.Problems)
	return &formats.ValidationError{Format: formatName, File: c.Opts.Name, Problems: c.Problems}
}

// SortedWarnings returns the warnings in file order.
func (c *Checker) SortedWarnings() []*formats.FormatError {
	byOffset(c.Warnings)
	return c.Warnings
}

func byOffset(ps []*formats.FormatError) {
	slices.SortStableFunc(ps, func(a, b *formats.FormatError) int { return cmp.Compare(a.Offset, b.Offset) })
}

// U32 reads the uint32 at off.
func (c *Checker) U32(off uint64) uint32 {
	if c.big {
		return binary.BigEndian.Uint32(c.B[off:])
	}
	return binary.LittleEndian.Uint32(c.B[off:])
}

// F32 reads the float32 at off.
func (c *Checker) F32(off uint64) float32 { return math.Float32frombits(c.U32(off)) }

// Start checks that the file holds a whole header and starts with magic, and
// decodes the header into h, a pointer to a fixed-size struct laid out field for
// field. It returns false when the file is too short or is not a formatName file:
// nothing more can be checked then.
func (c *Checker) Start(formatName, magic string, h any) bool {
	n := binary.Size(h)
	if n < 0 {
		panic(fmt.Sprintf("binfmt: Start needs a pointer to a fixed-size header, not %T", h)) // a programming error
	}
	size := uint64(n)
	if c.Size < size {
		c.Fail(formats.RuleTruncated, c.Size, -1, "file is %d bytes; a %s header alone is %d", c.Size, formatName, size)
		return false
	}
	if string(c.B[:len(magic)]) != magic {
		c.Fail(formats.RuleMagic, 0, -1, "starts with %q, not %q: not a %s file", c.B[:len(magic)], magic, formatName)
		return false
	}
	if _, err := binary.Decode(c.B, c.Order, h); err != nil {
		panic("binfmt: " + err.Error()) // h is not a fixed-size struct: a programming error
	}
	return true
}

// Version checks the version (read from field) against the ones this reader knows.
func (c *Checker) Version(field uint64, version uint32, known ...uint32) bool {
	if !slices.Contains(known, version) {
		c.Fail(formats.RuleVersion, field, -1, "version %d is not supported (this reader knows %v)", version, known)
		return false
	}
	return true
}

// Species checks the species id at field against the known set, if one was given.
func (c *Checker) Species(field uint64, id uint32) {
	if c.Opts.Species != nil && !slices.Contains(c.Opts.Species, id) {
		c.Strict(formats.RuleSpecies, field, -1, "species id %d is not among the known ids %v", id, c.Opts.Species)
	}
}

// Span is a section's [Start, End); Field is the header field that places it; OK
// says it lies inside the file.
type Span struct {
	Name       string
	Field      uint64
	Start, End uint64
	OK         bool
}

// product writes sizes as a product people read: "2147483648 × 2147483648 × 56".
func product(sizes []uint64) string {
	var b strings.Builder
	for i, k := range sizes {
		if i > 0 {
			b.WriteString(" × ")
		}
		b.WriteString(strconv.FormatUint(k, 10))
	}
	return b.String()
}

// Section checks that a section at offset (read from the header field at field) of
// the product of sizes bytes lies inside the file. Products are taken with
// overflow detection, so hostile counts cannot wrap around.
func (c *Checker) Section(name string, field, offset uint64, sizes ...uint64) Span {
	s := Span{Name: name, Field: field, Start: offset}
	n := uint64(1)
	for _, k := range sizes {
		hi, lo := bits.Mul64(n, k)
		if hi != 0 {
			c.Fail(formats.RuleBounds, field, -1, "%s at %d would be %s bytes long, more than 2^64", name, offset, product(sizes))
			return s
		}
		n = lo
	}
	if offset > c.Size || n > c.Size-offset {
		size := strconv.FormatUint(n, 10)
		if len(sizes) > 1 {
			size = product(sizes) + " = " + size
		}
		c.Fail(formats.RuleBounds, field, -1, "%s at %d, %s bytes long, %s", name, offset, size, PastEnd(offset, n, c.Size))
		return s
	}
	s.End, s.OK = offset+n, true
	return s
}

// PastEnd says where n bytes at offset would lie in a file of size bytes that
// cannot hold them, in the words every format's bounds errors read on with:
// a file that ends before them is cut short, which is what a user most often
// has (a copy or download stopped), so the message says so.
func PastEnd(offset, n, size uint64) string {
	end, carry := bits.Add64(offset, n, 0)
	switch {
	case offset > size:
		return fmt.Sprintf("would start past the file's end at byte %d: it is cut short", size)
	case carry != 0:
		return "would end past byte 2^64, which no file reaches" // a count no file can be cut from
	}
	return fmt.Sprintf("would end at byte %d, but the file ends at byte %d: it is cut short", end, size)
}

// Align checks that span s starts on a multiple of a.
func (c *Checker) Align(s Span, a uint64) {
	if s.Start%a != 0 {
		c.Fail(formats.RuleAlignment, s.Field, -1, "%s offset %d is not a multiple of %d", s.Name, s.Start, a)
	}
}

// Layout checks spans, given in the format's order (named by order), for what both
// modes demand, sections in order, and what strict mode adds: no overlap, zero
// gap bytes, nothing after the last section, and each section exactly where the
// canonical layout puts it (canonical[i] is span i's canonical start).
func (c *Checker) Layout(spans []Span, canonical []uint64, order string) {
	for _, s := range spans {
		if !s.OK {
			return // a section outside the file: order and gaps mean nothing yet
		}
	}
	ordered, disjoint := true, true
	for i := 1; i < len(spans); i++ {
		prev, cur := spans[i-1], spans[i]
		if cur.Start < prev.Start {
			c.Fail(formats.RuleSectionOrder, cur.Start, -1, "%s at %d comes before %s at %d; the order is %s", cur.Name, cur.Start, prev.Name, prev.Start, order)
			ordered = false
		} else if cur.Start < prev.End {
			c.Strict(formats.RuleOverlap, cur.Start, -1, "%s at %d overlaps %s, which ends at %d", cur.Name, cur.Start, prev.Name, prev.End)
			disjoint = false
		}
	}
	for i, s := range spans {
		if s.Start != canonical[i] {
			c.Strict(formats.RuleLayout, s.Field, -1, "%s is at %d; the canonical layout puts it at %d", s.Name, s.Start, canonical[i])
		}
	}
	if !ordered || !disjoint {
		return
	}
	for i := 1; i < len(spans); i++ {
		for off := spans[i-1].End; off < spans[i].Start; off++ {
			if c.B[off] != 0 {
				c.Strict(formats.RuleZeroBytes, off, -1, "gap byte before the %s is 0x%02x, not zero", spans[i].Name, c.B[off])
				break
			}
		}
	}
	if end := spans[len(spans)-1].End; c.Size > end {
		c.Strict(formats.RuleTrailingBytes, end, -1, "%d bytes after the %s", c.Size-end, spans[len(spans)-1].Name)
	}
}

// Sections lists spans (in file order) as sections, with an entry named
// "padding" for each gap between one and the next.
func Sections(spans []Span) []formats.Section {
	var out []formats.Section
	for i, s := range spans {
		if i > 0 && s.Start > spans[i-1].End {
			out = append(out, formats.Section{Name: "padding", Offset: spans[i-1].End, Size: s.Start - spans[i-1].End})
		}
		out = append(out, formats.Section{Name: s.Name, Offset: s.Start, Size: s.End - s.Start})
	}
	return out
}

// Name reads the name whose string-table offset and length are the two uint32 at
// entry, and checks it: inside the table, NUL right after it, no NUL inside it,
// valid UTF-8. what and index say whose name it is ("clip", 3).
func (c *Checker) Name(what string, index int, entry uint64, strTable Span) string {
	off, n := uint64(c.U32(entry)), uint64(c.U32(entry+4))
	size := strTable.End - strTable.Start
	if !strTable.OK || off > size || n+1 > size-off {
		c.Fail(formats.RuleBounds, entry, index, "%s %d name at string offset %d, length %d, is outside the %d-byte string table", what, index, off, n, size)
		return ""
	}
	s := c.B[strTable.Start+off : strTable.Start+off+n]
	switch {
	case c.B[strTable.Start+off+n] != 0:
		c.Fail(formats.RuleName, strTable.Start+off+n, index, "%s %d name is not followed by a NUL byte", what, index)
	case slices.Contains(s, 0):
		c.Fail(formats.RuleName, strTable.Start+off, index, "%s %d name contains a NUL byte", what, index)
	case !utf8.Valid(s):
		c.Fail(formats.RuleName, strTable.Start+off, index, "%s %d name is not valid UTF-8", what, index)
	}
	return string(s)
}

// Zeros checks that bytes [from, to) are zero, reporting the first that is not.
// what names the bytes: entry index's part ("clip", 3, "pad"), or with index -1
// just entry's ("header", -1, "reserved"). It is a strict-only rule.
func (c *Checker) Zeros(from, to uint64, entry string, index int, part string) {
	for off := from; off < to; off++ {
		if c.B[off] != 0 {
			if index >= 0 {
				entry = fmt.Sprintf("%s %d", entry, index)
			}
			c.Strict(formats.RuleZeroBytes, off, index, "%s %s byte is 0x%02x, not zero", entry, part, c.B[off])
			return
		}
	}
}

// ClipFrames reads the name, frame_count and frame_offset that start every clip
// entry (at e: name_offset, name_length, frame_count, frame_offset, u32 each) and
// checks them: at least one frame, starting where the frames before it (*next)
// end. It advances *next past the clip.
func (c *Checker) ClipFrames(i int, e uint64, strTable Span, next *uint64) (name string, count, offset uint32) {
	name = c.Name("clip", i, e, strTable)
	count, offset = c.U32(e+8), c.U32(e+12)
	if count < 1 {
		c.Fail(formats.RuleFrameCount, e+8, i, "clip %d %q has no frames", i, name)
	}
	if uint64(offset) != *next {
		c.Fail(formats.RuleFrameOffset, e+12, i, "clip %d %q starts at frame %d; the frames before it end at %d", i, name, offset, *next)
	}
	*next += uint64(count)
	return name, count, offset
}

// FrameTotal checks the header's frame_total (at field) against the clips' sum.
func (c *Checker) FrameTotal(field uint64, total uint32, sum uint64) {
	if sum != uint64(total) {
		c.Fail(formats.RuleFrameTotal, field, -1, "frame_total is %d but the clips hold %d frames", total, sum)
	}
}

// AlignUp rounds v up to a multiple of a.
func AlignUp(v, a uint64) uint64 { return (v + a - 1) / a * a }

// Index maps names to the first of their positions.
type Index map[string]int

// NewIndex indexes n names; for a repeated name the first wins.
func NewIndex(n int, name func(i int) string) Index {
	m := make(Index, n)
	for i := range n {
		if _, dup := m[name(i)]; !dup {
			m[name(i)] = i
		}
	}
	return m
}

// Of returns the position of the first name equal to name, or -1.
func (m Index) Of(name string) int {
	if i, ok := m[name]; ok {
		return i
	}
	return -1
}
