package crowd

import (
	"fmt"
	"unsafe"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

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

// clockUnit is 16 bytes (Commit prefetches it by its index shifted by 4).
var _ [16 - unsafe.Sizeof(clockUnit{})]byte
var _ [unsafe.Sizeof(clockUnit{}) - 16]byte

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
