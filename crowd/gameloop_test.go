package crowd

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"bonebake/roster"
)

// gameLoop is the first-hour program of issue 29 as a game writes it with the
// crowd API: n mixed units (swordsmen, spearmen, bowmen, horses, elephants) in two
// teams, walking at each other, fighting, dying and standing up again, one frame
// per step: decide, combat, animate, upload the instances, and put a prop on the
// hand of the first units.
type gameLoop struct {
	reg    *Registry
	c      *Crowd
	m      *Melee
	w      *World
	home   []float32
	dead   []float32 // seconds lying dead
	hits   []Hit
	upload []byte
	props  [][12]float32
	landed int
}

func newGameLoop(reg *Registry, n int) *gameLoop {
	g := &gameLoop{reg: reg, c: New(n), m: NewMelee(n), home: make([]float32, n), dead: make([]float32, n),
		hits: make([]Hit, 0, n), upload: make([]byte, n*16), props: make([][12]float32, 16)}
	g.w = &World{HP: make([]float32, n), Team: make([]uint8, n), X: make([]float32, n), Z: make([]float32, n), Target: make([]int32, n)}
	g.c.Swing = g.m.Phase
	for i := range n {
		switch i % 5 {
		case 0:
			g.c.Species[i], g.c.Weapon[i] = 3, WeaponSword
		case 1:
			g.c.Species[i], g.c.Weapon[i] = 4, WeaponSpear
		case 2:
			g.c.Species[i], g.c.Weapon[i] = 0, WeaponBow
		case 3:
			g.c.Species[i], g.c.Archetype[i] = 1, roster.Horse
		case 4:
			g.c.Species[i], g.c.Archetype[i] = 2, roster.Elephant
		}
		g.c.Variant[i] = uint8(i % 7)
		team := (i / 5) % 2
		g.w.Team[i] = uint8(team)
		g.w.Target[i] = int32((i + 5) % n)
		g.home[i] = float32(12*team - 6)
		g.w.X[i], g.w.Z[i] = g.home[i], float32(i/10)
		g.w.HP[i] = 100
		g.m.Damage[i], g.m.Cooldown[i], g.m.Reach[i] = 25, 1.5, 2
		if i%5 == 2 {
			g.m.Reach[i] = 10
		}
	}
	return g
}

func (g *gameLoop) frame(dt float32) {
	c, m, w := g.c, g.m, g.w
	for i := range c.Species {
		if w.HP[i] <= 0 {
			continue
		}
		tg := w.Target[i]
		dx := w.X[tg] - w.X[i]
		d := float32(math.Abs(float64(dx)))
		c.Speed[i] = 0
		c.Flags[i] &^= Running
		if !m.Swinging(i) {
			c.Flags[i] &^= Attacking | InMelee
		}
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
		if m.Ready(i) && !m.Swinging(i) {
			c.Flags[i] |= Attacking
			if c.Weapon[i] != WeaponBow {
				c.Flags[i] |= InMelee
			}
			_, clip := c.Select(g.reg, i)
			contact := float32(DefaultContact)
			if s := g.reg.Species(uint32(c.Species[i])); s != nil {
				contact = s.Contact(int(clip))
			}
			m.Start(w, i, tg, contact)
		}
	}
	g.hits = m.Step(w, dt, g.hits[:0])
	for _, h := range g.hits {
		g.landed++
		if h.Killed {
			c.Flags[h.Target] = Dying
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
	copy(g.upload, unsafe.Slice((*byte)(unsafe.Pointer(&c.Out[0])), len(c.Out)*16))
	for i := range g.props {
		s := g.reg.Species(uint32(c.Species[i]))
		hand := s.SocketIndex("hand_r")
		if hand < 0 {
			continue
		}
		m, _ := s.Socket(int(c.Clip[i]), float64(c.Phase[i]), hand)
		// Into world space: rotate by the unit's heading (facing ±x), then translate.
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
