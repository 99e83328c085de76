package rig_test

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/rig"
)

func ExampleSkeleton_ModelSpace() {
	// A two-bone arm: the shoulder at (0, 1, 0), the elbow one unit along the
	// shoulder's x axis. Turning the shoulder 90° about z swings the elbow up.
	skel, err := rig.New(
		[]string{"shoulder", "elbow"},
		[]int{-1, 0},
		[]rig.Transform{
			{Translation: rig.Vec3{0, 1, 0}, Rotation: rig.IdentityQuat(), Scale: rig.Vec3{1, 1, 1}},
			{Translation: rig.Vec3{1, 0, 0}, Rotation: rig.IdentityQuat(), Scale: rig.Vec3{1, 1, 1}},
		})
	if err != nil {
		panic(err)
	}
	pose := skel.RestPose()
	pose[0].Rotation = rig.QuatFromAxisAngle(rig.Vec3{0, 0, 1}, math.Pi/2)

	palette := make([]rig.Mat4, skel.Len())
	skel.ModelSpace(pose, palette)
	for i, m := range palette {
		p := m.Translation()
		fmt.Printf("%s at (%.1f, %.1f, %.1f)\n", skel.Names[i], p[0], p[1], p[2])
	}
	// Output:
	// shoulder at (0.0, 1.0, 0.0)
	// elbow at (0.0, 2.0, 0.0)
}
