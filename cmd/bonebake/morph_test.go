package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMorphTargetsListed: inspect lists RobotExpressive's head's morph targets
// and the animations that animate them; bake notes that they are not baked.
func TestMorphTargetsListed(t *testing.T) {
	robot := sharedModel(t, "threejs/RobotExpressive.glb")
	code, out, errOut := bonebake(t, "inspect", robot)
	if code != 0 || !strings.Contains(out, "3 morph targets (not baked): Angry, Surprised, Sad\n  weights animated by: Dance, Death,") {
		t.Errorf("inspect: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = bonebake(t, "bake", robot, "-o", filepath.Join(t.TempDir(), "robot.bpat"))
	if code != 0 || !strings.Contains(errOut, "note: morph targets are not baked (a BPAT file holds bone palettes only): Head has 3 morph targets") {
		t.Errorf("bake: exit %d\n%s%s", code, out, errOut)
	}
}
