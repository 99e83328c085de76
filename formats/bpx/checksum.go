package bpx

import (
	"encoding/binary"
	"sync"
)

// Weak is the weak section checksum (docs/formats/bpx.md §4): the wrapping sum of
// the bytes. Feed it with Write; Sum32 is the checksum so far.
type Weak struct{ sum uint32 }

func (w *Weak) Write(p []byte) (int, error) {
	s := w.sum
	for _, c := range p {
		s += uint32(c)
	}
	w.sum = s
	return len(p), nil
}

// Sum32 is the checksum of what was written.
func (w *Weak) Sum32() uint32 { return w.sum }

// BPXCRC is the BPX "CRC-32" (§4). It is NOT the standard CRC-32 of hash/crc32:
// its table is built with a single shift step instead of eight, so "123456789"
// gives 0xFF124790, not 0xCBF43926. Every file the reference SDK wrote carries
// this value; do not replace it with hash/crc32.
type BPXCRC struct{ crc uint32 }

// bpxCRCTables[0] is the byte table; like any CRC table it is linear over
// GF(2) (T[a^b] = T[a]^T[b]), so the update can take eight bytes a step
// ("slicing by eight"): bpxCRCTables[k][v] is byte v's effect k bytes later.
// They are built on first use (the first Write), not when a program that links the
// package starts.
var bpxCRCTables = sync.OnceValue(func() *[8][256]uint32 {
	t := new([8][256]uint32)
	for i := range t[0] {
		v := uint32(i) >> 1
		if i&1 != 0 {
			v ^= 0xEDB88320
		}
		t[0][i] = v
	}
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			v := t[k-1][i]
			t[k][i] = v>>8 ^ t[0][byte(v)]
		}
	}
	return t
})

// NewBPXCRC returns a BPX CRC over no bytes yet.
func NewBPXCRC() *BPXCRC { return &BPXCRC{crc: 0xFFFFFFFF} }

func (c *BPXCRC) Write(p []byte) (int, error) {
	n := len(p)
	crc := c.crc
	t := bpxCRCTables()
	for ; len(p) >= 8; p = p[8:] {
		lo := crc ^ binary.LittleEndian.Uint32(p)
		hi := binary.LittleEndian.Uint32(p[4:])
		crc = t[7][byte(lo)] ^ t[6][byte(lo>>8)] ^ t[5][byte(lo>>16)] ^ t[4][lo>>24] ^
			t[3][byte(hi)] ^ t[2][byte(hi>>8)] ^ t[1][byte(hi>>16)] ^ t[0][hi>>24]
	}
	for _, b := range p {
		crc = crc>>8 ^ t[0][byte(crc)^b]
	}
	c.crc = crc
	return n, nil
}

// Sum32 is the checksum of what was written.
func (c *BPXCRC) Sum32() uint32 { return c.crc ^ 0xFFFFFFFF }

// CRC returns the BPX CRC of b.
func CRC(b []byte) uint32 {
	c := NewBPXCRC()
	c.Write(b)
	return c.Sum32()
}

// WeakSum returns the weak checksum of b.
func WeakSum(b []byte) uint32 {
	var w Weak
	w.Write(b)
	return w.Sum32()
}

// summer is the running checksum a section's flags select.
type summer interface {
	Write([]byte) (int, error)
	Sum32() uint32
}

// newSummer returns the checksum the flags select, or nil when none.
func newSummer(f Flags) summer {
	switch {
	case f&FlagCRC32 != 0:
		return NewBPXCRC()
	case f&FlagWeak != 0:
		return &Weak{}
	}
	return nil
}
