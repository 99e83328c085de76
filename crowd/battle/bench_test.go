package battle

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkBattleStep is one step of the battle 'bonebake simulate' runs, on
// 100,000 units: Decide (targets, movement, swings, the melee timeline, deaths)
// and Crowd.Animate, over the first 10 simulated seconds at 60 steps a second
// (a fresh battle every 600 steps, outside the clock). Run with -cpu 1.
// Reported per unit of the crowd and as a frame's milliseconds. With more than
// one core (-cpu 2), step/workers=N is step on N goroutines (Battle.Workers).
func BenchmarkBattleStep(b *testing.B) {
	reg := builtins(b)
	const n, dt, steps = 100_000, 1.0 / 60, 600
	parts := []string{"decide", "step"}
	if w := runtime.GOMAXPROCS(0); w > 1 {
		parts = append(parts, fmt.Sprintf("step/workers=%d", w))
	}
	for _, part := range parts {
		b.Run(part, func(b *testing.B) {
			workers := runtime.GOMAXPROCS(0)
			if !strings.HasPrefix(part, "step/workers") {
				workers = 1
			}
			bt := New(reg, n, 1)
			bt.Workers = workers
			k := 0
			for b.Loop() {
				if k == steps {
					b.StopTimer()
					bt, k = New(reg, n, 1), 0
					bt.Workers = workers
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
