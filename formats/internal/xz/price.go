package xz

import "sync"

// Prices are the cost of coding, in 1/16 bit (the LZMA SDK's units): the
// optimal parser compares paths by their summed prices.

const (
	priceShiftBits  = 4
	moveReduceBits  = 4
	infinityPrice   = 1 << 30
	numPriceEntries = 1 << probBits >> moveReduceBits
)

// probPrices[p>>moveReduceBits] is the price of a bit whose probability is p.
// It is filled when the first encoder is made (fillPrices), not when a program
// that links the package starts: only encoding reads it.
var probPrices [numPriceEntries]uint32

var fillPrices = sync.OnceFunc(func() {
	t := &probPrices
	for i := range t {
		w := uint32(i<<moveReduceBits + 1<<(moveReduceBits-1))
		bits := uint32(0)
		for range priceShiftBits {
			w *= w
			bits <<= 1
			for w >= 1<<16 {
				w >>= 1
				bits++
			}
		}
		t[i] = probBits<<priceShiftBits - 15 - bits
	}
})

func price0(p prob) uint32 { return probPrices[p>>moveReduceBits] }
func price1(p prob) uint32 { return probPrices[(1<<probBits-p)>>moveReduceBits] }
func priceBit(p prob, b uint32) uint32 {
	if b == 0 {
		return price0(p)
	}
	return price1(p)
}

func treePrice(probs []prob, n int, s uint32) uint32 {
	price := uint32(0)
	s |= 1 << n
	for s > 1 {
		price += priceBit(probs[s>>1], s&1)
		s >>= 1
	}
	return price
}

func reverseTreePrice(probs []prob, n int, s uint32) uint32 {
	price := uint32(0)
	m := uint32(1)
	for range n {
		b := s & 1
		s >>= 1
		price += priceBit(probs[m], b)
		m = m<<1 | b
	}
	return price
}

// lenPrices caches the price of every match length per position state for
// one length coder; it is refilled after a number of uses so it follows the
// adapting probabilities.
type lenPrices struct {
	prices [numPosStatesMax][maxMatchLen - minMatchLen + 1]uint32
	left   int // codings before the next refill
}

func (t *lenPrices) fill(l *lenProbs, posStates int) {
	a0, a1 := price0(l.choice), price1(l.choice)
	b0, b1 := a1+price0(l.choice2), a1+price1(l.choice2)
	var high [1 << lenHighBits]uint32
	for s := range high {
		high[s] = b1 + treePrice(l.high[:], lenHighBits, uint32(s))
	}
	for ps := range posStates {
		p := &t.prices[ps]
		for s := range lenLowSymbols {
			p[s] = a0 + treePrice(l.low[ps][:], lenLowBits, uint32(s))
		}
		for s := range lenMidSymbols {
			p[lenLowSymbols+s] = b0 + treePrice(l.mid[ps][:], lenMidBits, uint32(s))
		}
		copy(p[lenLowSymbols+lenMidSymbols:], high[:])
	}
	t.left = 256
}

// literalPrice is the price of byte b as a plain literal.
func literalPrice(probs []prob, b byte) uint32 {
	price := uint32(0)
	s := uint32(b) | 0x100
	for s < 0x10000 {
		price += priceBit(probs[s>>8], (s>>7)&1)
		s <<= 1
	}
	return price
}

// matchedLiteralPrice is the price of b coded against the byte at rep0.
func matchedLiteralPrice(probs []prob, b, match byte) uint32 {
	price := uint32(0)
	offs := uint32(0x100)
	s := uint32(b) | 0x100
	m := uint32(match)
	for s < 0x10000 {
		m <<= 1
		price += priceBit(probs[offs+(m&offs)+(s>>8)], (s>>7)&1)
		s <<= 1
		offs &= ^(m ^ s)
	}
	return price
}
