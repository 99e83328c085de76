package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"hash/crc64"
	"testing"
)

// A minimal LZMA encoder and .xz container writer for the tests: they build
// streams that break exactly one rule, symbol by symbol, on the package's range
// encoder; TestHandBuiltValid shows that what it builds decodes, so the
// rule tests fail for the rule, not for the builder.

type testEnc struct {
	rangeEnc
	m     model
	state int
	pos   int
	prev  byte
}

func newTestEnc() *testEnc {
	e := &testEnc{}
	e.reset()
	e.m.reset(defaultProps)
	return e
}

// literal codes c; only right after literals (an unmatched literal).
func (e *testEnc) literal(c byte) {
	e.bit(&e.m.isMatch[e.state][e.pos&3], 0)
	off := literalCoderSize * int(e.prev>>5)
	e.tree(e.m.literal[off:off+literalCoderSize], 8, uint32(c))
	e.state = stateLiteral(e.state)
	e.prev = c
	e.pos++
}

// match codes a new match at distance rep0+1 (rep0 below 4, or the end
// marker 0xFFFFFFFF) of length 2 to 9.
func (e *testEnc) match(rep0 uint32, length int) {
	e.bit(&e.m.isMatch[e.state][e.pos&3], 1)
	e.bit(&e.m.isRep[e.state], 0)
	e.bit(&e.m.matchLen.choice, 0)
	e.tree(e.m.matchLen.low[e.pos&3][:], 3, uint32(length-2))
	slots := e.m.posSlot[lenToState(length)][:]
	if rep0 < 4 {
		e.tree(slots, 6, rep0)
	} else {
		e.tree(slots, 6, 63)
		e.direct(rep0>>4, 26)
		e.reverseTree(e.m.align[:], 4, rep0&15)
	}
	e.state = stateMatch(e.state)
	e.pos += length
}

func (e *testEnc) finish() []byte {
	e.flush()
	return e.out
}

// lzmaChunk wraps LZMA data as an LZMA2 chunk with control ctrl (its reset
// bits), props when ctrl ≥ 0xC0.
func lzmaChunk(ctrl byte, unpacked int, data []byte) []byte {
	u, p := unpacked-1, len(data)-1
	b := []byte{ctrl | byte(u>>16), byte(u >> 8), byte(u), byte(p >> 8), byte(p)}
	if ctrl >= 0xC0 {
		b = append(b, defaultProps.byte())
	}
	return append(b, data...)
}

// copyChunk is an uncompressed LZMA2 chunk.
func copyChunk(ctrl byte, data []byte) []byte {
	n := len(data) - 1
	return append([]byte{ctrl, byte(n >> 8), byte(n)}, data...)
}

// testBlock is one block of a hand-built stream.
type testBlock struct {
	lzma2   []byte // the LZMA2 data, end marker included
	content []byte // what it decodes to (for the check and the index)
	sizes   bool   // declare both sizes in the header
	header  []byte // if set, the block header as it is
	n       int64  // with content nil: the uncompressed size (check None)
}

func (b testBlock) makeHeader() []byte {
	if b.header != nil {
		return b.header
	}
	h := []byte{0, 0}
	if b.sizes {
		h[1] = 0xC0
		h = putVarint(h, uint64(len(b.lzma2)))
		h = putVarint(h, uint64(int64(len(b.content))+b.n))
	}
	h = append(h, filterLZMA2, 1, 16) // 16: a 1 MiB dictionary
	return sealHeader(h)
}

// sealHeader pads a block header (its size byte still 0) and adds its CRC32.
func sealHeader(h []byte) []byte {
	for (len(h)+4)%4 != 0 {
		h = append(h, 0)
	}
	h[0] = byte((len(h)+4)/4 - 1)
	return binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(h))
}

func checkOf(id byte, data []byte) []byte {
	switch id {
	case CheckCRC32:
		return binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(data))
	case CheckCRC64:
		return binary.LittleEndian.AppendUint64(nil, crc64.Checksum(data, crc64Table()))
	case CheckSHA256:
		s := sha256.Sum256(data)
		return s[:]
	}
	return make([]byte, checkSize(id))
}

// buildStream writes a complete stream of blocks with check id.
func buildStream(check byte, blocks ...testBlock) []byte {
	flags := []byte{0, check}
	z := append([]byte(headerMagic), flags...)
	z = binary.LittleEndian.AppendUint32(z, crc32.ChecksumIEEE(flags))
	index := putVarint([]byte{0}, uint64(len(blocks)))
	for _, b := range blocks {
		h := b.makeHeader()
		z = append(append(z, h...), b.lzma2...)
		z = append(z, make([]byte, -len(b.lzma2)&3)...)
		c := checkOf(check, b.content)
		z = append(z, c...)
		index = putVarint(index, uint64(len(h)+len(b.lzma2)+len(c)))
		index = putVarint(index, uint64(int64(len(b.content))+b.n))
	}
	index = append(index, make([]byte, -len(index)&3)...)
	index = binary.LittleEndian.AppendUint32(index, crc32.ChecksumIEEE(index))
	z = append(z, index...)
	foot := binary.LittleEndian.AppendUint32(nil, uint32(len(index)/4-1))
	foot = append(foot, flags...)
	z = binary.LittleEndian.AppendUint32(z, crc32.ChecksumIEEE(foot))
	return append(append(z, foot...), footerMagic...)
}

// aaaa is "abcaaaaa…": three literals then matches at distance 1; its
// LZMA2 data is one LZMA chunk with all resets.
func aaaa() ([]byte, []byte) {
	e := newTestEnc()
	for _, c := range []byte("abc") {
		e.literal(c)
	}
	e.match(0, 9)
	e.match(0, 5)
	want := []byte("abc" + "cccccccccccccc")
	return want, lzmaChunk(0xE0, len(want), e.finish())
}

func TestHandBuiltValid(t *testing.T) {
	want, lz := aaaa()
	text := []byte("uncompressed chunk text")
	stream := buildStream(CheckCRC64,
		testBlock{lzma2: append(lz, chunkEnd), content: want},
		testBlock{lzma2: append(copyChunk(chunkCopyResetDict, text), chunkEnd), content: text, sizes: true},
		// an uncompressed chunk, then LZMA without a state reset (liblzma
		// and ulikunitz accept it), then a dictionary reset by an LZMA chunk
		testBlock{lzma2: append(append(append(copyChunk(chunkCopyResetDict, text), copyChunk(chunkCopy, text)...), lz...), chunkEnd),
			content: append(append(append([]byte{}, text...), text...), want...), sizes: true},
	)
	all := append(append(append(append([]byte{}, want...), text...), text...), text...)
	expectDecodes(t, stream, append(all, want...))
	for _, c := range []byte{CheckNone, CheckCRC32, CheckSHA256, 0x02, 0x0F} {
		expectDecodes(t, buildStream(c, testBlock{lzma2: append(lz, chunkEnd), content: want, sizes: c%2 == 0}), want)
	}
}

// resealStream recomputes the stream header's CRC32 after its flags changed.
func resealStream(z []byte) []byte {
	binary.LittleEndian.PutUint32(z[8:12], crc32.ChecksumIEEE(z[6:8]))
	return z
}

// resealFooter recomputes the footer's CRC32 (the last 12 bytes).
func resealFooter(z []byte) []byte {
	f := z[len(z)-12:]
	binary.LittleEndian.PutUint32(f[:4], crc32.ChecksumIEEE(f[4:10]))
	return z
}

func TestRules(t *testing.T) {
	want, lz := aaaa()
	good := testBlock{lzma2: append(lz, chunkEnd), content: want, sizes: true}
	valid := buildStream(CheckCRC32, good)
	hdr := good.makeHeader() // at offset 12
	end := len(valid)
	idx := end - 12 - (int(binary.LittleEndian.Uint32(valid[end-8:]))+1)*4 // the index
	mod := func(f func(z []byte) []byte) []byte { return f(append([]byte{}, valid...)) }
	block := func(b testBlock) []byte { return buildStream(CheckCRC32, b) }
	lzBlock := func(data []byte) []byte {
		return block(testBlock{lzma2: append(data, chunkEnd), content: want})
	}
	withHeader := func(h []byte) []byte {
		b := good
		b.header = sealHeader(h)
		return block(b)
	}
	e := newTestEnc()
	e.literal('a')
	e.match(3, 2) // distance 4 after one byte
	beyond := lzmaChunk(0xE0, 3, e.finish())
	e = newTestEnc()
	e.literal('a')
	e.match(0, 9)
	past := lzmaChunk(0xE0, 5, e.finish())
	e = newTestEnc()
	e.literal('a')
	e.match(0xFFFFFFFF, 2)
	marker := lzmaChunk(0xE0, 3, e.finish())
	longer := append(append([]byte{}, lz...), 0)
	longer[4]++ // one more packed byte than the LZMA data uses
	firstByte := append([]byte{}, lz...)
	firstByte[6] = 1
	badProps := append([]byte{}, lz...)
	badProps[5] = byte((0*5+1)*9 + 4) // lc=4, lp=1

	cases := []struct {
		name string
		z    []byte
		msg  string
	}{
		{"magic", mod(func(z []byte) []byte { z[0] ^= 1; return z }), "bad magic"},
		{"header CRC", mod(func(z []byte) []byte { z[8] ^= 1; return z }), "stream header CRC32 mismatch"},
		{"stream flags", mod(func(z []byte) []byte { z[7] = 0x11; return resealStream(z) }), "unsupported stream flags"},
		{"block header CRC", mod(func(z []byte) []byte { z[12+len(hdr)-5] ^= 1; return z }), "block header: CRC32 mismatch"},
		{"reserved block flags", withHeader([]byte{0, 0x04, filterLZMA2, 1, 16}), "reserved flag bits"},
		{"BCJ filter", withHeader([]byte{0, 0x01, 0x04, 0, filterLZMA2, 1, 16}), "0x04 (x86 BCJ)"},
		{"delta filter", withHeader([]byte{0, 0x00, 0x03, 1, 0}), "0x03 (delta)"},
		{"LZMA2 props size", withHeader([]byte{0, 0x00, filterLZMA2, 2, 16, 0}), "properties are 2 bytes"},
		{"dictionary byte", withHeader([]byte{0, 0x00, filterLZMA2, 1, 41}), "invalid LZMA2 dictionary size"},
		{"dictionary limit", withHeader([]byte{0, 0x00, filterLZMA2, 1, 40}), "exceeds the limit"},
		{"header padding", withHeader([]byte{0, 0x00, filterLZMA2, 1, 16, 0, 7}), "padding is not zero"},
		{"compressed size 0", withHeader([]byte{0, 0x40, 0, filterLZMA2, 1, 16}), "invalid compressed size"},
		{"compressed size small", withHeader(append(putVarint([]byte{0, 0xC0}, uint64(len(lz))), byte(len(want)), filterLZMA2, 1, 16)), "declared compressed size"},
		{"compressed size large", withHeader(append(putVarint([]byte{0, 0xC0}, uint64(len(lz)+5)), byte(len(want)), filterLZMA2, 1, 16)), "declared compressed size"},
		{"uncompressed size small", withHeader(append(putVarint([]byte{0, 0xC0}, uint64(len(lz)+1)), byte(len(want)-1), filterLZMA2, 1, 16)), "more than the 16 bytes its header declares"},
		{"uncompressed size large", withHeader(append(putVarint([]byte{0, 0xC0}, uint64(len(lz)+1)), byte(len(want)+1), filterLZMA2, 1, 16)), "block decodes to 17 bytes, its header declares 18"},
		{"block padding", mod(func(z []byte) []byte { z[12+len(hdr)+len(lz)+1] = 1; return z }), "block padding is not zero"},
		{"check", mod(func(z []byte) []byte { z[12+len(hdr)+len(lz)+1+2] ^= 1; return z }), "block check mismatch"},
		{"index count", mod(func(z []byte) []byte { z[idx+1] = 2; return z }), "index lists 2 blocks, the stream has 1"},
		{"index record", mod(func(z []byte) []byte { z[idx+2]++; return z }), "index record 0"},
		{"index CRC", mod(func(z []byte) []byte { z[end-13] ^= 1; return z }), "index CRC32 mismatch"},
		{"footer CRC", mod(func(z []byte) []byte { z[end-12] ^= 1; return z }), "stream footer CRC32 mismatch"},
		{"backward size", mod(func(z []byte) []byte { z[end-8]++; return resealFooter(z) }), "backward size"},
		{"footer flags", mod(func(z []byte) []byte { z[end-3] = CheckCRC64; return resealFooter(z) }), "flags differ"},
		{"footer magic", mod(func(z []byte) []byte { z[end-1] = 'X'; return z }), "stream footer: bad magic"},
		{"stream padding", append(append([]byte{}, valid...), 0, 0), "stream padding is not a multiple of 4"},
		{"garbage after stream", append(append([]byte{}, valid...), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), "bad magic"},
		{"chunk control", lzBlock([]byte{0x03, 0, 0}), "invalid chunk control byte 0x03"},
		{"first chunk keeps the dictionary", lzBlock(copyChunk(chunkCopy, want)), "first chunk (control 0x02) does not reset the dictionary"},
		{"first LZMA chunk keeps the dictionary", lzBlock(append([]byte{0xC0}, lz[1:]...)), "does not reset the dictionary"},
		{"props after a dictionary reset", lzBlock(append(copyChunk(chunkCopyResetDict, []byte("x")), append([]byte{0xA0}, lz[1:5]...)...)), "does not set properties"},
		{"props byte", lzBlock(badProps), "invalid properties byte"},
		{"range decoder first byte", lzBlock(firstByte), msgRangeFirst},
		{"distance beyond decoded bytes", lzBlock(beyond), msgDistance},
		{"match past the chunk", lzBlock(past), msgPastChunk},
		{"end marker", lzBlock(marker), msgEndMarker},
		{"packed size not consumed", lzBlock(longer), msgPackedSize},
		{"no end chunk", block(testBlock{lzma2: lz, content: want}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { errorAt(t, c.z, c.msg) })
	}
}

// TestRuleDictionary: distances must stay within the declared dictionary
// even when the data is there. xz writes a 64 KiB dictionary stream whose
// matches reach back 16 KiB; its header is then made to declare 4 KiB.
func TestRuleDictionary(t *testing.T) {
	part := mixedData(16<<10, 3)
	data := append(append([]byte{}, part...), part...)
	z := xzCompress(t, data, "--lzma2=dict=64KiB", "--check=crc32")
	expectDecodes(t, z, data)
	hdr := z[12 : 12+int(z[12]+1)*4]
	i := bytes.Index(hdr, []byte{filterLZMA2, 1})
	if i < 0 {
		t.Fatal("no LZMA2 filter in the header")
	}
	hdr[i+2] = 0 // 4 KiB
	binary.LittleEndian.PutUint32(hdr[len(hdr)-4:], crc32.ChecksumIEEE(hdr[:len(hdr)-4]))
	errorAt(t, z, msgDistance)
}
