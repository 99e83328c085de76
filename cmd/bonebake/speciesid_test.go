package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
)

// Several models baked into one folder take distinct species ids, skipping the
// ids of the .bpat files already there, so the runtime can load the folder
// (issue 45 item 2: both took id 6 and simulate refused the folder).
func TestBakeManyDistinctSpeciesIDs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "many")
	simple, rigged := sharedModel(t, "SimpleSkin.gltf"), sharedModel(t, "RiggedSimple.gltf")
	// A file already in the folder holds the first free id, 6.
	if code, so, se := bonebake(t, "bake", sharedModel(t, "RiggedSimple.gltf"), "-o", filepath.Join(dir, "old.bpat")); code != 0 || !strings.Contains(so, "species 6 ") {
		t.Fatalf("old: exit %d: %s%s", code, so, se)
	}
	code, so, se := bonebake(t, "bake", simple, rigged, "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	want := map[string]uint32{"SimpleSkin.bpat": 7, "RiggedSimple.bpat": 8, "old.bpat": 6}
	for name, id := range want {
		got, ok := formats.HeaderSpecies(filepath.Join(dir, name))
		if !ok || got != id {
			t.Errorf("%s: species %d (%v), want %d", name, got, ok, id)
		}
	}
	if !strings.Contains(so, "species 7 (the first id free in "+dir) {
		t.Errorf("the summary does not say how the id was chosen:\n%s", so)
	}
	// Baking again replaces the batch's own files: they keep their ids.
	if code, so, se := bonebake(t, "bake", simple, rigged, "-o", dir); code != 0 || !strings.Contains(so, "species 7 ") || !strings.Contains(so, "species 8 ") {
		t.Errorf("rebake: exit %d: %s%s", code, so, se)
	}
	// The folder loads, and the summary says its species are loaded but not
	// fielded, where it said the folder was "not there".
	if code, so, se := bonebake(t, "simulate", "--units", "40", "--seconds", "1", "--assets", dir, "--species", "6,7,8"); code != 0 {
		t.Errorf("simulate --assets %s: exit %d: %s%s", dir, code, so, se)
	} else if !strings.Contains(so, "species 6, 7, 8 loaded, but the battle's units are of the built-in species only") || strings.Contains(so, "not there") {
		t.Errorf("simulate --assets %s: the summary does not say what became of the folder's species:\n%s", dir, so)
	}

	// Ids that would collide are refused before anything is baked.
	other := filepath.Join(t.TempDir(), "SimpleSkin.gltf")
	b, err := os.ReadFile(simple)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, other, string(b))
	writeTestFile(t, filepath.Join(filepath.Dir(other), "SimpleSkin.yaml"), "species_id: 6\n")
	out2 := filepath.Join(t.TempDir(), "o")
	for _, args := range [][]string{
		{"bake", other, rigged, "-o", dir},                            // the manifest's 6 is old.bpat's
		{"bake", simple, rigged, "-o", out2, "--species-id", "10"},    // one id for two models
		{"bake", simple, "--species-id", "300", "-o", out2 + ".bpat"}, // above what the runtime holds
	} {
		code, so, se := bonebake(t, args...)
		if code != 2 || !strings.Contains(se, "species") {
			t.Errorf("%v: exit %d, want 2: %s%s", args, code, so, se)
		}
	}
	// The range error reads on from the flag and the manifest key that gave
	// the id, each named once ("--species-id species id 300" said it twice).
	big := filepath.Join(t.TempDir(), "big.yaml")
	writeTestFile(t, big, "species_id: 256\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bake", simple, "--species-id", "300", "-o", out2 + ".bpat"}, "bonebake: --species-id 300 is above 255, the largest species id the runtime holds"},
		{[]string{"bake", simple, "--manifest", big, "-o", out2 + ".bpat"}, "species_id: 256 is above 255, the largest species id the runtime holds"},
	} {
		if _, _, se := bonebake(t, c.args...); !strings.Contains(se, c.want) {
			t.Errorf("%v: want %q in\n%s", c.args, c.want, se)
		}
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("a refused bake made its folder: %v", err)
	}
	if code, so, se := bonebake(t, "bake", other, rigged, "-o", dir); !strings.Contains(se, "old.bpat") {
		t.Errorf("collision does not name the file holding the id: exit %d: %s%s", code, so, se)
	}
}

// One species id range for bake, validate and crowd: validate refuses an id the
// runtime cannot hold even when --species names it (issue 45 item 3).
func TestValidateSpeciesAboveRuntime(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.bpat")
	if code, so, se := bonebake(t, "bake", sharedModel(t, "RiggedSimple.gltf"), "-o", p); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[8], b[9] = 0x2c, 0x01 // species_id 300 (little-endian, header offset 8)
	writeTestFile(t, p, string(b))
	// The file is refused saying why, without pointing at a --species that
	// cannot take its id; --species itself refuses the id as bake does.
	code, so, se := bonebake(t, "validate", p)
	if code != 1 || !strings.Contains(so, "offset 8") || !strings.Contains(so, "above 255") || strings.Contains(so, "--species") {
		t.Errorf("validate: exit %d: %s%s", code, so, se)
	}
	if code, so, se := bonebake(t, "validate", p, "--species", "6,300"); code != 2 || !strings.Contains(se, "--species 300 is above 255, the largest species id") {
		t.Errorf("validate --species 6,300: exit %d, want 2: %s%s", code, so, se)
	}
	if code, so, se := bonebake(t, "simulate", "--species", "300"); code != 2 || !strings.Contains(se, "above 255") {
		t.Errorf("simulate --species 300: exit %d, want 2: %s%s", code, so, se)
	}
	if code, so, se := bonebake(t, "validate", p, "--lenient"); code != 0 || !strings.Contains(so, "warning") || !strings.Contains(so, "above 255") {
		t.Errorf("validate --lenient: exit %d: %s%s", code, so, se)
	}
}
