package xz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"sync"
)

// The container as the reader meets it: stream header, block headers,
// checks, index, stream footer and padding.

// msgTruncated is the message of an input that ends inside a stream.
var msgTruncated = "truncated stream: " + io.ErrUnexpectedEOF.Error()

// input is the underlying reader and how many bytes were taken from it.
type input struct {
	br  *bufio.Reader
	off int64
}

// read fills b; an end of input is a truncated stream.
func (in *input) read(b []byte) error {
	n, err := io.ReadFull(in.br, b)
	in.off += int64(n)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{in.off, msgTruncated}
	}
	return err
}

func (in *input) byte() (byte, error) {
	c, err := in.br.ReadByte()
	if err == io.EOF {
		return 0, &Error{in.off, msgTruncated}
	}
	if err == nil {
		in.off++
	}
	return c, err
}

// varint reads a multibyte integer, feeding its bytes to crc.
func (in *input) varint(crc *uint32) (uint64, int, error) {
	var b [9]byte
	for i := range b {
		c, err := in.byte()
		if err != nil {
			return 0, 0, err
		}
		b[i] = c
		if c&0x80 == 0 {
			*crc = crc32.Update(*crc, crc32.IEEETable, b[:i+1])
			x, n, err := varint(b[:i+1])
			if err != nil {
				return 0, 0, &Error{in.off - int64(i+1), err.Error()}
			}
			return x, n, nil
		}
	}
	return 0, 0, &Error{in.off - 9, errVarint.Error()}
}

// parseStreamHeader checks a stream header and returns its flags.
func parseStreamHeader(b []byte, at int64) ([2]byte, error) {
	var f [2]byte
	if string(b[:6]) != headerMagic {
		return f, &Error{at, "not an xz stream: bad magic bytes"}
	}
	if crc32.ChecksumIEEE(b[6:8]) != binary.LittleEndian.Uint32(b[8:12]) {
		return f, &Error{at + 8, "stream header CRC32 mismatch"}
	}
	if b[6] != 0 || b[7]&0xF0 != 0 {
		return f, &Error{at + 6, fmt.Sprintf("unsupported stream flags 0x%02x%02x", b[6], b[7])}
	}
	return [2]byte{b[6], b[7]}, nil
}

// blockHeader is what a block header declares, or the index indicator.
type blockHeader struct {
	start    int64 // offset of its first byte
	size     int   // bytes of the header
	packed   int64 // compressed size, -1 if not declared
	unpacked int64 // uncompressed size, -1 if not declared
	dict     uint32
	index    bool // the index indicator, not a block
}

// filterNames names the filters xz defines, for the refusal message.
var filterNames = map[uint64]string{
	0x03: "delta", 0x04: "x86 BCJ", 0x05: "PowerPC BCJ", 0x06: "IA-64 BCJ",
	0x07: "ARM BCJ", 0x08: "ARM-Thumb BCJ", 0x09: "SPARC BCJ", 0x0A: "ARM64 BCJ",
	0x0B: "RISC-V BCJ", 0x21: "LZMA2",
}

// readBlockHeader reads a block header (or the index indicator).
func (r *Reader) readBlockHeader() (*blockHeader, error) {
	h := &blockHeader{start: r.in.off, packed: -1, unpacked: -1}
	c, err := r.in.byte()
	if err != nil {
		return nil, err
	}
	if c == 0 {
		h.index = true
		return h, nil
	}
	h.size = (int(c) + 1) * 4
	b := r.hdrBuf[:h.size]
	b[0] = c
	if err := r.in.read(b[1:]); err != nil {
		return nil, err
	}
	bad := func(at int, msg string, args ...any) (*blockHeader, error) {
		return nil, &Error{h.start + int64(at), "block header: " + fmt.Sprintf(msg, args...)}
	}
	body := b[:h.size-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[h.size-4:]) {
		return bad(h.size-4, "CRC32 mismatch")
	}
	flags := b[1]
	if flags&0x3C != 0 {
		return bad(1, "reserved flag bits set (0x%02x)", flags)
	}
	p := 2
	next := func() (uint64, bool) {
		x, n, err := varint(body[p:])
		if err != nil {
			return 0, false
		}
		p += n
		return x, true
	}
	const maxSize = 1 << 62
	if flags&0x40 != 0 {
		x, ok := next()
		if !ok || x == 0 || x > maxSize {
			return bad(p, "invalid compressed size")
		}
		h.packed = int64(x)
	}
	if flags&0x80 != 0 {
		x, ok := next()
		if !ok || x > maxSize {
			return bad(p, "invalid uncompressed size")
		}
		h.unpacked = int64(x)
	}
	var ids []string
	var props []byte
	for range int(flags&3) + 1 {
		at := p
		id, ok1 := next()
		n, ok2 := next()
		if !ok1 || !ok2 || n > uint64(len(body)-p) {
			return bad(at, "filter flags run past the header")
		}
		name := filterNames[id]
		if name == "" {
			name = "unknown"
		}
		ids = append(ids, fmt.Sprintf("0x%02x (%s)", id, name))
		if id == filterLZMA2 {
			props = body[p : p+int(n)]
		}
		p += int(n)
	}
	if len(ids) != 1 || props == nil {
		return bad(2, "unsupported filter chain %v: only LZMA2 (0x21) alone is supported", ids)
	}
	if len(props) != 1 {
		return bad(2, "LZMA2 filter properties are %d bytes, not 1", len(props))
	}
	dict, ok := dictSize(props[0])
	if !ok {
		return bad(2, "invalid LZMA2 dictionary size byte 0x%02x", props[0])
	}
	if i := bytes.IndexFunc(body[p:], func(c rune) bool { return c != 0 }); i >= 0 {
		return bad(p+i, "padding is not zero")
	}
	if dict > r.maxDict {
		return bad(2, "LZMA2 dictionary of %d bytes exceeds the limit of %d", dict, r.maxDict)
	}
	h.dict = dict
	return h, nil
}

// crc64Table is built on first use: hash/crc64 builds its tables then, and
// every command links this package.
var crc64Table = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// newCheck is the hash of check id, nil for None and the IDs xz does not
// define (their bytes are skipped, as xz does).
func newCheck(id byte) hash.Hash {
	switch id {
	case CheckCRC32:
		return crc32.NewIEEE()
	case CheckCRC64:
		return crc64.New(crc64Table())
	case CheckSHA256:
		return sha256.New()
	}
	return nil
}

// storedCheck is h's sum as a block stores it: CRC32 and CRC64 little-endian
// (hash/crc32 and hash/crc64 give them big-endian), SHA-256 as it is.
func storedCheck(h hash.Hash) []byte {
	sum := h.Sum(nil)
	if len(sum) <= 8 {
		for i, j := 0, len(sum)-1; i < j; i, j = i+1, j-1 {
			sum[i], sum[j] = sum[j], sum[i]
		}
	}
	return sum
}

// verifyCheck compares the check stored after a block with the hash of
// its data.
func verifyCheck(h hash.Hash, stored []byte, at int64) error {
	if h == nil {
		return nil
	}
	if !bytes.Equal(storedCheck(h), stored) {
		return &Error{at, "block check mismatch (data corrupt)"}
	}
	return nil
}

// checkPadding verifies that block padding is zero.
func checkPadding(b []byte, at int64) error {
	for i, c := range b {
		if c != 0 {
			return &Error{at + int64(i), "block padding is not zero"}
		}
	}
	return nil
}

// record is a block as the index lists it.
type record struct{ unpadded, unpacked int64 }

// readIndex reads the index (its indicator already read at start) and the
// stream footer, and compares them with the blocks decoded.
func (r *Reader) readIndex(start int64) error {
	crc := crc32.Update(0, crc32.IEEETable, []byte{0})
	count, _, err := r.in.varint(&crc)
	if err != nil {
		return err
	}
	if count != uint64(len(r.records)) {
		return &Error{start + 1, fmt.Sprintf("index lists %d blocks, the stream has %d", count, len(r.records))}
	}
	for i, rec := range r.records {
		at := r.in.off
		unpadded, _, err := r.in.varint(&crc)
		if err != nil {
			return err
		}
		unpacked, _, err := r.in.varint(&crc)
		if err != nil {
			return err
		}
		if unpadded != uint64(rec.unpadded) || unpacked != uint64(rec.unpacked) {
			return &Error{at, fmt.Sprintf("index record %d (unpadded %d, uncompressed %d) does not match the block (%d, %d)",
				i, unpadded, unpacked, rec.unpadded, rec.unpacked)}
		}
	}
	var tail [4 + 4 + streamFooterSize]byte
	pad := int(-(r.in.off - start) & 3)
	b := tail[:pad+4+streamFooterSize]
	if err := r.in.read(b); err != nil {
		return err
	}
	at := r.in.off - int64(len(b))
	if checkPadding(b[:pad], at) != nil {
		return &Error{at, "index padding is not zero"}
	}
	crc = crc32.Update(crc, crc32.IEEETable, b[:pad])
	if crc != binary.LittleEndian.Uint32(b[pad:]) {
		return &Error{at + int64(pad), "index CRC32 mismatch"}
	}
	size := at + int64(pad) + 4 - start
	f := b[pad+4:]
	at += int64(pad) + 4
	if string(f[10:12]) != footerMagic {
		return &Error{at + 10, "stream footer: bad magic bytes"}
	}
	if crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[:4]) {
		return &Error{at, "stream footer CRC32 mismatch"}
	}
	if f[8] != r.flags[0] || f[9] != r.flags[1] {
		return &Error{at + 8, "stream footer flags differ from the stream header's"}
	}
	if backward := (int64(binary.LittleEndian.Uint32(f[4:8])) + 1) * 4; backward != size {
		return &Error{at + 4, fmt.Sprintf("stream footer's backward size %d is not the index size %d", backward, size)}
	}
	r.records = r.records[:0]
	return nil
}

// nextStream skips stream padding and reads the next stream's header;
// io.EOF when the input ends after the padding.
func (r *Reader) nextStream() error {
	for {
		var b [streamHeaderSize]byte
		n, err := io.ReadFull(r.in.br, b[:4])
		r.in.off += int64(n)
		if n == 0 && err == io.EOF {
			return io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			return &Error{r.in.off - int64(n), "stream padding is not a multiple of 4 bytes (or a stream header is cut off)"}
		}
		if err != nil {
			return err
		}
		if b[0]|b[1]|b[2]|b[3] == 0 {
			continue
		}
		if err := r.in.read(b[4:]); err != nil {
			return err
		}
		return r.startStream(b[:], r.in.off-streamHeaderSize)
	}
}

// startStream takes a stream header's 12 bytes.
func (r *Reader) startStream(b []byte, at int64) error {
	f, err := parseStreamHeader(b, at)
	if err != nil {
		return err
	}
	r.flags = f
	r.check = f[1]
	return nil
}
