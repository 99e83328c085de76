package anim_test

import (
	"fmt"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/rig"
)

func ExampleSampler() {
	// One bone that slides from x=0 to x=2 over one second.
	clip := &anim.Animation{Name: "slide", Duration: 1, Tracks: []anim.Track{{
		Bone: 0, Path: anim.Translation, Interpolation: anim.Linear,
		Times:  []float32{0, 1},
		Values: []float32{0, 0, 0, 2, 0, 0},
	}}}
	if err := clip.Validate(1); err != nil {
		panic(err)
	}
	s := anim.NewSampler(clip)
	pose := []rig.Transform{rig.IdentityTransform()} // seed with the rest pose
	for f := 0; f <= 4; f++ {
		s.Sample(float64(f)/4, pose)
		fmt.Printf("t=%.2f x=%.1f\n", float64(f)/4, pose[0].Translation[0])
	}
	// Output:
	// t=0.00 x=0.0
	// t=0.25 x=0.5
	// t=0.50 x=1.0
	// t=0.75 x=1.5
	// t=1.00 x=2.0
}
