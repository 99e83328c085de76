package xz

// The LZMA decoder: one LZMA2 chunk at a time into a window that is either
// circular (streaming: the dictionary plus room for one chunk's output) or
// the whole output of a block (parallel: it never wraps).
//
// decode keeps the range decoder, the position and the repeat distances in
// locals for the whole chunk, which is what makes it fast: a method call per
// bit would keep them in memory.

// probUp is the target of the branch-free probability update: p -
// (p-probUp)>>moveBits, with an arithmetic shift, is p + (2048-p)>>5 exactly
// (and p - p>>5 with 0 in its place).
const probUp = 1<<probBits - (1<<moveBits - 1)

// litNext is the state after a literal.
var litNext = [numStates]uint8{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5}

// lzmaDec is an LZMA decoder and its window.
type lzmaDec struct {
	m     model
	p     props
	state int
	rep   [4]uint32

	win  []byte // the window; a circular one has a length that is a multiple of 16
	pos  int    // where the next byte goes
	base int    // pos at the last dictionary reset (positions count from it)
	full int    // bytes since the last dictionary reset, capped at len(win)
	prev byte   // the last byte written since the reset (0 right after it)
	dict uint32 // the declared dictionary size: distances must stay below it
}

// resetDict starts a new dictionary at the current position.
func (d *lzmaDec) resetDict() {
	d.base, d.full, d.prev = d.pos, 0, 0
}

// resetState sets the probabilities, the state and the distances as at the
// start of an LZMA stream with properties p.
func (d *lzmaDec) resetState(p props) {
	d.p = p
	d.m.reset(p)
	d.state = 0
	d.rep = [4]uint32{}
}

// advance accounts for n bytes written at the end of a chunk.
func (d *lzmaDec) advance(n int) {
	d.full = min(d.full+n, len(d.win))
}

// put stores an uncompressed chunk in the window.
func (d *lzmaDec) put(b []byte) {
	if len(b) == 0 {
		return
	}
	for rest := b; len(rest) > 0; {
		n := copy(d.win[d.pos:], rest)
		rest = rest[n:]
		d.pos += n
		if d.pos == len(d.win) {
			d.pos = 0
		}
	}
	d.prev = b[len(b)-1]
	d.advance(len(b))
}

// Messages of decode, the rules an LZMA chunk breaks.
const (
	msgRangeFirst = "LZMA chunk: the range decoder's first byte is not 0"
	msgShort      = "LZMA chunk: packed data shorter than the range decoder's 5 bytes"
	msgDistance   = "LZMA chunk: match distance beyond the dictionary"
	msgPastChunk  = "LZMA chunk: match runs past the chunk's unpacked size"
	msgEndMarker  = "LZMA chunk: end-of-payload marker (not allowed in LZMA2)"
	msgPackedSize = "LZMA chunk: the LZMA data does not end exactly at the chunk's packed size"
)

// decode decodes the LZMA data in (exactly one chunk's packed bytes) into n
// bytes of the window. It returns a message naming the broken rule, or "".
func (d *lzmaDec) decode(in []byte, n int) string {
	if len(in) < 5 {
		return msgShort
	}
	if in[0] != 0 {
		return msgRangeFirst
	}
	rng := uint32(0xFFFFFFFF)
	code := uint32(in[1])<<24 | uint32(in[2])<<16 | uint32(in[3])<<8 | uint32(in[4])
	ip := 5

	m := &d.m
	lit := m.literal
	lc := uint(d.p.lc)
	lpMask := 1<<d.p.lp - 1
	pbMask := 1<<d.p.pb - 1
	win := d.win
	wlen := len(win)
	pos, base, prev := d.pos, d.base, d.prev
	state := d.state
	rep0, rep1, rep2, rep3 := d.rep[0], d.rep[1], d.rep[2], d.rep[3]
	maxDist := uint32(min(uint64(d.dict), uint64(wlen)))
	full0 := d.full
	left := n
	msg := ""

	for left > 0 {
		total := pos - base // bytes since the reset, modulo a multiple of 16
		posState := total & pbMask
		st := state % numStates

		// isMatch
		p := &m.isMatch[st][posState]
		if rng < topValue {
			rng <<= 8
			code <<= 8
			if ip < len(in) {
				code |= uint32(in[ip])
			}
			ip++
		}
		bound := (rng >> probBits) * uint32(*p)
		if code < bound {
			rng = bound
			*p += (1<<probBits - *p) >> moveBits

			// A literal, coded in the context of the previous byte and the
			// position; after a match, also of the byte at rep0.
			off := literalCoderSize * ((total&lpMask)<<lc + int(prev)>>(8-lc))
			probs := (*[literalCoderSize]prob)(lit[off : off+literalCoderSize])
			sym := uint32(1)
			if state >= 7 {
				src := pos - int(rep0) - 1
				if src < 0 {
					src += wlen
				}
				match := uint32(win[src])
				offs := uint32(0x100)
				for sym < 0x100 {
					match <<= 1
					bit := offs
					offs &= match
					i := offs + bit + sym
					if rng < topValue {
						rng <<= 8
						code <<= 8
						if ip < len(in) {
							code |= uint32(in[ip])
						}
						ip++
					}
					pr := int32(probs[i])
					bound := (rng >> probBits) * uint32(pr)
					zero := uint32((uint64(code) - uint64(bound)) >> 32)
					rng = (rng-bound)&^zero | bound&zero
					code -= bound &^ zero
					probs[i] = prob(pr - (pr-int32(probUp&zero))>>moveBits)
					sym = sym<<1 + zero + 1
					offs ^= bit & zero
				}
			} else {
				// Branch-free: literal bits are hard to predict.
				for sym < 0x100 {
					if rng < topValue {
						rng <<= 8
						code <<= 8
						if ip < len(in) {
							code |= uint32(in[ip])
						}
						ip++
					}
					pr := int32(probs[sym])
					bound := (rng >> probBits) * uint32(pr)
					zero := uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
					rng = (rng-bound)&^zero | bound&zero
					code -= bound &^ zero
					probs[sym] = prob(pr - (pr-int32(probUp&zero))>>moveBits)
					sym = sym<<1 + zero + 1
				}
			}
			prev = byte(sym)
			win[pos] = prev
			pos++
			if pos == wlen {
				pos = 0
			}
			left--
			state = int(litNext[st])
			continue
		}
		rng -= bound
		code -= bound
		*p -= *p >> moveBits

		// isRep
		isMatch := false
		var lp *lenProbs
		p = &m.isRep[st]
		if rng < topValue {
			rng <<= 8
			code <<= 8
			if ip < len(in) {
				code |= uint32(in[ip])
			}
			ip++
		}
		bound = (rng >> probBits) * uint32(*p)
		if code < bound {
			rng = bound
			*p += (1<<probBits - *p) >> moveBits
			isMatch = true
			lp = &m.matchLen
		} else {
			rng -= bound
			code -= bound
			*p -= *p >> moveBits
			lp = &m.repLen

			// isRepG0
			p = &m.isRepG0[st]
			if rng < topValue {
				rng <<= 8
				code <<= 8
				if ip < len(in) {
					code |= uint32(in[ip])
				}
				ip++
			}
			bound = (rng >> probBits) * uint32(*p)
			if code < bound {
				rng = bound
				*p += (1<<probBits - *p) >> moveBits

				// isRep0Long: 0 is a short rep, one byte at rep0.
				p = &m.isRep0Long[st][posState]
				if rng < topValue {
					rng <<= 8
					code <<= 8
					if ip < len(in) {
						code |= uint32(in[ip])
					}
					ip++
				}
				bound = (rng >> probBits) * uint32(*p)
				if code < bound {
					rng = bound
					*p += (1<<probBits - *p) >> moveBits
					if rep0 >= maxDist || int(rep0) >= full0+n-left {
						msg = msgDistance
						break
					}
					src := pos - int(rep0) - 1
					if src < 0 {
						src += wlen
					}
					prev = win[src]
					win[pos] = prev
					pos++
					if pos == wlen {
						pos = 0
					}
					left--
					state = 9
					if st >= 7 {
						state = 11
					}
					continue
				}
				rng -= bound
				code -= bound
				*p -= *p >> moveBits
			} else {
				rng -= bound
				code -= bound
				*p -= *p >> moveBits

				// isRepG1
				p = &m.isRepG1[st]
				if rng < topValue {
					rng <<= 8
					code <<= 8
					if ip < len(in) {
						code |= uint32(in[ip])
					}
					ip++
				}
				bound = (rng >> probBits) * uint32(*p)
				if code < bound {
					rng = bound
					*p += (1<<probBits - *p) >> moveBits
					rep0, rep1 = rep1, rep0
				} else {
					rng -= bound
					code -= bound
					*p -= *p >> moveBits

					// isRepG2
					p = &m.isRepG2[st]
					if rng < topValue {
						rng <<= 8
						code <<= 8
						if ip < len(in) {
							code |= uint32(in[ip])
						}
						ip++
					}
					bound = (rng >> probBits) * uint32(*p)
					if code < bound {
						rng = bound
						*p += (1<<probBits - *p) >> moveBits
						rep0, rep1, rep2 = rep2, rep0, rep1
					} else {
						rng -= bound
						code -= bound
						*p -= *p >> moveBits
						rep0, rep1, rep2, rep3 = rep3, rep0, rep1, rep2
					}
				}
			}
		}

		// The length: choice bits, then a 3-bit (low, mid) or 8-bit tree.
		var tree []prob
		length := minMatchLen
		bits := lenLowBits
		p = &lp.choice
		if rng < topValue {
			rng <<= 8
			code <<= 8
			if ip < len(in) {
				code |= uint32(in[ip])
			}
			ip++
		}
		bound = (rng >> probBits) * uint32(*p)
		if code < bound {
			rng = bound
			*p += (1<<probBits - *p) >> moveBits
			tree = lp.low[posState][:]
		} else {
			rng -= bound
			code -= bound
			*p -= *p >> moveBits
			p = &lp.choice2
			if rng < topValue {
				rng <<= 8
				code <<= 8
				if ip < len(in) {
					code |= uint32(in[ip])
				}
				ip++
			}
			bound = (rng >> probBits) * uint32(*p)
			if code < bound {
				rng = bound
				*p += (1<<probBits - *p) >> moveBits
				tree = lp.mid[posState][:]
				length += lenLowSymbols
			} else {
				rng -= bound
				code -= bound
				*p -= *p >> moveBits
				tree = lp.high[:]
				length += lenLowSymbols + lenMidSymbols
				bits = lenHighBits
			}
		}
		sym := uint32(1)
		for limit := uint32(1) << bits; sym < limit; {
			i := sym & 0xFF
			if rng < topValue {
				rng <<= 8
				code <<= 8
				if ip < len(in) {
					code |= uint32(in[ip])
				}
				ip++
			}
			pr := tree[i]
			bound := (rng >> probBits) * uint32(pr)
			if code < bound {
				rng = bound
				tree[i] = pr + (1<<probBits-pr)>>moveBits
				sym <<= 1
			} else {
				rng -= bound
				code -= bound
				tree[i] = pr - pr>>moveBits
				sym = sym<<1 | 1
			}
		}
		length += int(sym) - 1<<bits

		if isMatch {
			state = 7
			if st >= 7 {
				state = 10
			}
			rep3, rep2, rep1 = rep2, rep1, rep0

			// The distance: a 6-bit slot, then reverse-coded or direct bits.
			slots := &m.posSlot[min(length-minMatchLen, numLenToStates-1)]
			sym := uint32(1)
			for sym < 1<<posSlotBits {
				if rng < topValue {
					rng <<= 8
					code <<= 8
					if ip < len(in) {
						code |= uint32(in[ip])
					}
					ip++
				}
				pr := slots[sym]
				bound := (rng >> probBits) * uint32(pr)
				if code < bound {
					rng = bound
					slots[sym] = pr + (1<<probBits-pr)>>moveBits
					sym <<= 1
				} else {
					rng -= bound
					code -= bound
					slots[sym] = pr - pr>>moveBits
					sym = sym<<1 | 1
				}
			}
			slot := sym - 1<<posSlotBits
			dist := slot
			if slot >= startPosModelIndex {
				direct := slot>>1 - 1
				dist = (2 | slot&1) << direct
				var rev []prob
				if slot < endPosModelIndex {
					rev = m.posSpecial[dist-slot:]
				} else {
					for k := direct - alignBits; k > 0; k-- {
						if rng < topValue {
							rng <<= 8
							code <<= 8
							if ip < len(in) {
								code |= uint32(in[ip])
							}
							ip++
						}
						rng >>= 1
						code -= rng
						t := 0 - code>>31
						code += rng & t
						dist += (t + 1) << (k + alignBits - 1)
					}
					rev = m.align[:]
					direct = alignBits
				}
				// Reverse bit tree: the low bits, least significant first.
				mi := uint32(1)
				for k := range direct {
					i := mi & 0x7F
					if rng < topValue {
						rng <<= 8
						code <<= 8
						if ip < len(in) {
							code |= uint32(in[ip])
						}
						ip++
					}
					if int(i) >= len(rev) {
						break // unreachable: the trees are sized for their slots
					}
					pr := rev[i]
					bound := (rng >> probBits) * uint32(pr)
					if code < bound {
						rng = bound
						rev[i] = pr + (1<<probBits-pr)>>moveBits
						mi <<= 1
					} else {
						rng -= bound
						code -= bound
						rev[i] = pr - pr>>moveBits
						mi = mi<<1 | 1
						dist |= 1 << k
					}
				}
			}
			if dist == 0xFFFFFFFF {
				msg = msgEndMarker
				break
			}
			rep0 = dist
		} else {
			state = 8
			if st >= 7 {
				state = 11
			}
		}

		// Copy length bytes from rep0+1 back.
		if rep0 >= maxDist || int(rep0) >= full0+n-left {
			msg = msgDistance
			break
		}
		if length > left {
			msg = msgPastChunk
			break
		}
		left -= length
		dist := int(rep0) + 1
		src := pos - dist
		if src < 0 {
			src += wlen
		}
		if pos+length <= wlen && src+length <= wlen {
			if dist >= length {
				copy(win[pos:pos+length], win[src:src+length])
			} else {
				// Overlapping: the last dist bytes repeat; copy them in
				// growing pieces.
				end := pos + length
				for q := pos; q < end; {
					q += copy(win[q:end], win[src:q])
				}
			}
			pos += length
			prev = win[pos-1]
			if pos == wlen {
				pos = 0
			}
		} else {
			for ; length > 0; length-- {
				prev = win[src]
				win[pos] = prev
				pos++
				if pos == wlen {
					pos = 0
				}
				src++
				if src == wlen {
					src = 0
				}
			}
		}
	}
	if msg == "" {
		if rng < topValue { // the final normalization: the byte it reads matters now, not rng
			code <<= 8
			if ip < len(in) {
				code |= uint32(in[ip])
			}
			ip++
		}
		if ip != len(in) || code != 0 {
			msg = msgPackedSize
		}
	}
	d.pos, d.prev, d.state = pos, prev, state
	d.rep = [4]uint32{rep0, rep1, rep2, rep3}
	d.advance(n - left)
	return msg
}
