package crowd

import (
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
	"sync/atomic"
)

// clipEntry is what the hot loops need of one clip: 32 bytes, so that the batch
// kernel finds an entry by shifting. Its first 16 bytes are the kernel's: the
// assembly (batch_amd64.s) loads them as one vector, in this order.
type clipEntry struct {
	scale    float32 // phase → frame position: N for a looping clip, N−1 for a one-shot, 0 when N = 1; exact, as N ≤ MaxClipFrames
	offset   uint32  // palette row of the clip's first frame
	last     int32   // N−1
	wrapTo   int32   // the frame after the last: 0 looping, N−1 one-shot
	keep     float32 // 0 when N = 1 (its phase is always 0), else 1: scale ≠ 0
	base     float32 // phase per second at rest: 1/cycle unless speed-driven
	perSpeed float32 // phase per second per m/s: 1/(cycle·speed) for locomotion
	_        float32
}

// loops reports whether the clip's phase wraps (a single-frame clip: no matter).
func (e *clipEntry) loops() bool { return e.wrapTo != e.last }

func makeEntry(c *registry.Clip) clipEntry {
	n := c.FrameCount
	e := clipEntry{offset: uint32(c.FrameOffset), last: int32(n - 1), keep: 1}
	if c.Loops {
		e.scale = float32(n)
	} else {
		e.scale, e.wrapTo = float32(n-1), int32(n-1)
	}
	if n <= 1 {
		e.scale, e.keep = 0, 0
	}
	if c.Gait.Speed > 0 {
		e.perSpeed = float32(1 / (c.Gait.Cycle * c.Gait.Speed))
	} else if c.Gait.Cycle > 0 {
		e.base = float32(1 / c.Gait.Cycle)
	}
	return e
}

// catalog is the tables the hot loops read, compiled from one registry.View
// (tables) and kept with it: immutable, as the view is.
type catalog struct {
	closed bool
	// Hot tables. entries[id<<clipShift | clip]; sel[(((id·MaxArchetypes)+a)·NumStates+s)·MaxVariants+v].
	entries []clipEntry
	sel     []unit.ClipID // unplayable where the species is not loaded or lacks the archetype
	// pairs[(id·MaxArchetypes+a)·MaxVariants+v]: the walk and run of a speed blend.
	pairs []gaitPair
	// pairAt[k], beside sel[k]: 1 + the index in pairs of the speed blend a unit
	// selected by k plays (its state Walk or Run and its archetype's pair there),
	// 0 for none; Animate reads it instead of asking pair.
	pairAt []uint32
	// picks[k], beside sel[k]: what Animate needs of a unit selected by k, in
	// one load (see pick).
	picks []pick
	// states is unit.States() with 3 bytes more, so that the assembly kernel
	// may load any entry as 4 bytes.
	states []unit.StateID
	// snapRows[id<<clipShift | clip]: the clip's frames in its species' snapshot
	// mesh (not ok without one).
	snapRows []snapEntry
	lod      [registry.MaxSpeciesID + 1]lodBands            // by species id
	maxID    int                                            // −1 when empty
	fades    [registry.MaxSpeciesID + 1]*registry.FadeTable // by species id: Registry.Fades
	// resolved is GPUClock.Commit's table, built on its first use (clockTable).
	resolved atomic.Pointer[[]resolved]
}

// gaitPair is what the speed blend of a unit in the Walk or Run state needs
// (docs/runtime.md §6.3): its archetype's walk and run clips for its variant, their
// ground speeds (walk's the lower) and strides (cycle × ground speed). Zero (walk ==
// run) where there is no such pair: the unit then plays its clip alone by the rate
// of §6.
type gaitPair struct {
	walk, run          unit.ClipID
	walkSpeed          float32 // m/s: walk's ground speed
	perRunDiff         float32 // 1/(run's ground speed − walk's)
	stride, strideDiff float32 // m: walk's stride, run's minus walk's
	// Phase per second per m/s of each gait alone: its clip's perSpeed, so that
	// a unit at one gait's speed plays at exactly the rate of §6.
	walkPer, runPer float32
	_               float32 // 32 bytes: the assembly kernel loads two vectors
}

// gaitSnap is how close to a gait's own speed, as a share of the walk-to-run
// range, a unit plays that gait alone.
const gaitSnap = 1e-3

// blend returns, for a unit playing cl (walk or run) at ground speed sp, the phase
// rate, the other gait's clip and its weight.
func (g *gaitPair) blend(cl unit.ClipID, sp float32) (rate float32, other unit.ClipID, w float32) {
	b := (sp - g.walkSpeed) * g.perRunDiff // run's share
	// Within a thousandth of a gait it is that gait: a speed meant to be one
	// (a walk at 1.4 m/s worked out as distance over time) should not blend in
	// the other at a weight of 1e-7, which costs a blend and keeps a far unit
	// off its snapshot. Such a unit (most of a crowd) plays at its gait's own
	// rate, a multiplication; only one between the speeds divides.
	switch {
	case b < gaitSnap:
		b, rate = 0, sp*g.walkPer
	case b > 1-gaitSnap:
		b, rate = 1, sp*g.runPer
	default:
		// One stride of the blend covers the blend of the two strides, so
		// that planted feet stay planted.
		rate = sp / (g.stride + g.strideDiff*b)
	}
	if cl == g.walk {
		return rate, g.run, b
	}
	return rate, g.walk, 1 - b
}

// clipShift places a species' clips in the catalog's entries: registry.MaxClips
// of them per species.
const clipShift = 8

var _ [registry.MaxClips - 1<<clipShift]byte
var _ [1<<clipShift - registry.MaxClips]byte

// tables returns the catalog of r's species as they stand: built on the first
// use of each registry.View.
func tables(r *registry.Registry) *catalog {
	v := r.View()
	return v.Compiled(func() any { return buildCatalog(r, v) }).(*catalog)
}

// fade is the fade table of species s's units.
func (cat *catalog) fade(s unit.SpeciesID) *registry.FadeTable { return cat.fades[s] }

func buildCatalog(r *registry.Registry, v *registry.View) *catalog {
	list := v.Loaded()
	c := &catalog{closed: v.Closed(), maxID: -1}
	def := registry.DefaultFades()
	for id := range c.lod {
		d := r.LOD(unit.SpeciesID(id))
		c.lod[id] = lodBands{up: [2]float32{d.Reduced * (1 + registry.LODHysteresis), d.Snapshot * (1 + registry.LODHysteresis)},
			down: [2]float32{d.Reduced * (1 - registry.LODHysteresis), d.Snapshot * (1 - registry.LODHysteresis)}}
		c.fades[id] = &def // shared by the species that keep the default
		if t := r.Fades(unit.SpeciesID(id)); t != def {
			c.fades[id] = &t
		}
	}
	for _, s := range list {
		c.maxID = max(c.maxID, int(s.ID))
	}
	// An empty entry plays row 0 at phase 0; the last one is for units whose species
	// is not loaded or whose clip number is too large.
	c.entries = make([]clipEntry, (c.maxID+1)<<clipShift+1)
	c.sel = make([]unit.ClipID, (c.maxID+1)*registry.MaxArchetypes*int(unit.NumStates)*registry.MaxVariants)
	for k := range c.sel {
		c.sel[k] = unplayable
	}
	c.pairs = make([]gaitPair, (c.maxID+1)*registry.MaxArchetypes*registry.MaxVariants)
	c.pairAt = make([]uint32, len(c.sel))
	c.picks = make([]pick, len(c.sel))
	c.states = append(unit.States()[:], 0, 0, 0)
	c.snapRows = make([]snapEntry, (c.maxID+1)<<clipShift+1) // + the empty entry, as entries
	for _, s := range list {
		copy(c.snapRows[int(s.ID)<<clipShift:], snapEntries(s))
		for k := range s.Clips {
			c.entries[int(s.ID)<<clipShift|k] = makeEntry(&s.Clips[k])
		}
		for a := range registry.MaxArchetypes {
			t := s.Table(roster.Archetype(a))
			if t == nil {
				continue
			}
			base := (int(s.ID)*registry.MaxArchetypes + a) * int(unit.NumStates) * registry.MaxVariants
			for st := range unit.NumStates {
				for v := range registry.MaxVariants {
					c.sel[base+int(st)*registry.MaxVariants+v] = t.Clip(st, uint8(v))
				}
			}
			for v := range uint8(registry.MaxVariants) {
				wc, rc := t.Clip(unit.StateWalk, v), t.Clip(unit.StateRun, v)
				w, r := s.Clips[wc].Gait, s.Clips[rc].Gait
				if wc != rc && w.Speed > 0 && r.Speed > w.Speed {
					pi := (int(s.ID)*registry.MaxArchetypes+a)*registry.MaxVariants + int(v)
					c.pairAt[base+int(unit.StateWalk)*registry.MaxVariants+int(v)] = uint32(pi + 1)
					c.pairAt[base+int(unit.StateRun)*registry.MaxVariants+int(v)] = uint32(pi + 1)
					c.pairs[pi] = gaitPair{walk: wc, run: rc,
						walkSpeed: float32(w.Speed),
						stride:    float32(w.Cycle * w.Speed), strideDiff: float32(r.Cycle*r.Speed - w.Cycle*w.Speed),
						perRunDiff: float32(1 / (r.Speed - w.Speed)),
						walkPer:    c.entries[int(s.ID)<<clipShift|int(wc)].perSpeed, runPer: c.entries[int(s.ID)<<clipShift|int(rc)].perSpeed}
				}
			}
		}
	}
	for k, cl := range c.sel {
		id := k / (registry.MaxArchetypes * int(unit.NumStates) * registry.MaxVariants)
		st := unit.StateID(k / registry.MaxVariants % int(unit.NumStates))
		c.picks[k] = makePick(cl, c.pairAt[k], &c.entries[id<<clipShift|int(cl&(unplayable-1))], st)
	}
	return c
}

// pick is what Animate needs of a unit of some species, archetype, state and
// variant (catalog.sel's index): the clip (sel's entry, the unplayable bit
// included), its speed blend (pairAt's entry) and, from the clip's entry and the
// state, the phase rules, so that one load per unit finds them all instead of a
// chain of three. It is 16 bytes, in this order: the assembly kernel
// (batch_amd64.s) loads it as one vector.
type pick struct {
	clip           unit.ClipID // sel[k]
	pair           uint16      // pairAt[k]: 1 + the speed blend's index in pairs, 0 none
	base, perSpeed float32     // the clip entry's
	rule           uint32      // pickLoops | pickWrap | pickSwung | pickKeep
}

const (
	pickLoops = 1 << iota // the clip's entry loops
	// a phase that passes 1 wraps (the state is not Die: Crowd repeats
	// one-shots) unless a swing drives it; a death holds its end even on a
	// looping clip, so that it ends (docs/runtime.md §6)
	pickWrap
	pickSwung // the state's phase comes from a swing (swingDriven)
	pickKeep  // the clip entry's keep is 1
)

func (d *pick) loops() bool { return d.rule&pickLoops != 0 }
func (d *pick) wrap() bool  { return d.rule&pickWrap != 0 }

// swung and keep are 1 or 0, as factors.
func (d *pick) swung() float32 { return float32(d.rule >> 2 & 1) }
func (d *pick) keep() float32  { return float32(d.rule >> 3 & 1) }

func makePick(cl unit.ClipID, pair uint32, e *clipEntry, st unit.StateID) pick {
	d := pick{clip: cl, pair: uint16(pair), base: e.base, perSpeed: e.perSpeed}
	if e.loops() {
		d.rule |= pickLoops
	}
	if st != unit.StateDie {
		d.rule |= pickWrap
	}
	if swingDriven[st] != 0 {
		d.rule |= pickSwung
	}
	if e.keep != 0 {
		d.rule |= pickKeep
	}
	return d
}

// snapEntries builds the snapshot entries of species s (nil without a snapshot);
// the catalog lays them out as its clip entries (snapRows).
func snapEntries(s *registry.Species) []snapEntry {
	if s.Snapshot == nil {
		return nil
	}
	out := make([]snapEntry, len(s.Clips))
	for k := range out {
		m, ok := s.SnapshotMap(unit.ClipID(k))
		out[k] = snapEntry{scale: m.Scale, offset: m.Offset, last: m.Last}
		if ok {
			out[k].ok = ^uint32(0)
		}
	}
	return out
}
