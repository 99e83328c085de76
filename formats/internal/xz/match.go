package xz

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
)

// bt4 is the binary-tree match finder of liblzma's normal mode and the LZMA
// SDK (BT4): hash heads of 2, 3 and 4 bytes lead into a binary search tree
// over the last `window` positions, kept in a cyclic array of node pairs, so
// each search finds the longest matches at the nearest distances within
// depth tree steps. It reads the block it is given in place: positions are
// offsets into it, and matches reach at most window-1 bytes back, so memory
// is 8 bytes per window position plus the hash tables, whatever the block.
type bt4 struct {
	buf    []byte
	i      int    // the next position to search
	base   uint32 // position i's node number minus i: nodes start at window so 0 means none
	window uint32
	cyc    uint32 // i % window
	nice   int
	depth  int

	son   []uint32 // pairs: left and right child of each node in the window
	hash2 []uint32
	hash3 []uint32
	hash4 []uint32
	mask4 uint32

	// The next position's hashes and 4-byte head, read as soon as the
	// tables are updated for this one: the head is most often a cache miss,
	// which then overlaps this position's tree walk and the parser's work
	// instead of starting the next position's. Valid when nextI is i.
	nextI         int
	nh2, nh3, nh4 uint32
	nextHead      uint32
}

const (
	// maxHash4 caps the 4-byte hash at 2 MiB of heads: liblzma's window/2
	// would take 4 MiB for a 2 MiB window, for a gain under 0.05%.
	maxHash4  = 1 << 19
	hash2Size = 1 << 10
	hash3Size = 1 << 16
)

// crcTable is the CRC-32 table liblzma's hashes are made of. The package's
// own IEEETable is that table, built by its init: crc32.MakeTable(crc32.IEEE)
// returns it too, but first builds the 8 KiB slicing tables of the package's
// checksum, at every start of every program importing this package.
var crcTable = crc32.IEEETable

// newBT4 sizes the finder for a window (the dictionary). The 4-byte hash
// has about hashWindow/2 heads as in liblzma; it is sized apart from the
// window so that a finder allocated small for a short block finds what a
// full-size one would.
func newBT4(window, hashWindow, nice, depth int) *bt4 {
	hs := uint32(hashWindow - 1)
	hs |= hs >> 1
	hs |= hs >> 2
	hs |= hs >> 4
	hs |= hs >> 8
	hs |= hs >> 16
	hs >>= 1
	hs |= 0xFFFF
	hs = min(hs, maxHash4-1)
	return &bt4{
		window: uint32(window),
		nice:   nice,
		depth:  depth,
		son:    make([]uint32, 2*window),
		hash2:  make([]uint32, hash2Size),
		hash3:  make([]uint32, hash3Size),
		hash4:  make([]uint32, hs+1),
		mask4:  hs,
	}
}

// reset starts a new block: no position before it can be matched.
func (f *bt4) reset(buf []byte) {
	f.buf, f.i, f.base, f.cyc = buf, 0, f.window, 0
	f.nextI = -1
	clear(f.hash2)
	clear(f.hash3)
	clear(f.hash4)
}

func (f *bt4) hashes(p []byte) (h2, h3, h4 uint32) {
	t := crcTable[p[0]] ^ uint32(p[1])
	h2 = t & (hash2Size - 1)
	t ^= uint32(p[2]) << 8
	h3 = t & (hash3Size - 1)
	h4 = (t ^ crcTable[p[3]]<<5) & f.mask4
	return
}

// insert puts position i (its first bytes cur) in the hash tables and
// returns the distances to the previous heads of its 2- and 3-byte hashes
// and the previous head of its 4-byte hash; then it reads the next
// position's heads ahead.
func (f *bt4) insert(cur []byte, pos uint32) (d2, d3, next uint32) {
	var h2, h3, h4 uint32
	if f.nextI == f.i {
		h2, h3, h4, next = f.nh2, f.nh3, f.nh4, f.nextHead
	} else {
		h2, h3, h4 = f.hashes(cur)
		next = f.hash4[h4]
	}
	d2 = pos - f.hash2[h2]
	d3 = pos - f.hash3[h3]
	f.hash2[h2], f.hash3[h3], f.hash4[h4] = pos, pos, pos
	if n := f.i + 1; len(f.buf)-n >= 4 {
		f.nh2, f.nh3, f.nh4 = f.hashes(f.buf[n : n+4])
		f.nextHead = f.hash4[f.nh4]
		f.nextI = n
	}
	return d2, d3, next
}

func (f *bt4) move() {
	f.i++
	f.cyc++
	if f.cyc == f.window {
		f.cyc = 0
	}
}

// avail is the number of bytes from the next position to the block's end.
func (f *bt4) avail() int { return len(f.buf) - f.i }

// matches appends to dst the (length, distance-1) pairs of increasing length
// found for the next position and moves past it.
func (f *bt4) matches(dst []uint32) []uint32 {
	limit := min(f.nice, len(f.buf)-f.i)
	if limit < 4 {
		f.move()
		return dst
	}
	cur := f.buf[f.i:]
	cur = cur[:limit:limit]
	pos := uint32(f.i) + f.base
	d2, d3, next := f.insert(cur, pos)

	maxLen := 0
	start := len(dst)
	if d2 < f.window && f.buf[f.i-int(d2)] == cur[0] {
		maxLen = 2
		dst = append(dst, 2, d2-1)
	}
	if d2 != d3 && d3 < f.window && f.buf[f.i-int(d3)] == cur[0] {
		maxLen = 3
		dst = append(dst, 3, d3-1)
		d2 = d3
	}
	if len(dst) > start {
		prev := f.buf[f.i-int(d2):]
		maxLen = extend(cur, prev, maxLen, limit)
		dst[len(dst)-2] = uint32(maxLen)
		if maxLen == limit {
			f.searchTree(cur, pos, next, 0, nil, false)
			f.move()
			return dst
		}
	}
	maxLen = max(maxLen, 3)
	dst = f.searchTree(cur, pos, next, maxLen, dst, true)
	f.move()
	return dst
}

// searchTree walks the tree from node next, re-rooting it at pos (the LZMA
// SDK's GetMatchesSpec1 and SkipMatchesSpec); when collect is set it appends
// each match longer than maxLen. The finder's fields are copied into locals:
// the stores into son would otherwise make the compiler reload them at every
// step.
func (f *bt4) searchTree(cur []byte, pos, next uint32, maxLen int, dst []uint32, collect bool) []uint32 {
	son := f.son
	buf, i := f.buf, f.i
	window, cyc := f.window, f.cyc
	ptr0 := int(cyc)<<1 + 1
	ptr1 := int(cyc) << 1
	len0, len1 := 0, 0
	limit := len(cur)
	for depth := f.depth; depth > 0; depth-- {
		delta := pos - next
		if delta >= window {
			break
		}
		p := cyc - delta
		if delta > cyc {
			p += window
		}
		pair := son[int(p)<<1 : int(p)<<1+2 : int(p)<<1+2]
		prev := buf[i-int(delta):]
		n := min(len0, len1)
		a, b := prev[n], cur[n]
		if a == b {
			n = extend(cur, prev, n+1, limit)
			if collect && n > maxLen {
				maxLen = n
				dst = append(dst, uint32(n), delta-1)
			}
			if n == limit {
				// Equal to the limit: pos takes over the node's children.
				son[ptr1], son[ptr0] = pair[0], pair[1]
				return dst
			}
			a, b = prev[n], cur[n]
		}
		if a < b {
			son[ptr1] = next
			ptr1 = int(p)<<1 + 1
			next = pair[1]
			len1 = n
		} else {
			son[ptr0] = next
			ptr0 = int(p) << 1
			next = pair[0]
			len0 = n
		}
	}
	son[ptr0], son[ptr1] = 0, 0
	return dst
}

// skip inserts the next n positions into the tree without searching.
func (f *bt4) skip(n int) {
	for range n {
		limit := min(f.nice, len(f.buf)-f.i)
		if limit >= 4 {
			cur := f.buf[f.i : f.i+limit : f.i+limit]
			pos := uint32(f.i) + f.base
			_, _, next := f.insert(cur, pos)
			f.searchTree(cur, pos, next, 0, nil, false)
		}
		f.move()
	}
}

// jump moves past n positions without inserting them: they cannot be
// matched later (the writer does this for data it stores uncompressed).
func (f *bt4) jump(n int) {
	f.i += n
	f.cyc = uint32((uint64(f.cyc) + uint64(n)) % uint64(f.window))
}

// extend returns the length of the common prefix of a[:limit] and b[:limit]
// given that their first n bytes agree, comparing 8 bytes at a time: the
// byte loops it replaces took most of the match finder's time on data with
// long repeats.
func extend(a, b []byte, n, limit int) int {
	a, b = a[:limit], b[:limit]
	for n+8 <= limit {
		if x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for n < limit && a[n] == b[n] {
		n++
	}
	return n
}
