package bake

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkBakeFox bakes Fox.glb at 120 fps (the figure) and at 2000 fps
// (a bake big enough that its fixed costs fade) with 1 and 2 workers, and reports
// bone-frames per second. "stream" is what `bonebake bake` does (BakeTo, here into
// io.Discard); "memory" builds the whole palette block in memory (Bake).
func BenchmarkBakeFox(b *testing.B) {
	for _, fps := range []float64{120, 2000} {
		job := foxJob(b, fps)
		frames, _, _ := job.planSized()
		for _, mode := range []string{"stream", "memory"} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("fps=%v/%s/workers=%d", fps, mode, workers), func(b *testing.B) {
					job.Workers = workers
					for b.Loop() {
						var err error
						if mode == "stream" {
							err = BakeTo(io.Discard, job)
						} else {
							_, err = Bake(job)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(frames.len()*24)*float64(b.N)/b.Elapsed().Seconds(), "bone-frames/s")
				})
			}
		}
	}
}

// BenchmarkPoseFox is the per-frame work alone (sample, model space, pack) with no
// output allocation: the baker's compute rate on one core.
func BenchmarkPoseFox(b *testing.B) {
	job := foxJob(b, 120)
	bones := job.Rig.PaletteBones()
	p := newPoser(job, bones)
	dst := make([]float32, len(bones)*16)
	d := job.Motions[0].Duration
	n := FrameCount(d, 120, true)
	f := 0
	for b.Loop() {
		p.pose(0, FrameTime(f, n, d, true), dst)
		f = (f + 1) % n
	}
	b.ReportMetric(float64(len(bones))*float64(b.N)/b.Elapsed().Seconds(), "bone-frames/s")
}
