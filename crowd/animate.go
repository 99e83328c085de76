package crowd

import (
	"math"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// selection is one AnimateRange call's pass over its units: each unit's inputs
// resolved to a state and clip (catalog.picks), its clip change (and fade), its
// speed blend, its phase advanced by the Crowd's rules, and its Instance. The
// slices are the range's, indexed from 0.
type selection struct {
	c   *Crowd
	cat *catalog
	lo  int // the range's first unit in the Crowd
	dt  float32

	species        []unit.SpeciesID
	arch           []roster.Archetype
	variant        []uint8
	flags          []unit.Flags
	weapon         []unit.Weapon
	speed, swing   []float32 // swing nil: nobody swings
	clips          []unit.ClipID
	phase, rate    []float32
	state          []unit.StateID
	gaitW          []float32 // nil without Blend
	out            []Instance
	blends, fade   bool
	memo           bool // the Crowd's memo is usable (memo.usable)
	changes, faded uint64
	seen           uint32 // see units
}

func (c *Crowd) selection(cat *catalog, lo, hi int, dt float32, memo bool) selection {
	s := selection{c: c, cat: cat, lo: lo, dt: dt, memo: memo,
		species: c.Species[lo:hi], arch: c.Archetype[lo:hi], variant: c.Variant[lo:hi], flags: c.Flags[lo:hi],
		weapon: c.Weapon[lo:hi], speed: c.Speed[lo:hi], clips: c.Clip[lo:hi], phase: c.Phase[lo:hi], rate: c.Rate[lo:hi],
		state: c.State[lo:hi], out: c.Out[lo:hi]}
	if c.Swing != nil {
		s.swing = c.Swing[lo:hi:hi]
	}
	s.blends = c.fades.unit != nil
	if s.blends {
		s.gaitW = c.fades.gaitW[lo:hi:hi]
	}
	s.fade = !c.NoFade && s.blends
	return s
}

// units is the pass over units [from, to) of the range in Go: the whole of it
// on machines without an assembly kernel, the units the kernel leaves to it
// (runKernel), and the reference that the kernel matches bit for bit.
func (sl *selection) units(from, to int) {
	if from >= to {
		return
	}
	c, cat, lo, dt := sl.c, sl.cat, sl.lo, sl.dt
	species, arch, variant := sl.species[from:to], sl.arch[from:to], sl.variant[from:to]
	flags, weapon, speed := sl.flags[from:to], sl.weapon[from:to], sl.speed[from:to]
	clips, phase, rate, state := sl.clips[from:to], sl.phase[from:to], sl.rate[from:to], sl.state[from:to]
	n := to - from
	var swing []float32
	if sl.swing != nil {
		swing = sl.swing[from:to:to]
		swing = swing[:n]
	}
	_, _, _, _, _ = arch[n-1:], variant[n-1:], flags[n-1:], weapon[n-1:], speed[n-1:]
	_, _, _, _ = clips[n-1:], phase[n-1:], rate[n-1:], state[n-1:]
	picks, pairs := cat.picks, cat.pairs
	maxID := cat.maxID
	states := (*unit.StateTable)(cat.states[:len(unit.StateTable{})]) // unit.States(), without its call
	blends, fade := sl.blends, sl.fade
	var gaitW []float32
	if blends {
		gaitW = sl.gaitW[from:to:to]
		gaitW = gaitW[:n]
	}
	var changes, faded uint64
	// Unplayable units are rare but not known to be: each unit ORs in its clip
	// selection (bit 15 marks one its species cannot play) and its archetype
	// shifted past it (an archetype of MaxArchetypes or more sets bit 19 or
	// above), no branch; only when such a bit is set are they counted, in a
	// second pass.
	var seen uint32
	for i := range n {
		s := species[i]
		sp := speed[i]
		st := states.Of(flags[i], sp > unit.MoveThreshold, weapon[i])
		var d *pick
		if int(s) <= maxID {
			a := arch[i]
			k := ((int(s)*registry.MaxArchetypes+int(a&(registry.MaxArchetypes-1)))*int(unit.NumStates)+int(st))*registry.MaxVariants + int(min(variant[i], registry.MaxVariants-1))
			d = &picks[k]
			// An archetype id of MaxArchetypes or more is unplayable too; the
			// unit shows the clip of archetype a mod 8.
			seen |= uint32(d.clip) | uint32(a)<<16
		} else {
			d = &emptyPicks[st&(unit.NumStates-1)]
			seen |= 1 << 31
		}
		cl := d.clip & (unplayable - 1)
		p := phase[i]
		if prev := clips[i]; cl != prev {
			if !d.loops() {
				p = 0
			}
			if prev != unit.NoClip {
				changes++
				if fade && c.fadeFrom(cat, lo+from+i, s, state[i], st, prev) {
					faded++
				}
			}
		}
		rt := d.base + float32(d.perSpeed*sp)
		if d.pair != 0 { // Walk or Run, with its archetype's speed blend
			var other unit.ClipID
			var w float32 // the other gait's weight
			rt, other, w = pairs[d.pair-1].blend(cl, sp)
			if blends {
				if w > 0 && w < 1 {
					c.fades.gait(lo+from+i, other, w)
				} else {
					gaitW[i] = 0
				}
			}
		} else if blends {
			gaitW[i] = 0
		}
		// A swinging unit in an attack state plays at its swing's attack phase. The
		// choice is arithmetic, not a branch: attackers and others are mixed at
		// random. m is 1 when the swing drives the phase, else 0. (The
		// conversions forbid fused multiply-adds, which would round otherwise
		// than the kernel.)
		sw := float32(-1)
		if swing != nil {
			sw = swing[i]
		}
		m := d.swung() * float32(1-math.Float32bits(sw)>>31)
		p = float32(p*(1-m)) + float32(sw*m)
		rt *= 1 - m
		ph := p + float32(rt*dt)
		if math.Float32bits(ph) >= one {
			// A clip repeats, one-shots too (idle fidgets, a builder hammering),
			// except a death, which ends on its last frame, and a swing's phase.
			ph = settle(ph, d.wrap() && m == 0)
		}
		ph *= d.keep()
		phase[i], rate[i], clips[i], state[i] = ph, rt, cl, st
	}
	sl.changes += changes
	sl.faded += faded
	sl.seen |= seen
}

// rows writes the Instances of units [from, to) of the range.
func (sl *selection) rows(from, to int) {
	putRows(sl.cat.entries, sl.species[from:to], sl.clips[from:to], sl.phase[from:to], sl.out[from:to])
}
