package bake_test

import (
	"fmt"
	"log"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/rig"
)

// slide is a procedural motion: the root moves along x at 1 m/s.
type slide struct{}

func (slide) Sample(t float64, pose []rig.Transform) { pose[0].Translation = rig.Vec3{t, 0, 0} }

// Bake a two-bone rig's one-second looping clip at 30 fps into BPAT bytes and
// read a frame back. Every source's adapter (glTF models, motion files, the
// built-in creatures) makes such a Job; the engine samples each frame at the
// times docs/formats/bpat.md §5 gives and stores each bone's model-space matrix.
func ExampleBytes() {
	one := rig.Vec3{1, 1, 1}
	skel, err := rig.New([]string{"root", "head"}, []int{-1, 0}, []rig.Transform{
		{Rotation: rig.IdentityQuat(), Scale: one},
		{Translation: rig.Vec3{0, 1, 0}, Rotation: rig.IdentityQuat(), Scale: one},
	})
	if err != nil {
		log.Fatal(err)
	}
	job := &bake.Job{
		Rig:     bake.Rig{Skeleton: skel},
		Motions: []bake.Motion{{Name: "slide", Duration: 1, NewSampler: func() bake.Sampler { return slide{} }}},
		Clips:   []bake.Clip{{Name: "slide", Motion: 0, FPS: 30, Loops: true, Markers: bpat.NoMarkers()}},
	}
	b, err := bake.Bytes(job)
	if err != nil {
		log.Fatal(err) // a bad job (no clips, an fps ≤ 0, too many bytes) names its setting
	}
	f, err := bpat.Parse(b)
	if err != nil {
		log.Fatal(err)
	}
	c := f.Clips()[0]
	head := f.Palette(0, 15)[16:32] // frame 15 of 30 is t = 0.5 s; bone 1's matrix, row-major
	fmt.Printf("%s: %d frames, %d bones, %d palette bytes\n", c.Name, c.FrameCount, f.Header().BoneCount, len(f.PaletteBytes()))
	fmt.Printf("head at frame 15: (%.2f, %.2f, %.2f)\n", head[3], head[7], head[11])
	// Output:
	// slide: 30 frames, 2 bones, 3840 palette bytes
	// head at frame 15: (0.50, 1.00, 0.00)
}
