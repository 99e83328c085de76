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

// oneWord takes the units of mask (a word's, by bit) that show the clip at
// full weight they showed at the last step (key is their oneKey) and whose
// phase stepped from phase to now no farther than allowed: it moves their
// phase on and returns the others of mask, which meterRun.units takes one by
// one. Only mask's units are written: a word may be two workers' (the kernel
// reads the others' entries, and leaves them). With AVX2 it is oneWordAVX2
// (jumpword_amd64.s), eight units at a time, each operation oneWordGo's on
// lanes: the same bits (TestJumpMeterWord).
func oneWord(key *[64]uint32, species *[64]unit.SpeciesID, clip *[64]unit.ClipID, now, phase, allowed *[64]float32, mask uint64) uint64 {
	if useWordKernel {
		return oneWordAVX2(key, species, clip, now, phase, allowed, mask)
	}
	return oneWordGo(key, species, clip, now, phase, allowed, mask)
}

// oneWordGo is oneWord unit by unit.
func oneWordGo(key *[64]uint32, species *[64]unit.SpeciesID, clip *[64]unit.ClipID, now, phase, allowed *[64]float32, mask uint64) (left uint64) {
	for u := mask; u != 0; u &= u - 1 {
		j := bits.TrailingZeros64(u) & 63
		// Unclamped, a one-shot's step is no shorter than clamped.
		if key[j] == oneKey(species[j], clip[j]) && math.Abs(float64(now[j])-float64(phase[j])) <= float64(allowed[j]) {
			phase[j] = now[j]
			continue
		}
		left |= 1 << j
	}
	return left
}

// pairWordArgs are pairWord's columns, a word's (arrays of 64, indexed by a
// unit's bit), the meter's tables per species id that pairKey reads (clips:
// how many the species has, 0 for none; pairOff) and steadyWeights.
type pairWordArgs struct {
	key                                 *[64]uint32
	species                             *[64]unit.SpeciesID
	clip, other                         *[64]unit.ClipID
	weight, now, phase, w0, w1, allowed *[64]float32
	clips, pairOff                      *[256]int32
	steady                              float64
}

// pairWord takes the units of mask (speed blends without a fade, the other
// gait's clip and weight in other and weight) of a species under 8 (the
// kernel holds the tables' first eight in registers) that show the speed
// blend they showed at the last step (key is their pairKey) at the weights
// they showed then (w0, w1), and whose phase stepped no farther than allowed:
// it moves their phase on and returns the others of mask, which
// meterRun.units takes one by one. Only mask's units are written, as by
// oneWord. With AVX2 it is pairWordAVX2 (jumpword_amd64.s), eight units at a
// time, each operation pairWordGo's on lanes: the same bits
// (TestJumpMeterWord).
func pairWord(a *pairWordArgs, mask uint64) uint64 {
	if useWordKernel {
		return pairWordAVX2(a, mask)
	}
	return pairWordGo(a, mask)
}

// pairWordGo is pairWord unit by unit.
func pairWordGo(a *pairWordArgs, mask uint64) (left uint64) {
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

// pairKey is jumpMeter.pairKey from the tables, in uint32 as the kernel works
// it out (the meter's pairOff and clips are far under 2³¹).
func (a *pairWordArgs) pairKey(s unit.SpeciesID, c, other unit.ClipID) uint32 {
	n := uint32(a.clips[s])
	if uint32(c) >= n || uint32(other) >= n {
		return noKey
	}
	return pairBit | (uint32(a.pairOff[s]) + uint32(c)*n + uint32(other))
}
