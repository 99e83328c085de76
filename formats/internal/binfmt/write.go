package binfmt

// What writers share: the interned string-table builder, header and clip-head
// encoding, and numeric blocks written as little-endian bytes.

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"
)

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

// AddAll adds n names (name(i) for each i) and returns their offsets; an error
// names the entry, as in "clip 3: …".
func (s *Strings) AddAll(what string, n int, name func(i int) string) ([]uint32, error) {
	offs := make([]uint32, n)
	for i := range offs {
		off, err := s.Add(name(i))
		if err != nil {
			return nil, fmt.Errorf("%s %d: %w", what, i, err)
		}
		offs[i] = off
	}
	return offs, nil
}

// PutHeader encodes the header h, a pointer to a fixed-size struct laid out field
// for field whose first field is blank room for the magic, into the start of b,
// magic first, and returns the header's bytes.
func PutHeader(b []byte, order binary.ByteOrder, magic string, h any) []byte {
	n, err := binary.Encode(b, order, h)
	if err != nil {
		panic("binfmt: " + err.Error()) // b too short or h not fixed-size: a programming error
	}
	copy(b, magic)
	return b[:n]
}

// PutClipHead writes the four u32 every clip entry starts with: name_offset,
// name_length, frame_count, frame_offset (ClipFrames reads them back).
func PutClipHead(e []byte, order binary.ByteOrder, nameOffset uint32, name string, count, offset int) {
	order.PutUint32(e[0:], nameOffset)
	order.PutUint32(e[4:], uint32(len(name)))
	order.PutUint32(e[8:], uint32(count))
	order.PutUint32(e[12:], uint32(offset))
}

// WriteFloats writes fs as little-endian float32. On a little-endian host those
// are the bytes already in memory, written as they are; elsewhere they are
// converted a chunk at a time.
func WriteFloats(w io.Writer, fs []float32) error {
	if len(fs) == 0 {
		return nil
	}
	if LittleEndianHost {
		_, err := w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&fs[0])), 4*len(fs)))
		return err
	}
	var b [8192]byte
	for len(fs) > 0 {
		n := min(len(fs), len(b)/4)
		for i, v := range fs[:n] {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		if _, err := w.Write(b[:4*n]); err != nil {
			return err
		}
		fs = fs[n:]
	}
	return nil
}
