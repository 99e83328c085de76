package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestBakeRootMotionHint: a_biped_walk.bvh planted keeps its root's travel
// and gets a ground speed from it (docs/formats/gait.md §4), so bake says,
// once and naming the clip, that a runtime moving the unit at that speed
// moves it twice, and names --in-place (the library's Settings.InPlace worded
// as its flag); baked --in-place, the travel is the game's and nothing is said.
func TestBakeRootMotionHint(t *testing.T) {
	biped := testfiles.Path(t, "bvh", "a_biped_walk.bvh")
	out := filepath.Join(t.TempDir(), "a.bpat")
	code, _, stderr := bonebake(t, "bake", biped, "--plant-feet", "-o", out)
	const hint = "hint: the clips with root motion (a_biped_walk) move the model in their own frames"
	if code != 0 || strings.Count(stderr, hint) != 1 || !strings.Contains(stderr, "moves it twice; --in-place (or the manifest's in_place: true)") {
		t.Fatalf("exit %d, stderr:\n%s\nwant one hint naming a_biped_walk and --in-place", code, stderr)
	}
	code, _, stderr = bonebake(t, "bake", biped, "--plant-feet", "--in-place", "-o", out)
	if code != 0 || strings.Contains(stderr, "root motion (") || strings.Contains(stderr, "twice") {
		t.Fatalf("--in-place: exit %d, stderr:\n%s\nwant no root-motion hint", code, stderr)
	}
}
