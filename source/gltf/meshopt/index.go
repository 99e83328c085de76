package meshopt

import "encoding/binary"

const (
	indexHeader    = 0xe0 // triangle index codec; the low nibble is the version
	sequenceHeader = 0xd0 // index sequence codec
	indexTail      = 16   // the index codec ends with a 16-byte table of codes
	sequenceTail   = 4    // the sequence codec ends with 4 bytes of padding
)

// reader reads the variable-length integers of the index codecs from src[:end].
type reader struct {
	src []byte
	pos int
	end int
	bad bool // a read ran past end
}

func (r *reader) byte() byte {
	if r.pos >= r.end {
		r.bad = true
		return 0
	}
	b := r.src[r.pos]
	r.pos++
	return b
}

// varint reads a little-endian base-128 integer of at most 5 bytes, as the
// reference decoder does (a longer run just ends there).
func (r *reader) varint() uint32 {
	v := uint32(0)
	for shift := 0; shift < 35; shift += 7 {
		b := r.byte()
		v |= uint32(b&0x7f) << shift
		if b < 0x80 {
			break
		}
	}
	return v
}

// indexWriter stores indices as 16- or 32-bit little-endian integers.
func putIndex(dst []byte, i, size int, v uint32) {
	if size == 2 {
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
	} else {
		binary.LittleEndian.PutUint32(dst[4*i:], v)
	}
}

// DecodeIndexBuffer decodes count indices (a triangle list: count is a multiple
// of 3) of size 2 or 4 bytes encoded with the index codec, version 0 or 1.
func DecodeIndexBuffer(dst []byte, count, size int, src []byte) error {
	if count < 0 || count%3 != 0 {
		return fail(-1, "index count %d is not a whole number of triangles", count)
	}
	if size != 2 && size != 4 {
		return fail(-1, "index size %d is not 2 or 4", size)
	}
	if len(dst) != count*size {
		return fail(-1, "output is %d bytes, want %d indices × %d bytes", len(dst), count, size)
	}
	if len(src) < 1 || src[0]&0xf0 != indexHeader || src[0]&0x0f > 1 {
		return fail(0, "not index codec data (header byte must be 0xe0 or 0xe1)")
	}
	tris := count / 3
	if len(src) < 1+tris+indexTail {
		return fail(len(src), "%d bytes is too short for %d triangle codes and the %d-byte table", len(src), tris, indexTail)
	}
	// Version 1 turns codes 13 and 14 into "previous free index −1/+1".
	fecMax := byte(15)
	if src[0]&0x0f >= 1 {
		fecMax = 13
	}
	codes := src[1 : 1+tris]
	aux := src[len(src)-indexTail:]
	r := reader{src: src, pos: 1 + tris, end: len(src) - indexTail}

	var edges [16][2]uint32 // recent edges, newest at edgeAt−1
	var verts [16]uint32    // recent vertices, newest at vertAt−1
	edgeAt, vertAt := 0, 0
	next, last := uint32(0), uint32(0)
	pushEdge := func(a, b uint32) { edges[edgeAt&15] = [2]uint32{a, b}; edgeAt++ }
	pushVert := func(v uint32) { verts[vertAt&15] = v; vertAt++ }
	vert := func(k int) uint32 { return verts[(vertAt-1-k)&15] }
	free := func() uint32 { last += unzig32(r.varint()); return last }

	for t, code := range codes {
		var a, b, c uint32
		if code < 0xf0 {
			e := edges[(edgeAt-1-int(code>>4))&15]
			a, b = e[0], e[1]
			switch fec := code & 15; {
			case fec == 0:
				c = next
				next++
				pushVert(c)
			case fec < fecMax:
				c = vert(int(fec))
			case fec == 15:
				c = free()
				pushVert(c)
			default: // 13, 14 in version 1
				if fec == 13 {
					last--
				} else {
					last++
				}
				c = last
				pushVert(c)
			}
			pushEdge(c, b)
			pushEdge(a, c)
		} else {
			fea := code & 15
			var fe byte
			if fea < 14 {
				fe = aux[fea]
			} else {
				fe = r.byte()
				if fe == 0 {
					next = 0 // a restart
				}
			}
			if fea == 15 {
				a = free()
			} else {
				a = next
				next++
			}
			fb, fc := fe>>4, fe&15
			switch {
			case fb == 0:
				b = next
				next++
			case fb == 15 && fea >= 14:
				b = free()
			default:
				b = vert(int(fb) - 1)
			}
			switch {
			case fc == 0:
				c = next
				next++
			case fc == 15 && fea >= 14:
				c = free()
			default:
				c = vert(int(fc) - 1)
			}
			pushVert(a)
			if fb == 0 || (fb == 15 && fea >= 14) {
				pushVert(b)
			}
			if fc == 0 || (fc == 15 && fea >= 14) {
				pushVert(c)
			}
			pushEdge(b, a)
			pushEdge(c, b)
			pushEdge(a, c)
		}
		if r.bad {
			return fail(r.pos, "triangle %d: its free indices run past the data", t)
		}
		putIndex(dst, 3*t, size, a)
		putIndex(dst, 3*t+1, size, b)
		putIndex(dst, 3*t+2, size, c)
	}
	if r.pos != r.end {
		return fail(r.pos, "the index data ends here but the %d-byte table starts at byte %d", indexTail, r.end)
	}
	return nil
}

// DecodeIndexSequence decodes count indices of size 2 or 4 bytes encoded with
// the index sequence codec (any order, any primitive).
func DecodeIndexSequence(dst []byte, count, size int, src []byte) error {
	if size != 2 && size != 4 {
		return fail(-1, "index size %d is not 2 or 4", size)
	}
	if count < 0 || len(dst) != count*size {
		return fail(-1, "output is %d bytes, want %d indices × %d bytes", len(dst), count, size)
	}
	if len(src) < 1 || src[0]&0xf0 != sequenceHeader || src[0]&0x0f > 1 {
		return fail(0, "not index sequence data (header byte must be 0xd0 or 0xd1)")
	}
	if len(src) < 1+count+sequenceTail {
		return fail(len(src), "%d bytes is too short for %d indices and the %d-byte tail", len(src), count, sequenceTail)
	}
	r := reader{src: src, pos: 1, end: len(src) - sequenceTail}
	var last [2]uint32 // two running bases: the low bit of each code picks one
	for i := range count {
		v := r.varint()
		if r.bad {
			return fail(r.pos, "index %d runs past the data", i)
		}
		last[v&1] += unzig32(v >> 1)
		putIndex(dst, i, size, last[v&1])
	}
	if r.pos != r.end {
		return fail(r.pos, "the index data ends here but the %d-byte tail starts at byte %d", sequenceTail, r.end)
	}
	return nil
}
