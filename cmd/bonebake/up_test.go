package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// --up gives BVH files' up axis; given where no file is a BVH (a glTF or FBX
// model, which carries its own axes) it changed nothing and said nothing, so a
// user who meant to stand a model up got the same file back. It is refused
// there, by bake and by view; with a BVH among the model and its clips it works.
func TestUpWithoutBVHRefused(t *testing.T) {
	dir := t.TempDir()
	fox := filepath.Join("..", "..", "testdata", "gltf", "Fox.glb")
	for _, args := range [][]string{
		{"bake", fox, "--up", "+Z", "-o", filepath.Join(dir, "fox.bpat")},
		{"bake", fox, sharedModel(t, "RiggedSimple.gltf"), "--up", "+Z", "-o", dir},
		{"view", fox, "--up", "+Z"},
	} {
		code, so, se := bonebake(t, args...)
		if code != 2 || !strings.Contains(se, "--up") || !strings.Contains(se, "BVH") {
			t.Errorf("%s: exit %d, want 2 naming --up and BVH: %s%s", strings.Join(args, " "), code, so, se)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "fox.bpat")); !os.IsNotExist(err) {
		t.Errorf("the refused bake wrote its file: %v", err)
	}
	walk := testfiles.Path(t, "bvh", "a_biped_walk.bvh")
	if code, so, se := bonebake(t, "bake", walk, "--up", "+Z", "-o", filepath.Join(dir, "walk.bpat")); code != 0 {
		t.Errorf("bake of a BVH with --up: exit %d: %s%s", code, so, se)
	}
}
