package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bonebake/bonebake/crowd/unit"
)

// TestJumpMeterWord holds the word tests' kernel to their Go loops: on words
// of units showing one clip and speed blends, drawn to sit at the tests'
// edges (keys one bit off, steps equal to what is allowed or a float32 unit
// past it, none allowed, NaN, ±0, phases far apart, random masks; clips the
// species lacks, species the tables lack or past 8 alike one under 8, a key
// worked out as noKey, weights a float32 unit off, outside [0, 1] or adding
// up to steady exactly), the same units left and the same phases, bit for
// bit, and no phase outside the masks touched. And the meter's tables give
// pairKey's keys.
func TestJumpMeterWord(t *testing.T) {
	reg, _, err := simRegistry("", false)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	m := newJumpMeter(reg, 64)
	tab := wordArgs{clips: &m.clipsOf, pairOff: &m.pairOffOf}
	for s := range m.paths {
		n := len(m.paths[s].clips)
		for c := range n + 2 {
			for o := range n + 2 {
				if got, want := tab.pairKey(unit.SpeciesID(s), unit.ClipID(c), unit.ClipID(o)), m.pairKey(unit.SpeciesID(s), unit.ClipID(c), unit.ClipID(o)); got != want {
					t.Fatalf("species %d, clips %d and %d: key %#x from the tables, pairKey %#x", s, c, o, got, want)
				}
			}
		}
	}
	for s := len(m.paths); s < 256; s++ {
		if m.clipsOf[s] != 0 {
			t.Fatalf("species %d, not the meter's, has %d clips in its table", s, m.clipsOf[s])
		}
	}
	if !useWordKernel {
		t.Skip("no word kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(46, 7))
	for round := range 4000 {
		// Half the rounds take the meter's tables, half tables drawn at
		// random, with offsets up to 2³¹ − 1.
		a := wordArgs{clips: &m.clipsOf, pairOff: &m.pairOffOf, steady: steadyWeights}
		kinds := len(m.paths)
		if round%2 == 1 {
			var clips, pairOff [256]int32
			kinds = 1 + rng.IntN(255)
			for s := range kinds {
				clips[s], pairOff[s] = int32(rng.IntN(40)), int32(rng.Uint32()>>1)
				if s >= 8 && rng.IntN(2) == 0 { // a species past the kernel's alike one under 8
					clips[s], pairOff[s] = clips[s&7], pairOff[s&7]
				}
			}
			a.clips, a.pairOff = &clips, &pairOff
		}
		var key [64]uint32
		var species [64]unit.SpeciesID
		var clip, other [64]unit.ClipID
		var weight, now, phase, w0, w1, allowed [64]float32
		// Which units show one clip, which a speed blend (the others
		// neither: no test reads them).
		one := rng.Uint64()
		pair := rng.Uint64() &^ one
		switch round % 4 {
		case 1:
			pair = ^one
		case 2:
			one &= rng.Uint64() & rng.Uint64()
		case 3:
			pair = 0
		}
		for j := range 64 {
			s := rng.IntN(min(kinds+2, 256))
			species[j] = unit.SpeciesID(s)
			n := int(a.clips[s])
			clip[j], other[j] = unit.ClipID(rng.IntN(n+2)), unit.ClipID(rng.IntN(n+2))
			if one&(1<<j) != 0 {
				clip[j] = unit.ClipID(rng.IntN(1 << 16))
				key[j] = oneKey(species[j], clip[j])
				switch rng.IntN(4) {
				case 0:
					key[j] ^= 1 << rng.IntN(32)
				case 1:
					key[j] = noKey
				}
			} else {
				key[j] = a.pairKey(species[j], clip[j], other[j])
				switch rng.IntN(9) {
				case 0:
					key[j] ^= 1 << rng.IntN(32)
				case 1:
					key[j] = oneKey(species[j], clip[j])
				case 2:
					key[j] = a.pairKey(species[j], other[j], clip[j])
				case 3: // a clip past the species' aliasing another pair's key
					if n > 0 && int(clip[j])+1 < n {
						other[j], key[j] = unit.ClipID(n), a.pairKey(species[j], clip[j]+1, 0)
					}
				case 4: // a clip past the species', its key worked out as if not
					if n > 0 && other[j] < unit.ClipID(n) {
						clip[j], key[j] = unit.ClipID(n), pairBit|(uint32(a.pairOff[s])+uint32(n*n)+uint32(other[j]))
					}
				case 5: // pairBit | 2³¹ − 1 is noKey: never a pair's
					if round%2 == 1 && n > 0 && clip[j] < unit.ClipID(n) && other[j] < unit.ClipID(n) {
						a.pairOff[s] = int32(1<<31 - 1 - int(clip[j])*n - int(other[j]))
						key[j] = noKey
					}
				}
			}
			weight[j] = rng.Float32()
			w0[j], w1[j] = 1-weight[j], weight[j]
			switch rng.IntN(10) {
			case 0:
				w0[j] = math.Nextafter32(w0[j], 2)
			case 1:
				w1[j] = math.Nextafter32(w1[j], -1)
			case 2:
				weight[j] = float32(math.NaN())
			case 3:
				weight[j] = -rng.Float32() * 1e-6 // |1 − w| + |w| just past 1
				w0[j], w1[j] = 1-weight[j], weight[j]
			case 4:
				weight[j] = 1 + rng.Float32()*1e-6
				w0[j], w1[j] = 1-weight[j], weight[j]
			}
			phase[j] = rng.Float32()*2 - 0.5
			now[j] = phase[j] + float32(rng.NormFloat64()*0.01)
			d := float32(math.Abs(float64(now[j]) - float64(phase[j])))
			switch rng.IntN(8) {
			case 0:
				allowed[j] = d
			case 1:
				allowed[j] = math.Nextafter32(d, 0)
			case 2:
				allowed[j] = -1
			case 3:
				allowed[j] = float32(math.NaN())
			case 4:
				now[j] = float32(math.NaN())
			case 5:
				now[j], phase[j], allowed[j] = float32(math.Copysign(0, -1)), 0, 0
			case 6:
				now[j] = phase[j] + 0.75
				allowed[j] = 0.25
			default:
				allowed[j] = d * (1 + rng.Float32()*0.1 - 0.05)
			}
		}
		if round%3 == 2 { // one unit's weights adding up to steady exactly
			j := rng.IntN(64)
			a.steady = math.Abs(float64(w0[j])) + math.Abs(float64(w1[j]))
		}
		a.key, a.species, a.clip, a.other, a.weight, a.now, a.w0, a.w1, a.allowed = &key, &species, &clip, &other, &weight, &now, &w0, &w1, &allowed
		pg, pk := phase, phase
		a.phase = &pg
		lg := oneWordGo(&a, one) | pairWordGo(&a, pair)
		a.phase = &pk
		lk := wordAVX2(&a, one, pair)
		if lg != lk {
			t.Fatalf("round %d: the kernel leaves %064b, the Go loops %064b (one %064b, pair %064b)", round, lk, lg, one, pair)
		}
		for j := range 64 {
			if math.Float32bits(pg[j]) != math.Float32bits(pk[j]) {
				t.Fatalf("round %d, unit %d: phase %v from the kernel, %v from the Go loops", round, j, pk[j], pg[j])
			}
			if (one|pair)&(1<<j) == 0 && math.Float32bits(pk[j]) != math.Float32bits(phase[j]) {
				t.Fatalf("round %d, unit %d: in neither mask, its phase written", round, j)
			}
		}
		if round < 2 && (lg == one|pair || lg&(one|pair) == 0) {
			t.Fatalf("round %d: the kernel leaves %064b of %064b: the draws test one side alone", round, lg, one|pair)
		}
	}
}
