package binfmt

import (
	"fmt"
	"io"
	"os"

	"bonebake/format"

	"github.com/edsrzf/mmap-go"
)

// Mapping is the bytes a parsed file views and how to let go of them. A format's
// File embeds it.
type Mapping struct {
	name  string
	data  []byte
	unmap func() error // nil when the bytes were read or given
}

// NewMapping records the bytes of a file named name.
func NewMapping(name string, data []byte) Mapping { return Mapping{name: name, data: data} }

// Name is the path the file was opened from (or the name given to Parse).
func (m *Mapping) Name() string { return m.name }

// Size is the file's length in bytes.
func (m *Mapping) Size() int64 { return int64(len(m.data)) }

// Data returns the file's bytes.
func (m *Mapping) Data() []byte { return m.data }

// Close releases the mapping. The file and every slice it returned must not be
// used after Close.
func (m *Mapping) Close() error {
	if m.unmap == nil {
		return nil
	}
	err := m.unmap()
	m.unmap, m.data = nil, nil
	return err
}

// Mapped is a parsed file that embeds a Mapping.
type Mapped interface{ mapping() *Mapping }

func (m *Mapping) mapping() *Mapping { return m }

// Open maps path read-only and hands the bytes to parse. A file shorter than
// minSize (an empty one cannot be mapped) is read into memory instead, so that
// parse can report what is missing. Open unmaps the file itself when parse fails;
// afterwards the parsed file's Close does.
func Open[T Mapped](path string, minSize int64, parse func([]byte) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return zero, err
	}
	if st.IsDir() {
		return zero, fmt.Errorf("%s: %w", path, format.ErrIsDirectory)
	}
	if st.Size() < minSize {
		b, err := io.ReadAll(f)
		if err != nil {
			return zero, err
		}
		return parse(b)
	}
	b, err := mmap.Map(f, mmap.RDONLY, 0)
	if err != nil {
		return zero, fmt.Errorf("%s: mapping: %w", path, err)
	}
	t, err := parse(b)
	if err != nil {
		b.Unmap()
		return zero, err
	}
	t.mapping().unmap = b.Unmap
	return t, nil
}
