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
