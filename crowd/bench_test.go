package crowd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/roster"
)

// benchCrowd is a battle-like mix: the six species, every archetype, a third of the
// units moving (at their species' walk or run speed), some running, fighting,
// dying or dead.
func benchCrowd(n int) *Crowd {
	walkSpeed := []float32{1.4, 1.7, 1.6, 1.4, 1.4, 1.4} // docs/species.md, by species id
	runSpeed := []float32{3.8, 12, 4.5, 3.8, 3.8, 3.8}
	rng := rand.New(rand.NewPCG(7, 8))
	c := New(n)
	for i := range n {
		s := unit.SpeciesID(rng.IntN(6))
		c.Species[i] = s
		switch s {
		case 1:
			c.Archetype[i] = roster.Horse
		case 2:
			c.Archetype[i] = roster.Elephant
		default:
			if rng.IntN(5) == 0 {
				c.Archetype[i] = roster.Rider
				c.Flags[i] |= unit.Mounted
			}
		}
		c.Variant[i] = uint8(rng.IntN(8))
		c.Weapon[i] = unit.Weapon(rng.IntN(4))
		switch k := rng.IntN(10); {
		case k < 3:
			c.Speed[i] = walkSpeed[s]
		case k < 5:
			c.Speed[i], c.Flags[i] = runSpeed[s], c.Flags[i]|unit.Running
		case k < 8:
			c.Flags[i] |= unit.Attacking | unit.InMelee
		case k < 9:
			c.Flags[i] |= unit.Dying
		default:
			c.Flags[i] |= unit.Dead
		}
	}
	c.Swing = make([]float32, n)
	for i := range c.Swing {
		if t := float32(rng.Float64()*2.2) - .2; t >= 0 {
			c.Swing[i] = combat.AttackPhase(t)
		} else {
			c.Swing[i] = -1
		}
	}
	return c
}

// BenchmarkBatchStep is the playback kernel: phase += rate·dt, phase → frames,
// one Instance written per unit. Run with -cpu 1.
func BenchmarkBatchStep(b *testing.B) {
	r := testRegistry(b)
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("units=%d", n), func(b *testing.B) {
			benchStep(b, r, benchCrowd(n), nil)
		})
	}
	const n = 100_000
	// A tenth of the units cross-fading (every tenth, so that the fading units
	// are spread as a battle's are), their fades long enough to last the run.
	b.Run(fmt.Sprintf("fading/units=%d", n), func(b *testing.B) {
		benchStep(b, r, benchCrowd(n), func(c *Crowd) {
			for i := 0; i < n; i += 10 {
				c.Play(i, (c.Clip[i]+1)%5, c.Phase[i], c.Rate[i]+.5, 1e6)
			}
		})
	})
	// Every moving unit (a third) at a speed between its walk and run, so that
	// it blends the two (docs/runtime.md §6.3).
	b.Run(fmt.Sprintf("gaits/units=%d", n), func(b *testing.B) {
		c := benchCrowd(n)
		for i := range n {
			if c.Speed[i] > 0 {
				c.Speed[i] = 2.6
			}
		}
		benchStep(b, r, c, nil)
	})
	// Level of detail chosen in the same step (docs/runtime.md §6.4), every
	// species with a snapshot mesh, as the built-in creatures have. In lod/, the units stand in a battle's ranks (a unit's
	// neighbours in memory are its neighbours on the field) 100 to 500 m from the
	// camera's ground point, seen from 20 m up: a few thousand at full detail, the
	// rest reduced or drawn from snapshots. In lod/random/, every unit's distance
	// is drawn at random from 0 to 200 m, so that neighbours in memory share
	// nothing: the worst case for the processor's branch prediction.
	lodBench := func(b *testing.B, dist func(i int) float32) {
		rl := testRegistry(b)
		for _, sp := range builtinSpecs {
			if err := rl.AttachSnapshot(unit.SpeciesID(sp.id), sp.name+"_minimal.bpsm", halfSnapshot(b, sp)); err != nil {
				b.Fatal(err)
			}
		}
		c := benchCrowd(n)
		c.EnableLOD()
		for i := range n {
			c.Distance[i] = dist(i)
		}
		benchStep(b, rl, c, nil)
	}
	b.Run(fmt.Sprintf("lod/units=%d", n), func(b *testing.B) {
		const cols = 450
		lodBench(b, func(i int) float32 {
			x, z := float64(i%cols)*1.4-315, float64(i/cols)*1.6+15 // ranks 1.4 m apart, files 1.6 m
			return float32(math.Sqrt(x*x + z*z + 20*20))
		})
	})
	b.Run(fmt.Sprintf("lod/random/units=%d", n), func(b *testing.B) {
		rng := rand.New(rand.NewPCG(11, 12))
		lodBench(b, func(int) float32 { return float32(rng.Float64() * 200) })
	})
}

// benchStep times Batch.Step of c's units, after one Animate (clips and rates as
// a battle has them) and then set, when not nil.
func benchStep(b *testing.B, r *registry.Registry, c *Crowd, set func(*Crowd)) {
	c.Animate(r, 1.0/60)
	if set != nil {
		set(c)
	}
	defer lockThread()()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := threadCPU()
	for b.Loop() {
		c.Step(r, 1.0/60)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.Len()), "ns/unit")
	reportCPU(b, cpu0, cpuOK, float64(c.Len()), "cpu-ns/unit")
}

// reportCPU reports the thread CPU time of the b.N rounds since cpu0 (threadCPU)
// divided by per, as metric: on a shared machine, the work's own time, which the
// wall-clock figures mix with the time other processes held the core.
func reportCPU(b *testing.B, cpu0 time.Duration, ok bool, per float64, metric string) {
	if cpu1, ok1 := threadCPU(); ok && ok1 {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/per, metric)
	}
}

// BenchmarkBatchStepGo is the same kernel in Go alone, as machines without the
// assembly one run it.
func BenchmarkBatchStepGo(b *testing.B) {
	r := testRegistry(b)
	entries := tables(r).entries
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("units=%d", n), func(b *testing.B) {
			c := benchCrowd(n)
			c.Animate(r, 1.0/60)
			bt := &c.Batch
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				stepUnits(entries, bt.Species, bt.Clip, bt.Phase, bt.Rate, bt.Out, 1.0/60)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/unit")
		})
	}
}

// BenchmarkCrowdAnimate is the whole per-frame animation pass: intent → state →
// clip with variants, phase rules, the combat timeline's attack phase, playback.
func BenchmarkCrowdAnimate(b *testing.B) {
	r := testRegistry(b)
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("units=%d", n), func(b *testing.B) {
			c := benchCrowd(n)
			defer lockThread()()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, cpuOK := threadCPU()
			for b.Loop() {
				c.Animate(r, 1.0/60)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/unit")
			reportCPU(b, cpu0, cpuOK, float64(n), "cpu-ns/unit")
		})
	}
}

// BenchmarkMeleeStep advances 100,000 attackers, a third of them swinging.
func BenchmarkMeleeStep(b *testing.B) {
	const n = 100_000
	m := combat.NewMelee(n)
	w := &combat.World{HP: make([]float32, n), Team: make([]uint8, n)}
	for i := range n {
		m.Damage[i], m.Cooldown[i], m.Reach[i] = 1, 1.5, 2
		w.HP[i], w.Team[i] = 1e30, uint8(i%2)
	}
	hits := make([]combat.Hit, 0, n)
	b.ReportAllocs()
	t := 0
	for b.Loop() {
		for i := t % 3; i < n; i += 3 {
			if m.Ready(i) {
				m.Start(w, i, int32(i^1), .58)
			}
		}
		hits = m.Step(w, 1.0/60, hits[:0])
		t++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/unit")
}

// BenchmarkSockets samples all ten humanoid sockets of one unit.
func BenchmarkSockets(b *testing.B) {
	r := testRegistry(b)
	c := benchCrowd(1024)
	c.Animate(r, 1.0/60)
	for i := range c.Species {
		c.Species[i] = 0
	}
	dst := make([]float32, 10*12)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Sockets(r, i&1023, dst)
		i++
	}
}

// BenchmarkSocket samples one socket (a hand) of a unit.
func BenchmarkSocket(b *testing.B) {
	r := testRegistry(b)
	h := r.Species(0)
	hand := h.SocketIndex("hand_r")
	b.ReportAllocs()
	p := float32(0)
	for b.Loop() {
		h.Socket(9, p, hand)
		p += .013
	}
}

// BenchmarkEventDriven is one frame of the GPU clock mode: the clock advances and
// 1 % of a million units change what they do (they start or stop walking), so
// their records are rewritten; the other 99 % cost nothing. In changes=1pct the
// changing units are spread at random (each change then misses the cache twice:
// the unit's inputs and its record); in changes=1pct/squads they change in
// squads of 50 neighbours, as a regiment does. A frame's units differ from the
// last frame's, as a battle's do. changes=1pct/floor is the random frame with
// Commit replaced by touchRecords, which only reads and writes what Commit must
// (each listed unit's inputs and record, prefetched as Commit prefetches them):
// what the frame's memory traffic alone costs on the machine it runs on, the
// floor under any Commit there. Run with -cpu 1.
func BenchmarkEventDriven(b *testing.B) {
	r := testRegistry(b)
	const n = 1_000_000
	c := benchCrowd(n)
	for _, squad := range []int{1, 50, 0} {
		name := fmt.Sprintf("units=%d/changes=1pct", n)
		switch squad {
		case 50:
			name += "/squads"
		case 0:
			name += "/floor"
		}
		b.Run(name, func(b *testing.B) {
			floor := squad == 0
			squad := max(squad, 1)
			clock := NewGPUClock(n)
			for i := range n {
				clock.Set(i, unit.Loadout{Species: c.Species[i], Archetype: c.Archetype[i], Weapon: c.Weapon[i], Flags: c.Flags[i]})
				clock.SetInputs(i, unit.Inputs{Flags: c.Flags[i], Weapon: c.Weapon[i], Speed: c.Speed[i]})
				clock.SetVariant(i, c.Variant[i])
			}
			if err := clock.Commit(r); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(9, 10))
			lists := make([][]int32, 256) // 2.5 M changes: far more than the caches hold
			for k := range lists {
				lists[k] = make([]int32, 0, n/100)
				for len(lists[k]) < n/100 {
					u := rng.IntN(n - squad)
					for j := range squad {
						lists[k] = append(lists[k], int32(u+j))
					}
				}
			}
			defer lockThread()()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, cpuOK := threadCPU()
			frame := 0
			for b.Loop() {
				list := lists[frame%len(lists)]
				frame++
				for _, u := range list {
					in := clock.Inputs(int(u))
					if in.Speed > 0 {
						in.Speed = 0
					} else {
						in.Speed = 1.4
					}
					clock.SetInputs(int(u), in)
				}
				if floor {
					clock.touchRecords()
				} else {
					clock.Commit(r)
				}
				clock.Changed() // what a renderer uploads
				clock.Advance(1.0 / 60)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
			reportCPU(b, cpu0, cpuOK, 1e6, "cpu-ms/frame")
		})
	}
}

// touchRecords is the memory traffic of a Commit without its work: each listed
// unit, prefetched as Commit prefetches, has its pending mark cleared (its
// inputs' line read and written) and its record's Start moved to Now (its
// record's line read and written), and is listed for Changed.
func (g *GPUClock) touchRecords() {
	for part := range g.prefetched(g.pending) {
		for _, u := range part {
			g.units[u].pending = false
			g.Records[u].Start = g.Now
		}
	}
	g.changed = append(g.changed, g.pending...)
	g.pending = g.pending[:0]
}
