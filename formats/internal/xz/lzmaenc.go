package xz

import "math/bits"

// The LZMA encoder: symbols chosen by the optimal parser (price_parse.go)
// are coded into a range coder, one LZMA2 chunk at a time (encode.go).

const (
	numReps = 4
	// numOpts bounds the optimal parser's look-ahead (the LZMA SDK's kNumOpts).
	numOpts = 1 << 11
	// packReserve is room left in a chunk for the symbols of one more parse:
	// no symbol costs more than 8 bytes a position (the SDK's kPackReserve).
	packReserve = numOpts * 8
	// unpackReserve keeps a chunk's unpacked size within LZMA2's limit when
	// one more parse ends it.
	unpackReserve = numOpts + maxMatchLen + 32
	noMatch       = ^uint32(0) // back of a literal

	// The encoder codes with xz's default properties (defaultProps):
	// lc=3, lp=0, pb=2.
	encLC     = 3
	encPB     = 2
	pbMask    = 1<<encPB - 1
	posStates = 1 << encPB
)

// lzmaEnc codes one block; it is reused block after block by one worker.
type lzmaEnc struct {
	m     model
	rc    rangeEnc
	mf    *bt4
	buf   []byte
	nice  int
	state int
	reps  [numReps]uint32 // distances - 1 of the last four matches
	pos   int             // next position to code

	// The match finder runs ahead of pos by ahead positions; the matches of
	// its last position are kept for the next parse.
	ahead       int
	avail       int
	longest     int
	numPairs    int
	matchBuf    []uint32
	optEnd      int
	optCur      int
	opt         []optimal
	matchLenP   lenPrices
	repLenP     lenPrices
	slotPrices  [numLenToStates][1 << posSlotBits]uint32
	distPrices  [numLenToStates][numFullDistances]uint32
	alignPrices [alignSize]uint32
	numSlots    int
	matchCount  int // matches coded since distPrices were filled
	alignCount  int // align codings since alignPrices were filled
}

func newLZMAEnc(window, hashWindow, nice, depth int) *lzmaEnc {
	fillPrices()
	e := &lzmaEnc{
		mf:       newBT4(window, hashWindow, nice, depth),
		nice:     nice,
		matchBuf: make([]uint32, 0, 2*(maxMatchLen+2)),
		opt:      make([]optimal, numOpts),
		numSlots: int(posSlotOf(uint32(window-1))) + 1,
	}
	return e
}

// startBlock prepares to code buf from its start.
func (e *lzmaEnc) startBlock(buf []byte) {
	e.buf = buf
	e.mf.reset(buf)
	e.pos, e.ahead = 0, 0
	e.resetState()
}

// resetState starts a new LZMA state at pos, as an LZMA2 chunk with a state
// reset does: probabilities, state and reps back to their initial values.
// It is called where the parser has nothing pending (ahead == 0).
func (e *lzmaEnc) resetState() {
	e.m.reset(defaultProps)
	e.state = 0
	e.reps = [numReps]uint32{}
	e.optEnd, e.optCur = 0, 0
	e.fillDistPrices()
	e.fillAlignPrices()
	e.matchLenP.fill(&e.m.matchLen, posStates)
	e.repLenP.fill(&e.m.repLen, posStates)
}

func posSlotOf(d uint32) uint32 {
	if d < 4 {
		return d
	}
	n := uint32(bits.Len32(d) - 1)
	return 2*n + (d>>(n-1))&1
}

func (e *lzmaEnc) litProbs(pos int) []prob {
	prev := byte(0)
	if pos > 0 {
		prev = e.buf[pos-1]
	}
	i := literalCoderSize * int(prev>>(8-encLC))
	return e.m.literal[i : i+literalCoderSize]
}

// codeChunk codes symbols from pos until the buffer ends or the chunk is as
// full as LZMA2 allows; the range coder then holds the chunk's packed data.
func (e *lzmaEnc) codeChunk() {
	e.rc.reset()
	start := e.pos
	if e.pos == 0 {
		// The first byte has no history: a plain literal.
		e.matchBuf = e.mf.matches(e.matchBuf[:0])
		e.rc.bit(&e.m.isMatch[0][0], 0)
		e.codeLiteral(e.litProbs(0), e.buf[0])
		e.state = stateLiteral(e.state)
		e.pos = 1
	}
	for e.pos < len(e.buf) || e.ahead > 0 {
		if e.ahead == 0 && (e.pos-start+unpackReserve >= maxChunkUnpacked ||
			e.rc.pending()+packReserve >= maxChunkPacked) {
			break
		}
		back, n := e.optimum()
		e.codeSymbol(back, n)
		e.ahead -= n
		e.pos += n
		if e.ahead == 0 {
			if e.matchCount >= 128 {
				e.fillDistPrices()
			}
			if e.alignCount >= alignSize {
				e.fillAlignPrices()
			}
		}
	}
	e.rc.flush()
}

func (e *lzmaEnc) codeSymbol(back uint32, n int) {
	posState := e.pos & pbMask
	st := e.state
	if back == noMatch {
		e.rc.bit(&e.m.isMatch[st][posState], 0)
		probs := e.litProbs(e.pos)
		if isLiteralState(st) {
			e.codeLiteral(probs, e.buf[e.pos])
		} else {
			e.codeMatchedLiteral(probs, e.buf[e.pos], e.buf[e.pos-int(e.reps[0])-1])
		}
		e.state = stateLiteral(st)
		return
	}
	e.rc.bit(&e.m.isMatch[st][posState], 1)
	if back < numReps {
		e.rc.bit(&e.m.isRep[st], 1)
		if back == 0 {
			e.rc.bit(&e.m.isRepG0[st], 0)
			long := uint32(0)
			if n != 1 {
				long = 1
			}
			e.rc.bit(&e.m.isRep0Long[st][posState], long)
		} else {
			d := e.reps[back]
			e.rc.bit(&e.m.isRepG0[st], 1)
			if back == 1 {
				e.rc.bit(&e.m.isRepG1[st], 0)
			} else {
				e.rc.bit(&e.m.isRepG1[st], 1)
				e.rc.bit(&e.m.isRepG2[st], back-2)
			}
			copy(e.reps[1:back+1], e.reps[:back])
			e.reps[0] = d
		}
		if n == 1 {
			e.state = stateShortRep(st)
		} else {
			e.codeLen(&e.m.repLen, &e.repLenP, n, posState)
			e.state = stateRep(st)
		}
		return
	}
	e.rc.bit(&e.m.isRep[st], 0)
	e.state = stateMatch(st)
	e.codeLen(&e.m.matchLen, &e.matchLenP, n, posState)
	d := back - numReps
	slot := posSlotOf(d)
	e.rc.tree(e.m.posSlot[lenToState(n)][:], posSlotBits, slot)
	if slot >= startPosModelIndex {
		footer := int(slot>>1) - 1
		base := (2 | slot&1) << footer
		red := d - base
		if slot < endPosModelIndex {
			e.rc.reverseTree(e.m.posSpecial[base-slot:], footer, red)
		} else {
			e.rc.direct(red>>alignBits, footer-alignBits)
			e.rc.reverseTree(e.m.align[:], alignBits, red&(alignSize-1))
			e.alignCount++
		}
	}
	copy(e.reps[1:], e.reps[:numReps-1])
	e.reps[0] = d
	e.matchCount++
}

func (e *lzmaEnc) codeLen(l *lenProbs, t *lenPrices, n, posState int) {
	s := uint32(n - minMatchLen)
	switch {
	case s < lenLowSymbols:
		e.rc.bit(&l.choice, 0)
		e.rc.tree(l.low[posState][:], lenLowBits, s)
	case s < lenLowSymbols+lenMidSymbols:
		e.rc.bit(&l.choice, 1)
		e.rc.bit(&l.choice2, 0)
		e.rc.tree(l.mid[posState][:], lenMidBits, s-lenLowSymbols)
	default:
		e.rc.bit(&l.choice, 1)
		e.rc.bit(&l.choice2, 1)
		e.rc.tree(l.high[:], lenHighBits, s-lenLowSymbols-lenMidSymbols)
	}
	t.left--
	if t.left <= 0 {
		t.fill(l, posStates)
	}
}

func (e *lzmaEnc) codeLiteral(probs []prob, b byte) {
	s := uint32(b) | 0x100
	for s < 0x10000 {
		e.rc.bit(&probs[s>>8], (s>>7)&1)
		s <<= 1
	}
}

func (e *lzmaEnc) codeMatchedLiteral(probs []prob, b, match byte) {
	offs := uint32(0x100)
	s := uint32(b) | 0x100
	m := uint32(match)
	for s < 0x10000 {
		m <<= 1
		e.rc.bit(&probs[offs+(m&offs)+(s>>8)], (s>>7)&1)
		s <<= 1
		offs &= ^(m ^ s)
	}
}

// fillDistPrices recomputes the price of every distance below
// numFullDistances and of every position slot, per length state.
func (e *lzmaEnc) fillDistPrices() {
	var special [numFullDistances]uint32
	for d := uint32(startPosModelIndex); d < numFullDistances; d++ {
		slot := posSlotOf(d)
		footer := int(slot>>1) - 1
		base := (2 | slot&1) << footer
		special[d] = reverseTreePrice(e.m.posSpecial[base-slot:], footer, d-base)
	}
	for ls := range numLenToStates {
		sp := &e.slotPrices[ls]
		for slot := range e.numSlots {
			sp[slot] = treePrice(e.m.posSlot[ls][:], posSlotBits, uint32(slot))
		}
		for slot := endPosModelIndex; slot < e.numSlots; slot++ {
			sp[slot] += uint32((slot>>1)-1-alignBits) << priceShiftBits
		}
		dp := &e.distPrices[ls]
		for d := range uint32(startPosModelIndex) {
			dp[d] = sp[d]
		}
		for d := uint32(startPosModelIndex); d < numFullDistances; d++ {
			dp[d] = sp[posSlotOf(d)] + special[d]
		}
	}
	e.matchCount = 0
}

func (e *lzmaEnc) fillAlignPrices() {
	for i := range uint32(alignSize) {
		e.alignPrices[i] = reverseTreePrice(e.m.align[:], alignBits, i)
	}
	e.alignCount = 0
}
