package crowd

import (
	"math/bits"
	"sync/atomic"

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
	// The memo (nil: none), and whether its entries may be used (else they
	// are only written).
	memoKey  *uint32  // 128
	memoSel  *uint32  // 136
	memoBase *float32 // 144
	memoPer  *float32 // 152
	memoRead int32    // 160
}

// memo is, per unit, what the selection kernel last chose from the unit's
// inputs, so that a group of eight units whose inputs and clips have not
// changed skips the choosing (the state table, the picks and their transposing)
// and only advances: in a battle, nearly every group in nearly every frame.
// It is a cache, not state: each entry is the pick of the key it holds in the
// catalog cat, so that nothing a game writes has to invalidate it; a clip
// changed from outside (Play, Set) is seen by the clip it holds. The key is
// all the pick is chosen by: the state table's index (flags&0xFFF,
// moving<<12, (weapon&3)<<13), (archetype&7)<<15, min(variant, 7)<<18 and
// species<<21.
type memo struct {
	key []uint32 // the key of the inputs chosen from; noKey: none
	// The pick's clip | state<<16 | rule<<24 | (a speed blend)<<28, its base
	// (the speed blend's pair, as bits, where it has one: its rate does not
	// use base) and its perSpeed.
	sel            []uint32
	base, perSpeed []float32
	// cat is the catalog every entry was written with; nil when not one.
	cat atomic.Pointer[catalog]
}

// noKey is a key no input gives (keys are below 1<<29): the memo holds
// nothing for the unit (its species is not loaded).
const noKey = ^uint32(0)

func (m *memo) init(n int) {
	m.key, m.sel, m.base, m.perSpeed = make([]uint32, n), make([]uint32, n), make([]float32, n), make([]float32, n)
	for i := range m.key {
		m.key[i] = noKey
	}
}

// usable reports whether the entries were written with cat.
func (m *memo) usable(cat *catalog) bool { return m.cat.Load() == cat }

// written records an Animate's memo: whole when the kernel wrote the entries
// of every unit it passes over (all units), with cat; the memo was usable
// before when used.
func (m *memo) written(cat *catalog, used, whole bool) {
	switch {
	case used:
	case whole:
		m.cat.Store(cat)
	default:
		m.cat.Store(nil) // some entries are cat's, others not
	}
}

// selectChunk is how many units the kernel passes over before the units it
// left are done in Go and the chunk's Instances written: a few kilobytes of
// each array, still in the nearest caches.
const selectChunk = 256

// run is the selection's pass: on machines with AVX2 the kernel (select8)
// over whole groups of eight units, which leaves to Go (units) each unit whose
// clip changes, whose species is not loaded, or that blends two gaits; then
// each chunk's Instances. It reports whether the kernel wrote the memo's
// entries of every group.
func (sl *selection) run() bool {
	n := len(sl.species)
	cat := sl.cat
	if !useAVX2 || n < 8 || len(cat.picks) == 0 {
		sl.units(0, n)
		sl.rows(0, n)
		return false
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
	if m := &sl.c.memo; len(m.key) == len(sl.c.Species) {
		a.memoKey, a.memoSel, a.memoBase, a.memoPer = &m.key[sl.lo], &m.sel[sl.lo], &m.base[sl.lo], &m.perSpeed[sl.lo]
		if sl.memo {
			a.memoRead = 1
		}
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
	return a.memoKey != nil
}

// select8 is units over groups×8 units from start, eight at a time with AVX2
// (batch_amd64.s), except the units it leaves: it writes nothing of those,
// and sets their bits in left, a byte per group. It returns the seen bits of
// the units it did.
//
//go:noescape
func select8(a *selectArgs, start, groups int, left *uint8) uint32
