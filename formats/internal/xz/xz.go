// Package xz reads and writes .xz streams whose one filter is LZMA2, the
// compression BPX sections use (docs/formats/bpx.md §5). It exists because
// packing and unpacking are bound by the codec: the writer compresses
// independent blocks on several cores and stores incompressible data as it is,
// the reader decodes blocks that declare their sizes on several cores, and
// both stay within a fixed memory budget whatever the input size.
//
// The container layout (stream header and footer, block headers, index) is
// the .xz file format 1.1.0; the LZMA2 chunk and LZMA layouts follow xz and
// the LZMA SDK, so what this package writes is read by xz, liblzma and
// github.com/ulikunitz/xz, and it reads what they write.
//
// Scope: LZMA2 only (a stream with BCJ, delta or any other filter is refused with
// the filter's name); the writer always uses lc=3, lp=0, pb=2, a bt4 match finder
// with optimal parsing, 4 MiB blocks and a dictionary of a quarter block
// (WriterConfig changes the block size, the workers and the check), and the four
// checks of the format (none, CRC32, CRC64, SHA-256).
//
// Limits: a writer holds a match finder of 2·BlockSize + 2.3 MiB per worker and
// two blocks of 1.25·BlockSize per worker (20.4 MiB a worker at the default;
// bpx uses two workers: under 64 MiB for the whole process); a reader
// checks every block's dictionary against ReaderConfig.MaxDict (64 MiB by default)
// before allocating, decodes blocks ahead on other cores within 24 MiB, and
// streams the rest; truncated, padded or inconsistent streams are
// refused with the offset and rule.
//
// Tested against: the xz command (its output read at presets -0, -6 and -9e,
// multi-block, concatenated and padded; this package's output checked with xz -dc
// and xz -t), github.com/ulikunitz/xz in both directions, hand-built streams for
// every rule of the container and of LZMA2, truncation at every offset, and a
// fuzz target. Figures are in BENCHMARKS.md.
package xz

import (
	"errors"
	"fmt"
)

// Stream framing.
const (
	headerMagic      = "\xfd7zXZ\x00"
	footerMagic      = "YZ"
	streamHeaderSize = 12
	streamFooterSize = 12
	filterLZMA2      = 0x21
)

// Integrity checks a stream may carry (stream flags' second byte).
const (
	CheckNone   = 0x00
	CheckCRC32  = 0x01
	CheckCRC64  = 0x04
	CheckSHA256 = 0x0A
)

// checkSize is the number of bytes each check stores after a block; xz
// reserves the sizes of the IDs it does not define by ID group.
func checkSize(id byte) int {
	if id == 0 {
		return 0
	}
	return 4 << ((id - 1) / 3)
}

// Error is a stream that does not decode: where in it and which rule.
type Error struct {
	Offset int64 // bytes from the start of the first stream
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("xz: byte %d: %s", e.Offset, e.Msg) }

// errVarint is a multibyte integer that is too long, not minimal, or cut off.
var errVarint = errors.New("bad multibyte integer")

// putVarint appends x in xz's multibyte integer encoding (7 bits a byte,
// least significant first).
func putVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// varint decodes a multibyte integer from the start of b: its value and
// length. It refuses more than nine bytes and a trailing zero byte, as xz does.
func varint(b []byte) (uint64, int, error) {
	var x uint64
	for i := 0; i < len(b) && i < 9; i++ {
		c := b[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, 0, errVarint
			}
			return x, i + 1, nil
		}
	}
	return 0, 0, errVarint
}

// dictSize is the dictionary size an LZMA2 properties byte declares; ok is
// false for bytes above 40.
func dictSize(b byte) (size uint32, ok bool) {
	switch {
	case b > 40:
		return 0, false
	case b == 40:
		return 0xFFFFFFFF, true
	}
	return (2 | uint32(b&1)) << (b/2 + 11), true
}

// dictByte is the smallest LZMA2 properties byte whose dictionary holds n.
func dictByte(n uint32) byte {
	for b := byte(0); b < 40; b++ {
		if s, _ := dictSize(b); s >= n {
			return b
		}
	}
	return 40
}
