package crowd

import (
	"math/bits"

	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// selectArgs is what the selection kernel reads (batch_amd64.s reads its
// fields by offset: TestSelectArgsLayout).
type selectArgs struct {
	states  *unit.StateID     // 0: catalog.states, the state table padded for 4-byte loads
	picks   *pick             // 8
	species *unit.SpeciesID   // 16
	arch    *roster.Archetype // 24
	variant *uint8            // 32
	flags   *unit.Flags       // 40
	weapon  *unit.Weapon      // 48
	speed   *float32          // 56
	swing   *float32          // 64: nil: nobody swings
	clips   *unit.ClipID      // 72
	phase   *float32          // 80
	rate    *float32          // 88
	state   *unit.StateID     // 96
	gaitW   *float32          // 104: nil without Blend
	pairs   *gaitPair         // 112
	maxID   int32             // 120
	dt      float32           // 124
}

// selectChunk is how many units the kernel passes over before the units it
// left are done in Go and the chunk's Instances written: a few kilobytes of
// each array, still in the nearest caches.
const selectChunk = 256

// run is the selection's pass: on machines with AVX2 the kernel (select8)
// over whole groups of eight units, which leaves to Go (units) each unit whose
// clip changes, whose species is not loaded, that blends two gaits, or whose
// phase leaves [0,1) before it settles; then each chunk's Instances.
func (sl *selection) run() {
	n := len(sl.species)
	cat := sl.cat
	if !useAVX2 || n < 8 || len(cat.picks) == 0 {
		sl.units(0, n)
		sl.rows(0, n)
		return
	}
	a := selectArgs{states: &cat.states[0], picks: &cat.picks[0], species: &sl.species[0], arch: &sl.arch[0],
		variant: &sl.variant[0], flags: &sl.flags[0], weapon: &sl.weapon[0], speed: &sl.speed[0], clips: &sl.clips[0],
		phase: &sl.phase[0], rate: &sl.rate[0], state: &sl.state[0], pairs: &cat.pairs[0], maxID: int32(cat.maxID), dt: sl.dt}
	if sl.swing != nil {
		a.swing = &sl.swing[0]
	}
	if sl.gaitW != nil {
		a.gaitW = &sl.gaitW[0]
	}
	var left [selectChunk / 8]uint8
	for from := 0; from < n; from += selectChunk {
		to := min(from+selectChunk, n)
		g := (to - from) / 8
		if g > 0 {
			sl.seen |= select8(&a, from, g, &left[0])
		}
		for j, m := range left[:g] {
			for m != 0 {
				i := from + 8*j + bits.TrailingZeros8(m)
				m &= m - 1
				sl.units(i, i+1)
			}
		}
		sl.units(from+8*g, to)
		sl.rows(from, to)
	}
}

// select8 is units over groups×8 units from start, eight at a time with AVX2
// (batch_amd64.s), except the units it leaves: it writes nothing of those,
// and sets their bits in left, a byte per group. It returns the seen bits of
// the units it did.
//
//go:noescape
func select8(a *selectArgs, start, groups int, left *uint8) uint32
