package binfmt

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
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
