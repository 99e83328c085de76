package binfmt

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/internal/regfile"

	"github.com/edsrzf/mmap-go"
)

// Parsed is what every parsed file has: its name, its bytes and the mapping
// behind them, and the warnings of a lenient parse. A format's File embeds it.
type Parsed struct {
	name     string
	data     []byte
	unmap    func() error // nil when the bytes were read or given
	warnings []*formats.FormatError
}

// Name is the path the file was opened from (or the name given to Parse).
func (p *Parsed) Name() string { return p.name }

// Size is the file's length in bytes.
func (p *Parsed) Size() int64 { return int64(len(p.data)) }

// Warnings lists what a lenient parse let pass that strict validation refuses, in
// file order; it is empty for a file that validates strictly.
func (p *Parsed) Warnings() []*formats.FormatError { return p.warnings }

// Close releases the mapping. The file and every slice it returned must not be
// used after Close.
func (p *Parsed) Close() error {
	if p.unmap == nil {
		return nil
	}
	err := p.unmap()
	p.unmap, p.data = nil, nil
	return err
}

// Parse checks b with a format's validator: run reads the file through the
// checker and returns what it built. Parse returns that, or the problems as a
// *formats.ValidationError naming the format.
func Parse[T Mapped](b []byte, order binary.ByteOrder, opts []formats.Option, formatName string, run func(*Checker) T) (T, error) {
	c := NewChecker(b, order, formats.Apply(opts))
	t := run(&c)
	if err := c.Err(formatName); err != nil {
		var zero T
		return zero, err
	}
	p := t.parsed()
	p.name, p.data, p.warnings = c.Opts.Name, b, c.SortedWarnings()
	return t, nil
}

// Mapped is a parsed file: one that embeds Parsed.
type Mapped interface{ parsed() *Parsed }

func (p *Parsed) parsed() *Parsed { return p }

// Open maps path read-only and hands the bytes to parse with opts and the path
// as the name errors report. A file shorter than minSize (an empty one cannot be
// mapped) is read into memory instead, so that parse can report what is missing.
// Open unmaps the file itself when parse fails; afterwards the parsed file's Close
// does.
func Open[T Mapped](path string, minSize int64, opts []formats.Option, parse func([]byte, ...formats.Option) (T, error)) (T, error) {
	opts = append(opts[:len(opts):len(opts)], formats.Name(path))
	var zero T
	// Only a regular file: a pipe or device would give bytes that are not the
	// file's, or none (formats.ErrNotRegular).
	f, st, err := regfile.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	if st.Size() < minSize {
		b, err := io.ReadAll(f)
		if err != nil {
			return zero, err
		}
		return parse(b, opts...)
	}
	b, err := mmap.Map(f, mmap.RDONLY, 0)
	if err != nil {
		return zero, fmt.Errorf("%s: mapping: %w", path, err)
	}
	t, err := parse(b, opts...)
	if err != nil {
		b.Unmap()
		return zero, err
	}
	t.parsed().unmap = b.Unmap
	return t, nil
}
