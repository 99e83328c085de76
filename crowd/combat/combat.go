package combat

import "fmt"

// CombatPhase is a phase of one swing's timeline (docs/runtime.md §8).
type CombatPhase uint8

const (
	CombatIdle CombatPhase = iota // no swing
	Advance
	WindUp
	Strike
	Impact
	Recover
	Reposition
	numCombatPhases
)

var combatPhaseNames = [numCombatPhases]string{"Idle", "Advance", "WindUp", "Strike", "Impact", "Recover", "Reposition"}

func (k CombatPhase) String() string {
	if k < numCombatPhases {
		return combatPhaseNames[k]
	}
	return fmt.Sprintf("CombatPhase(%d)", uint8(k))
}

// Phase durations in seconds, and the attack-phase window each phase sweeps.
var (
	phaseDuration = [numCombatPhases]float32{0, .22, .42, .34, .18, .40, .28}
	attackWindow  = [numCombatPhases][2]float32{{0, 0}, {0, .14}, {.14, .34}, {.34, .52}, {.52, .60}, {.60, .86}, {.86, .995}}
	phaseStart    [numCombatPhases + 1]float32 // phaseStart[k] is when phase k begins; [numCombatPhases] the end
)

// SwingDuration is the length of a whole swing at tempo 1: the sum of the phase
// durations, 1.84 s.
var SwingDuration float32

func init() {
	t := 0.0
	for k := Advance; k < numCombatPhases; k++ {
		phaseStart[k] = float32(t)
		t += float64(phaseDuration[k])
	}
	phaseStart[numCombatPhases] = float32(t)
	SwingDuration = float32(t)
	swingTab = newSwingTable()
}

// PhaseDuration returns how long phase k lasts at tempo 1: Advance .22 s, WindUp
// .42, Strike .34, Impact .18, Recover .40, Reposition .28.
func PhaseDuration(k CombatPhase) float32 {
	if k >= numCombatPhases {
		return 0
	}
	return phaseDuration[k]
}

// AttackWindow returns the attack phases phase k sweeps: Advance [0,.14], WindUp
// [.14,.34], Strike [.34,.52], Impact [.52,.60], Recover [.60,.86], Reposition
// [.86,.995].
func AttackWindow(k CombatPhase) (lo, hi float32) {
	if k >= numCombatPhases {
		return 0, 0
	}
	return attackWindow[k][0], attackWindow[k][1]
}

// Ease maps progress t ∈ [0,1] through phase k onto its window: WindUp t²(2.4−1.4t),
// Strike 1−(1−t)², the others smoothstep t²(3−2t).
func Ease(k CombatPhase, t float32) float32 {
	switch k {
	case WindUp:
		return t * t * (2.4 - 1.4*t)
	case Strike:
		u := 1 - t
		return 1 - u*u
	}
	return t * t * (3 - 2*t)
}

// Timeline returns the phase a swing is in t seconds (at tempo 1) after it started,
// and the progress through that phase in [0,1). Before the start (t < 0) and after
// the end (t ≥ SwingDuration) it is CombatIdle.
func Timeline(t float32) (CombatPhase, float32) {
	if !(t >= 0) || t >= phaseStart[numCombatPhases] {
		return CombatIdle, 0
	}
	// The phases whose start t has passed, counted without a loop whose exit
	// varies from swing to swing (phaseStart rises).
	k := Advance
	for _, start := range phaseStart[WindUp:numCombatPhases] {
		if t >= start {
			k++
		}
	}
	u := (t - phaseStart[k]) / phaseDuration[k]
	return k, min(u, 1)
}

// AttackPhase is the attack clip's phase t seconds into a swing: the phase's window
// swept by its ease. It rises from 0 at the start to .995 at the end, and stays at
// .995 after it; before the start it is 0.
func AttackPhase(t float32) float32 {
	if t >= phaseStart[numCombatPhases] {
		return attackWindow[Reposition][1]
	}
	k, u := Timeline(t)
	if k == CombatIdle {
		return 0
	}
	lo, hi := attackWindow[k][0], attackWindow[k][1]
	return lo + (hi-lo)*Ease(k, u)
}

// World is what a strike rechecks when it lands, indexed by unit: alive means
// HP > 0, hostile means a different Team, in reach means within the attacker's
// Reach in the X–Z plane. Team, X and Z may be nil (everyone hostile, always in
// reach). Target, when not nil, is each unit's current target: a unit whose target
// changes while a strike is pending has retargeted, and the strike is cancelled.
type World struct {
	HP     []float32
	Team   []uint8
	X, Z   []float32
	Target []int32
}

func (w *World) valid(i int32) bool { return i >= 0 && int(i) < len(w.HP) }

// Alive reports whether unit i is alive: HP above 0.
func (w *World) Alive(i int32) bool { return w.valid(i) && w.HP[i] > 0 }
func (w *World) hostile(a, b int32) bool {
	return w.Team == nil || w.Team[a] != w.Team[b]
}
func (w *World) inReach(a, b int32, reach float32) bool {
	if w.X == nil || w.Z == nil {
		return true
	}
	dx, dz := w.X[a]-w.X[b], w.Z[a]-w.Z[b]
	return dx*dx+dz*dz <= reach*reach
}

// Hit is a strike that landed.
type Hit struct {
	Attacker, Target int32
	Damage           float32
	Killed           bool // the hit took the target's HP to 0 or below
}

// MeleeStats counts swings and strikes.
type MeleeStats struct {
	Started   uint64 // swings started
	Landed    uint64 // strikes that landed on contact
	Cancelled uint64 // strikes cancelled: target dead, not hostile or out of reach at contact, attacker dead, or retargeted
	Kills     uint64 // landed strikes that killed
}

// Melee runs the combat timeline and the deferred melee strike of docs/runtime.md §8 for
// N attackers, as a structure of arrays indexed like World.
//
// Start begins a swing when the attacker's cooldown has run out: it snapshots the
// target and the damage and resets the cooldown then. Step advances each swing's
// timeline; the strike lands on the step where the attack phase (AttackPhase of the
// timeline, the phase the attack clip plays at) reaches the clip's contact marker,
// also when one step jumps past it or past the end of the swing, after checking that
// the target is still alive, hostile and in reach; otherwise it is cancelled. A
// strike is also cancelled when its attacker dies or retargets before contact.
//
// Swings start exactly every Cooldown seconds of a continuous fight (the overshoot
// of a step carries into the next cooldown and the swing's timeline), and each lands
// once, so the damage per second is Damage/Cooldown whatever the step. A swing
// lasts SwingDuration at tempo 1; when the cooldown is shorter the swing plays
// faster (tempo SwingDuration/Cooldown) so that it ends as the next one may start.
type Melee struct {
	// Per-attacker parameters.
	Damage   []float32
	Cooldown []float32 // seconds from one swing's start to the next; not positive (or NaN): none
	Reach    []float32 // metres
	// Per-attacker state.
	Wait    []float32 // seconds until the cooldown runs out (≤ 0: ready)
	Time    []float32 // timeline seconds since the swing started; −1 without a swing
	Phase   []float32 // the attack clip's phase, AttackPhase(Time); −1 without a swing (Crowd.Swing)
	Tempo   []float32 // timeline seconds per second of the current swing
	Contact []float32 // contact phase of the current swing's clip
	// The pending strike: its target (−1 none) and damage.
	StrikeTarget []int32
	StrikeDamage []float32

	Stats MeleeStats
	// Late are strikes that landed in Start (a swing that began as the last
	// ended), for the next Step to report.
	Late []Hit

	// Release is a ranged swing's release phase until it is crossed, else −1:
	// set after Start for a swing that shoots (EventRelease).
	Release []float32
	// Record keeps the swings' Events; whoever reads them empties the slice.
	Record bool
	Events []Event
}

// NewMelee returns n attackers with no swing, ready to strike.
func NewMelee(n int) *Melee {
	m := &Melee{Damage: make([]float32, n), Cooldown: make([]float32, n), Reach: make([]float32, n),
		Wait: make([]float32, n), Time: make([]float32, n), Phase: make([]float32, n), Tempo: make([]float32, n),
		Contact: make([]float32, n), StrikeTarget: make([]int32, n), StrikeDamage: make([]float32, n),
		Release: make([]float32, n)}
	for i := range n {
		m.Time[i], m.Phase[i], m.StrikeTarget[i], m.Release[i] = -1, -1, -1, -1
	}
	return m
}

// Len is the number of attackers.
func (m *Melee) Len() int { return len(m.Time) }

// Ready reports whether attacker i's cooldown has run out.
func (m *Melee) Ready(i int) bool { return m.Wait[i] <= 0 }

// Swinging reports whether attacker i is in a swing.
func (m *Melee) Swinging(i int) bool { return m.Time[i] >= 0 }

// Pending reports whether attacker i has a strike waiting for contact.
func (m *Melee) Pending(i int) bool { return m.StrikeTarget[i] >= 0 }

// Start begins a swing of attacker i at target with the given contact phase (the
// playing attack clip's contact marker: Species.Contact). It returns false, and
// changes nothing, when the cooldown has not run out, the attacker is dead, or the
// target is not alive, hostile and in reach. A swing that shoots sets its Release
// phase after it begins.
func (m *Melee) Start(w *World, i int, target int32, contact float32) bool {
	if !m.CanStart(w, i, target) {
		return false
	}
	if m.StrikeTarget[i] >= 0 {
		// A strike whose contact lies at the very end of its swing: the swing ends
		// now, so it lands (or is cancelled) now.
		m.Late = m.Land(w, i, m.Late)
	}
	cd := m.Cooldown[i]
	if !(cd > 0) {
		// No cooldown. A negative one would move each next swing's start
		// before the last's, and a NaN one would hold the stepped cooldown
		// for ever while a scheduled one ran out at once.
		cd = 0
	}
	tempo := float32(1)
	if cd > 0 && cd < SwingDuration {
		tempo = SwingDuration / cd
	}
	over := -m.Wait[i] // how long ago the cooldown ran out: at most one step
	m.Wait[i] = m.Wait[i] + cd
	m.Time[i] = over * tempo
	m.Phase[i] = AttackPhase(m.Time[i])
	m.Tempo[i] = tempo
	m.Contact[i] = contact
	m.StrikeTarget[i] = target
	m.StrikeDamage[i] = m.Damage[i]
	m.Release[i] = -1
	m.Stats.Started++
	return true
}

// CanStart reports whether Start would begin a swing of attacker i at target
// now: its cooldown has run out, it is alive, and the target is alive, hostile
// and in reach. It changes nothing.
func (m *Melee) CanStart(w *World, i int, target int32) bool {
	a := int32(i)
	return !(m.Wait[i] > 0) && w.Alive(a) && w.Alive(target) && w.hostile(a, target) && w.inReach(a, target, m.Reach[i])
}

// Cancel cancels attacker i's swing and pending strike, as on death or retarget. It
// reports whether a strike was pending.
func (m *Melee) Cancel(i int) bool {
	swinging := m.Time[i] >= 0
	m.Time[i], m.Phase[i], m.Release[i] = -1, -1, -1
	tg := m.StrikeTarget[i]
	if tg < 0 {
		if swinging {
			m.Emit(EventEnd, i, -1, 0, false)
		}
		return false
	}
	m.StrikeTarget[i] = -1
	m.Stats.Cancelled++
	m.Emit(EventMiss, i, tg, m.StrikeDamage[i], false)
	m.Emit(EventEnd, i, -1, 0, false)
	return true
}

// Emit records an event of attacker i's swing when Record is set.
func (m *Melee) Emit(k EventKind, i int, target int32, damage float32, killed bool) {
	if m.Record {
		m.Events = append(m.Events, Event{Kind: k, Attacker: int32(i), Target: target, Damage: damage, Killed: killed})
	}
}

// Step advances every attacker by dt seconds: cooldowns run down, swings advance,
// strikes whose contact is crossed land or are cancelled. It appends the strikes
// that landed to hits and returns it; with enough capacity it does not allocate.
func (m *Melee) Step(w *World, dt float32, hits []Hit) []Hit {
	if len(m.Late) > 0 {
		hits = append(hits, m.Late...)
		m.Late = m.Late[:0]
	}
	n := len(m.Time)
	i := 0
	if a, ok := m.kernelArgs(w, dt); ok {
		// The kernel steps eight attackers at a time and stops at the first
		// one with something to do (a strike, a release, an end, a death, a
		// retarget), which the Go loop then steps alone: its hit may change the
		// HP of attackers after it.
		for {
			if i = swing8(&a, i, n); n-i < 8 {
				break
			}
			hits = m.stepRange(w, dt, i, i+1, hits)
			i++
		}
	}
	return m.stepRange(w, dt, i, n, hits)
}

// stepRange is Step for attackers [from, to): the whole of it where there is no
// kernel, and the reference that the kernel matches bit for bit.
func (m *Melee) stepRange(w *World, dt float32, from, to int, hits []Hit) []Hit {
	// The slices in locals: the stores below would otherwise make the compiler
	// load m's fields again for every attacker. Cancel and Land write through m
	// into the same arrays.
	wait, time, phase, tempo := m.Wait, m.Time, m.Phase, m.Tempo
	release, contact, strike := m.Release, m.Contact, m.StrikeTarget
	n := to
	wait, time, phase, tempo, release, contact, strike = wait[:n], time[:n], phase[:n], tempo[:n], release[:n], contact[:n], strike[:n]
	for i := from; i < n; i++ {
		if wait[i] > 0 {
			wait[i] -= dt
		}
		t := time[i]
		if t < 0 {
			continue
		}
		a := int32(i)
		if !w.Alive(a) {
			m.Cancel(i)
			continue
		}
		if tg := strike[i]; tg >= 0 && w.Target != nil && w.Target[i] != tg {
			m.Cancel(i)
			continue
		}
		t += dt * tempo[i]
		ap := AttackPhase(t)
		if r := release[i]; r >= 0 && (t >= SwingDuration || ap >= r) {
			release[i] = -1
			m.Emit(EventRelease, i, strike[i], m.StrikeDamage[i], false)
		}
		if strike[i] >= 0 && (t >= SwingDuration || ap >= contact[i]) {
			hits = m.Land(w, i, hits)
		}
		if t >= SwingDuration {
			t, ap = -1, -1
			m.Emit(EventEnd, i, -1, 0, false)
		}
		time[i], phase[i] = t, ap
	}
	return hits
}

// Land applies attacker i's pending strike if its target is still alive, hostile
// and in reach, and cancels it otherwise.
func (m *Melee) Land(w *World, i int, hits []Hit) []Hit {
	a, tg := int32(i), m.StrikeTarget[i]
	m.StrikeTarget[i] = -1
	if !w.Alive(tg) || !w.hostile(a, tg) || !w.inReach(a, tg, m.Reach[i]) {
		m.Stats.Cancelled++
		m.Emit(EventMiss, i, tg, m.StrikeDamage[i], false)
		return hits
	}
	hp := w.HP[tg] - m.StrikeDamage[i]
	w.HP[tg] = hp
	m.Stats.Landed++
	killed := hp <= 0
	if killed {
		m.Stats.Kills++
	}
	m.Emit(EventHit, i, tg, m.StrikeDamage[i], killed)
	return append(hits, Hit{Attacker: a, Target: tg, Damage: m.StrikeDamage[i], Killed: killed})
}

// EventKind says what a combat Event reports.
type EventKind uint8

const (
	// EventRelease: a ranged swing (a bow shot, a cast) crossed its clip's
	// weapon_release marker (its contact marker when it has none): the moment the
	// arrow leaves the bow, for the game to launch a projectile or play a sound. The
	// strike itself still lands at contact (EventHit).
	EventRelease EventKind = iota + 1
	// EventHit: a strike landed at its clip's contact marker; Damage was taken off
	// the target's HP, and Killed says it took it to 0 or below.
	EventHit
	// EventMiss: a strike was cancelled: at contact the target was dead, not hostile
	// or out of reach, or before contact its attacker died or retargeted.
	EventMiss
	// EventEnd: a swing ended (Target is −1): the attacker no longer swings.
	EventEnd
)

var eventNames = [...]string{EventRelease: "release", EventHit: "hit", EventMiss: "miss", EventEnd: "end"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return "event?"
}

// Event is one thing that happened in a swing, reported by Combat.Step.
type Event struct {
	Kind     EventKind
	Attacker int32
	Target   int32   // −1 for EventEnd
	Damage   float32 // the strike's damage (snapshotted when the swing began)
	Killed   bool    // EventHit: the target's HP reached 0 or below
}
