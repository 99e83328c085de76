package bake

import (
	"fmt"
	"testing"

	"bonebake/source/gltf"
)

// BenchmarkBakeFox bakes every clip of Fox.glb at 120 fps (24 bones, 634 frames)
// with 1 and 2 workers and reports bone-frames per second: the sampling, pose and
// palette work of a bake, without file I/O.
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
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			job.Workers = workers
			boneFrames := 0
			for b.Loop() {
				out, err := Bake(job)
				if err != nil {
					b.Fatal(err)
				}
				boneFrames = 0
				for _, p := range out.Palettes {
					boneFrames += len(p) / 16
				}
			}
			b.ReportMetric(float64(boneFrames)*float64(b.N)/b.Elapsed().Seconds(), "bone-frames/s")
		})
	}
}
