//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// folderNames lists dir's entries.
func folderNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// readAllFiles maps each regular file in dir to its content.
func readAllFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, n := range folderNames(dir) {
		if st, err := os.Stat(filepath.Join(dir, n)); err == nil && st.Mode().IsRegular() {
			b, _ := os.ReadFile(filepath.Join(dir, n))
			m[n] = string(b)
		}
	}
	return m
}

// TestBakeSetFolderAtAnOutput: a folder where the sidecar or the snapshot goes
// fails a bake before anything is replaced: the previous BPAT, sidecar and
// snapshot are as they were, and nothing else is left (the BPAT was once
// replaced before the sidecar failed). The same for bake --mot's --gltf.
func TestBakeSetFolderAtAnOutput(t *testing.T) {
	model := sharedModel(t, "Fox.glb")
	for _, blocked := range []string{"man.gait.json", "man_minimal.bpsm"} {
		dir := t.TempDir()
		out := filepath.Join(dir, "man.bpat")
		if code, _, e := bonebake(t, "bake", model, "-o", out, "--snapshot", "--snapshot-any-size", "--fps", "10"); code != 0 {
			t.Fatal(e)
		}
		before := readAllFiles(t, dir)
		if len(before) != 3 {
			t.Fatalf("the first bake wrote %v", folderNames(dir))
		}
		p := filepath.Join(dir, blocked)
		os.Remove(p)
		os.Mkdir(p, 0o755)
		delete(before, blocked)
		code, _, e := bonebake(t, "bake", model, "-o", out, "--snapshot", "--snapshot-any-size", "--fps", "20")
		if code == 0 || !strings.Contains(e, p) || !strings.Contains(e, "directory") {
			t.Errorf("a folder at %s: exit %d, %q", blocked, code, e)
		}
		if after := readAllFiles(t, dir); len(after) != len(before) || after["man.bpat"] != before["man.bpat"] || after["man.gait.json"] != before["man.gait.json"] || after["man_minimal.bpsm"] != before["man_minimal.bpsm"] {
			t.Errorf("a folder at %s: the folder now holds %v; a file of the old set changed or one was added", blocked, folderNames(dir))
		}
		if len(folderNames(dir)) != 3 {
			t.Errorf("a folder at %s: left %v", blocked, folderNames(dir))
		}
	}
}

// TestBakeSetManifestBound: a manifest cycle: 1e308 is refused before the bake,
// naming the file, the key's line and the bound, and leaves the old BPAT (it
// once failed after the BPAT was written, with only "json: unsupported value:
// +Inf").
func TestBakeSetManifestBound(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "w.bpat")
	os.WriteFile(out, []byte("old"), 0o644)
	man := filepath.Join(dir, "w.yaml")
	os.WriteFile(man, []byte("clips:\n  - name: walk\n    source: Walk\n    cycle: 1e308\n"), 0o644)
	code, _, e := bonebake(t, "bake", testfiles.WalkerGLTF(t, true), "-o", out, "--manifest", man)
	if code == 0 || !strings.Contains(e, man+" line 4") || !strings.Contains(e, "cycle 1e+308 is outside [0.001, 3600] s") {
		t.Errorf("exit %d, %q", code, e)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" || len(folderNames(dir)) != 2 {
		t.Errorf("the BPAT changed, or the folder holds %v", folderNames(dir))
	}
}

// TestBakeBuiltinSet: a built-in creature's BPAT and snapshot are one set: a
// folder at the snapshot's name fails the bake and leaves the old BPAT (it was
// once replaced before the snapshot failed).
func TestBakeBuiltinSet(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "horse.bpat"), []byte("old"), 0o644)
	snap := filepath.Join(dir, "horse_minimal.bpsm")
	os.Mkdir(snap, 0o755)
	code, _, e := bonebake(t, "bake", "--species", "horse", "-o", dir)
	if code == 0 || !strings.Contains(e, snap) || !strings.Contains(e, "directory") {
		t.Errorf("exit %d, %q", code, e)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "horse.bpat")); string(b) != "old" || len(folderNames(dir)) != 2 {
		t.Errorf("the old BPAT was replaced, or the folder holds %v", folderNames(dir))
	}
	os.Remove(snap)
	if code, _, e := bonebake(t, "bake", "--species", "horse", "-o", dir); code != 0 || len(folderNames(dir)) != 2 {
		t.Errorf("exit %d, %q; the folder holds %v", code, e, folderNames(dir))
	}
}

// TestBakeManySets: with several models, each model's BPAT and sidecar are one
// set: a folder at one model's sidecar fails that model, whose old BPAT
// stays, while the other model is baked whole.
func TestBakeManySets(t *testing.T) {
	src := t.TempDir()
	walker, _ := os.ReadFile(testfiles.WalkerGLTF(t, true))
	for _, n := range []string{"a.gltf", "b.gltf"} {
		os.WriteFile(filepath.Join(src, n), walker, 0o644)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.bpat"), []byte("old"), 0o644)
	os.Mkdir(filepath.Join(dir, "a.gait.json"), 0o755)
	code, _, e := bonebake(t, "bake", filepath.Join(src, "a.gltf"), filepath.Join(src, "b.gltf"), "-o", dir)
	if code != exitFailure || !strings.Contains(e, filepath.Join(dir, "a.gait.json")) {
		t.Errorf("exit %d, %q", code, e)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.bpat")); string(b) != "old" {
		t.Error("a's old BPAT was replaced")
	}
	if names := folderNames(dir); !slices.Equal(names, []string{"a.bpat", "a.gait.json", "b.bpat", "b.gait.json"}) {
		t.Errorf("the folder holds %v", names)
	}
	if g, err := gait.OpenFor(filepath.Join(dir, "b.bpat")); err != nil || g == nil {
		t.Errorf("b's sidecar: %v", err)
	}
}
