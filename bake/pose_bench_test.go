package bake

import (
	"testing"

	"bonebake/source/gltf"
)

// BenchmarkPoseFox is the per-frame work alone (sample, model space, pack) with no
// output allocation: the baker's compute rate.
func BenchmarkPoseFox(b *testing.B) {
	m, err := gltf.Load(sharedModel(b, "Fox.glb"), gltf.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r, names, motions := FromGLTF(m)
	job, err := (&Manifest{FPS: 120}).Job(r, names, motions)
	if err != nil {
		b.Fatal(err)
	}
	p := newPoser(job, job.Rig.paletteBones())
	dst := make([]float32, len(names)*16)
	d := motions[0].Duration
	n := FrameCount(d, 120, true)
	f := 0
	for b.Loop() {
		p.pose(0, FrameTime(f, n, d, true), dst)
		f++
		if f == n {
			f = 0
		}
	}
	b.ReportMetric(float64(len(names))*float64(b.N)/b.Elapsed().Seconds(), "bone-frames/s")
}
