package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bonebake/bake"
	"bonebake/formats"
	"bonebake/roster"
)

// TestSpeciesAgreeWithValidate: the viewer reads .bpat files by the rule the other
// commands use. A species id it was not told of is shown, with the warning that
// validate --lenient gives; told of it, the file is valid and shown as it is.
func TestSpeciesAgreeWithValidate(t *testing.T) {
	id := uint32(7)
	m, err := bake.LoadModel(foxPath, bake.Settings{SpeciesID: &id})
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
