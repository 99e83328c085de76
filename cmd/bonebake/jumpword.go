// The bone-jump meter's most common tests, a word of 64 units at a time: a unit
// showing the clip it showed at the last step at full weight, or the speed
// blend it showed at the same weights, whose phase stepped no farther than it
// was allowed to.

package main

import (
	"math"
	"math/bits"

	"github.com/bonebake/bonebake/crowd/unit"
)

// wordArgs are the word tests' columns, a word's (arrays of 64, indexed by a
// unit's bit; other and weight the other gait's clip and weight of a speed
// blend), the meter's tables per species id that pairKey reads (clips: how
// many the species has, 0 for none; pairOff) and steadyWeights.
type wordArgs struct {
	key                                 *[64]uint32
	species                             *[64]unit.SpeciesID
	clip, other                         *[64]unit.ClipID
	weight, now, phase, w0, w1, allowed *[64]float32
	clips, pairOff                      *[256]int32
	steady                              float64
}

// tests takes the units of one (showing one clip at full weight) that show the
// clip they showed at the last step (key is their oneKey), and those of pair
// (speed blends without a fade; one and pair disjoint) of a species under 8
// (the kernel holds the tables' first eight in registers) that show the speed
// blend they showed at the last step (key is their pairKey) at the weights
// they showed then (w0, w1), whose phase stepped from phase to now no farther
// than allowed: it moves their phase on and returns the others of one and
// pair, which meterRun.units takes one by one. Only one's and pair's units
// are written: a word may be two workers' (the kernel reads the others'
// entries, and leaves them). With AVX2 it is wordAVX2 (jumpword_amd64.s),
// eight units at a time, each operation oneWordGo's or pairWordGo's on lanes:
// the same bits (TestJumpMeterWord).
func (a *wordArgs) tests(one, pair uint64) uint64 {
	if useWordKernel {
		return wordAVX2(a, one, pair)
	}
	return oneWordGo(a, one) | pairWordGo(a, pair)
}

// oneWordGo is tests for the units of mask showing one clip, unit by unit.
func oneWordGo(a *wordArgs, mask uint64) (left uint64) {
	for u := mask; u != 0; u &= u - 1 {
		j := bits.TrailingZeros64(u) & 63
		// Unclamped, a one-shot's step is no shorter than clamped.
		if a.key[j] == oneKey(a.species[j], a.clip[j]) && math.Abs(float64(a.now[j])-float64(a.phase[j])) <= float64(a.allowed[j]) {
			a.phase[j] = a.now[j]
			continue
		}
		left |= 1 << j
	}
	return left
}

// pairWordGo is tests for the speed blends of mask, unit by unit.
func pairWordGo(a *wordArgs, mask uint64) (left uint64) {
	for u := mask; u != 0; u &= u - 1 {
		j := bits.TrailingZeros64(u) & 63
		if k := a.key[j]; a.species[j] < 8 && k != noKey && k == a.pairKey(a.species[j], a.clip[j], a.other[j]) {
			// Its clip at 1 − w, the other gait's at w (SpeedBlend's sides).
			b0, b1 := 1-a.weight[j], a.weight[j]
			step := math.Abs(float64(a.now[j]) - float64(a.phase[j]))
			steady := b0 == a.w0[j] && b1 == a.w1[j] && math.Abs(float64(b0))+math.Abs(float64(b1)) <= a.steady
			if steady && step <= float64(a.allowed[j]) {
				a.phase[j] = a.now[j]
				continue
			}
		}
		left |= 1 << j
	}
	return left
}

// pairKey is jumpMeter.pairKey from the word's tables.
func (a *wordArgs) pairKey(s unit.SpeciesID, c, other unit.ClipID) uint32 {
	return tablePairKey(a.clips, a.pairOff, s, c, other)
}

// tablePairKey is the key of a unit of species s showing a speed blend of
// clips c and other, from the tables of how many clips each species has and
// where its pairs start (noKey if either clip is not the species'), in uint32
// as the kernel works it out (the meter's offsets and clips are far under
// 2³¹).
func tablePairKey(clips, pairOff *[256]int32, s unit.SpeciesID, c, other unit.ClipID) uint32 {
	n := uint32(clips[s])
	if uint32(c) >= n || uint32(other) >= n {
		return noKey
	}
	return pairBit | (uint32(pairOff[s]) + uint32(c)*n + uint32(other))
}
