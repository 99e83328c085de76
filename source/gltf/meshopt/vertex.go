package meshopt

import (
	"encoding/binary"
	"math/bits"
)

const (
	vertexHeader  = 0xa0 // high nibble of the first byte; the low nibble is the version
	maxVertexSize = 256
	tailMinV0     = 32 // the tail (first element's bytes, v1 channel modes) is padded to this
	tailMinV1     = 24
)

// blockElements is how many elements one block of the vertex codec holds.
func blockElements(stride int) int { return min((8192/stride)&^15, 256) }

// groupBits maps a group's 2-bit header mode to the bits per delta: for version 0,
// and for version 1 under byte control modes 0 and 1.
var groupBits = [3][4]int{{0, 2, 4, 8}, {0, 1, 2, 4}, {1, 2, 4, 8}}

// DecodeVertexBuffer decodes count elements of stride bytes (a multiple of 4, at
// most 256) encoded with the vertex codec, version 0 or 1, into dst.
func DecodeVertexBuffer(dst []byte, count, stride int, src []byte) error {
	if stride < 4 || stride > maxVertexSize || stride%4 != 0 {
		return fail(-1, "vertex size %d is not a multiple of 4 in [4, %d]", stride, maxVertexSize)
	}
	if count < 0 || len(dst) != count*stride {
		return fail(-1, "output is %d bytes, want %d elements × %d bytes", len(dst), count, stride)
	}
	if len(src) < 1 || src[0]&0xf0 != vertexHeader || src[0]&0x0f > 1 {
		return fail(0, "not vertex codec data (header byte must be 0xa0 or 0xa1)")
	}
	version := int(src[0] & 0x0f)
	tailSize, tailMin := stride, tailMinV0
	if version == 1 {
		tailSize, tailMin = stride+stride/4, tailMinV1
	}
	end := len(src) - max(tailSize, tailMin) // where the block data must end
	if end < 1 {
		return fail(len(src), "%d bytes is too short for the %d-byte tail", len(src), max(tailSize, tailMin))
	}
	tail := src[len(src)-tailSize:]
	var last [maxVertexSize]byte // the previous element: deltas are relative to it
	copy(last[:], tail[:stride])
	channels := tail[stride:] // version 1: how each 4-byte group is delta-coded
	for g, c := range channels {
		if count > 0 && c&3 == 3 {
			return fail(len(src)-tailSize+stride+g, "channel mode 3 of bytes %d..%d is invalid", 4*g, 4*g+3)
		}
	}

	blockMax := blockElements(stride)
	deltas := make([]byte, blockMax*stride) // column k (byte k of each element) at k·blockMax
	pos := 1
	for base := 0; base < count; base += blockMax {
		n := min(count-base, blockMax)
		groups := (n + 15) / 16
		headerBytes := (groups + 3) / 4
		control := pos
		if version == 1 {
			pos += stride / 4
			if pos > end {
				return fail(control, "block at element %d: control bytes run past the data", base)
			}
		}
		for k := 0; k < stride; k++ {
			col := deltas[k*blockMax : k*blockMax+groups*16]
			ctrl := 0
			if version == 1 {
				ctrl = int(src[control+k/4]>>(2*(k&3))) & 3
			}
			switch ctrl {
			case 2: // every delta is zero
				clear(col)
				continue
			case 3: // deltas stored raw
				if n > end-pos {
					return fail(pos, "block at element %d byte %d: %d raw deltas run past the data", base, k, n)
				}
				copy(col, src[pos:pos+n])
				pos += n
				continue
			}
			if headerBytes > end-pos {
				return fail(pos, "block at element %d byte %d: group headers run past the data", base, k)
			}
			header := src[pos : pos+headerBytes]
			pos += headerBytes
			table := &groupBits[0]
			if version == 1 {
				table = &groupBits[1+ctrl]
			}
			for g := 0; g < groups; g++ {
				b := table[header[g/4]>>(2*(g&3))&3]
				var ok bool
				if pos, ok = decodeGroup((*[16]byte)(col[g*16:]), src[:end], pos, b); !ok {
					return fail(pos, "block at element %d byte %d group %d: %d-bit deltas run past the data", base, k, g, b)
				}
			}
		}
		applyDeltas(dst[base*stride:(base+n)*stride], deltas, blockMax, n, stride, last[:stride], channels)
	}
	if pos != end {
		return fail(pos, "the block data ends here but the tail starts at byte %d", end)
	}
	return nil
}

// decodeGroup decodes 16 deltas of b bits each (with a sentinel for "the next
// byte holds it") from src at pos; false when src is too short.
func decodeGroup(out *[16]byte, src []byte, pos, b int) (int, bool) {
	switch b {
	case 0:
		*out = [16]byte{}
		return pos, true
	case 1:
		if 2 > len(src)-pos {
			return pos, false
		}
		h := uint16(src[pos]) | uint16(src[pos+1])<<8
		pos += 2
		if bits.OnesCount16(h) > len(src)-pos {
			return pos, false
		}
		for m := range 16 {
			v := byte(h>>m) & 1
			if v == 1 {
				v = src[pos]
				pos++
			}
			out[m] = v
		}
	case 2:
		if 4 > len(src)-pos {
			return pos, false
		}
		h := binary.BigEndian.Uint32(src[pos:]) // the first delta is in the top bits
		pos += 4
		if bits.OnesCount32(h&(h>>1)&0x55555555) > len(src)-pos {
			return pos, false
		}
		for m := range 16 {
			v := byte(h>>(30-2*m)) & 3
			if v == 3 {
				v = src[pos]
				pos++
			}
			out[m] = v
		}
	case 4:
		if 8 > len(src)-pos {
			return pos, false
		}
		h := binary.BigEndian.Uint64(src[pos:])
		pos += 8
		if bits.OnesCount64(h&(h>>1)&(h>>2)&(h>>3)&0x1111111111111111) > len(src)-pos {
			return pos, false
		}
		for m := range 16 {
			v := byte(h>>(60-4*m)) & 15
			if v == 15 {
				v = src[pos]
				pos++
			}
			out[m] = v
		}
	default:
		if 16 > len(src)-pos {
			return pos, false
		}
		copy(out[:], src[pos:pos+16])
		pos += 16
	}
	return pos, true
}

// applyDeltas reconstructs n elements into dst from the block's delta columns,
// updating last. channels (version 1) picks per 4-byte group between byte deltas
// (0), 16-bit deltas (1) and rotated 32-bit XOR deltas (2).
func applyDeltas(dst, deltas []byte, blockMax, n, stride int, last, channels []byte) {
	for g := 0; g < stride; g += 4 {
		mode := byte(0)
		if len(channels) > 0 {
			mode = channels[g/4]
		}
		c0 := deltas[g*blockMax : g*blockMax+n]
		c1 := deltas[(g+1)*blockMax : (g+1)*blockMax+n]
		c2 := deltas[(g+2)*blockMax : (g+2)*blockMax+n]
		c3 := deltas[(g+3)*blockMax : (g+3)*blockMax+n]
		switch mode & 3 {
		case 0:
			// Four byte lanes at once: unzigzag and add per byte in one uint32
			// (no carry crosses a lane), one 4-byte store per element.
			p := binary.LittleEndian.Uint32(last[g:])
			o := g
			c1, c2, c3 = c1[:len(c0)], c2[:len(c0)], c3[:len(c0)]
			for e, d0 := range c0 {
				d := uint32(d0) | uint32(c1[e])<<8 | uint32(c2[e])<<16 | uint32(c3[e])<<24
				u := (d >> 1 & 0x7f7f7f7f) ^ (d & 0x01010101 * 0xff)
				p = (p&0x7f7f7f7f + u&0x7f7f7f7f) ^ (p^u)&0x80808080
				binary.LittleEndian.PutUint32(dst[o:], p)
				o += stride
			}
			binary.LittleEndian.PutUint32(last[g:], p)
		case 1:
			lo := uint16(last[g]) | uint16(last[g+1])<<8
			hi := uint16(last[g+2]) | uint16(last[g+3])<<8
			o := g
			for e := range n {
				lo += unzig16(uint16(c0[e]) | uint16(c1[e])<<8)
				hi += unzig16(uint16(c2[e]) | uint16(c3[e])<<8)
				binary.LittleEndian.PutUint16(dst[o:], lo)
				binary.LittleEndian.PutUint16(dst[o+2:], hi)
				o += stride
			}
			binary.LittleEndian.PutUint16(last[g:], lo)
			binary.LittleEndian.PutUint16(last[g+2:], hi)
		default:
			rot := int(mode >> 4)
			p := binary.LittleEndian.Uint32(last[g:])
			o := g
			for e := range n {
				d := uint32(c0[e]) | uint32(c1[e])<<8 | uint32(c2[e])<<16 | uint32(c3[e])<<24
				p ^= bits.RotateLeft32(d, -rot)
				binary.LittleEndian.PutUint32(dst[o:], p)
				o += stride
			}
			binary.LittleEndian.PutUint32(last[g:], p)
		}
	}
}
