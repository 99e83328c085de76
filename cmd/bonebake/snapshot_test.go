package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// bake --snapshot: written with the defaults (a snapshot is several times its
// BPAT, as the built-in creatures' are: one rule for both, issue 45 item 8),
// refused past the 256 MB limit every output has unless --force, written and
// valid when lowered, its size printed; the flags need a model and --snapshot.
func TestBakeSnapshot(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	dir := t.TempDir()
	out := filepath.Join(dir, "fox.bpat")
	code, stdout, stderr := bonebake(t, "bake", fox, "-o", out, "--scale", "0.01", "--snapshot")
	if code != 0 || !strings.Contains(stdout, "fox_minimal.bpsm") {
		t.Fatalf("the default snapshot: exit %d, %s%s", code, stdout, stderr)
	}
	// The fox's whole mesh (1,700-odd vertices at 56 bytes) at 1000 fps: 5,300
	// frames, about 500 MB.
	code, _, stderr = bonebake(t, "bake", fox, "-o", out, "--scale", "0.01", "--fps", "1000", "--snapshot", "--snapshot-mesh", fox)
	if code == 0 || !strings.Contains(stderr, "256 MB limit") || !strings.Contains(stderr, "frames × 56 bytes") || !strings.Contains(stderr, "--force") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	code, stdout, stderr = bonebake(t, "bake", fox, "-o", out, "--scale", "0.01", "--snapshot", "--snapshot-triangles", "100", "--snapshot-fps", "2", "--species-id", "7")
	snap := filepath.Join(dir, "fox_minimal.bpsm")
	if code != 0 || !strings.Contains(stdout, "wrote "+snap) || !strings.Contains(stdout, "100 triangles") {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
	if code, stdout, stderr := bonebake(t, "validate", "--species", "7", snap); code != 0 {
		t.Fatalf("validate: exit %d, %s %s", code, stdout, stderr)
	}
	// The user's own mesh, bound by joint names: the Fox's own, kept whole.
	code, stdout, stderr = bonebake(t, "bake", fox, "-o", out, "--scale", "0.01", "--snapshot", "--snapshot-mesh", fox, "--snapshot-fps", "2", "--snapshot-any-size")
	if code != 0 || !strings.Contains(stdout, "576 triangles") || !strings.Contains(stdout, "Fox.glb's mesh") {
		t.Fatalf("--snapshot-mesh: exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"bake", "--snapshot"},
		{"bake", fox, "-o", out, "--snapshot-fps", "5"},
		{"bake", fox, "-o", out, "--snapshot", "--snapshot-triangles", "0"},
	} {
		if code, _, _ := bonebake(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
	}
}
