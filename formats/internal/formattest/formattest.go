// Package formattest holds the test helpers the format packages share: byte
// images edited by absolute offset, the table-driven check of validation rules in
// strict and lenient mode, and the Open benchmark.
package formattest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
)

// Builtin is the option naming the six built-in species ids, 0 to 5.
var Builtin = formats.KnownSpecies(0, 1, 2, 3, 4, 5)

// LE is a little-endian byte image written by absolute offsets, independently of
// any writer.
type LE []byte

func (b LE) U32(off int, v uint32)  { binary.LittleEndian.PutUint32(b[off:], v) }
func (b LE) U64(off int, v uint64)  { binary.LittleEndian.PutUint64(b[off:], v) }
func (b LE) F32(off int, v float32) { b.U32(off, math.Float32bits(v)) }

// Insert returns b with n zero bytes inserted at at, and each u64 header offset
// field named by fields that points at or past at moved along: the same file with
// a gap, laid out other than canonically.
func (b LE) Insert(at, n int, fields ...int) LE {
	out := append(append(append(LE{}, b[:at]...), make([]byte, n)...), b[at:]...)
	for _, f := range fields {
		if v := binary.LittleEndian.Uint64(out[f:]); v >= uint64(at) {
			out.U64(f, v+uint64(n))
		}
	}
	return out
}

// Bytes returns what write writes for c, failing the test on an error.
func Bytes[C any](t testing.TB, write func(io.Writer, C) error, c C) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Validation returns err as a *formats.ValidationError, failing the test when it
// is not one.
func Validation(t testing.TB, err error) *formats.ValidationError {
	t.Helper()
	var ve *formats.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("accepted (err = %v)", err)
	}
	return ve
}

// Problem checks that err is a *formats.ValidationError naming file that breaks
// rule, at offset unless offset is -1, with a message that names the file, an
// offset and the rule, and a detail that contains each of details. It returns the
// problem.
func Problem(t testing.TB, err error, file, rule string, offset int64, details ...string) *formats.FormatError {
	t.Helper()
	ve := Validation(t, err)
	var fe *formats.FormatError
	if !errors.As(err, &fe) || fe.File != file {
		t.Fatalf("no FormatError naming the file %s: %v", file, err)
	}
	if msg := err.Error(); !strings.Contains(msg, file) || !strings.Contains(msg, "offset") || !strings.Contains(msg, rule) {
		t.Fatalf("message does not name file, offset and rule: %s", msg)
	}
	p := find(ve.Problems, rule, offset)
	if p == nil {
		t.Fatalf("no %s problem at offset %d: %v", rule, offset, err)
	}
	for _, d := range details {
		if !strings.Contains(p.Detail, d) {
			t.Errorf("detail %q does not say %q", p.Detail, d)
		}
	}
	return p
}

func find(ps []*formats.FormatError, rule string, offset int64) *formats.FormatError {
	for _, p := range ps {
		if p.Rule == rule && (offset < 0 || p.Offset == offset) {
			return p
		}
	}
	return nil
}

// Parser parses b with opts, returning the lenient warnings.
type Parser func(b []byte, opts ...formats.Option) ([]*formats.FormatError, error)

// Case is one malformed file: Mutate breaks Rule (at Offset, or -1: not checked)
// in a copy of the base file (Base's, when given). Lenient says the game's reader
// accepts it, so lenient mode must too, listing the same problem as a warning.
type Case struct {
	Name    string
	Base    func(testing.TB) []byte
	Mutate  func(b LE) LE
	Rule    string
	Offset  int64
	Lenient bool
}

// Rules runs every case through parse, strictly and leniently, with the built-in
// species known.
func Rules(t *testing.T, base func(testing.TB) []byte, parse Parser, cases []Case) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			from := base
			if tc.Base != nil {
				from = tc.Base
			}
			b := []byte(tc.Mutate(LE(from(t))))
			_, err := parse(b, formats.Name("bad.file"), Builtin)
			Problem(t, err, "bad.file", tc.Rule, tc.Offset)
			warnings, lerr := parse(b, formats.Lenient(), Builtin)
			switch {
			case tc.Lenient && lerr != nil:
				t.Fatalf("lenient mode rejects what the game accepts: %v", lerr)
			case tc.Lenient && find(warnings, tc.Rule, tc.Offset) == nil:
				t.Fatalf("lenient mode does not warn of %s: %v", tc.Rule, warnings)
			case !tc.Lenient && lerr == nil:
				t.Fatal("lenient mode accepts it")
			}
		})
	}
}

// BenchOpen opens, validates (strictly) and closes files of each size (in bytes)
// that write makes, with the float scan ("scan") and without it ("noscan"),
// reporting the file's bytes per second.
func BenchOpen[F interface {
	io.Closer
	Size() int64
}](b *testing.B, open func(string, ...formats.Option) (F, error), write func(b *testing.B, size int) string, sizes ...int) {
	for _, size := range sizes {
		path := write(b, size)
		name := fmt.Sprintf("%dKiB", size>>10)
		if size >= 1<<20 {
			name = fmt.Sprintf("%dMiB", size>>20)
		}
		for _, mode := range []struct {
			name string
			opts []formats.Option
		}{{"scan", nil}, {"noscan", []formats.Option{formats.SkipFloatScan()}}} {
			b.Run(name+"/"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					f, err := open(path, mode.opts...)
					if err != nil {
						b.Fatal(err)
					}
					b.SetBytes(f.Size())
					f.Close()
				}
			})
		}
	}
}

// KnownSpecies checks the species option on base, a valid file whose species id
// is the u32 at offset 8: without a known set any id passes; with one, an id
// outside it is an error (a warning when lenient); an empty set knows nothing.
func KnownSpecies(t *testing.T, base []byte, parse Parser) {
	b := LE(append([]byte{}, base...))
	b.U32(8, 7)
	if _, err := parse(b); err != nil {
		t.Fatalf("species checked without a known set: %v", err)
	}
	_, err := parse(b, formats.Name("seven"), Builtin)
	Problem(t, err, "seven", formats.RuleSpecies, 8)
	if _, err := parse(b, formats.KnownSpecies(1), formats.KnownSpecies(7)); err != nil {
		t.Fatalf("species 7 refused though known: %v", err)
	}
	if _, err := parse(b, formats.KnownSpecies()); err == nil {
		t.Fatal("an empty known set accepts species 7")
	}
	warnings, err := parse(b, formats.Lenient(), Builtin)
	if err != nil || len(warnings) != 1 || warnings[0].Rule != formats.RuleSpecies || warnings[0].Offset != 8 {
		t.Fatalf("lenient: %v; warnings %v, want one species warning at 8", err, warnings)
	}
}

// OpenErrors checks what open makes of a missing file, a directory, an empty
// file, a named pipe and a device: errors that name the path (the empty file's
// breaking the truncation rule; see NotRegular for the others).
func OpenErrors[F any](t *testing.T, open func(string, ...formats.Option) (F, error)) {
	NotRegular(t, func(path string) error { _, err := open(path); return err })
	dir := t.TempDir()
	if _, err := open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := open(dir); !errors.Is(err, formats.ErrIsDirectory) || !strings.Contains(err.Error(), dir) {
		t.Errorf("directory: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := open(empty)
	Problem(t, err, empty, formats.RuleTruncated, 0)
}
