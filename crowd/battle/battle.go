// Package battle is a scripted battle of two armies of the built-in species,
// played through the crowd runtime the way a game would: targets, movement and
// swings decided each step, the deferred melee strike timed on the clips'
// contact markers, deaths, then one Crowd.Animate. It is what 'bonebake
// simulate' measures and what 'bonebake view' shows in its battle layout.
package battle

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// Unit kinds of the battle.
const (
	kindInfantry = iota
	kindArcher
	kindRider
	kindHorse // a rider's mount: it follows its rider and dies with it
	kindElephant
)

// gaitSpeed is a built-in clip's ground speed: a unit moves as fast as its
// locomotion clip's stride says, so feet do not slide.
func gaitSpeed(species, clip string) float32 {
	s, _ := roster.ByName(species)
	return float32(s.Gait(clip).Speed)
}

// kindStats are a kind's combat numbers and speeds.
type kindStats struct {
	hp, damage, cooldown, reach float32
	walk, run, runBeyond        float32 // m/s, and the distance beyond which it runs
	melee                       bool
}

var kinds = [...]kindStats{
	kindInfantry: {hp: 100, damage: 10, cooldown: 1.5, reach: 1.6, walk: gaitSpeed("humanoid", "walk"), run: gaitSpeed("humanoid", "run"), runBeyond: 10, melee: true},
	kindArcher:   {hp: 70, damage: 7, cooldown: 2, reach: 18, walk: gaitSpeed("humanoid", "walk"), run: gaitSpeed("humanoid", "run"), runBeyond: 30},
	// A rider charges between the horse's canter and gallop.
	kindRider:    {hp: 140, damage: 14, cooldown: 1.8, reach: 2.2, walk: gaitSpeed("horse", "walk"), run: 9, runBeyond: 12, melee: true},
	kindHorse:    {hp: 1},
	kindElephant: {hp: 700, damage: 30, cooldown: 2.2, reach: 3, walk: gaitSpeed("elephant", "walk"), run: gaitSpeed("elephant", "run"), runBeyond: 15, melee: true},
}

// Battle is two armies of mixed species marching at each other, fighting and
// dying. Units are indexed alike in Crowd, Melee and World; World.Team is a
// unit's army, World.X and World.Z its place on the ground (metres). Melee and
// World are Combat's.
type Battle struct {
	Crowd  *crowd.Crowd
	Combat *crowd.Combat
	Melee  *combat.Melee
	World  *combat.World
	// Heading is each unit's facing, radians about +y (0 faces +z): toward its
	// target, or where it walks. It follows the direction to the target within
	// headingSlack: it is computed again only when that direction has turned
	// further (a new target, or the units' paths).
	Heading []float32
	// Workers is how many goroutines Decide and Step share the units among (0
	// or 1: the caller's alone). The battle is the same on any number.
	Workers int

	reg   *registry.Registry
	kind  []uint8
	mount []int32 // a rider's horse, else −1
	rider []int32 // a horse's rider, else −1
	base  []unit.Flags
	hit   []float32 // seconds of hit reaction left
	army  [2][]int32
	rng   *rand.Rand
	hits  []combat.Event // this step's
	speed []float32      // per-kind scaled move speeds, by unit: skeletons are a little slower
	aim   []aim          // the direction Heading was last computed for, by unit
	later [][]int32      // per goroutine, the units think leaves to its serial pass
}

// aim is a unit's Heading as a unit vector (sin, cos): checking that the
// direction to the target is still within headingSlack of it takes a few
// multiply-adds, where computing a heading takes an arctangent.
type aim struct{ x, z float32 }

// headingSlack is how far, in radians, the direction to a unit's target may
// turn before its Heading follows: well under a degree, which no one sees, and
// it spares an arctangent per unit per step. Compared as sin²(slack), against
// the squared cross product of the faced and the current direction.
const headingSlack = 0.01

var slackSin2 = float32(math.Sin(headingSlack) * math.Sin(headingSlack))

// New lines up two armies of n units in all facing each other 30 m apart.
func New(reg *registry.Registry, n int, seed uint64) *Battle {
	b := &Battle{reg: reg, Crowd: crowd.New(n), Melee: combat.NewMelee(n), Heading: make([]float32, n), kind: make([]uint8, n),
		mount: make([]int32, n), rider: make([]int32, n), base: make([]unit.Flags, n), hit: make([]float32, n), speed: make([]float32, n), aim: make([]aim, n),
		rng: rand.New(rand.NewPCG(seed, seed^0x5eed))}
	b.Combat = crowd.NewCombat(reg, b.Crowd)
	b.Melee, b.World = b.Combat.Melee, &b.Combat.World
	c, m, w := b.Crowd, b.Melee, b.World
	for i := range n {
		b.mount[i], b.rider[i], w.Target[i] = -1, -1, -1
		b.aim[i] = aim{z: 1}
	}
	perTeam := [2]int{n / 2, n - n/2}
	next := 0
	for team := range 2 {
		cols := int(math.Ceil(math.Sqrt(float64(perTeam[team]) * 2)))
		slot := 0
		place := func(i int) {
			row, col := slot/cols, slot%cols
			slot++
			x := (float32(col) - float32(cols)/2) * 1.4
			z := 15 + float32(row)*1.6
			if team == 0 {
				z = -z
			}
			w.X[i], w.Z[i], w.Team[i] = x, z, uint8(team)
			if team == 1 {
				b.Heading[i] = math.Pi
				b.aim[i].z = -1
			}
		}
		end := next + perTeam[team]
		for next < end {
			i := next
			r := b.rng.IntN(100)
			switch {
			case r < 10 && end-next >= 2: // a rider and its horse
				b.setKind(i, kindRider)
				c.Spawn(i, unit.KindKnight)
				b.base[i] = unit.Mounted
				h := i + 1
				b.setKind(h, kindHorse)
				c.Spawn(h, unit.KindHorse)
				b.mount[i], b.rider[h] = int32(h), int32(i)
				w.Team[h] = uint8(team)
				place(i)
				w.X[h], w.Z[h], b.Heading[h] = w.X[i], w.Z[i], b.Heading[i]
				next += 2
				b.army[team] = append(b.army[team], int32(i))
				continue
			case r < 18:
				b.setKind(i, kindElephant)
				c.Spawn(i, unit.KindElephant)
			case r < 33:
				b.setKind(i, kindArcher)
				c.Spawn(i, unit.KindBowman)
			default:
				b.setKind(i, kindInfantry)
				switch b.rng.IntN(4) {
				case 0:
					c.Spawn(i, unit.KindMilitia)
				case 1:
					c.Spawn(i, unit.KindSwordsman)
				case 2:
					c.Spawn(i, unit.KindSpearman)
					m.Reach[i] = 2.4
				case 3:
					c.Spawn(i, unit.KindSkeleton) // a skeleton: shorter reach, slower
					m.Reach[i], b.speed[i] = 1.3, 0.9
				}
			}
			c.Variant[i] = uint8(b.rng.IntN(8))
			place(i)
			next++
			b.army[team] = append(b.army[team], int32(i))
		}
	}
	return b
}

// Decide runs the game side of one step of dt seconds: targets, movement and
// swings, the melee timeline with the strikes that land, deaths, and every unit's
// flags for the animation step.
func (b *Battle) Decide(dt float32) {
	b.think(dt)
	b.hits = b.Combat.Step(dt)
	b.settle(dt)
}

// Step is Decide then Crowd.Animate: after it, Crowd.Out holds every unit's
// (species, clip, frame, next, lerp).
func (b *Battle) Step(dt float32) error {
	b.Decide(dt)
	return b.Crowd.AnimateParallel(b.reg, dt, b.Workers)
}

// maxParts bounds the goroutines a battle runs on.
const maxParts = 64

// split is how many parts of n units parts makes.
func (b *Battle) split(n int) int { return min(crowd.ParallelParts(n, b.Workers), maxParts) }

// parts splits n units among the goroutines Workers allows, at least
// crowd.ParallelUnits each, and runs do on each part [lo, hi) at once; k is the
// part's number. With one part it runs on the caller's goroutine.
func (b *Battle) parts(n int, do func(k, lo, hi int)) {
	w := b.split(n)
	if w == 1 {
		do(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for k := range w {
		wg.Go(func() { do(k, n*k/w, n*(k+1)/w) })
	}
	wg.Wait()
}

// Len is the number of units, horses included.
func (b *Battle) Len() int { return len(b.World.HP) }

// Mount returns the horse unit rider i sits on, or -1.
func (b *Battle) Mount(i int) int32 { return b.mount[i] }

// Rider returns the rider unit on horse h, or -1: Mount's inverse.
func (b *Battle) Rider(h int) int32 { return b.rider[h] }

// Alive counts the living units of army team (horses not counted).
func (b *Battle) Alive(team int) int {
	n := 0
	for _, i := range b.army[team] {
		if b.World.HP[i] > 0 {
			n++
		}
	}
	return n
}

func (b *Battle) setKind(i int, k uint8) {
	s := &kinds[k]
	b.kind[i] = k
	b.World.HP[i] = s.hp
	b.Melee.Damage[i], b.Melee.Cooldown[i], b.Melee.Reach[i] = s.damage, s.cooldown, s.reach
	b.speed[i] = 1
	// Desynchronize the armies' first swings a little.
	b.Melee.Wait[i] = float32(b.rng.Float64()) * s.cooldown * 0.5
}

// think decides each army's step in turn: targets, movement and swings. A
// unit that marches on a live target, or stands, touches only its own data and
// reads the enemy's, which stands still meanwhile: those are decided on all of
// Workers' goroutines at once. The units that draw a new target (from the
// battle's one random source) or begin a swing (Combat.Attack) are then decided
// in army order, so that the battle is the same on any number of goroutines.
func (b *Battle) think(dt float32) {
	if len(b.later) < maxParts {
		b.later = make([][]int32, maxParts)
	}
	for team := range 2 {
		army := b.army[team]
		if b.split(len(army)) == 1 || b.overdue(army) {
			// One goroutine's share; or a strike overdue, which lands when its
			// attacker next swings, in the serial pass, and may kill a target
			// that a unit decided at once would have turned from: the army is
			// decided in order.
			b.thinkUnits(army, team, dt, true, nil)
			continue
		}
		b.parts(len(army), func(k, lo, hi int) {
			b.later[k] = b.thinkUnits(army[lo:hi], team, dt, false, b.later[k][:0])
		})
		for k := range b.later {
			b.thinkUnits(b.later[k], team, dt, true, nil)
			b.later[k] = b.later[k][:0]
		}
	}
}

// overdue reports whether a unit of army has a strike pending from a swing
// that has ended: one whose contact lies at the very end of its swing, which
// lands when the unit next swings (Melee.start).
func (b *Battle) overdue(army []int32) bool {
	m := b.Melee
	var found [maxParts]bool
	b.parts(len(army), func(k, lo, hi int) {
		for _, i := range army[lo:hi] {
			if m.Pending(int(i)) && !m.Swinging(int(i)) {
				found[k] = true
				return
			}
		}
	})
	return found != [maxParts]bool{}
}

// thinkUnits decides the step of units of army team. Without shared it leaves
// a unit that needs a new target or may begin a swing as it is, but for its
// speed and Running flag cleared, and appends it to later, which it returns;
// with shared it decides every unit.
func (b *Battle) thinkUnits(units []int32, team int, dt float32, shared bool, later []int32) []int32 {
	// The slices in locals: the stores below would otherwise make the compiler
	// load each from its struct again for every unit (none is reallocated here).
	c, m, w := b.Crowd, b.Melee, b.World
	speed, flags, hp, target, xs, zs := c.Speed, c.Flags, w.HP, w.Target, w.X, w.Z
	aims, reach, kind, pace := b.aim, m.Reach, b.kind, b.speed
	for _, u := range units {
		i := int(u)
		speed[i] = 0
		flags[i] &^= unit.Running
		if hp[i] <= 0 {
			continue
		}
		tg := target[i]
		if tg < 0 || hp[tg] <= 0 {
			if !shared {
				later = append(later, u)
				continue
			}
			tg = b.pick(i, 1-team)
			target[i] = tg
		}
		if tg < 0 || m.Swinging(i) {
			continue
		}
		k := &kinds[kind[i]]
		dx, dz := xs[tg]-xs[i], zs[tg]-zs[i]
		d2 := dx*dx + dz*dz
		// The heading: an arctangent only when the direction to the target
		// (a new one, or the same one moving) has turned past headingSlack.
		if a := aims[i]; d2 > 0 {
			if cross, dot := a.x*dz-a.z*dx, a.x*dx+a.z*dz; dot <= 0 || cross*cross > slackSin2*d2 {
				b.face(i, dx, dz)
			}
		}
		r := reach[i]
		// Squared distances: float64 holds the products exactly, so this is
		// √d2 > reach without the root for a unit that stands and fights.
		if float64(d2) > float64(r)*float64(r) {
			d := float32(math.Sqrt(float64(d2)))
			v := k.walk * pace[i]
			if d > k.runBeyond {
				v = k.run * pace[i]
				flags[i] |= unit.Running
			}
			step := min(v*dt, d-r*0.8)
			xs[i] += dx / d * step
			zs[i] += dz / d * step
			speed[i] = step / dt
			continue
		}
		if !m.Ready(i) {
			continue
		}
		if !shared {
			// Decided again in army order: the heading just set is kept (the
			// direction has not turned), and the swing begins there.
			later = append(later, u)
			continue
		}
		// An archer shoots: not InMelee. The swing is timed on the contact
		// marker of the clip the unit plays once it attacks.
		if k.melee {
			flags[i] |= unit.InMelee
		}
		b.Combat.Attack(i, int(tg))
	}
	return later
}

// face turns unit i toward (dx, dz), not (0, 0).
func (b *Battle) face(i int, dx, dz float32) {
	b.Heading[i] = float32(math.Atan2(float64(dx), float64(dz)))
	inv := 1 / float32(math.Sqrt(float64(dx*dx+dz*dz)))
	b.aim[i] = aim{dx * inv, dz * inv}
}

// pick returns a live enemy near unit i: the nearest of a few sampled, else the
// first found by a scan; −1 when the enemy army is gone.
func (b *Battle) pick(i, enemy int) int32 {
	w, army := b.World, b.army[enemy]
	best, bestD := int32(-1), float32(math.MaxFloat32)
	for range 8 {
		j := army[b.rng.IntN(len(army))]
		if w.HP[j] <= 0 {
			continue
		}
		dx, dz := w.X[j]-w.X[i], w.Z[j]-w.Z[i]
		if d := dx*dx + dz*dz; d < bestD {
			best, bestD = j, d
		}
	}
	if best >= 0 {
		return best
	}
	start := b.rng.IntN(len(army))
	for k := range min(len(army), 256) {
		if j := army[(start+k)%len(army)]; w.HP[j] > 0 {
			return j
		}
	}
	return -1
}

// settle applies the strikes that landed and sets every unit's flags for the
// animation step.
func (b *Battle) settle(dt float32) {
	c, m, w := b.Crowd, b.Melee, b.World
	for _, h := range b.hits {
		if h.Kind != combat.EventHit {
			continue
		}
		if h.Killed {
			c.Flags[h.Target] = unit.Dying | b.base[h.Target]
			if mt := b.mount[h.Target]; mt >= 0 {
				c.Flags[mt] = unit.Dying
				w.HP[mt] = 0
			}
		} else {
			b.hit[h.Target] = 0.25
			// Retaliation: a unit struck while its own target is out of reach turns
			// on the attacker (a retarget: its pending strike, if any, is cancelled).
			if v := h.Target; b.kind[v] != kindHorse && !m.Swinging(int(v)) {
				if tg := w.Target[v]; tg < 0 || !inReach(w, v, tg, m.Reach[v]) {
					w.Target[v] = h.Attacker
					if dx, dz := w.X[h.Attacker]-w.X[v], w.Z[h.Attacker]-w.Z[v]; dx != 0 || dz != 0 {
						b.face(int(v), dx, dz)
					}
				}
			}
		}
	}
	// Each unit's flags, on all of Workers' goroutines: a rider sets its horse's
	// (the next unit), so a part never begins on a horse.
	n := len(c.Flags)
	horseFree := func(x int) int {
		if x < n && b.rider[x] >= 0 {
			return x + 1
		}
		return x
	}
	b.parts(n, func(_, lo, hi int) { b.settleRange(dt, horseFree(lo), horseFree(hi)) })
}

// settleRange sets the flags of units [lo, hi) for the animation step, and a
// rider's horse's place, pace and flags from its rider's.
func (b *Battle) settleRange(dt float32, lo, hi int) {
	c, m, w := b.Crowd, b.Melee, b.World
	for i := lo; i < hi; i++ {
		f := c.Flags[i]
		if f&(unit.Dying|unit.Dead) != 0 {
			if f&unit.Dying != 0 && c.State[i] == unit.StateDie && c.Phase[i] >= 1 {
				c.Flags[i] = unit.Dead | b.base[i]
			}
			continue
		}
		if b.kind[i] == kindHorse {
			continue // below, from its rider
		}
		f = b.base[i] | f&unit.Running
		if m.Swinging(i) {
			f |= unit.Attacking
			if kinds[b.kind[i]].melee {
				f |= unit.InMelee
			}
		}
		if b.hit[i] > 0 {
			b.hit[i] -= dt
			f |= unit.HitReacting
		}
		c.Flags[i] = f
		if h := b.mount[i]; h >= 0 && c.Flags[h]&(unit.Dying|unit.Dead) == 0 {
			// The horse carries its rider: same place, same pace, fights when it does.
			w.X[h], w.Z[h], b.Heading[h] = w.X[i], w.Z[i], b.Heading[i]
			c.Speed[h] = c.Speed[i]
			c.Flags[h] = f & (unit.Running | unit.Attacking | unit.InMelee)
		}
	}
}

func inReach(w *combat.World, a, b int32, reach float32) bool {
	dx, dz := w.X[a]-w.X[b], w.Z[a]-w.Z[b]
	return dx*dx+dz*dz <= reach*reach
}
