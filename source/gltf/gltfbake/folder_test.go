package gltfbake

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
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

// TestFolderWriteFiles: a folder's bake tells of its models in the order given,
// whichever finishes first, and its progress in models done; a file that is
// not a model and one that is missing fail alone (CheckModel); each file the
// others write is byte-identical to the model's bake on its own with the
// plan's settings (Model.WriteFiles), and the workers are shared out without
// changing a byte.
func TestFolderWriteFiles(t *testing.T) {
	src, dir, alone := t.TempDir(), t.TempDir(), t.TempDir()
	walker, inPlace := testfiles.WalkerGLTF(t, true), testfiles.WalkerGLTF(t, false)
	var models []string
	for _, m := range []struct{ name, from string }{{"a.gltf", walker}, {"refused.gltf", walker}, {"b.gltf", inPlace}} {
		b, err := os.ReadFile(m.from)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, filepath.Join(src, m.name))
		if err := os.WriteFile(models[len(models)-1], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// refused.gltf is not a model (CheckModel): it fails at once, long
	// before a is done, and is told of after it.
	if err := os.WriteFile(models[1], []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	models = append(models, filepath.Join(src, "missing.gltf"))
	plan, err := PlanFolder(models, dir, Settings{FPS: 24})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	var told []bake.Line
	var progress [][2]int
	failed := plan.WriteFiles(FolderOutput{
		Output: Output{Progress: func(done, total int) {
			if len(order) != done { // told after the model's Done
				t.Errorf("progress %d of %d after %d models told of", done, total, len(order))
			}
			progress = append(progress, [2]int{done, total})
		}, Tell: func(l bake.Line) { told = append(told, l) }},
		Done: func(b *Baked) {
			order = append(order, filepath.Base(b.Model))
			switch base := filepath.Base(b.Model); {
			case base == "refused.gltf" && (b.Err == nil || !strings.Contains(b.Err.Error(), "not a model")), base == "missing.gltf" && b.Err == nil:
				t.Errorf("%s: err %v", base, b.Err)
			case (base == "a.gltf" || base == "b.gltf") && (b.Err != nil || b.Written == nil || b.Loaded == nil):
				t.Errorf("%s: %v", base, b.Err)
			}
		}})
	// No warning (the ids are distinct), then the total: 2 of the 4 models.
	if len(told) != 1 || told[0].Kind != bake.Total || !strings.HasPrefix(told[0].Text, "baked 2 of 4 models into "+dir+": ") || !strings.HasSuffix(told[0].Text, "; 2 failed") || failed != 2 {
		t.Errorf("told %q, %d failed; want the total alone, 2 of 4 models baked", told, failed)
	}
	if want := []string{"a.gltf", "refused.gltf", "b.gltf", "missing.gltf"}; !slices.Equal(order, want) {
		t.Errorf("told in the order %q, want %q", order, want)
	}
	// Progress counts models, failed ones too, not a model's frames.
	if want := [][2]int{{1, 4}, {2, 4}, {3, 4}, {4, 4}}; !slices.Equal(progress, want) {
		t.Errorf("progress %v, want %v", progress, want)
	}
	for _, i := range []int{0, 2} {
		m, err := Load(models[i], plan.Settings[i])
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(alone, filepath.Base(plan.Outs[i]))
		if _, err := m.WriteFiles(out, Output{Workers: 1}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{out, gait.SidecarPath(out)} {
			want, _ := os.ReadFile(f)
			got, err := os.ReadFile(filepath.Join(dir, filepath.Base(f)))
			if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
				t.Errorf("%s: the folder's file differs from the model's own bake (%v)", filepath.Base(f), err)
			}
		}
	}
	if names := dirNames(dir); len(names) != 4 {
		t.Errorf("the folder holds %q, want a's and b's BPAT and sidecar", names)
	}
}

// TestPlanFolderOneID: one species id given for several models is refused
// before anything is baked: the runtime loads one file per id from a folder.
func TestPlanFolderOneID(t *testing.T) {
	id := uint32(9)
	var fe *FolderError
	if _, err := PlanFolder([]string{"a.glb", "b.glb"}, t.TempDir(), Settings{SpeciesID: &id}); !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "Settings.SpeciesID 9 would give all 2 models one id") {
		t.Errorf("got %v", err)
	}
}

// TestBPATPath: NAME.bpat for the model NAME.glb, whatever its folder and
// extension, in the folder given or the current one.
func TestBPATPath(t *testing.T) {
	for _, c := range []struct{ model, dir, want string }{
		{"Fox.glb", "", "Fox.bpat"}, {"models/walk.bvh", "", "walk.bpat"},
		{"a/b.c/hero.gltf", "out", filepath.Join("out", "hero.bpat")}, {"x/Samba Dancing.FBX", "baked/", filepath.Join("baked", "Samba Dancing.bpat")},
	} {
		if got := BPATPath(c.model, c.dir); got != c.want {
			t.Errorf("BPATPath(%q, %q) = %q, want %q", c.model, c.dir, got, c.want)
		}
	}
}
