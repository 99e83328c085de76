package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/gait"
)

// TestBakeFace: bake tells that the Soldier's walks go toward -z, naming the
// flag to give; baked with it, they go toward +z and nothing is said; an axis
// that is not one is refused (exit 2, naming the flag), as is --face for the
// built-in creatures.
func TestBakeFace(t *testing.T) {
	soldier := sharedModel(t, "threejs/Soldier.glb")
	dir := t.TempDir()
	out := filepath.Join(dir, "s.bpat")
	code, _, stderr := bonebake(t, "bake", soldier, "-o", out)
	if code != 0 || !strings.Contains(stderr, "hint: the clips that travel (Run, Walk) go toward -z") || !strings.Contains(stderr, "walk backwards; --face -z turns the model") {
		t.Fatalf("exit %d, stderr:\n%s\nwant the hint naming --face -z", code, stderr)
	}
	code, _, stderr = bonebake(t, "bake", soldier, "-o", out, "--face", "-z")
	if code != 0 || strings.Contains(stderr, "--face") {
		t.Fatalf("--face -z: exit %d, stderr:\n%s\nwant no hint", code, stderr)
	}
	f, err := gait.OpenFor(out)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := f.Clip("Walk"); c.Direction[2] < 0.99 {
		t.Errorf("--face -z: Walk's direction %v, want +z", c.Direction)
	}
	for _, args := range [][]string{{"bake", soldier, "-o", out, "--face", "up"}, {"bake", "--out", filepath.Join(dir, "b"), "--face", "-z"}} {
		if code, _, stderr := bonebake(t, args...); code != 2 || !strings.Contains(stderr, "--face") {
			t.Errorf("%v: exit %d, stderr %q: want 2 naming --face", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); err == nil {
		t.Error("the built-ins baked despite --face")
	}
}
