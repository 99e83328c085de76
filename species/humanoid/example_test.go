package humanoid_test

import (
	"fmt"

	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/species/humanoid"
)

// Build the spearman, then pose the walk halfway through its cycle the way the
// baker does: rest pose in, every bone's local transform out, then model space.
func Example() {
	sp := humanoid.Spear()
	fmt.Println(sp.ID, sp.Name, sp.Skeleton.Len(), "bones,", len(sp.Sockets), "sockets,", len(sp.Clips), "clips")

	walk := &sp.Clips[sp.ClipIndex("walk")]
	fmt.Printf("%s: %d frames at %g fps, %.1f m/s, a stride of %.3f m every %.2f s\n",
		walk.Name, walk.Frames, walk.FPS, walk.GroundSpeed, walk.GroundSpeed*walk.Cycle, walk.Cycle)

	pose := sp.Skeleton.RestPose()
	walk.Pose(0.5, pose)
	model := make([]rig.Mat4, sp.Skeleton.Len())
	sp.Skeleton.ModelSpace(pose, model)
	foot := model[humanoid.FootR].Translation()
	fmt.Printf("right foot strikes the ground at z = %.2f m, y = %.2f m\n", foot[2], foot[1])
	// Output:
	// 4 humanoid_spear 20 bones, 10 sockets, 25 clips
	// walk: 24 frames at 24 fps, 1.4 m/s, a stride of 1.288 m every 0.92 s
	// right foot strikes the ground at z = 0.27 m, y = 0.08 m
}
