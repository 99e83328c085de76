//go:build amd64 && !amd64.v3

package bake

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"bonebake/species/creatures"
)

// TestBuiltinBytes pins the bytes of every file the built-in bake writes. The
// hashes are those of the files written before the packages were reorganized
// (commit 0e85300), which every step since has kept: a change here is a change of
// the creatures or of the format, and must be deliberate. Builds that fuse
// multiply-adds (GOAMD64=v3, arm64) round differently and are not pinned.
func TestBuiltinBytes(t *testing.T) {
	want := map[string]string{
		"humanoid.bpat":          "21eac5e51af7ad0fc834d38a7a5726972850e1138529cf77a3a944688874713b",
		"horse.bpat":             "cf02c51fe0047163043dd13febfb5b36faadda30ff45108f3ce6c4dcdaaaf431",
		"horse_minimal.bpsm":     "fa0fa1cbb91e9acae9001dff14d83741a37f60f119b4ea60caa16e1e90d58758",
		"elephant.bpat":          "6801f02ed753c3d09d8c234e130bd5bdf20b5a9b207aa54a493b6cf8598e528a",
		"elephant_minimal.bpsm":  "1aff3fc088b4124f489c525d20cddc96dc7316272412ee58cdacb6a2ab69dc1d",
		"humanoid_sword.bpat":    "b5cea8289d7da66ef2f27e61fdde19f85cca472465ef3eecf22c0eee6fe4eb6f",
		"humanoid_spear.bpat":    "29f0b071577d87e24b0171112ac4b79140a75886c9cea7f7046cd64117603a5d",
		"humanoid_skeleton.bpat": "14598ea29f5c72a241e906d4a53a115372aab97459b27e7dbec680a25fc9ebd0",
	}
	dir := t.TempDir()
	n := 0
	for _, c := range creatures.All() {
		files, err := WriteSpecies(dir, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			n++
			b, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if got, name := hex.EncodeToString(sum[:]), filepath.Base(f.Path); got != want[name] {
				t.Errorf("%s: sha256 %s, want %s", name, got, want[name])
			}
		}
	}
	if n != len(want) {
		t.Errorf("%d files written, want %d", n, len(want))
	}
}
