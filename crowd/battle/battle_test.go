package battle

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/species/creatures"
)

func builtins(t testing.TB) *registry.Registry {
	t.Helper()
	reg := registry.New()
	t.Cleanup(func() { reg.Close() })
	for _, s := range creatures.All() {
		b, err := s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.Load(registry.Memory(registry.File{Name: s.Name + ".bpat", Data: b})); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// TestBattle plays two small armies for 20 s and checks what a game relies on:
// swings start and land on contact, the dead stay down, riders sit on their
// horses, units face their targets, and the same seed gives the same battle.
func TestBattle(t *testing.T) {
	reg := builtins(t)
	run := func() *Battle {
		b := New(reg, 400, 7)
		for range 1200 {
			if err := b.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	b := run()
	st := b.Melee.Stats
	if st.Started == 0 || st.Landed == 0 || st.Landed+st.Cancelled > st.Started || st.Kills == 0 {
		t.Fatalf("combat stats %+v", st)
	}
	if a0, a1 := b.Alive(0), b.Alive(1); a0+a1 >= 400 || a0 == 0 && a1 == 0 {
		t.Fatalf("alive %d vs %d", a0, a1)
	}
	riders, walking := 0, 0
	for i := range b.Len() {
		if h := b.Mount(i); h >= 0 {
			riders++
			if b.Rider(int(h)) != int32(i) {
				t.Errorf("rider %d on horse %d: Rider(%d) is %d", i, h, h, b.Rider(int(h)))
			}
		} else if r := b.Rider(i); r >= 0 && b.Mount(int(r)) != int32(i) {
			t.Errorf("unit %d: Rider says %d, whose horse is %d", i, r, b.Mount(int(r)))
			if b.World.X[h] != b.World.X[i] || b.World.Z[h] != b.World.Z[i] {
				if b.Crowd.Flags[h]&(unit.Dying|unit.Dead) == 0 {
					t.Errorf("rider %d at (%v,%v), its horse %d at (%v,%v)", i, b.World.X[i], b.World.Z[i], h, b.World.X[h], b.World.Z[h])
				}
			}
		}
		if b.World.HP[i] <= 0 && b.Crowd.Flags[i]&(unit.Dying|unit.Dead) == 0 {
			t.Errorf("unit %d has no hit points but is not dying or dead", i)
		}
		out := b.Crowd.Out[i]
		if out.Species != b.Crowd.Species[i] {
			t.Errorf("unit %d plays species %d, is %d", i, out.Species, b.Crowd.Species[i])
		}
		// A unit that walked this step faces its target (within headingSlack,
		// 0.01 rad, as of the step's start).
		if tg := b.World.Target[i]; tg >= 0 && b.Crowd.Speed[i] > 0 {
			walking++
			dx, dz := b.World.X[tg]-b.World.X[i], b.World.Z[tg]-b.World.Z[i]
			if d := math.Hypot(float64(dx), float64(dz)); d > 0.5 {
				want := math.Atan2(float64(dx), float64(dz))
				if diff := math.Abs(math.Remainder(float64(b.Heading[i])-want, 2*math.Pi)); diff > 0.05 {
					t.Errorf("unit %d heads %.2f rad, its target lies at %.2f", i, b.Heading[i], want)
				}
			}
		}
	}
	if riders == 0 || walking == 0 {
		t.Errorf("%d riders, %d units walking", riders, walking)
	}
	again := run()
	if again.Melee.Stats != st || again.Alive(0) != b.Alive(0) {
		t.Fatalf("same seed, different battle: %+v vs %+v", again.Melee.Stats, st)
	}
	for i := range b.Len() {
		if again.Crowd.Out[i] != b.Crowd.Out[i] || again.World.X[i] != b.World.X[i] {
			t.Fatalf("unit %d differs between two runs of the same seed", i)
		}
	}
}

// A battle shared among goroutines is the battle of one: two copies of a battle
// large enough to be split, one with Workers 1 and one with 3, have the same
// units in the same places, with the same flags, targets, hit points, headings,
// poses and events, at every step through the march and the fighting.
func TestBattleWorkers(t *testing.T) {
	reg := builtins(t)
	n, steps := 5*crowd.ParallelUnits, 720 // armies of two parts each (horses are not in an army)
	if testing.Short() {
		steps = 120
	}
	one, three := New(reg, n, 3), New(reg, n, 3)
	one.Workers, three.Workers = 1, 3
	for step := range steps {
		for _, b := range []*Battle{one, three} {
			if err := b.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		if len(one.hits) != len(three.hits) {
			t.Fatalf("step %d: %d events on one goroutine, %d on three", step, len(one.hits), len(three.hits))
		}
		for k := range one.hits {
			if one.hits[k] != three.hits[k] {
				t.Fatalf("step %d: event %d is %+v on one goroutine, %+v on three", step, k, one.hits[k], three.hits[k])
			}
		}
		c1, c3, w1, w3 := one.Crowd, three.Crowd, one.World, three.World
		for i := range n {
			if w1.X[i] != w3.X[i] || w1.Z[i] != w3.Z[i] || w1.HP[i] != w3.HP[i] || w1.Target[i] != w3.Target[i] ||
				c1.Flags[i] != c3.Flags[i] || c1.Speed[i] != c3.Speed[i] || c1.Out[i] != c3.Out[i] || c1.Blend[i] != c3.Blend[i] ||
				one.Heading[i] != three.Heading[i] {
				t.Fatalf("step %d unit %d differs: at (%v,%v) hp %v target %d flags %v speed %v out %+v on one goroutine; (%v,%v) %v %d %v %v %+v on three",
					step, i, w1.X[i], w1.Z[i], w1.HP[i], w1.Target[i], c1.Flags[i], c1.Speed[i], c1.Out[i],
					w3.X[i], w3.Z[i], w3.HP[i], w3.Target[i], c3.Flags[i], c3.Speed[i], c3.Out[i])
			}
		}
	}
	st := one.Melee.Stats
	if st != three.Melee.Stats || !testing.Short() && (st.Landed == 0 || st.Kills == 0) {
		t.Errorf("combat %+v on one goroutine, %+v on three", st, three.Melee.Stats)
	}
	t.Logf("%d steps of %d units: combat %+v", steps, n, st)
}
