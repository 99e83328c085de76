package quadruped_test

import (
	"fmt"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species/quadruped"
)

// Pose a horse a quarter of the way through its walk and find the saddle, where a
// rider sits.
func Example() {
	horse := quadruped.Horse()
	fmt.Println(horse.Name, horse.ID, horse.Skeleton.Len(), "bones")
	for _, c := range horse.Clips {
		fmt.Printf("%s: %d frames, loops %v, %.1f m/s\n", c.Name, c.Frames, c.Loops, c.GroundSpeed)
	}

	walk := horse.Clips[horse.ClipIndex("walk")]
	pose := horse.Skeleton.RestPose()
	walk.Pose(0.25, pose)
	palette := make([]rig.Mat4, horse.Skeleton.Len())
	horse.Skeleton.ModelSpace(pose, palette)
	saddle := horse.Sockets[0]
	o := saddle.Offset
	p := palette[saddle.Anchor].TransformPoint(rig.Vec3{float64(o[0]), float64(o[1]), float64(o[2])})
	fmt.Printf("%s %.2f m up\n", saddle.Name, p[1])
	// Output:
	// horse 1 16 bones
	// idle: 24 frames, loops true, 0.0 m/s
	// walk: 24 frames, loops true, 1.7 m/s
	// trot: 16 frames, loops true, 3.8 m/s
	// canter: 16 frames, loops true, 6.0 m/s
	// gallop: 12 frames, loops true, 12.0 m/s
	// fight: 24 frames, loops true, 0.0 m/s
	// die: 20 frames, loops false, 0.0 m/s
	// dead: 1 frames, loops true, 0.0 m/s
	// saddle 1.46 m up
}
