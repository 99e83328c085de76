// GPUClock.Commit: each changed unit's state and clip resolved, by one load
// from the catalog's table of them (resolved, clockTable), and its record
// written, switched to the new clip with the fade it asks.

package crowd

import (
	"fmt"
	"iter"
	"math"
	"unsafe"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// Commit resolves every unit listed since the last Commit at time Now and
// rewrites its record, by Animate's rules: a looping clip keeps the phase the unit
// shows, a one-shot clip starts at 0, and a change of clip fades as the species'
// FadeTable says (not with NoFade). Like Animate, it returns an *UnplayableError
// when some units cannot be played as asked, after writing them all.
func (g *GPUClock) Commit(r *registry.Registry) error {
	cat := tables(r)
	if cat.closed {
		return registry.ErrClosed
	}
	if len(g.Records) != len(g.units) {
		return fmt.Errorf("crowd: %d records for %d units", len(g.Records), len(g.units))
	}
	bad := 0
	tab := cat.clockTable()
	states := unit.States()
	for part := range g.prefetched(g.pending) {
		for _, u := range part {
			if !g.commit(r, cat, tab, states, int(u)) {
				bad++
			}
		}
	}
	g.changed = append(g.changed, g.pending...)
	g.pending = g.pending[:0]
	if bad > 0 {
		return &UnplayableError{Units: bad}
	}
	return nil
}

// prefetched yields units in chunks of 8, each once the records and inputs of
// the next are asked for. Units come in any order, so nearly every record misses
// the cache: asked for a chunk ahead, their misses overlap the work on this one
// rather than follow it.
func (g *GPUClock) prefetched(units []int32) iter.Seq[[]int32] {
	const chunk = 8
	return func(yield func([]int32) bool) {
		g.prefetch(units[:min(len(units), chunk)])
		for len(units) > 0 {
			part := units[:min(len(units), chunk)]
			units = units[len(part):]
			g.prefetch(units[:min(len(units), chunk)])
			if !yield(part) {
				return
			}
		}
	}
}

// prefetch starts loading the records and inputs of units.
func (g *GPUClock) prefetch(units []int32) {
	if len(units) > 0 {
		prefetch(unsafe.Pointer(&g.Records[0]), 6, &units[0], len(units))
		prefetch(unsafe.Pointer(&g.units[0]), 4, &units[0], len(units))
	}
}

// commit resolves unit i at time Now and rewrites its record in place; it
// reports whether the unit can be played as asked. states is States(),
// loaded once per Commit.
func (g *GPUClock) commit(r *registry.Registry, cat *catalog, tab []resolved, states *unit.StateTable, i int) bool {
	x, now := &g.units[i], g.Now
	st := states.Of(x.flags, x.speed > unit.MoveThreshold, x.weapon)
	// All that the unit's species, archetype, state and variant decide, in one load.
	res := &tab[resolveKey(cat, x.species, x.arch, st, x.variant)]
	cl := res.clip
	o := &g.Records[i]
	if quickCommit && g.commitQuick(r, cat, o, x, res, st, now) {
		return res.flags&resOK != 0 && x.arch < registry.MaxArchetypes
	}
	var p float32
	if prev := x.clip; prev == unit.NoClip {
		// A new unit: nothing of what was shown before stays but the phase, as
		// a Crowd's unit keeps its Phase through Set; the clock's first units
		// start where New starts a Crowd's.
		if x.fresh {
			p = AmbientPhase(uint32(i))
		} else {
			p = o.Own.phase(now - o.Start)
		}
		*o = TimeRecord{}
	} else {
		o.Rebase(now)
		p = o.Own.phase(0) // the phase shown now (a swing's: its attack phase)
	}
	changed := cl != x.clip
	if changed && res.flags&resLoops == 0 {
		p = 0
	}
	own := res.own
	own.Phase, own.Rate = p*res.keep, res.own.Rate+res.perSpeed*x.speed
	var gait Playhead
	var gaitW float32
	if res.pair != 0 {
		rate, other, w := cat.pairs[res.pair-1].blend(cl, x.speed)
		own.Rate = rate
		if w > 0 && w < 1 {
			oe := &cat.entries[int(x.species)<<clipShift|int(other)]
			gait, gaitW = Playhead{Phase: own.Phase, Rate: rate, Row: oe.offset, Shape: oe.shape(true) | ShapeGait}, w
		}
	}
	if res.flags&resSwing != 0 && g.combat != nil {
		if tau, tempo, ok := g.combat.swingAt(i, float64(now)); ok {
			own = Playhead{Phase: tau, Rate: tempo, Row: res.own.Row, Shape: res.own.Shape | ShapeSwing}
		}
	}
	switch {
	case changed && x.clip != unit.NoClip:
		d := g.changeFade(cat, x, st)
		o.rebasedAgain() // o.Switch(now, own, d) without rebasing o a second time
		o.switchRebased(now, own, d)
	default:
		if o.Prior.Shape&ShapeGait != 0 { // set anew below
			o.Prior, o.PriorShare = Playhead{}, 0
		}
		o.Own, o.Start = own, now
	}
	if gaitW > 0 {
		// The other gait takes the prior's place; of an interrupted fade's two
		// clips the one with the larger share stays, as in Animate.
		if o.PriorShare > .5 {
			o.From = o.Prior
		}
		o.Prior, o.PriorShare = gait, gaitW
	}
	x.clip, x.state, x.pending, x.fresh = cl, st, false, false
	return res.flags&resOK != 0 && x.arch < registry.MaxArchetypes
}

// quickCommit lets commit take commitQuick's path; a test turns it off to hold
// that path to the general one.
var quickCommit = true

// commitQuick is commit for the common change in about half the instructions: a
// unit whose record shows one clip (no fade running at now, no speed blend, no
// swing, a finite rate) going on to a clip that is neither a speed blend nor a
// swing a scheduled Combat drives. It writes the record commit's general path
// would, bit for bit; for any other unit it changes nothing and reports false.
func (g *GPUClock) commitQuick(r *registry.Registry, cat *catalog, o *TimeRecord, x *clockUnit, res *resolved, st unit.StateID, now float32) bool {
	cur := o.Own
	if x.clip == unit.NoClip || o.PriorShare != 0 || cur.Shape&ShapeSwing != 0 || (res.flags&resSwing != 0 && g.combat != nil) ||
		cur.Rate*0 != 0 || (o.FadeInv > 0 && (now-o.FadeStart)*o.FadeInv < 1) {
		return false
	}
	own := res.own
	own.Rate += res.perSpeed * x.speed
	if res.pair != 0 {
		rate, _, w := cat.pairs[res.pair-1].blend(res.clip, x.speed)
		if w > 0 && w < 1 {
			return false
		}
		own.Rate = rate
	}
	// The phase shown now: Playhead.phase less its swing case (excluded
	// above), written out because phase is too large to inline (a call here
	// cost the squads benchmark about 10 %).
	q := cur.Phase + float32(cur.Rate*(now-o.Start))
	if math.Float32bits(q) >= one {
		q = settle(q, cur.Shape&ShapeWraps != 0)
	}
	if cur.Shape&(1<<24-1) == 0 {
		q = 0
	}
	cur.Phase = q
	changed := res.clip != x.clip
	if !changed || res.flags&resLoops != 0 {
		own.Phase = q * res.keep
	}
	// A record that shows one clip holds nothing else (Rebase drops an ended
	// fade, and there is no prior without a fade or a speed blend), so it is
	// written whole, field by field: a TimeRecord built on the stack and copied
	// would be read back in 16-byte loads from 4-byte stores, which the CPU
	// cannot forward.
	var from Playhead
	var fadeStart, fadeInv float32
	if changed {
		if d := g.changeFade(cat, x, st); d > 0 {
			from, fadeStart, fadeInv = cur, now, 1/d
		}
	}
	o.Own, o.From, o.Prior = own, from, Playhead{}
	o.Start, o.FadeStart, o.FadeInv, o.PriorShare = now, fadeStart, fadeInv, 0
	x.clip, x.state, x.pending = res.clip, st, false
	return true
}

// changeFade counts unit x's change of clip into state st and returns how long
// it fades: its species' FadeTable time, or 0 (at once) with NoFade or a time
// that does not fade.
func (g *GPUClock) changeFade(cat *catalog, x *clockUnit, st unit.StateID) float32 {
	g.Transitions++
	d := cat.fade(x.species)[x.state&(unit.NumStates-1)][st&(unit.NumStates-1)]
	if !registry.IsFade(d) || g.NoFade {
		return 0
	}
	g.Fades++
	return d
}

// shape is a Playhead's Shape for the clip: its frame count, whether it loops, and
// wraps, whether its phase wraps.
func (e *clipEntry) shape(wraps bool) uint32 {
	s := uint32(e.last)
	if e.loops() {
		s |= ShapeLoops
	}
	if wraps {
		s |= ShapeWraps
	}
	return s
}

// chooseIn resolves a unit of species slot s in state st to its clip, as Animate
// does; ok is false when its species is not loaded or does not support its
// archetype (it then plays its species' clip 0, or the empty entry).
func chooseIn(cat *catalog, empty *clipEntry, s int, a roster.Archetype, st unit.StateID, variant uint8) (unit.ClipID, *clipEntry, bool) {
	if s > cat.maxID {
		return 0, empty, false
	}
	k := ((s*registry.MaxArchetypes+int(a&(registry.MaxArchetypes-1)))*int(unit.NumStates)+int(st))*registry.MaxVariants + int(min(variant, registry.MaxVariants-1))
	cl := cat.sel[k]
	ok := cl&unplayable == 0 && a < registry.MaxArchetypes
	cl &= unplayable - 1
	return cl, &cat.entries[s<<clipShift|int(cl)], ok
}

// resolved is what Commit makes of a unit's species, archetype, state and
// variant, worked out once per catalog (catalog.clockTable) so that a change
// reads it with one load instead of resolving the clip, its entry, its shape
// and whether it has a speed blend each time.
type resolved struct {
	own      Playhead // Phase 0, Rate the clip's rate at rest, Row, and Shape as the state plays it
	perSpeed float32  // rate per m/s of ground speed
	keep     float32  // 0 for a one-frame clip (its phase is 0), else 1
	clip     unit.ClipID
	flags    uint8 // resOK, resLoops, resSwing
	// pair is 1 + the index in catalog.pairs of the speed blend the state plays
	// (Walk or Run), 0 for none: catalog.pairAt's entry.
	pair uint32
}

// resolved.flags.
const (
	resOK    = 1 << iota // the species is loaded and has the archetype
	resLoops             // the clip loops (a looping clip keeps the unit's phase)
	resSwing             // an attack state, whose phase a scheduled swing drives
)

var _ [32 - unsafe.Sizeof(resolved{})]byte

var _ [unsafe.Sizeof(resolved{}) - 32]byte

// resolveKey is a unit's index in catalog.clockTable: sel's, with the species
// that are not loaded sharing one slot after the loaded ones.
func resolveKey(cat *catalog, s unit.SpeciesID, a roster.Archetype, st unit.StateID, v uint8) uint {
	sp := min(uint(s), uint(cat.maxID+1))
	return ((sp*registry.MaxArchetypes+uint(a&(registry.MaxArchetypes-1)))*uint(unit.NumStates)+uint(st&(unit.NumStates-1)))*registry.MaxVariants + uint(min(v, registry.MaxVariants-1))
}

// clockTable returns the catalog's resolved table for GPUClock.Commit, built on
// first use by chooseIn's rules for every species slot, archetype, state and
// variant, and for the species that are not loaded (the empty entry, not ok).
func (cat *catalog) clockTable() []resolved {
	if t := cat.resolved.Load(); t != nil {
		return *t
	}
	t := make([]resolved, (cat.maxID+2)*registry.MaxArchetypes*int(unit.NumStates)*registry.MaxVariants)
	var empty clipEntry
	for sp := range cat.maxID + 2 {
		for a := range roster.Archetype(registry.MaxArchetypes) {
			for st := range unit.NumStates {
				for v := range uint8(registry.MaxVariants) {
					cl, e, ok := chooseIn(cat, &empty, sp, a, st, v)
					loops := e.loops()
					// Idle fidgets and a hammering builder repeat; a death holds its
					// end, a looping clip's too (makePick's rule).
					res := resolved{own: Playhead{Rate: e.base, Row: e.offset, Shape: e.shape(st != unit.StateDie)},
						perSpeed: e.perSpeed, keep: e.keep, clip: cl}
					if ok {
						res.flags |= resOK
					}
					if loops {
						res.flags |= resLoops
					}
					if sp <= cat.maxID {
						res.pair = cat.pairAt[((sp*registry.MaxArchetypes+int(a))*int(unit.NumStates)+int(st))*registry.MaxVariants+int(v)]
					}
					if swingDriven[st] != 0 {
						res.flags |= resSwing
					}
					t[((sp*registry.MaxArchetypes+int(a))*int(unit.NumStates)+int(st))*registry.MaxVariants+int(v)] = res
				}
			}
		}
	}
	cat.resolved.CompareAndSwap(nil, &t)
	return *cat.resolved.Load()
}
