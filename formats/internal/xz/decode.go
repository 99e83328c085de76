package xz

import "fmt"

// The LZMA2 layer: chunk headers and the rules on their order, and the
// decoding of a whole block held in memory (the parallel path).

// chunk is a parsed LZMA2 chunk header.
type chunk struct {
	ctrl     byte
	hdrLen   int // bytes of the header, control byte included
	unpacked int
	packed   int // LZMA chunks; uncompressed ones store unpacked bytes
	props    byte
}

// chunkHeaderLen is the header length a control byte announces, or 0 for a
// control byte LZMA2 does not define.
func chunkHeaderLen(ctrl byte) int {
	switch {
	case ctrl == chunkEnd:
		return 1
	case ctrl == chunkCopyResetDict || ctrl == chunkCopy:
		return 3
	case ctrl >= 0xC0:
		return 6
	case ctrl >= chunkLZMA:
		return 5
	}
	return 0
}

// parseChunk decodes a chunk header; b holds exactly chunkHeaderLen(b[0])
// bytes.
func parseChunk(b []byte) chunk {
	c := chunk{ctrl: b[0], hdrLen: len(b)}
	switch {
	case c.ctrl == chunkEnd:
	case c.ctrl < chunkLZMA:
		c.unpacked = (int(b[1])<<8 | int(b[2])) + 1
		c.packed = c.unpacked
	default:
		c.unpacked = (int(c.ctrl&0x1F)<<16 | int(b[1])<<8 | int(b[2])) + 1
		c.packed = (int(b[3])<<8 | int(b[4])) + 1
		if len(b) == 6 {
			c.props = b[5]
		}
	}
	return c
}

// lzma2Dec decodes the chunks of one block's LZMA2 data.
type lzma2Dec struct {
	lz        lzmaDec
	started   bool // the first chunk (which must reset the dictionary) is done
	needProps bool // a dictionary reset happened: the next LZMA chunk sets properties
}

// reset prepares for a new block: dictionary size dict, window win.
func (d *lzma2Dec) reset(dict uint32, win []byte) {
	d.lz.win, d.lz.dict, d.lz.pos = win, dict, 0
	d.lz.resetDict()
	d.started, d.needProps = false, true
}

// begin checks c against the chunks before it and applies its resets.
func (d *lzma2Dec) begin(c chunk) string {
	dictReset := c.ctrl == chunkCopyResetDict || c.ctrl >= 0xE0
	if !d.started && !dictReset {
		return fmt.Sprintf("LZMA2: first chunk (control 0x%02x) does not reset the dictionary", c.ctrl)
	}
	d.started = true
	if dictReset {
		d.lz.resetDict()
		d.needProps = true
	}
	if c.ctrl < chunkLZMA {
		return ""
	}
	// An LZMA chunk right after an uncompressed one may keep the state:
	// xz's encoder always resets it there, but liblzma and ulikunitz/xz
	// accept a chunk that does not, and so does this reader.
	switch reset := (c.ctrl >> 5) & 3; {
	case reset >= chunkResetStateProps:
		p, ok := parseProps(c.props)
		if !ok {
			return fmt.Sprintf("LZMA2: invalid properties byte 0x%02x (lc+lp must be at most 4)", c.props)
		}
		d.needProps = false
		d.lz.resetState(p)
	case d.needProps:
		return fmt.Sprintf("LZMA2: chunk (control 0x%02x) after a dictionary reset does not set properties", c.ctrl)
	case reset == chunkResetState:
		d.lz.resetState(d.lz.p)
	}
	return ""
}

// data decodes a chunk's packed bytes into the window.
func (d *lzma2Dec) data(c chunk, b []byte) string {
	if c.ctrl < chunkLZMA {
		d.lz.put(b)
		return ""
	}
	return d.lz.decode(b, c.unpacked)
}

// decodeBlock decodes one block's LZMA2 data held whole in src (exactly the
// declared compressed size) into out (exactly the declared uncompressed
// size). at is src's offset in the stream, for messages.
func decodeBlock(src, out []byte, dict uint32, at int64) error {
	var d lzma2Dec
	d.reset(dict, out)
	done := 0
	for ip := 0; ; {
		if ip >= len(src) {
			return &Error{at + int64(ip), "LZMA2 data runs past the block's declared compressed size"}
		}
		n := chunkHeaderLen(src[ip])
		if n == 0 {
			return &Error{at + int64(ip), fmt.Sprintf("LZMA2: invalid chunk control byte 0x%02x", src[ip])}
		}
		if ip+n > len(src) {
			return &Error{at + int64(ip), "LZMA2 data runs past the block's declared compressed size"}
		}
		c := parseChunk(src[ip : ip+n])
		if c.ctrl == chunkEnd {
			ip++
			if ip != len(src) {
				return &Error{at + int64(ip), fmt.Sprintf("LZMA2 data ends %d bytes before the block's declared compressed size", len(src)-ip)}
			}
			if done != len(out) {
				return &Error{at + int64(ip), fmt.Sprintf("block decodes to %d bytes, its header declares %d", done, len(out))}
			}
			return nil
		}
		if msg := d.begin(c); msg != "" {
			return &Error{at + int64(ip), msg}
		}
		if done+c.unpacked > len(out) {
			return &Error{at + int64(ip), fmt.Sprintf("block decodes to more than the %d bytes its header declares", len(out))}
		}
		ip += n
		if c.packed > len(src)-ip {
			return &Error{at + int64(ip), "LZMA2 data runs past the block's declared compressed size"}
		}
		if msg := d.data(c, src[ip:ip+c.packed]); msg != "" {
			return &Error{at + int64(ip-n), msg}
		}
		ip += c.packed
		done += c.unpacked
	}
}
