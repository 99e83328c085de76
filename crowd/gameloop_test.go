package crowd

import (
	"bytes"
	"fmt"
	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"math"
	"testing"
	"unsafe"
)

// gameLoop is the first-hour program of issue 29 as a game writes it with the
// crowd API: n mixed units (swordsmen, spearmen, bowmen, horses, elephants) in two
// teams, walking at each other, fighting, dying and standing up again, one frame
// per step: decide, combat, animate, upload the instances, and put a prop on the
// hand of the first units.
type gameLoop struct {
	reg    *registry.Registry
	c      *Crowd
	f      *Combat
	home   []float32
	dead   []float32 // seconds lying dead
	fallen []int32   // units a hit killed that have not stood up again (api=crowd)
	upload bytes.Buffer
	props  []registry.Mat34
	landed int
	// stoodUp counts the units that stood up again.
	stoodUp int
	// lowLevel plays the same game through the calls a game had before the
	// API of issue 29: swings wired by hand (Select, Contact, Melee.Start and
	// Step), the instances' bytes through unsafe, sockets put in the world by
	// hand. BenchmarkGameLoop measures the one against the other.
	lowLevel bool
	hits     []combat.Hit
	raw      []byte
}

func newGameLoop(reg *registry.Registry, n int) *gameLoop {
	g := &gameLoop{reg: reg, c: New(n), home: make([]float32, n), dead: make([]float32, n), props: make([]registry.Mat34, 16)}
	g.upload.Grow(n * InstanceSize)
	g.raw, g.hits = make([]byte, n*InstanceSize), make([]combat.Hit, 0, n)
	g.f = NewCombat(reg, g.c)
	m, w := g.f.Melee, &g.f.World
	for i := range n {
		g.c.Spawn(i, [...]unit.Kind{unit.KindSwordsman, unit.KindSpearman, unit.KindBowman, unit.KindHorse, unit.KindElephant}[i%5])
		g.c.Variant[i] = uint8(i % 7)
		team := (i / 5) % 2
		w.Team[i] = uint8(team)
		w.Target[i] = int32((i + 5) % n)
		g.home[i] = float32(12*team - 6)
		w.X[i], w.Z[i] = g.home[i], float32(i/10)
		w.HP[i] = 100
		m.Damage[i], m.Cooldown[i], m.Reach[i] = 25, 1.5, 2
		if i%5 == 2 {
			m.Reach[i] = 10
		}
	}
	if err := g.c.Check(reg); err != nil {
		panic(err)
	}
	return g
}

func (g *gameLoop) frame(dt float32) {
	c, m, w := g.c, g.f.Melee, &g.f.World
	// The slices in locals, as a game keeps them: the stores below would
	// otherwise make the compiler load each slice again for every unit.
	hp, target, x, reach, speed, flags := w.HP, w.Target, w.X, m.Reach, c.Speed, c.Flags
	n := len(c.Species)
	hp, target, x, reach, speed, flags = hp[:n], target[:n], x[:n], reach[:n], speed[:n], flags[:n]
	for i := range n {
		if hp[i] <= 0 {
			continue
		}
		tg := target[i]
		dx := x[tg] - x[i]
		d := float32(math.Abs(float64(dx)))
		speed[i] = 0
		flags[i] &^= unit.Running
		if hp[tg] <= 0 {
			continue
		}
		if d > reach[i] {
			sp := float32(1.4)
			if d > 5 {
				sp = 3.8
				flags[i] |= unit.Running
			}
			x[i] += float32(math.Copysign(float64(min(sp*dt, d-reach[i]*.8)), float64(dx)))
			speed[i] = sp
			continue
		}
		if m.Swinging(i) {
			continue
		}
		if !g.lowLevel {
			g.f.Attack(i, int(tg))
			continue
		}
		if !m.Ready(i) {
			continue
		}
		flags[i] |= unit.Attacking // as Combat.Attack: InMelee is the game's to set
		_, clip := c.Select(g.reg, i)
		contact := float32(registry.DefaultContact)
		if s := g.reg.Species(c.Species[i]); s != nil {
			contact = s.Contact(clip)
		}
		m.Start(w, i, tg, contact)
	}
	if g.lowLevel {
		g.hits = m.Step(w, dt, g.hits[:0])
		for _, h := range g.hits {
			g.landed++
			if h.Killed {
				c.Flags[h.Target] = unit.Dying
			}
		}
		// Swings that ended: without Combat's events, a pass over the units.
		for i, f := range c.Flags {
			if f&unit.Attacking != 0 && !m.Swinging(i) {
				c.Flags[i] = f &^ unit.Attacking
			}
		}
		// Deaths: without Combat, a pass over the units turns a death that has
		// played Dead.
		for i, f := range c.Flags {
			switch {
			case f&unit.Dying != 0 && c.State[i] == unit.StateDie && c.Phase[i] >= 1:
				c.Flags[i] = unit.Dead
			case f&unit.Dead != 0:
				g.standUp(i, dt)
			}
		}
	} else {
		for _, e := range g.f.Step(dt) {
			if e.Kind == combat.EventHit {
				g.landed++
				if e.Killed { // Dying now, and Dead (Combat's doing) once its death has played
					g.fallen = append(g.fallen, e.Target)
				}
			}
		}
		// The units that fell and lie dead stand up again: the game keeps them
		// in a list from the hits that killed them, as a game would, rather
		// than look at every unit's flags.
		keep := g.fallen[:0]
		for _, i := range g.fallen {
			if f := c.Flags[i]; f&unit.Dead != 0 && !g.standUp(int(i), dt) || f&unit.Dying != 0 {
				keep = append(keep, i)
			}
		}
		g.fallen = keep
	}
	if err := c.Animate(g.reg, dt); err != nil {
		panic(err)
	}
	if g.lowLevel {
		copy(g.raw, unsafe.Slice((*byte)(unsafe.Pointer(&c.Out[0])), len(c.Out)*InstanceSize))
		g.socketsByHand()
		return
	}
	g.upload.Reset()
	c.WriteTo(&g.upload)
	for i := range g.props {
		hand := g.reg.Species(c.Species[i]).SocketIndex("hand_r")
		if hand < 0 {
			continue
		}
		heading := float32(0) // facing ±x
		if w.Team[i] == 1 {
			heading = math.Pi
		}
		g.props[i], _ = c.WorldSocket(g.reg, i, hand, w.X[i], 0, w.Z[i], heading)
	}
}

// standUp counts the seconds dead unit i has lain, and after one second stands
// it up again at home with full HP; it reports whether it did.
func (g *gameLoop) standUp(i int, dt float32) bool {
	if g.dead[i] += dt; g.dead[i] <= 1 {
		return false
	}
	g.dead[i], g.c.Flags[i], g.f.World.HP[i], g.f.World.X[i] = 0, 0, 100, g.home[i]
	g.stoodUp++
	return true
}

// socketsByHand is the low-level game's prop: the model-space socket rotated by
// the unit's heading (facing ±x) and moved to its place, written out.
func (g *gameLoop) socketsByHand() {
	c, w := g.c, &g.f.World
	for i := range g.props {
		s := g.reg.Species(c.Species[i])
		hand := s.SocketIndex("hand_r")
		if hand < 0 {
			continue
		}
		m, _ := s.Socket(c.Clip[i], c.Phase[i], hand)
		h := float64(0)
		if w.Team[i] == 1 {
			h = math.Pi
		}
		sn, cs := float32(math.Sin(h)), float32(math.Cos(h))
		p := &g.props[i]
		for col := range 4 {
			x, y, z := m[col], m[4+col], m[8+col]
			p[col], p[4+col], p[8+col] = cs*x+sn*z, y, -sn*x+cs*z
		}
		p[3] += w.X[i]
		p[11] += w.Z[i]
	}
}

// BenchmarkGameLoop is one frame of the first-hour game loop (see gameLoop): the
// cost of everything the game asks of the runtime, per unit, written with the
// crowd API (api=crowd) and with the low-level calls a game had before it
// (api=low-level), so that the two can be compared in one binary.
func BenchmarkGameLoop(b *testing.B) {
	r := testRegistry(b)
	for _, n := range []int{1000, 100_000} {
		for _, low := range []bool{false, true} {
			api := "crowd"
			if low {
				api = "low-level"
			}
			b.Run(fmt.Sprintf("units=%d/api=%s", n, api), func(b *testing.B) {
				g := newGameLoop(r, n)
				g.lowLevel = low
				for range 300 { // 5 s at 60 Hz: the fight is on
					g.frame(1.0 / 60)
				}
				defer lockThread()()
				b.ReportAllocs()
				b.ResetTimer()
				cpu0, cpuOK := threadCPU()
				for b.Loop() {
					g.frame(1.0 / 60)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/unit")
				reportCPU(b, cpu0, cpuOK, float64(n), "cpu-ns/unit")
			})
		}
	}
}

// The game loop fights: hits land, units die and stand up again; and the game
// written with the crowd API plays the same game as the one written with the
// low-level calls: as many hits, unit-frames dying, clip changes and units
// standing up again, each of them a frame later in the low-level game (Combat
// turns a played death Dead as its Step begins, the low-level game in its pass
// after Melee.Step), so that its units are alive for one frame fewer each.
func TestGameLoop(t *testing.T) {
	r := testRegistry(t)
	var hits, died, changes, alive, stood [2]int
	for k, low := range []bool{false, true} {
		g := newGameLoop(r, 1000)
		g.lowLevel = low
		for range 600 {
			g.frame(1.0 / 60)
			for i, f := range g.c.Flags {
				if f&unit.Dying != 0 {
					died[k]++
				}
				if g.f.World.HP[i] > 0 {
					alive[k]++
				}
			}
		}
		hits[k], changes[k], stood[k] = g.landed, int(g.c.Transitions), g.stoodUp
	}
	if hits[0] == 0 || died[0] == 0 || hits != [2]int{hits[0], hits[0]} || died != [2]int{died[0], died[0]} || changes != [2]int{changes[0], changes[0]} ||
		stood[0] == 0 || stood[1] != stood[0] || alive[0]-alive[1] != stood[0] {
		t.Fatalf("crowd API, low-level: %v hits landed, %v unit-frames dying, %v clip changes, %v stood up, %v unit-frames alive",
			hits, died, changes, stood, alive)
	}
	t.Logf("%d hits landed, %d unit-frames dying, %d clip changes, %d stood up", hits[0], died[0], changes[0], stood[0])
}
