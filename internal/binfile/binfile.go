// Package binfile holds what bonebake's binary file formats (BPAT, BPSM) share:
// validation options, typed errors that collect every broken rule with its file
// and offset, a checker that reads little-endian fields and sections without
// integer overflow, zero-copy numeric views, and read-only mapping of files.
package binfile

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/edsrzf/mmap-go"
)

// Rules every format shares. Each format adds its own.
const (
	RuleBounds    = "bounds"     // a section or name outside the file
	RuleName      = "name"       // name not NUL-terminated, contains NUL, or not UTF-8
	RuleZeroBytes = "zero-bytes" // a pad, reserved or gap byte is not zero
)

// Options are what a reader is told about how to validate.
type Options struct {
	Name    string   // the file name errors report
	Lenient bool     // skip the checks a format's lenient mode skips
	Species []uint32 // species ids accepted beyond the built-in ones
}

// Option sets one of the Options.
type Option func(*Options)

// Apply returns the options that opts set.
func Apply(opts []Option) Options {
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// FormatError is one broken rule: which, where, and in which file.
type FormatError struct {
	File   string // the file's path, or the name given to Parse
	Rule   string // one of the format's Rule constants
	Offset int64  // byte offset of the offending field or region
	Index  int    // the clip, socket or other entry the problem is in, or -1
	Detail string // what is wrong, in words
}

func (e *FormatError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "offset %d (0x%x): %s: %s", e.Offset, e.Offset, e.Rule, e.Detail)
	return b.String()
}

// ValidationError lists every rule a file breaks, in file order. errors.As finds
// each FormatError.
type ValidationError struct {
	Format   string // "bpat", "bpsm": names the file when File is empty
	File     string
	Problems []*FormatError
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0].Error()
	}
	name := e.File
	if name == "" {
		name = e.Format
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d problems:", name, len(e.Problems))
	for _, p := range e.Problems {
		q := *p
		q.File = ""
		b.WriteString("\n  ")
		b.WriteString(q.Error())
	}
	return b.String()
}

// Unwrap returns the problems so that errors.As and errors.Is see each one.
func (e *ValidationError) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// HasRule reports whether the error breaks the given rule.
func (e *ValidationError) HasRule(rule string) bool {
	for _, p := range e.Problems {
		if p.Rule == rule {
			return true
		}
	}
	return false
}

// Checker reads a file's little-endian fields and collects the rules it breaks.
// A format's validator embeds it.
type Checker struct {
	Opts     Options
	B        []byte
	Size     uint64
	Problems []*FormatError
}

// NewChecker returns a checker over b.
func NewChecker(b []byte, o Options) Checker {
	return Checker{Opts: o, B: b, Size: uint64(len(b))}
}

// Fail records a broken rule.
func (c *Checker) Fail(rule string, offset uint64, index int, format string, args ...any) {
	c.Problems = append(c.Problems, &FormatError{
		File: c.Opts.Name, Rule: rule, Offset: int64(min(offset, math.MaxInt64)), Index: index,
		Detail: fmt.Sprintf(format, args...),
	})
}

// Err returns nil when no rule was broken, else the problems sorted by offset as a
// *ValidationError of the given format.
func (c *Checker) Err(format string) error {
	if len(c.Problems) == 0 {
		return nil
	}
	slices.SortStableFunc(c.Problems, func(a, b *FormatError) int { return cmp.Compare(a.Offset, b.Offset) })
	return &ValidationError{Format: format, File: c.Opts.Name, Problems: c.Problems}
}

// U32 reads the little-endian uint32 at off.
func (c *Checker) U32(off uint64) uint32 { return binary.LittleEndian.Uint32(c.B[off:]) }

// U64 reads the little-endian uint64 at off.
func (c *Checker) U64(off uint64) uint64 { return binary.LittleEndian.Uint64(c.B[off:]) }

// F32 reads the little-endian float32 at off.
func (c *Checker) F32(off uint64) float32 { return math.Float32frombits(c.U32(off)) }

// Span is a section's [Start, End); OK says it lies inside the file.
type Span struct {
	Name       string
	Start, End uint64
	OK         bool
}

// Section checks that a section at offset (read from the header field at
// offsetField) of the product of sizes bytes lies inside the file. Products are
// taken with overflow detection, so hostile counts cannot wrap around.
func (c *Checker) Section(name string, offsetField, offset uint64, sizes ...uint64) Span {
	s := Span{Name: name, Start: offset}
	bytes := uint64(1)
	for _, n := range sizes {
		hi, lo := bits.Mul64(bytes, n)
		if hi != 0 {
			c.Fail(RuleBounds, offsetField, -1, "%s at %d would be %v bytes long, more than 2^64", name, offset, sizes)
			return s
		}
		bytes = lo
	}
	if offset > c.Size || bytes > c.Size-offset {
		c.Fail(RuleBounds, offsetField, -1, "%s at %d, %d bytes long, runs past the end of the %d-byte file", name, offset, bytes, c.Size)
		return s
	}
	s.End, s.OK = offset+bytes, true
	return s
}

// Name reads the name whose string-table offset and length are the two uint32 at
// entry, and checks it: inside the table, NUL right after it, no NUL inside it,
// valid UTF-8. what and index say whose name it is ("clip", 3).
func (c *Checker) Name(what string, index int, entry uint64, strTable Span) string {
	off, n := uint64(c.U32(entry)), uint64(c.U32(entry+4))
	size := strTable.End - strTable.Start
	if !strTable.OK || off > size || n+1 > size-off {
		c.Fail(RuleBounds, entry, index, "%s %d name at string offset %d, length %d, is outside the %d-byte string table", what, index, off, n, size)
		return ""
	}
	s := c.B[strTable.Start+off : strTable.Start+off+n]
	switch {
	case c.B[strTable.Start+off+n] != 0:
		c.Fail(RuleName, strTable.Start+off+n, index, "%s %d name is not followed by a NUL byte", what, index)
	case slices.Contains(s, 0):
		c.Fail(RuleName, strTable.Start+off, index, "%s %d name contains a NUL byte", what, index)
	case !utf8.Valid(s):
		c.Fail(RuleName, strTable.Start+off, index, "%s %d name is not valid UTF-8", what, index)
	}
	return string(s)
}

// Zeros checks that bytes [from, to) are zero, reporting the first that is not.
// Lenient checkers skip it.
func (c *Checker) Zeros(from, to uint64, index int, what string) {
	if c.Opts.Lenient {
		return
	}
	for off := from; off < to; off++ {
		if c.B[off] != 0 {
			c.Fail(RuleZeroBytes, off, index, "%s byte is 0x%02x, not zero", what, c.B[off])
			return
		}
	}
}

// LittleEndianHost is true where numeric slices can view a file's bytes directly.
// Tests set it to false to run the decoding path big-endian hosts take.
var LittleEndianHost = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Float32s returns b as little-endian float32s: a zero-copy view on little-endian
// hosts when b is 4-byte aligned, a decoded copy otherwise.
func Float32s(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if LittleEndianHost && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// Uint32s is Float32s for little-endian uint32s.
func Uint32s(b []byte) []uint32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if LittleEndianHost && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// Open maps path read-only and hands the bytes to parse. A file shorter than
// minSize (an empty one cannot be mapped) is read into memory instead, so that
// parse can report what is missing. unmap releases the mapping (nil when the
// bytes were read); Open unmaps itself when parse fails.
func Open[T any](path string, minSize int64, parse func([]byte) (T, error)) (t T, unmap func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return t, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return t, nil, err
	}
	if st.Size() < minSize {
		b, err := io.ReadAll(f)
		if err != nil {
			return t, nil, err
		}
		t, err = parse(b)
		return t, nil, err
	}
	m, err := mmap.Map(f, mmap.RDONLY, 0)
	if err != nil {
		return t, nil, fmt.Errorf("%s: mapping: %w", path, err)
	}
	if t, err = parse(m); err != nil {
		m.Unmap()
		return t, nil, err
	}
	return t, m.Unmap, nil
}

// Strings builds an interned string table: each distinct name is stored once,
// followed by a NUL, in the order first added.
type Strings struct {
	Table []byte
	seen  map[string]uint32
}

// Add returns name's offset in the table, adding it when new. A name containing a
// NUL byte or not valid UTF-8, or a table outgrowing 32-bit offsets, is an error.
func (s *Strings) Add(name string) (uint32, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return 0, fmt.Errorf("name %q contains a NUL byte", name)
	}
	if !utf8.ValidString(name) {
		return 0, fmt.Errorf("name %q is not valid UTF-8", name)
	}
	if off, ok := s.seen[name]; ok {
		return off, nil
	}
	if uint64(len(s.Table))+uint64(len(name))+1 > math.MaxUint32 {
		return 0, fmt.Errorf("string table over 2^32-1 bytes")
	}
	if s.seen == nil {
		s.seen = map[string]uint32{}
	}
	off := uint32(len(s.Table))
	s.seen[name] = off
	s.Table = append(append(s.Table, name...), 0)
	return off, nil
}

// HasMagic reports whether the file at path starts with magic. An unreadable or
// shorter file does not.
func HasMagic(path, magic string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(magic))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == magic
}
