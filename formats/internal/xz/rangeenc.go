package xz

// rangeEnc is the LZMA range encoder (the LZMA SDK's RangeEnc): bits are
// coded against adaptive probabilities into out, carries propagated through
// the pending 0xFF bytes it holds back.
type rangeEnc struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64 // bytes held back: cache and the 0xFF bytes after it
	out       []byte
}

func (e *rangeEnc) reset() {
	e.low, e.rng, e.cache, e.cacheSize = 0, 0xFFFFFFFF, 0, 1
	e.out = e.out[:0]
}

// pending is the number of bytes the coder will have written once flushed:
// an upper bound on the chunk's packed size so far.
func (e *rangeEnc) pending() int { return len(e.out) + int(e.cacheSize) + 4 }

func (e *rangeEnc) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		b := e.cache
		for {
			e.out = append(e.out, b+carry)
			b = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

// flush writes out what low still holds; the chunk's data is then complete.
func (e *rangeEnc) flush() {
	for range 5 {
		e.shiftLow()
	}
}

func (e *rangeEnc) bit(p *prob, b uint32) {
	bound := (e.rng >> probBits) * uint32(*p)
	if b == 0 {
		e.rng = bound
		*p += (1<<probBits - *p) >> moveBits
	} else {
		e.low += uint64(bound)
		e.rng -= bound
		*p -= *p >> moveBits
	}
	for e.rng < topValue {
		e.rng <<= 8
		e.shiftLow()
	}
}

// direct codes the low n bits of v, most significant first, at probability
// one half.
func (e *rangeEnc) direct(v uint32, n int) {
	for n > 0 {
		n--
		e.rng >>= 1
		e.low += uint64(e.rng & (0 - (v>>n)&1))
		for e.rng < topValue {
			e.rng <<= 8
			e.shiftLow()
		}
	}
}

// tree codes the n-bit symbol s most significant bit first through the
// bit tree probs (indices from 1).
func (e *rangeEnc) tree(probs []prob, n int, s uint32) {
	m := uint32(1)
	for i := n - 1; i >= 0; i-- {
		b := (s >> i) & 1
		e.bit(&probs[m], b)
		m = m<<1 | b
	}
}

// reverseTree codes s least significant bit first.
func (e *rangeEnc) reverseTree(probs []prob, n int, s uint32) {
	m := uint32(1)
	for range n {
		b := s & 1
		s >>= 1
		e.bit(&probs[m], b)
		m = m<<1 | b
	}
}
