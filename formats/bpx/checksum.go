package bpx

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

var bpxCRCTable = func() (t [256]uint32) {
	for i := range t {
		v := uint32(i) >> 1
		if i&1 != 0 {
			v ^= 0xEDB88320
		}
		t[i] = v
	}
	return t
}()

// NewBPXCRC returns a BPX CRC over no bytes yet.
func NewBPXCRC() *BPXCRC { return &BPXCRC{crc: 0xFFFFFFFF} }

func (c *BPXCRC) Write(p []byte) (int, error) {
	crc := c.crc
	for _, b := range p {
		crc = crc>>8 ^ bpxCRCTable[byte(crc)^b]
	}
	c.crc = crc
	return len(p), nil
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
