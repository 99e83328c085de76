package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCharacterCommands: inspect says which meshes make RobotExpressive's
// character and how; bake says Xbot is about 1.8 m tall (its mesh nodes sit
// under the armature's 0.01 scale: it said 0.016 m) with no --scale hint; and
// CesiumMan bakes with a snapshot, its 210 weights normalized with a note (the
// snapshot refused "weights sum to 0.685, not 1").
func TestCharacterCommands(t *testing.T) {
	robot := sharedModel(t, "threejs/RobotExpressive.glb")
	code, out, errOut := bonebake(t, "inspect", robot)
	if code != 0 || !strings.Contains(out, "the character of skin 0: 14 mesh nodes") ||
		!strings.Contains(out, "node 7 Torso (mesh 1): rigid on joint Body") || !strings.Contains(out, "node 73 Hand.L (mesh 13): skin 1, on joints of skin 0") {
		t.Errorf("inspect RobotExpressive: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = bonebake(t, "inspect", robot, "--json")
	var info struct {
		Skins []struct {
			Character []struct {
				Node  int    `json:"node"`
				Skin  int    `json:"skin"`
				Joint string `json:"joint"`
			} `json:"character"`
		} `json:"skins"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil || len(info.Skins) != 2 || len(info.Skins[0].Character) != 14 ||
		info.Skins[0].Character[2].Node != 7 || info.Skins[0].Character[2].Skin != -1 || info.Skins[0].Character[2].Joint != "Body" {
		t.Errorf("inspect --json RobotExpressive: exit %d, %+v", code, info)
	}

	dir := t.TempDir()
	code, out, errOut = bonebake(t, "bake", sharedModel(t, "threejs/Xbot.glb"), "-o", filepath.Join(dir, "xbot.bpat"))
	if code != 0 || !strings.Contains(out, "model 1.8") || strings.Contains(errOut, "hint:") {
		t.Errorf("bake Xbot: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = bonebake(t, "bake", sharedModel(t, "CesiumMan.gltf"), "-o", filepath.Join(dir, "man.bpat"), "--snapshot", "--snapshot-any-size")
	if code != 0 || !strings.Contains(errOut, "normalized the weights of 210 vertices of 3273") {
		t.Errorf("bake CesiumMan --snapshot: exit %d\n%s%s", code, out, errOut)
	}
}
