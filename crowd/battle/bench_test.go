package battle

import (
	"testing"
)

// BenchmarkBattleStep is one step of the battle 'bonebake simulate' runs, on
// 100,000 units: Decide (targets, movement, swings, the melee timeline, deaths)
// and Crowd.Animate, over the first 10 simulated seconds at 60 steps a second
// (a fresh battle every 600 steps, outside the clock). Run with -cpu 1.
// Reported per unit of the crowd and as a frame's milliseconds.
func BenchmarkBattleStep(b *testing.B) {
	reg := builtins(b)
	const n, dt, steps = 100_000, 1.0 / 60, 600
	for _, part := range []string{"decide", "step"} {
		b.Run(part, func(b *testing.B) {
			bt := New(reg, n, 1)
			k := 0
			for b.Loop() {
				if k == steps {
					b.StopTimer()
					bt, k = New(reg, n, 1), 0
					b.StartTimer()
				}
				k++
				if part == "decide" {
					bt.Decide(dt)
				} else if err := bt.Step(dt); err != nil {
					b.Fatal(err)
				}
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(ns/n, "ns/unit")
			b.ReportMetric(ns/1e6, "ms/frame")
		})
	}
}
