package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	"github.com/bonebake/bonebake/species/creatures"
)

// TestSpeciesAgreeWithValidate: the viewer reads .bpat files by the rule the other
// commands use. A species id it was not told of is shown, with the warning that
// validate --lenient gives; told of it, the file is valid and shown as it is.
func TestSpeciesAgreeWithValidate(t *testing.T) {
	id := uint32(7)
	m, err := gltfbake.Load(foxPath, gltfbake.Settings{SpeciesID: &id})
	if err != nil {
		t.Fatal(err)
	}
	b, err := bake.Bytes(m.Job)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fox.bpat")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	builtins := formats.KnownSpecies(roster.IDs()...)
	a, err := LoadBPAT(path, nil, builtins)
	if err != nil || !strings.Contains(a.warning, "species id 7") {
		t.Fatalf("unknown species: %v, warning %q", err, a.warning)
	}
	a, err = LoadBPAT(path, nil, formats.KnownSpecies(append(roster.IDs(), 7)...))
	if err != nil || a.warning != "" {
		t.Fatalf("known species: %v, warning %q", err, a.warning)
	}
}

// A .bpat renamed by its user is drawn with the mesh of the species its header
// names: the horse and the elephant both have 16 bones, so only the id tells them
// apart (a match on bone count alone would give every 16-bone file one mesh).
func TestRenamedFileMatchedByID(t *testing.T) {
	dir := t.TempDir()
	for _, s := range creatures.All() {
		if s.Name != "horse" && s.Name != "elephant" {
			continue
		}
		b, err := s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "renamed_"+s.Name+"_"+"x.bpat")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := LoadBPAT(path, creatures.All())
		if err != nil {
			t.Fatal(err)
		}
		if a.MeshKind() != MeshSpecies || a.Mesh() != s.Mesh {
			t.Errorf("%s renamed: drawn with %s mesh of %d vertices, want the %s's (%d)", s.Name, a.MeshKind(), a.Mesh().VertexCount(), s.Name, s.Mesh.VertexCount())
		}
	}
}
