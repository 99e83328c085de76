package gltfbake

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanFolder: models baked into one folder take distinct species ids, the
// first ones free (ids 0-5 are the built-in creatures', docs/species.md), past
// an id a manifest gives and one a BPAT file already in the folder holds; a
// file the bake replaces holds nothing. Two models into one file, a manifest id
// already held, and one manifest id for all are refused before anything is
// baked, naming the setting (Settings.Manifest), not a flag.
func TestPlanFolder(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	bpatWithID := func(path string, id uint32) {
		b := make([]byte, 64)
		copy(b, "BPAT")
		binary.LittleEndian.PutUint32(b[4:], 1)
		binary.LittleEndian.PutUint32(b[8:], id)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bpatWithID(filepath.Join(dir, "old.bpat"), 6) // held: 6 is not free
	bpatWithID(filepath.Join(dir, "a.bpat"), 8)   // replaced by a's bake: 8 stays free
	if err := os.WriteFile(filepath.Join(src, "b.yaml"), []byte("species_id: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	models := []string{filepath.Join(src, "a.glb"), filepath.Join(src, "b.glb"), filepath.Join(src, "c.gltf")}
	p, err := PlanFolder(models, dir, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []uint32{8, 0, 9} {
		got := p.Settings[i].FreeSpeciesID
		if want == 0 {
			if got != nil || p.Settings[i].Manifest == nil || *p.Settings[i].Manifest.SpeciesID != 7 {
				t.Errorf("%s: want its manifest's id 7 and no free id, got %v", models[i], got)
			}
			continue
		}
		if got == nil || *got != want {
			t.Errorf("%s: free id %v, want %d", models[i], got, want)
		}
		if p.Outs[i] != filepath.Join(dir, modelName(models[i])+".bpat") {
			t.Errorf("%s: out %s", models[i], p.Outs[i])
		}
	}

	var fe *FolderError
	if _, err := PlanFolder([]string{models[0], filepath.Join(dir, "A.gltf")}, dir, Settings{}); !errors.As(err, &fe) || !strings.Contains(err.Error(), "would both be baked into") {
		t.Errorf("a.glb and A.gltf: got %v, want a FolderError", err)
	}
	bpatWithID(filepath.Join(dir, "held.bpat"), 7)
	if _, err := PlanFolder(models, dir, Settings{}); !errors.As(err, &fe) || !strings.Contains(err.Error(), "b.yaml gives") || !strings.Contains(err.Error(), "held.bpat already holds") {
		t.Errorf("b.yaml's id 7 held by held.bpat: got %v, want a FolderError naming both", err)
	}
	id := uint32(12)
	if _, err := PlanFolder(models, dir, Settings{Manifest: &Manifest{SpeciesID: &id}}); !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "Settings.Manifest gives species_id 12 to all 3 models") {
		t.Errorf("one manifest id for all: got %v", err)
	}
}
