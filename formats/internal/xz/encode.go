package xz

import "math"

// LZMA2 chunking of one block: LZMA chunks while they pay, uncompressed
// chunks where they do not.

// blockEncoder turns a block's bytes into LZMA2 data; one per worker, reused.
type blockEncoder struct {
	lz         *lzmaEnc
	window     int // the match finder's: blocks up to this size, or any block when it is the Writer's window
	fullWindow int // the Writer's window, which sized the hash heads
	out        []byte
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

// maxEncoded bounds the LZMA2 data of n bytes: stored chunks cost 3 bytes
// per 64 KiB, LZMA chunks are smaller than their data.
func maxEncoded(n int) int { return n + 3*(n/maxChunkCopy+1) + 64 }

// encode returns the LZMA2 data of buf, end marker included; the slice is
// reused by the next call.
func (b *blockEncoder) encode(buf []byte) []byte {
	lz := b.lz
	lz.startBlock(buf)
	if cap(b.out) < maxEncoded(len(buf)) {
		b.out = make([]byte, 0, maxEncoded(len(buf)))
	}
	out := b.out[:0]
	dictReset, stateReset := true, false
	for lz.pos < len(buf) {
		start := lz.pos
		if n := min(probeSize, len(buf)-start); n == probeSize && incompressible(buf[start:start+n]) {
			// Stored without searching: later data cannot match it, which
			// costs ratio only where random-looking data repeats.
			out = appendCopyChunks(out, buf[start:start+n], dictReset)
			dictReset, stateReset = false, true
			lz.mf.jump(n)
			lz.pos += n
			continue
		}
		if stateReset {
			lz.resetState()
		}
		lz.codeChunk()
		packed := lz.rc.out
		unpacked := lz.pos - start
		if len(packed) >= unpacked || len(packed) > maxChunkPacked {
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
		u, p := unpacked-1, len(packed)-1
		out = append(out, byte(chunkLZMA|reset<<5|u>>16), byte(u>>8), byte(u), byte(p>>8), byte(p))
		if reset >= chunkResetStateProps {
			out = append(out, defaultProps.byte())
		}
		out = append(out, packed...)
		dictReset, stateReset = false, false
	}
	out = append(out, chunkEnd)
	b.out = out
	return out
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
