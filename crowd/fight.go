package crowd

import (
	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
)

// Combat runs a Crowd's fights: one Attack call per swing, one Step per frame, and
// the events of the frame drained as a slice. It ties together what a game would
// otherwise wire by hand: the Melee timeline (whose attack phase the crowd plays:
// NewCombat sets Crowd.Swing), the World the strikes recheck, the clip each swing
// plays (Crowd.Select) and that clip's contact and weapon_release markers. The
// timing is Melee's (docs/runtime.md §8–§9): a swing's strike lands when the attack
// clip's phase crosses its contact marker, once, after rechecking the target.
//
// Units are indexed alike in Crowd, Melee and World. The game sets each
// attacker's Melee.Damage, Cooldown and Reach, each unit's World.HP, Team, X and Z,
// and keeps them current; Combat keeps World.Target.
//
// A frame is then:
//
//	for each unit that wants to strike: combat.Attack(attacker, target)
//	for _, e := range combat.Step(dt) { ... }   // hits, misses, releases, ends
//	crowd.Animate(reg, dt)
type Combat struct {
	Crowd *Crowd
	Melee *combat.Melee
	World combat.World
	// Now is the combat clock: the sum of the dt of every Step, in seconds.
	Now float64

	reg   *registry.Registry
	units fighters // Crowd, or the GPUClock of a scheduled combat
	hits  []combat.Hit
	// dying are the units a hit killed whose death is still playing.
	dying []int32
	sched *scheduled // nil: stepped every frame
}

// NewCombat returns the combat of c's units, playing clips from r: a Melee of
// c.Len() attackers whose phase c plays (c.Swing = Melee.Phase), and a World with
// HP, Team, X, Z and Target (all −1) of c.Len() units. HP starts at 0: the game
// sets every unit's HP before it fights (a unit at 0 HP is dead).
func NewCombat(r *registry.Registry, c *Crowd) *Combat {
	n := c.Len()
	f := &Combat{Crowd: c, Melee: combat.NewMelee(n), World: newWorld(n), reg: r, units: c}
	f.Melee.Record = true
	c.Swing = f.Melee.Phase
	return f
}

// newWorld returns the World of n units: HP 0, no team, at the origin, no target.
func newWorld(n int) combat.World {
	w := combat.World{HP: make([]float32, n), Team: make([]uint8, n), X: make([]float32, n), Z: make([]float32, n), Target: make([]int32, n)}
	for i := range w.Target {
		w.Target[i] = -1
	}
	return w
}

// NewScheduledCombat returns the combat of g's units in scheduled timing: each
// swing's release, contact and end are timed once, when it starts, as events on
// the combat clock, and Step handles only the events due (Melee's rules,
// docs/runtime.md §8–§9; an attacker that died or retargeted is found out at its
// contact time rather than at once). Attack and Step change flags through g, so
// the units they change are in g's next Commit, and g plays the swings. Melee.Time
// holds the timeline seconds at which each swing started (−1 without one); Melee.Phase
// and Melee.Wait are not kept current. Crowd is nil.
func NewScheduledCombat(r *registry.Registry, g *GPUClock) *Combat {
	n := g.Len()
	f := &Combat{Melee: combat.NewMelee(n), World: newWorld(n), reg: r, units: g}
	f.Melee.Record = true
	f.sched = &scheduled{readyAt: make([]float64, n), swungAt: make([]float64, n), swing: make([]uint32, n), over: make([]float32, n)}
	g.combat = f
	return f
}

// Attack begins a swing of attacker at target now, and reports whether it began:
// it does not when the attacker's cooldown has not run out (Melee.Ready), the
// attacker is dead, or the target is not alive, hostile and in reach.
//
// A swing that begins sets the attacker's Attacking flag (kept until the swing
// ends) and World.Target, snapshots the damage, resets the cooldown, and times the
// strike on the contact marker of the attack clip the unit now plays: its
// weapon's attack (a sword, a spear, a bow shot; the mounted strike or bow shot of
// a rider). A bow unit shoots unless the game set its InMelee flag; a ranged swing
// also reports EventRelease at its clip's weapon_release marker.
func (f *Combat) Attack(attacker, target int) bool {
	// Most calls in a melee find the attacker cooling down or the target out
	// of reach or dead: in stepped timing, where being ready changes nothing,
	// answered here, before anything else is asked, as Start would answer
	// after.
	if m := f.Melee; f.sched == nil && uint(attacker) < uint(len(m.Wait)) && !(m.Ready(attacker) && m.CanStart(&f.World, attacker, int32(target))) {
		return false
	}
	return f.attack(attacker, target)
}

// attack is Attack past its first answer.
func (f *Combat) attack(attacker, target int) bool {
	c := f.units
	if attacker < 0 || attacker >= c.Len() || !f.ready(attacker) {
		return false
	}
	if !f.Melee.CanStart(&f.World, attacker, int32(target)) {
		return false
	}
	flags := c.flagsOf(attacker)
	old := *flags
	*flags |= unit.Attacking
	st, clip := c.Select(f.reg, attacker)
	contact, release := float32(registry.DefaultContact), float32(-1)
	if s := f.reg.Species(c.speciesOf(attacker)); s != nil && int(clip) < len(s.Clips) {
		cl := &s.Clips[clip]
		contact = cl.Contact()
		if rangedState[st&(unit.NumStates-1)] {
			release = contact
			if cl.Markers.Set(bpat.WeaponRelease) {
				release = cl.Markers[bpat.WeaponRelease]
			}
		}
	}
	if !f.Melee.Start(&f.World, attacker, int32(target), contact) {
		*flags = old
		return false
	}
	f.Melee.Release[attacker] = release
	f.World.Target[attacker] = int32(target)
	if f.sched != nil {
		f.scheduleSwing(attacker)
	}
	c.touch(attacker)
	return true
}

// fighters is what a Combat needs of the units it runs: a Crowd's, or a
// GPUClock's.
type fighters interface {
	Len() int
	flagsOf(i int) *unit.Flags
	speciesOf(i int) unit.SpeciesID
	Select(r *registry.Registry, i int) (unit.StateID, unit.ClipID)
	touch(i int)            // the unit's flags changed
	deathPlayed(i int) bool // its Die clip has played to its end
}

// finishDeaths turns Dead the units a hit killed whose death has played: still
// Dying, in State Die at Phase 1 (where a death's phase stays, docs/runtime.md
// §5). A unit the game gave other flags meanwhile is left to it.
func (f *Combat) finishDeaths() {
	c := f.units
	keep := f.dying[:0]
	for _, i := range f.dying {
		switch fl := c.flagsOf(int(i)); {
		case *fl&unit.Dying == 0:
			// revived, or made Dead by the game: no longer ours
		case c.deathPlayed(int(i)):
			*fl = unit.Dead | *fl&unit.Mounted
			c.touch(int(i))
		default:
			keep = append(keep, i)
		}
	}
	f.dying = keep
}

// rangedState is true for the states whose swing shoots rather than strikes.
var rangedState = [unit.NumStates]bool{unit.StateAttackRanged: true, unit.StateAttackBow: true, unit.StateCast: true, unit.StateRidingBowShot: true}

// Step advances every swing by dt seconds (Melee.Step) and returns what happened,
// in order: the strikes that landed (their damage already taken off World.HP) or
// were cancelled, the releases of ranged swings, and the swings that ended. A unit
// a hit killed is set Dying (Mounted kept), and Dead by the first Step after its
// death has played (State Die at Phase 1: as Animate left a Crowd's unit, as a
// GPUClock's playhead stands at its Now), unless the game changed its flags
// meanwhile. An attacker whose swing ended loses its Attacking flag. The slice is reused by the next Step; with no more events than
// the one before, Step does not allocate.
func (f *Combat) Step(dt float32) []combat.Event {
	m, c := f.Melee, f.units
	if f.sched != nil {
		f.hits = f.hits[:0]
		f.stepScheduled(dt)
	} else {
		f.hits = m.Step(&f.World, dt, f.hits[:0])
		f.Now += float64(dt)
	}
	f.finishDeaths()
	for _, e := range m.Events {
		switch e.Kind {
		case combat.EventHit:
			if e.Killed {
				fl := c.flagsOf(int(e.Target))
				if *fl&unit.Dying == 0 {
					f.dying = append(f.dying, e.Target)
				}
				*fl = unit.Dying | *fl&unit.Mounted
				c.touch(int(e.Target))
			}
		case combat.EventEnd:
			if !m.Swinging(int(e.Attacker)) {
				*c.flagsOf(int(e.Attacker)) &^= unit.Attacking
				c.touch(int(e.Attacker))
			}
		}
	}
	ev := m.Events
	m.Events = m.Events[:0]
	return ev
}
