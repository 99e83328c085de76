package bake

import (
	"fmt"
	"io"
	"testing"

	"bonebake/source/gltf"
)

// BenchmarkBakeFox bakes every clip of Fox.glb at 120 fps (24 bones, 634 frames)
// with 1 and 2 workers and reports bone-frames per second. "stream" is what
// `bonebake bake` does (BakeTo, here into io.Discard: batches of frames, no
// file-sized buffer); "memory" builds the whole palette block in memory (Bake).
func BenchmarkBakeFox(b *testing.B) {
	m, err := gltf.Load(sharedModel(b, "Fox.glb"), gltf.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r, names, motions := FromGLTF(m)
	job, err := (&Manifest{FPS: 120}).Job(r, names, motions)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"stream", "memory"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", mode, workers), func(b *testing.B) {
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
				b.ReportMetric(float64(634*24)*float64(b.N)/b.Elapsed().Seconds(), "bone-frames/s")
			})
		}
	}
}
