package crowd

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
)

// Crowd is N animated units as a structure of arrays: the game writes each unit's
// inputs (Species, Archetype, Variant, Flags, Weapon, Speed and, for fighters, Swing),
// and every Animate call resolves them to a clip, advances the phase and writes the
// unit's Instance into Out. Every slice must hold Len() elements, except Swing,
// which may be nil.
//
// A unit's species, archetype and weapon must fit together: Spawn sets all three
// (and the Mounted flag of a rider) for a built-in Kind, whose documentation lists
// the pairings. A unit whose species is not loaded, or whose species does not
// support its archetype, is reported: Check names each, and Animate counts them
// in an *UnplayableError.
//
// Phase rules, per state:
//   - locomotion (a clip with a ground speed: walk, run, gallop): the phase
//     advances by dt/Cycle · Speed/GaitSpeed, so the stride follows the unit's
//     speed; walk and run share the phase, so it runs on without a jump when the
//     speed changes and when walk turns into run and back;
//   - attacks (AttackMelee, AttackRanged, AttackSword, AttackSpear, AttackBow, Cast,
//     RidingCharge, RidingBowShot): while the unit swings, the phase is Swing, the
//     attack phase of its combat timeline (Melee.Phase); without a swing the clip repeats
//     once per its cycle (a builder hammering);
//   - Die: the phase is the death progress: 0 when the state begins, rising by
//     dt/duration to 1, where it stays;
//   - Dead (a single-frame clip): 0;
//   - everything else (idles, hold, riding idle): an ambient loop at 1/Cycle, which
//     begins where the unit's phase stands (New spreads them with AmbientPhase);
//     a one-shot clip there (the idle fidgets) repeats too.
//
// A one-shot clip starts at phase 0 whenever the unit's clip changes to it; a
// looping clip keeps the unit's phase.
//
// When a unit's clip changes, it cross-fades from the old clip, which keeps
// advancing, over the time its species' FadeTable gives the state change
// (Registry.Fades); Batch.Blend carries the fade to the GPU. NoFade switches fades
// off. A unit's first clip after New, Spawn or Set does not fade in.
type Crowd struct {
	Batch
	Archetype []roster.Archetype
	Variant   []uint8 // clip variant (seed, equipment); clamped per state
	Flags     []unit.Flags
	Weapon    []unit.Weapon
	Speed     []float32 // ground speed in m/s
	// Swing is each unit's attack phase while it swings, −1 without a swing:
	// typically a Melee's Phase slice. Nil when nobody fights.
	Swing []float32
	// State is written by Animate: each unit's animation state.
	State []unit.StateID
	// NoFade makes every clip change show the new clip at once: the pop a fade
	// hides, for comparison.
	NoFade bool
	// Transitions counts the clip changes Animate has seen (not a unit's first
	// clip), and Fades those of them that faded.
	Transitions, Fades uint64

	memo memo

	// over plays the units Override put on a clip, overridden of them
	// (override.go); nil before the first Override.
	over       *Player
	overridden int
}

// New returns n idle units of species 0 (SpeciesHumanoid), humanoid archetype, no
// weapon, with ambient phases spread by AmbientPhase. Spawn gives a unit a
// built-in kind.
func New(n int) *Crowd {
	c := &Crowd{Batch: *NewBatch(n), Archetype: make([]roster.Archetype, n), Variant: make([]uint8, n),
		Flags: make([]unit.Flags, n), Weapon: make([]unit.Weapon, n), Speed: make([]float32, n), State: make([]unit.StateID, n)}
	for i := range c.Phase {
		c.Phase[i] = AmbientPhase(uint32(i))
		c.Clip[i] = unit.NoClip
	}
	c.memo.init(n)
	return c
}

func (c *Crowd) check() error {
	if err := c.Batch.check(); err != nil {
		return err
	}
	n := len(c.Species)
	if len(c.Archetype) != n || len(c.Variant) != n || len(c.Flags) != n || len(c.Weapon) != n ||
		len(c.Speed) != n || len(c.State) != n || (c.Swing != nil && len(c.Swing) != n) {
		return fmt.Errorf("crowd: crowd slices differ in length from its %d units", n)
	}
	return nil
}

// AmbientPhase is a unit's starting phase for looping clips: a hash of its index,
// so that a crowd's idles do not play in step.
func AmbientPhase(unit uint32) float32 {
	h := unit*0x9e3779b9 ^ 0x7f4a7c15
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	return float32(h>>8) / (1 << 24)
}

// swingDriven is 1 for the states whose phase comes from the combat timeline
// (StateID.Swung), as a factor for the hot loop.
var swingDriven = func() (t [unit.NumStates]float32) {
	for s := range unit.NumStates {
		if s.Swung() {
			t[s] = 1
		}
	}
	return t
}()

// emptyPicks is what a unit whose species is not loaded plays, by state: clip
// 0 of the empty entry (row 0, phase 0).
var emptyPicks = func() (t [unit.NumStates]pick) {
	for st := range unit.NumStates {
		t[st] = makePick(0, 0, &clipEntry{}, st)
	}
	return t
}()

// Animate resolves every unit's inputs to a state and clip, advances its phase by
// dt seconds and writes its Instance. It does not allocate.
//
// A unit whose species is not loaded, or whose species does not support its
// archetype, cannot be played as asked: it shows its species' clip 0 (row 0 when
// the species is not loaded), and Animate, having written every unit, returns an
// *UnplayableError with their count. Check names them.
func (c *Crowd) Animate(r *registry.Registry, dt float32) error {
	c.syncOverrides()
	err := c.AnimateRange(r, dt, 0, len(c.Species))
	if c.lodOn() {
		c.LODFrame++
	}
	return err
}

// AnimateParallel is Animate on up to workers goroutines at once, each over
// its own range of at least ParallelUnits units (whole words of 64 units, so
// that no two share a fade bit word); the units come out as Animate writes them.
// With workers ≤ 1, or too few units to share, it is Animate; else, unlike
// Animate, it allocates (a little, for its goroutines). It returns the first
// error of a range other than an *UnplayableError, else one *UnplayableError
// counting the units of every range.
func (c *Crowd) AnimateParallel(r *registry.Registry, dt float32, workers int) error {
	n := len(c.Species)
	workers = ParallelParts(n, workers)
	if workers == 1 {
		return c.Animate(r, dt)
	}
	c.syncOverrides()
	errs, wrote := make([]error, workers), make([]bool, workers)
	cat := tables(r)
	memo := c.memo.usable(cat)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers&^63, n*(w+1)/workers&^63
		if w == workers-1 {
			hi = n
		}
		wg.Go(func() { wrote[w], errs[w] = c.animateRange(r, cat, dt, lo, hi, memo) })
	}
	wg.Wait()
	whole := true
	for _, ok := range wrote {
		whole = whole && ok
	}
	c.memo.written(cat, memo, whole)
	if c.lodOn() {
		c.LODFrame++
	}
	bad := 0
	for _, err := range errs {
		var u *UnplayableError
		switch {
		case errors.As(err, &u):
			bad += u.Units
		case err != nil:
			return err
		}
	}
	if bad > 0 {
		return &UnplayableError{Units: bad}
	}
	return nil
}

// ParallelUnits is the fewest units AnimateParallel gives a goroutine: about a
// tenth of a millisecond of work, well above what starting one costs.
const ParallelUnits = 4096

// ParallelParts is how many goroutines n units are shared among when up to
// workers may run: at least ParallelUnits units each, and at least one.
func ParallelParts(n, workers int) int { return max(1, min(workers, n/ParallelUnits)) }

// AnimateRange is Animate for units [lo, hi): ranges run in parallel on separate
// goroutines when they do not overlap.
func (c *Crowd) AnimateRange(r *registry.Registry, dt float32, lo, hi int) error {
	cat := tables(r)
	memo := c.memo.usable(cat)
	wrote, err := c.animateRange(r, cat, dt, lo, hi, memo)
	c.memo.written(cat, memo, wrote && lo == 0 && hi == len(c.Species))
	return err
}

// animateRange is AnimateRange with the registry's tables, cat, and whether the
// memo is usable with them; it reports whether it wrote the memo's entries
// of its every unit the kernel passes over.
func (c *Crowd) animateRange(r *registry.Registry, cat *catalog, dt float32, lo, hi int, memo bool) (bool, error) {
	if cat.closed {
		return false, registry.ErrClosed
	}
	if err := c.check(); err != nil {
		return false, err
	}
	if lo < 0 || hi > len(c.Species) || lo > hi {
		return false, fmt.Errorf("crowd: range [%d,%d) outside the %d units", lo, hi, len(c.Species))
	}
	if hi == lo {
		return false, nil
	}
	sel := c.selection(cat, lo, hi, dt, memo)
	wrote := sel.run()
	if sel.changes > 0 {
		atomic.AddUint64(&c.Transitions, sel.changes)
		atomic.AddUint64(&c.Fades, sel.faded)
	}
	if c.fades.unit != nil {
		c.fades.step(cat.entries, c.Species, c.Phase, c.Blend, lo, hi, dt)
	}
	if c.lodOn() {
		c.countSwitches(c.chooseLevels(cat, lo, hi, dt))
	}
	if c.overridden > 0 {
		if err := c.showOverrides(r, lo, hi, dt); err != nil {
			return wrote, err
		}
	}
	if sel.seen&(uint32(unplayable)|0xFFF80000) != 0 { // bit 15, or an archetype ≥ MaxArchetypes (bits 19 up), or bit 31
		return wrote, &UnplayableError{Units: c.unplayable(r, lo, hi)}
	}
	return wrote, nil
}

// fadeFrom starts unit i's fade out of clip prev, shown in state from, when its
// species' table gives the change to state to a fade time; else it ends any fade
// the unit is in. It reports whether the unit fades.
func (c *Crowd) fadeFrom(cat *catalog, i int, s unit.SpeciesID, from, to unit.StateID, prev unit.ClipID) bool {
	d := cat.fade(s)[from&(unit.NumStates-1)][to&(unit.NumStates-1)]
	if !registry.IsFade(d) {
		c.fades.cancel(i, c.Blend)
		return false
	}
	c.fades.begin(i, clipSide{prev, c.Phase[i], c.Rate[i], from != unit.StateDie}, d)
	return true
}

// unplayable counts the units of [lo, hi) whose species is not loaded or does not
// support their archetype: the units Check names.
func (c *Crowd) unplayable(r *registry.Registry, lo, hi int) int {
	n := 0
	for i := lo; i < hi; i++ {
		if sp := r.Species(c.Species[i]); sp == nil || sp.Table(c.Archetype[i]) == nil {
			n++
		}
	}
	return n
}

// unplayable marks a clip selection of a unit whose species is not loaded or does
// not support its archetype: the high bit of the selection table's entries.
const unplayable unit.ClipID = 1 << 15

// UnplayableError is what Animate returns when some units cannot be played as
// asked: their species is not loaded, or does not support their archetype. Every
// other unit was animated as usual; Crowd.Check names the units and the reasons.
type UnplayableError struct {
	Units int // how many units
}

func (e *UnplayableError) Error() string {
	units := "units"
	if e.Units == 1 {
		units = "unit" // as Check's "1 of 2 units"; crowd imports no words package
	}
	return fmt.Sprintf("crowd: %d %s cannot be played: species not loaded or archetype not supported by the species (Check names them)", e.Units, units)
}

// Check reports, in one error, every unit Animate cannot play as asked: its species
// is not loaded in r, or does not support its archetype (naming the archetypes it
// does support). It also reports slices of the wrong length. It returns nil when
// every unit can be played. It is for use off the hot path: after spawning units,
// or when Animate returns an *UnplayableError.
func (c *Crowd) Check(r *registry.Registry) error {
	if err := c.check(); err != nil {
		return err
	}
	if tables(r).closed {
		return registry.ErrClosed
	}
	return unplayableUnits(r, len(c.Species), func(i int) (unit.SpeciesID, roster.Archetype) { return c.Species[i], c.Archetype[i] })
}

// unplayableUnits names, in one error, the units of n that cannot be played in r:
// Crowd.Check's and GPUClock.Check's report, with each unit's species and
// archetype from at.
func unplayableUnits(r *registry.Registry, n int, at func(i int) (unit.SpeciesID, roster.Archetype)) error {
	var errs []error
	bad := 0
	for i := range n {
		var err error
		s, arch := at(i)
		sp := r.Species(s)
		switch {
		case sp == nil:
			err = fmt.Errorf("unit %d: species %d (%s) is not loaded", i, s, s)
		case sp.Table(arch) == nil && len(sp.Archetypes) == 0:
			// a species the game registered without archetypes (its own bake)
			err = fmt.Errorf("unit %d: species %s has no archetype to play archetype %s by: give its roster.Species the Archetypes, and registry.WithArchetype a table of its own clips; crowd.Player plays its clips by number", i, sp.Name, arch)
		case sp.Table(arch) == nil:
			err = fmt.Errorf("unit %d: species %s does not support archetype %s (it supports %v)", i, sp.Name, arch, sp.Archetypes)
		}
		if err == nil {
			continue
		}
		if bad++; bad <= 8 {
			errs = append(errs, err)
		}
	}
	if bad == 0 {
		return nil
	}
	if bad > 8 {
		errs = append(errs, fmt.Errorf("and %d more units", bad-8))
	}
	return fmt.Errorf("crowd: %d of %d units cannot be played:\n%w", bad, n, errors.Join(errs...))
}

// Select returns the state and clip unit i plays with its current inputs: what
// Animate would choose. Use it off the hot path, for example to read the contact
// marker of the attack clip a swing is about to play.
func (c *Crowd) Select(r *registry.Registry, i int) (unit.StateID, unit.ClipID) {
	return selectClip(r, c.Species[i], c.Archetype[i], c.Variant[i], unit.Inputs{Flags: c.Flags[i], Weapon: c.Weapon[i], Speed: c.Speed[i]})
}

// selectClip is the state and clip of a unit of species s and archetype a with
// variant v and inputs in; clip 0 when the species is not loaded or lacks the
// archetype.
func selectClip(r *registry.Registry, s unit.SpeciesID, a roster.Archetype, v uint8, in unit.Inputs) (unit.StateID, unit.ClipID) {
	st := in.Resolve().State()
	sp := r.Species(s)
	if sp == nil {
		return st, 0
	}
	t := sp.Table(a)
	if t == nil {
		return st, 0
	}
	return st, t.Clip(st, v)
}

// Flags and species of unit i, as a Combat reads and writes them.
func (c *Crowd) flagsOf(i int) *unit.Flags      { return &c.Flags[i] }
func (c *Crowd) speciesOf(i int) unit.SpeciesID { return c.Species[i] }
func (c *Crowd) touch(int)                      {}

// deathPlayed says unit i's death has played: Animate left it at the end of Die.
func (c *Crowd) deathPlayed(i int) bool { return c.State[i] == unit.StateDie && c.Phase[i] >= 1 }

// Sockets writes unit i's socket transforms at its current clip and phase into dst
// (SocketCount·12 floats of its species), interpolated like the palette.
func (b *Batch) Sockets(r *registry.Registry, i int, dst []float32) error {
	s, err := b.species(r, i)
	if err != nil {
		return err
	}
	if _, err = s.Sockets(b.Clip[i], b.Phase[i], dst); err != nil || !b.blending(i) {
		return err
	}
	dst = dst[:s.SocketCount()*bpat.FloatsPerSocket]
	var scratch [16 * bpat.FloatsPerSocket]float32 // sixteen sockets without allocating
	tmp := scratch[:]
	if len(dst) > len(tmp) {
		tmp = make([]float32, len(dst))
	}
	return b.blendSides(i, dst, tmp[:len(dst)], func(clip unit.ClipID, phase float32, tmp []float32) error {
		_, err := s.Sockets(clip, phase, tmp)
		return err
	})
}

// Socket returns one socket of unit i at its current clip and phase, in the
// unit's model space (metres, y up, facing +z), blended like the palette while the
// unit fades. Place(x, y, z, heading).Mul of it is the socket in the world: where a
// prop held in that socket is drawn.
func (b *Batch) Socket(r *registry.Registry, i, socket int) (registry.Mat34, error) {
	s, err := b.species(r, i)
	if err != nil {
		return registry.Mat34{}, err
	}
	m, err := s.Socket(b.Clip[i], b.Phase[i], socket)
	if err != nil || !b.blending(i) {
		return m, err
	}
	var tmp registry.Mat34
	err = b.blendSides(i, m[:], tmp[:], func(clip unit.ClipID, phase float32, tmp []float32) error {
		o, err := s.Socket(clip, phase, socket)
		copy(tmp, o[:])
		return err
	})
	if err != nil {
		return registry.Mat34{}, err
	}
	return m, nil
}

// WorldSocket is Socket composed with the unit's place in the world: its position
// (x, y, z) and heading (radians about +y; 0 faces +z). See Place.
func (b *Batch) WorldSocket(r *registry.Registry, i, socket int, x, y, z, heading float32) (registry.Mat34, error) {
	m, err := b.Socket(r, i, socket)
	if err != nil {
		return registry.Mat34{}, err
	}
	return registry.Place(x, y, z, heading).Mul(m), nil
}

func (b *Batch) species(r *registry.Registry, i int) (*registry.Species, error) {
	if i < 0 || i >= len(b.Species) {
		return nil, fmt.Errorf("crowd: no unit %d of %d", i, len(b.Species))
	}
	s := r.Species(b.Species[i])
	if s == nil {
		if tables(r).closed {
			return nil, registry.ErrClosed
		}
		return nil, fmt.Errorf("crowd: unit %d: species %d (%s) is not loaded", i, b.Species[i], b.Species[i])
	}
	return s, nil
}

// LocomotionRate is the phase rate of a locomotion clip of the given gait at ground
// speed speed: speed / (Cycle·Speed) passes per second.
func LocomotionRate(g roster.Gait, speed float64) float64 {
	if !(g.Cycle > 0) || !(g.Speed > 0) {
		return 0
	}
	return speed / (g.Cycle * g.Speed)
}

// DeathProgress is the phase of a death clip of duration d seconds, elapsed seconds
// after the unit began to die: elapsed/d clamped to [0,1].
func DeathProgress(elapsed, d float64) float64 {
	if !(d > 0) {
		return 1
	}
	return math.Min(math.Max(elapsed/d, 0), 1)
}

// Spawn makes unit i a fresh unit of kind k: its species, archetype, weapon and
// flags (Mounted for a rider, nothing else) from k, standing still. Its variant is
// kept, so that a game may choose it. Spawn panics on an unknown kind.
func (c *Crowd) Spawn(i int, k unit.Kind) {
	if k >= unit.NumKinds {
		panic(fmt.Sprintf("crowd: Spawn of unknown %v", k))
	}
	c.Set(i, k.Loadout())
}

// Set gives unit i the species, archetype, weapon and flags of u, standing
// still, its override (Override) ended: Spawn for a unit that is not of a
// built-in kind. Check tells whether the species is loaded and supports the
// archetype.
func (c *Crowd) Set(i int, u unit.Loadout) {
	c.Species[i], c.Archetype[i], c.Weapon[i], c.Flags[i], c.Speed[i] = u.Species, u.Archetype, u.Weapon, u.Flags, 0
	c.release(i, 0)
	c.Play(i, unit.NoClip, c.Phase[i], 0, 0) // a new unit: its first clip does not fade in
}
