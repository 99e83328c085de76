package crowd

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

// gameLoop is the first-hour program of issue 29 as a game writes it with the
// crowd API: n mixed units (swordsmen, spearmen, bowmen, horses, elephants) in two
// teams, walking at each other, fighting, dying and standing up again, one frame
// per step: decide, combat, animate, upload the instances, and put a prop on the
// hand of the first units.
type gameLoop struct {
	reg    *Registry
	c      *Crowd
	f      *Combat
	home   []float32
	dead   []float32 // seconds lying dead
	upload bytes.Buffer
	props  []Mat34
	landed int
}

func newGameLoop(reg *Registry, n int) *gameLoop {
	g := &gameLoop{reg: reg, c: New(n), home: make([]float32, n), dead: make([]float32, n), props: make([]Mat34, 16)}
	g.upload.Grow(n * InstanceSize)
	g.f = NewCombat(reg, g.c)
	m, w := g.f.Melee, &g.f.World
	for i := range n {
		g.c.Spawn(i, [...]Kind{KindSwordsman, KindSpearman, KindBowman, KindHorse, KindElephant}[i%5])
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
	for i := range c.Species {
		if w.HP[i] <= 0 {
			continue
		}
		tg := w.Target[i]
		dx := w.X[tg] - w.X[i]
		d := float32(math.Abs(float64(dx)))
		c.Speed[i] = 0
		c.Flags[i] &^= Running
		if w.HP[tg] <= 0 {
			continue
		}
		if d > m.Reach[i] {
			sp := float32(1.4)
			if d > 5 {
				sp = 3.8
				c.Flags[i] |= Running
			}
			w.X[i] += float32(math.Copysign(float64(min(sp*dt, d-m.Reach[i]*.8)), float64(dx)))
			c.Speed[i] = sp
			continue
		}
		if !m.Swinging(i) {
			g.f.Attack(i, int(tg))
		}
	}
	for _, e := range g.f.Step(dt) {
		if e.Kind == EventHit {
			g.landed++
		}
	}
	for i, f := range c.Flags {
		switch {
		case f&Dying != 0 && c.State[i] == StateDie && c.Phase[i] >= 1:
			c.Flags[i] = Dead
		case f&Dead != 0:
			if g.dead[i] += dt; g.dead[i] > 1 { // stand up again at home
				g.dead[i], c.Flags[i], w.HP[i], w.X[i] = 0, 0, 100, g.home[i]
			}
		}
	}
	if err := c.Animate(g.reg, dt); err != nil {
		panic(err)
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

// BenchmarkGameLoop is one frame of the first-hour game loop (see gameLoop): the
// cost of everything the game asks of the runtime, per unit.
func BenchmarkGameLoop(b *testing.B) {
	r := testRegistry(b)
	for _, n := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("units=%d", n), func(b *testing.B) {
			g := newGameLoop(r, n)
			for range 300 { // 5 s at 60 Hz: the fight is on
				g.frame(1.0 / 60)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				g.frame(1.0 / 60)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/unit")
		})
	}
}

// The game loop fights: hits land, units die and stand up again.
func TestGameLoop(t *testing.T) {
	g := newGameLoop(testRegistry(t), 1000)
	died := 0
	for range 600 {
		g.frame(1.0 / 60)
		for _, f := range g.c.Flags {
			if f&Dying != 0 {
				died++
			}
		}
	}
	if g.landed == 0 || died == 0 {
		t.Fatalf("%d hits landed, %d unit-frames dying", g.landed, died)
	}
}
