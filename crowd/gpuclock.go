package crowd

import (
	"fmt"
	"iter"
	"math"
	"unsafe"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// Playhead is one clip playing as the GPU clock mode describes it: the phase it
// had at its record's Start and its rate, so that at any later time t the phase is
// Phase + Rate·(t − Start), wrapped or clamped; or, for a swing, the combat
// timeline's seconds and tempo, the phase then being AttackPhase of the timeline
// (docs/runtime.md §8). Row and Shape say which palette rows the phase maps to, by
// the rules of docs/formats/bpat.md §5.
type Playhead struct {
	Phase float32 // at Start: the clip's phase, or a swing's timeline seconds
	Rate  float32 // per second: phase, or timeline seconds (the swing's tempo)
	Row   uint32  // palette row of the clip's first frame
	Shape uint32  // N−1 (bits 0–23), ShapeLoops, ShapeWraps, ShapeSwing
}

// Playhead.Shape bits above the frame count.
const (
	ShapeLoops = 1 << 24 // the clip loops: the frame after the last is the first (bpat.md §5)
	ShapeWraps = 1 << 25 // the phase wraps into [0,1); else it clamps to [0,1]
	ShapeSwing = 1 << 26 // Phase and Rate are a swing's timeline seconds and tempo
	ShapeGait  = 1 << 27 // (Prior only) the other gait of a speed blend, weighing PriorShare of the own side
)

// TimeRecord is one unit's record in the GPU clock mode: 64 bytes that change only
// when the unit's clip, rate or fade does. The pose at time t is that of Own, or,
// while t is within a fade (FadeInv > 0 and (t − FadeStart)·FadeInv < 1), Own
// weighted by w = smoothstep((t − FadeStart)·FadeInv), From by (1−w)(1−PriorShare)
// and Prior by (1−w)·PriorShare. When Prior is a speed blend's other gait
// (ShapeGait), it weighs w·PriorShare, Own w·(1−PriorShare) and From 1−w (w = 1
// outside a fade). That is exactly what Animate's Instance and Blend show. At is
// the reference a shader follows.
type TimeRecord struct {
	Own, From, Prior Playhead
	Start            float32 // the clock time at which the playheads' phases hold
	FadeStart        float32 // when the fade began
	FadeInv          float32 // 1 / the fade time; 0 when the unit is not fading
	PriorShare       float32 // of the faded-from side, the prior's share
}

// TimeRecordSize is the size of a TimeRecord in bytes.
const TimeRecordSize = 64

var _ [TimeRecordSize - unsafe.Sizeof(TimeRecord{})]byte
var _ [unsafe.Sizeof(TimeRecord{}) - TimeRecordSize]byte

// clockUnit is 16 bytes (Commit prefetches it by its index shifted by 4).
var _ [16 - unsafe.Sizeof(clockUnit{})]byte
var _ [unsafe.Sizeof(clockUnit{}) - 16]byte

// phase is the playhead's phase dt seconds after its record's Start.
func (p Playhead) phase(dt float32) float32 {
	q := p.Phase + float32(p.Rate*dt) // no fused multiply-add: a shader computes the product first too
	if p.Shape&ShapeSwing != 0 {
		return combat.AttackPhase(q)
	}
	if math.Float32bits(q) >= one {
		q = settle(q, p.Shape&ShapeWraps != 0)
	}
	if p.Shape&(1<<24-1) == 0 { // one frame: phase 0
		return 0
	}
	return q
}

// rows resolves phase ph to palette rows by docs/formats/bpat.md §5, in float32 as
// a shader does.
func (p Playhead) rows(ph float32) (frame, next uint32, lerp float32) {
	last := p.Shape & (1<<24 - 1)
	scale := float32(last)
	wrapTo := last
	if p.Shape&ShapeLoops != 0 {
		scale, wrapTo = float32(last+1), 0
	}
	pos := ph * scale
	f := min(uint32(pos), last)
	nx := f + 1
	if nx > last {
		nx = wrapTo
	}
	return p.Row + f, p.Row + nx, pos - float32(f)
}

// At returns the rows and weights the record shows at clock time t: what a shader
// in the GPU clock mode computes from it. The Instance's Clip and Species are left
// 0 (the record does not carry them).
func (r *TimeRecord) At(t float32) (Instance, Blend) {
	dt := t - r.Start
	var o Instance
	o.Frame, o.Next, o.Lerp = r.Own.rows(r.Own.phase(dt))
	var b Blend
	own := float32(1)
	if r.FadeInv > 0 {
		if x := (t - r.FadeStart) * r.FadeInv; x < 1 {
			own = smoothstep(max(x, 0))
			b.Frame, b.Next, b.Lerp = r.From.rows(r.From.phase(dt))
			b.Weight = 1 - own
		}
	}
	switch {
	case r.PriorShare == 0:
	case r.Prior.Shape&ShapeGait != 0:
		b.PriorFrame, b.PriorNext, b.PriorLerp = r.Prior.rows(r.Prior.phase(dt))
		b.PriorWeight = own * r.PriorShare
	case own < 1:
		b.PriorFrame, b.PriorNext, b.PriorLerp = r.Prior.rows(r.Prior.phase(dt))
		b.PriorWeight = (1 - own) * r.PriorShare
		b.Weight = (1 - own) * (1 - r.PriorShare)
	}
	if b.Weight == 0 && b.PriorWeight > 0 { // a speed blend alone: the other gait in Blend's first place, as Animate has it
		b.Frame, b.Next, b.Lerp, b.Weight = b.PriorFrame, b.PriorNext, b.PriorLerp, b.PriorWeight
		b.PriorFrame, b.PriorNext, b.PriorLerp, b.PriorWeight = 0, 0, 0, 0
	}
	return o, b
}

// GPUClock is the event-driven playback mode: instead of the CPU stepping every
// unit every frame (Crowd.Animate), it writes a unit's TimeRecord only when
// something about the unit changes (its clip, rate or fade), and a vertex shader
// computes frame, next and lerp from the record and a time uniform, Now. A frame's
// CPU work is then Advance (one addition) and Commit of the units whose inputs
// changed: it is proportional to the changes, not to the crowd.
//
// The clock keeps its units' inputs itself, 16 bytes per unit, so that a change
// touches one place: Spawn, Set, SetInputs and SetVariant change them (the same
// inputs a Crowd has: species, archetype, variant, flags, weapon, speed) and list
// the unit for the next Commit, which resolves every listed unit by Animate's
// rules (state, clip, phase rules, fades) at time Now, writes its record and
// lists it for Changed, the records to upload. A scheduled Combat over the clock
// (NewScheduledCombat) sets flags through it and times swings as events; its
// swinging units play their attack clip along the swing's timeline. A frame that
// shows what Animate(dt) would is
//
//	combat.Attack(...) for each unit that strikes // a scheduled Combat, if any
//	combat.Step(dt)                               // its clock runs ahead to Now+dt
//	clock.SetInputs(...) for each unit that changes
//	clock.Commit(reg)                             // at Now: the changes begin the frame
//	clock.Advance(dt)                             // Now+dt: the time uniform to draw with
//
// (the combat and the clock start at 0 and advance by the same steps).
type GPUClock struct {
	Records []TimeRecord
	Now     float32 // seconds: the shader's time uniform
	// NoFade makes every clip change show the new clip at once.
	NoFade bool
	// Transitions counts the clip changes Commit has seen, Fades those that faded.
	Transitions, Fades uint64

	units   []clockUnit
	pending []int32
	// changed lists the units Commit wrote since the last Changed, once per
	// Commit, in order; spare is the list Changed last returned.
	changed, spare []int32
	combat         *Combat // the scheduled combat over the clock, if any
}

// clockUnit is a unit's inputs and what Commit last made of them.
type clockUnit struct {
	speed   float32
	flags   unit.Flags
	clip    unit.ClipID
	species unit.SpeciesID
	arch    roster.Archetype
	variant uint8
	weapon  unit.Weapon
	state   unit.StateID
	pending bool // listed for the next Commit
	fresh   bool // not committed since NewGPUClock: its first clip starts at AmbientPhase
	_       [1]byte
}

// NewGPUClock returns n idle units of species 0 (SpeciesHumanoid), humanoid
// archetype, at time 0, all listed for the first Commit; their ambient phases are
// spread by AmbientPhase, as New spreads a Crowd's.
func NewGPUClock(n int) *GPUClock {
	g := &GPUClock{Records: make([]TimeRecord, n), units: make([]clockUnit, n), pending: make([]int32, n)}
	if n > 0 { // before the first write, so that the pages are huge from the start
		hugePages(unsafe.Pointer(&g.Records[0]), uintptr(n)*TimeRecordSize)
		hugePages(unsafe.Pointer(&g.units[0]), uintptr(n)*unsafe.Sizeof(clockUnit{}))
	}
	for i := range g.units {
		g.units[i] = clockUnit{clip: unit.NoClip, pending: true, fresh: true}
		g.pending[i] = int32(i)
	}
	return g
}

// Len is the number of units.
func (g *GPUClock) Len() int { return len(g.units) }

// Flags and species of unit i, as a Combat reads and writes them (a Combat that
// changes flags lists the unit through touch).
func (g *GPUClock) flagsOf(i int) *unit.Flags      { return &g.units[i].flags }
func (g *GPUClock) speciesOf(i int) unit.SpeciesID { return g.units[i].species }

// deathPlayed says unit i's death has played by the clock's Now: its committed
// state is Die and its own playhead's phase has reached 1, as the GPU computes it.
func (g *GPUClock) deathPlayed(i int) bool {
	o := &g.Records[i]
	return g.units[i].state == unit.StateDie && o.Own.phase(g.Now-o.Start) >= 1
}

// Advance moves the clock dt seconds on: all a frame costs when nothing changes.
func (g *GPUClock) Advance(dt float32) { g.Now += dt }

// touch lists unit i for the next Commit.
func (g *GPUClock) touch(i int) {
	if u := &g.units[i]; !u.pending {
		u.pending = true
		g.pending = append(g.pending, int32(i))
	}
}

// Spawn makes unit i a fresh unit of kind k, standing still, as Crowd.Spawn does.
// It panics on an unknown kind.
func (g *GPUClock) Spawn(i int, k unit.Kind) {
	if k >= unit.NumKinds {
		panic(fmt.Sprintf("crowd: Spawn of unknown %v", k))
	}
	g.Set(i, k.Loadout())
}

// Set gives unit i the species, archetype, weapon and flags of u, standing still;
// its next clip starts without a fade, a looping one at the phase the unit shows
// (as a Crowd's Set keeps its Phase).
func (g *GPUClock) Set(i int, u unit.Loadout) {
	x := &g.units[i]
	x.species, x.arch, x.weapon, x.flags, x.speed, x.clip = u.Species, u.Archetype, u.Weapon, u.Flags, 0, unit.NoClip
	g.touch(i)
}

// SetInputs sets what unit i does: its flags, weapon and ground speed.
func (g *GPUClock) SetInputs(i int, in unit.Inputs) {
	x := &g.units[i]
	x.flags, x.weapon, x.speed = in.Flags, in.Weapon, in.Speed
	g.touch(i)
}

// SetVariant sets unit i's clip variant.
func (g *GPUClock) SetVariant(i int, v uint8) {
	g.units[i].variant = v
	g.touch(i)
}

// Inputs returns unit i's flags, weapon and speed.
func (g *GPUClock) Inputs(i int) unit.Inputs {
	x := &g.units[i]
	return unit.Inputs{Flags: x.flags, Weapon: x.weapon, Speed: x.speed}
}

// Unit returns unit i's species, archetype, weapon and flags.
func (g *GPUClock) Unit(i int) unit.Loadout {
	x := &g.units[i]
	return unit.Loadout{Species: x.species, Archetype: x.arch, Weapon: x.weapon, Flags: x.flags}
}

// State returns unit i's state and clip as of the last Commit.
func (g *GPUClock) State(i int) (unit.StateID, unit.ClipID) {
	return g.units[i].state, g.units[i].clip
}

// Check reports, in one error, every unit Commit cannot play as asked, as
// Crowd.Check does: its species is not loaded in r, or does not support its
// archetype. It returns nil when every unit can be played; use it off the hot
// path, after spawning units or when Commit returns an *UnplayableError.
func (g *GPUClock) Check(r *registry.Registry) error {
	if tables(r).closed {
		return registry.ErrClosed
	}
	return unplayableUnits(r, len(g.units), func(i int) (unit.SpeciesID, roster.Archetype) { return g.units[i].species, g.units[i].arch })
}

// Select returns the state and clip unit i would play with its current inputs:
// what Commit would choose.
func (g *GPUClock) Select(r *registry.Registry, i int) (unit.StateID, unit.ClipID) {
	x := &g.units[i]
	return selectClip(r, x.species, x.arch, x.variant, unit.Inputs{Flags: x.flags, Weapon: x.weapon, Speed: x.speed})
}

// Changed returns the units whose records Commit wrote since the last call, in
// order (a unit committed again is listed again), and forgets them: what a
// renderer uploads, as Player.Changed. The slice stays valid until the next
// call.
func (g *GPUClock) Changed() []int32 {
	out := g.changed
	g.changed, g.spare = g.spare[:0], out
	return out
}

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

// Rebase moves the record's Start to now without changing what it shows: each
// playhead's Phase becomes its phase (or timeline seconds) at now. A fade that
// has ended by now is dropped.
func (r *TimeRecord) Rebase(now float32) {
	if r.FadeInv > 0 && !((now-r.FadeStart)*r.FadeInv < 1) {
		r.From, r.FadeStart, r.FadeInv = Playhead{}, 0, 0
		if r.Prior.Shape&ShapeGait == 0 {
			r.Prior, r.PriorShare = Playhead{}, 0
		}
	}
	dt := now - r.Start
	r.Own, r.Start = r.Own.advanced(dt), now
	if r.FadeInv > 0 {
		r.From = r.From.advanced(dt)
	}
	if r.PriorShare > 0 {
		r.Prior = r.Prior.advanced(dt)
	}
}

// Switch makes to the record's own playhead from now on (its Phase that at now),
// fading over fade seconds from the pose shown, or switching at once when fade is
// no fade time (0, negative, NaN, infinite), by docs/runtime.md §6.1: a fade that
// interrupts another keeps the pose shown (the clip that was fading in becomes
// the one faded from, the older one with the larger share the prior), a speed
// blend fades out as both its gaits, and a swing faded out holds its pose. It is what GPUClock.Commit does on a
// change of clip, for a game that plays clips itself.
func (r *TimeRecord) Switch(now float32, to Playhead, fade float32) {
	r.Rebase(now)
	r.switchRebased(now, to, fade)
}

// rebasedAgain is what a second Rebase at the same time would change in a record
// just rebased: a playhead's phase moves by Rate·0, which is 0 unless the rate is
// not finite (the product is then NaN, and the phase settles to 0).
func (r *TimeRecord) rebasedAgain() {
	if r.Own.Rate*0 != 0 {
		r.Own = r.Own.advanced(0)
	}
	if r.FadeInv > 0 && r.From.Rate*0 != 0 {
		r.From = r.From.advanced(0)
	}
	if r.PriorShare > 0 && r.Prior.Rate*0 != 0 {
		r.Prior = r.Prior.advanced(0)
	}
}

// switchRebased is Switch for a record rebased at now.
func (r *TimeRecord) switchRebased(now float32, to Playhead, fade float32) {
	cur := r.Own
	if cur.Shape&ShapeSwing != 0 {
		cur = Playhead{Phase: combat.AttackPhase(cur.Phase), Row: cur.Row, Shape: cur.Shape &^ ShapeSwing}
	}
	var gait Playhead
	var gaitW float32
	if r.Prior.Shape&ShapeGait != 0 {
		gait, gaitW = r.Prior, r.PriorShare
		gait.Shape &^= ShapeGait
		r.Prior, r.PriorShare = Playhead{}, 0
	}
	switch {
	case !registry.IsFade(fade):
		r.From, r.Prior, r.FadeStart, r.FadeInv, r.PriorShare = Playhead{}, Playhead{}, 0, 0, 0
	case r.FadeInv > 0: // a fade into a speed blend loses the gait
		w := smoothstep((now - r.FadeStart) * r.FadeInv)
		r.From, r.Prior, r.PriorShare = interrupted(cur, r.From, r.Prior, w, r.PriorShare)
	case gaitW > 0:
		r.From, r.Prior, r.PriorShare = interrupted(cur, gait, Playhead{}, 1-gaitW, 0)
	default:
		r.From, r.Prior, r.PriorShare = cur, Playhead{}, 0
	}
	if registry.IsFade(fade) {
		r.FadeStart, r.FadeInv = now, 1/fade
	}
	r.Own = to
}

// PhaseAt is the clip phase the playhead shows dt seconds after its record's
// Start (a swing's attack phase), by TimeRecord.At's rules.
func (p Playhead) PhaseAt(dt float32) float32 { return p.phase(dt) }

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

// advanced is the playhead moved dt seconds on, so that it holds at a new Start.
func (p Playhead) advanced(dt float32) Playhead {
	if p.Shape&ShapeSwing != 0 {
		p.Phase += float32(p.Rate * dt)
		return p
	}
	p.Phase = p.phase(dt)
	return p
}

// interrupted returns the sides of a fade that interrupts another: cur, the clip
// that was fading in with weight w, becomes the side faded from, and of the
// interrupted fade's sides (from, and prior with its share) the one with the larger
// share becomes the prior, with the share 1 − w. The pose shown does not change
// when the interrupted fade had no prior.
func interrupted[S any](cur, from, prior S, w, share float32) (S, S, float32) {
	if share > .5 {
		from = prior
	}
	return cur, from, 1 - w
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
