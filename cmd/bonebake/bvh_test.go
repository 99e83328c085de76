package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestBVHCommands runs issue 44's BVH commands as the README shows them:
// inspect, bake on its own skeleton, bake onto Soldier.glb with --clips; a
// hostile file and a bad --up are refused naming the line and the flag.
func TestBVHCommands(t *testing.T) {
	walk := testfiles.Path(t, "bvh", "soldier_walk.bvh")
	soldier := sharedModel(t, "threejs/Soldier.glb")
	dir := t.TempDir()

	code, stdout, stderr := bonebake(t, "inspect", walk)
	if code != 0 || !strings.Contains(stdout, "BVH, 49 joints, 294 channels, 26 frames of 0.041667 s") || !strings.Contains(stdout, "up -Y (found from its skeleton)") || !strings.Contains(stdout, "centimetres") {
		t.Fatalf("inspect: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = bonebake(t, "inspect", "--json", walk)
	var r struct {
		Format string `json:"format"`
		Joints []struct {
			Name     string   `json:"name"`
			Channels []string `json:"channels"`
		} `json:"joints"`
		Frames int     `json:"frame_count"`
		Scale  float64 `json:"scale"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil || r.Format != "bvh" || len(r.Joints) != 49 || r.Frames != 26 || r.Scale != 0.01 || r.Joints[0].Name != "mixamorig:Hips" || len(r.Joints[0].Channels) != 6 {
		t.Fatalf("inspect --json: exit %d %v %+v\n%s", code, err, r, stderr)
	}

	own := filepath.Join(dir, "walk.bpat")
	if code, stdout, stderr = bonebake(t, "bake", walk, "-o", own); code != 0 {
		t.Fatalf("bake: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "soldier_walk.bvh: BVH, -Y up") {
		t.Fatalf("bake does not say how it took the file:\n%s", stderr)
	}
	f, err := bpat.Open(own, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	if f.BoneCount() != 49 || len(f.Clips()) != 1 || f.Clips()[0].Name != "soldier_walk" {
		t.Fatalf("%d bones, clips %+v", f.BoneCount(), f.Clips())
	}
	f.Close()

	on := filepath.Join(dir, "soldier.bpat")
	if code, stdout, stderr = bonebake(t, "bake", soldier, "--clips", walk, "-o", on); code != 0 {
		t.Fatalf("bake --clips: exit %d\n%s%s", code, stdout, stderr)
	}
	f, err = bpat.Open(on, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range f.Clips() {
		names = append(names, c.Name)
	}
	f.Close()
	if !slices.Contains(names, "soldier_walk") || !slices.Contains(names, "Walk") {
		t.Fatalf("clips %q", names)
	}

	bad := filepath.Join(dir, "bad.bvh")
	os.WriteFile(bad, []byte("HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\nnan\n"), 0o644)
	if code, _, stderr = bonebake(t, "bake", bad, "-o", filepath.Join(dir, "bad.bpat")); code != 1 || !strings.Contains(stderr, "line 10") || !strings.Contains(stderr, "float") {
		t.Fatalf("hostile file: exit %d\n%s", code, stderr)
	}
	if code, _, stderr = bonebake(t, "bake", walk, "--up", "sideways", "-o", filepath.Join(dir, "x.bpat")); code != 2 || !strings.Contains(stderr, "--up") {
		t.Fatalf("--up sideways: exit %d\n%s", code, stderr)
	}
}
