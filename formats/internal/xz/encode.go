package xz

import "math"

// LZMA2 chunking of one block: LZMA chunks while they pay, uncompressed
// chunks where they do not.

// blockEncoder turns a block's bytes into LZMA2 data; one per worker, reused.
type blockEncoder struct {
	lz         *lzmaEnc
	window     int // the match finder's: blocks up to this size, or any block when it is the Writer's window
	fullWindow int // the Writer's window, which sized the hash heads
}

// Encoder settings: liblzma's preset 6 (nice length 64, bt4 depth 48), with
// the dictionary the Writer chooses from the block size.
const (
	niceLen  = 64
	bt4Depth = 48
	// probeSize is how much data the incompressibility probe looks at.
	probeSize = maxChunkCopy
	// probeBits is the order-0 entropy, in bits a byte, above which the probe
	// calls data incompressible: random bytes measure about 7.997 over
	// probeSize bytes, anything LZMA could gain from well below. On the
	// pack benchmark's mixed data the probe makes packing 20% faster at
	// the same size (6.8 s instead of 8.1 s for 64 MiB, 2 workers).
	probeBits = 7.98
)

// newBlockEncoder allocates an encoder with a window of window bytes and
// the hash heads of a fullWindow one.
func newBlockEncoder(window, fullWindow int) *blockEncoder {
	return &blockEncoder{lz: newLZMAEnc(window, fullWindow, niceLen, bt4Depth), window: window, fullWindow: fullWindow}
}

// encode compresses the n bytes at mem[gap:] into LZMA2 data, end marker
// included, written from mem[0] over the input as it goes, and returns it.
// gap must be at least gapFor(n, b.window): the data then never reaches
// the bytes the encoder still reads, which room checks chunk by chunk.
func (b *blockEncoder) encode(mem []byte, gap, n int) []byte {
	buf := mem[gap : gap+n : gap+n]
	lz := b.lz
	lz.startBlock(buf)
	reach := min(b.window, n) // how far back the encoder reads
	out := mem[:0]
	// room panics unless k more bytes of data stay before the input that
	// is read from next on: a broken bound would corrupt the block.
	room := func(k, next int) {
		if len(out)+k > gap+max(0, next-reach) {
			panic("xz: compressed data overtakes its input")
		}
	}
	dictReset, stateReset := true, false
	for lz.pos < len(buf) {
		start := lz.pos
		if k := min(probeSize, len(buf)-start); k == probeSize && incompressible(buf[start:start+k]) {
			// Stored without searching: later data cannot match it, which
			// costs ratio only where random-looking data repeats.
			room(k+3, start+k)
			out = appendCopyChunks(out, buf[start:start+k], dictReset)
			dictReset, stateReset = false, true
			lz.mf.jump(k)
			lz.pos += k
			continue
		}
		if stateReset {
			lz.resetState()
		}
		lz.codeChunk()
		packed := lz.rc.out
		unpacked := lz.pos - start
		if len(packed) >= unpacked || len(packed) > maxChunkPacked {
			room(unpacked+3*(unpacked/maxChunkCopy+1), lz.pos)
			out = appendCopyChunks(out, buf[start:lz.pos], dictReset)
			dictReset, stateReset = false, true
			continue
		}
		reset := 0
		switch {
		case dictReset:
			reset = chunkResetAll
		case stateReset:
			reset = chunkResetStateProps
		}
		room(6+len(packed), lz.pos)
		u, p := unpacked-1, len(packed)-1
		out = append(out, byte(chunkLZMA|reset<<5|u>>16), byte(u>>8), byte(u), byte(p>>8), byte(p))
		if reset >= chunkResetStateProps {
			out = append(out, defaultProps.byte())
		}
		out = append(out, packed...)
		dictReset, stateReset = false, false
	}
	room(1, len(buf))
	return append(out, chunkEnd)
}

// appendCopyChunks stores data as uncompressed chunks, the first resetting
// the dictionary when dictReset is set.
func appendCopyChunks(out, data []byte, dictReset bool) []byte {
	for len(data) > 0 {
		n := min(len(data), maxChunkCopy)
		ctl := byte(chunkCopy)
		if dictReset {
			ctl = chunkCopyResetDict
			dictReset = false
		}
		out = append(out, ctl, byte((n-1)>>8), byte(n-1))
		out = append(out, data[:n]...)
		data = data[n:]
	}
	return out
}

// incompressible reports whether p's order-0 entropy is so close to 8 bits
// a byte that LZMA could not code it smaller than it is.
func incompressible(p []byte) bool {
	var count [256]int
	for _, c := range p {
		count[c]++
	}
	n := float64(len(p))
	h := 0.0
	for _, c := range count {
		if c > 0 {
			f := float64(c) / n
			h -= f * math.Log2(f)
		}
	}
	return h > probeBits
}
