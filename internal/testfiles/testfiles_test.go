package testfiles

import (
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	p, ok := Find("gltf", "Fox.glb") // the repository ships this one
	if !ok || filepath.Base(p) != "Fox.glb" {
		t.Fatalf("Fox.glb: %q %v", p, ok)
	}
	if p, ok := Find("gltf", "no-such-model.glb"); ok {
		t.Errorf("found a file that does not exist: %q", p)
	}
}

func TestAll(t *testing.T) {
	found := false
	for _, p := range All("gltf", ".glb") {
		if filepath.Ext(p) != ".glb" {
			t.Errorf("%s does not end in .glb", p)
		}
		found = found || filepath.Base(p) == "Fox.glb"
	}
	if !found {
		t.Error("All(gltf, .glb) misses Fox.glb")
	}
	if got := All("no-such-kind", ".glb"); len(got) != 0 {
		t.Errorf("files of a kind that does not exist: %q", got)
	}
}
