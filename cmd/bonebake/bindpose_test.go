package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestBindPoseNote: RobotExpressive's hands are skins bound in a pose other
// than their rest pose. Every output skins them exactly (the palettes, the
// snapshot, the size line from the mesh at rest), so bake says nothing of it;
// inspect tells it in full (text and --json notes), and says nothing for
// Xbot, bound at rest.
func TestBindPoseNote(t *testing.T) {
	const said = "skin 0 is bound in a pose other than its rest pose"
	robot := sharedModel(t, "threejs/RobotExpressive.glb")
	code, out, errOut := bonebake(t, "inspect", robot)
	if code != 0 || !strings.Contains(out, "  note: "+said) || !strings.Contains(out, "stand in the bind pose") {
		t.Errorf("inspect RobotExpressive: exit %d, want the note %q\n%s%s", code, said, out, errOut)
	}
	var info struct {
		Notes []string `json:"notes"`
	}
	for file, want := range map[string]int{robot: 2, sharedModel(t, "threejs/Xbot.glb"): 0} {
		code, out, _ = bonebake(t, "inspect", file, "--json")
		info.Notes = nil
		if err := json.Unmarshal([]byte(out), &info); code != 0 || err != nil || info.Notes == nil || len(info.Notes) != want {
			t.Errorf("inspect --json %s: exit %d, %v: notes %q, want %d", filepath.Base(file), code, err, info.Notes, want)
		}
	}
	dir := t.TempDir()
	code, out, errOut = bonebake(t, "bake", robot, "-o", filepath.Join(dir, "robot.bpat"), "--snapshot")
	if code != 0 || strings.Contains(errOut+out, "bind pose") || strings.Contains(errOut+out, "bound in") {
		t.Errorf("bake RobotExpressive --snapshot: exit %d, want no word of the bind pose\n%s%s", code, out, errOut)
	}
}
