package gltfbake

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// The manifest's up key gives a BVH file's up axis as --up does (bvh.md §4),
// and --up wins over it; a value that is no axis is refused naming the key.
func TestManifestUp(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mf, err := ReadManifest(write("up.yaml", "up: \"-Z\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	biped := testfiles.Path(t, "bvh", "a_biped_walk.bvh") // +Z up, found from its skeleton
	for _, c := range []struct {
		flag, want string
	}{{"", "-Z up (given)"}, {"+Y", "+Y up (given)"}} {
		m, err := Load(biped, Settings{Manifest: mf, Up: c.flag})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Notes) == 0 || !strings.Contains(m.Notes[0], c.want) {
			t.Errorf("--up %q with the manifest's -Z: notes %q, want %q", c.flag, m.Notes, c.want)
		}
	}
	_, err = ReadManifest(write("bad.yaml", "up: sideways\n"))
	if err == nil || !strings.Contains(err.Error(), "bad.yaml: up \"sideways\": an axis") {
		t.Errorf("up: sideways: %v", err)
	}
}
