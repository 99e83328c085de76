package xz

// The LZMA model shared by the decoder and the encoder: probabilities, the
// state machine and the sizes of each coder (the LZMA SDK's layout).

// prob is an adaptive probability of a 0 bit, out of 1<<probBits.
type prob uint16

const (
	probBits  = 11
	probInit  = prob(1 << (probBits - 1))
	moveBits  = 5
	topValue  = 1 << 24
	numStates = 12

	maxPosBits      = 4
	numPosStatesMax = 1 << maxPosBits

	lenLowBits     = 3
	lenMidBits     = 3
	lenHighBits    = 8
	lenLowSymbols  = 1 << lenLowBits
	lenMidSymbols  = 1 << lenMidBits
	minMatchLen    = 2
	maxMatchLen    = minMatchLen + lenLowSymbols + lenMidSymbols + (1 << lenHighBits) - 1 // 273
	numLenToStates = 4

	posSlotBits        = 6
	startPosModelIndex = 4
	endPosModelIndex   = 14
	numFullDistances   = 1 << (endPosModelIndex >> 1) // 128
	alignBits          = 4
	alignSize          = 1 << alignBits

	literalCoderSize = 0x300
)

// LZMA2 chunk control bytes (the first byte of each chunk).
const (
	chunkEnd             = 0x00
	chunkCopyResetDict   = 0x01 // uncompressed, dictionary reset
	chunkCopy            = 0x02 // uncompressed, dictionary kept
	chunkLZMA            = 0x80 // | reset<<5 | (unpacked size-1)>>16
	chunkResetState      = 1    // reset field values
	chunkResetStateProps = 2
	chunkResetAll        = 3
	maxChunkUnpacked     = 1 << 21 // 2 MiB
	maxChunkPacked       = 1 << 16 // 64 KiB
	maxChunkCopy         = 1 << 16 // an uncompressed chunk's limit
)

// State transitions: states 0–6 follow a literal, 7–11 a match or rep.
func stateLiteral(s int) int {
	switch {
	case s < 4:
		return 0
	case s < 10:
		return s - 3
	}
	return s - 6
}
func stateMatch(s int) int      { return map2(s, 7, 10) }
func stateRep(s int) int        { return map2(s, 8, 11) }
func stateShortRep(s int) int   { return map2(s, 9, 11) }
func isLiteralState(s int) bool { return s < 7 }

func map2(s, afterLiteral, afterMatch int) int {
	if s < 7 {
		return afterLiteral
	}
	return afterMatch
}

// lenToState picks the distance model from the match length.
func lenToState(length int) int { return min(length-minMatchLen, numLenToStates-1) }

// props are the LZMA literal context, literal position and position bits.
type props struct{ lc, lp, pb int }

// defaultProps are xz's: lc=3, lp=0, pb=2.
var defaultProps = props{3, 0, 2}

// parseProps decodes an LZMA2 properties byte; LZMA2 requires lc+lp ≤ 4.
func parseProps(b byte) (props, bool) {
	if b >= 9*5*5 {
		return props{}, false
	}
	p := props{lc: int(b % 9), lp: int(b / 9 % 5), pb: int(b / 45)}
	return p, p.lc+p.lp <= 4
}

func (p props) byte() byte { return byte((p.pb*5+p.lp)*9 + p.lc) }

// lenProbs codes match lengths: 2–9 (low, per position state), 10–17 (mid),
// 18–273 (high).
type lenProbs struct {
	choice, choice2 prob
	low             [numPosStatesMax][lenLowSymbols]prob
	mid             [numPosStatesMax][lenMidSymbols]prob
	high            [1 << lenHighBits]prob
}

// model holds every probability of an LZMA coder.
type model struct {
	literal    []prob // literalCoderSize << (lc+lp)
	isMatch    [numStates][numPosStatesMax]prob
	isRep      [numStates]prob
	isRepG0    [numStates]prob
	isRepG1    [numStates]prob
	isRepG2    [numStates]prob
	isRep0Long [numStates][numPosStatesMax]prob
	posSlot    [numLenToStates][1 << posSlotBits]prob
	posSpecial [1 + numFullDistances - endPosModelIndex]prob
	align      [alignSize]prob
	matchLen   lenProbs
	repLen     lenProbs
}

// reset sets every probability to one half, sizing the literal coders for p.
func (m *model) reset(p props) {
	n := literalCoderSize << (p.lc + p.lp)
	if cap(m.literal) < n {
		m.literal = make([]prob, n)
	}
	m.literal = m.literal[:n]
	lit := m.literal
	*m = model{}
	m.literal = lit
	fill(m.literal)
	for s := range numStates {
		fill(m.isMatch[s][:])
		fill(m.isRep0Long[s][:])
	}
	fill(m.isRep[:])
	fill(m.isRepG0[:])
	fill(m.isRepG1[:])
	fill(m.isRepG2[:])
	for i := range m.posSlot {
		fill(m.posSlot[i][:])
	}
	fill(m.posSpecial[:])
	fill(m.align[:])
	m.matchLen.reset()
	m.repLen.reset()
}

func (l *lenProbs) reset() {
	l.choice, l.choice2 = probInit, probInit
	for i := range numPosStatesMax {
		fill(l.low[i][:])
		fill(l.mid[i][:])
	}
	fill(l.high[:])
}

func fill(p []prob) {
	for i := range p {
		p[i] = probInit
	}
}
