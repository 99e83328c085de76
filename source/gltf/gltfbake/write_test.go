//go:build unix

package gltfbake

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// dirNames lists dir's entries.
func dirNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteFilesConcurrent: two bakes of one model into the same -o at once, with
// manifests that differ in both the BPAT (fps) and the sidecar (cycle), leave
// the BPAT and the sidecar of one of them, never one of each (2 in 60 tries
// did once).
func TestWriteFilesConcurrent(t *testing.T) {
	model := testfiles.WalkerGLTF(t, true)
	dir := t.TempDir()
	manifest := func(name string, fps int, cycle string) *Manifest {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("fps: "+strconv.Itoa(fps)+"\nclips:\n  - name: walk\n    source: Walk\n    cycle: "+cycle+"\n"), 0o644)
		m, err := ReadManifest(p)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := manifest("a.yaml", 30, "1"), manifest("b.yaml", 50, "2")
	out := filepath.Join(dir, "out", "w.bpat")
	os.MkdirAll(filepath.Dir(out), 0o755)
	rounds := 40
	if testing.Short() {
		rounds = 15
	}
	for r := range rounds {
		var wg sync.WaitGroup
		for _, m := range []*Manifest{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mo, err := Load(model, Settings{Manifest: m})
				if err == nil {
					_, err = mo.WriteFiles(out, Output{Workers: 1})
				}
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		f, err := bpat.Open(out, formats.Lenient())
		if err != nil {
			t.Fatal(err)
		}
		fps := f.Clips()[0].FPS
		f.Close()
		g, err := gait.OpenFor(out)
		if err != nil || g == nil {
			t.Fatalf("sidecar: %v", err)
		}
		cycle := g.Clips[0].Cycle
		if (fps < 40) != (cycle == 1) {
			t.Fatalf("round %d: a BPAT at %v fps beside a sidecar with cycle %v: a mixed set", r, fps, cycle)
		}
		if names := dirNames(filepath.Dir(out)); !slices.Equal(names, []string{"w.bpat", "w.gait.json"}) {
			t.Fatalf("round %d: the folder holds %v", r, names)
		}
	}
}

// TestWriteFilesLimit: a BPAT over the job's MaxBytes, or a snapshot over it,
// is a *LimitError giving the size and the limit, and nothing is written;
// SnapshotAnySize lifts the limit for the snapshot alone.
func TestWriteFilesLimit(t *testing.T) {
	m, err := Load(sharedModel(t, "Fox.glb"), Settings{Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.Job.Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "fox.bpat")
	m.Job.MaxBytes = o.Bytes - 1
	_, err = m.WriteFiles(out, Output{})
	if le := (*LimitError)(nil); !errors.As(err, &le) || le.Snapshot || le.Bytes != o.Bytes || le.Limit != o.Bytes-1 || le.Frames != o.Frames {
		t.Fatalf("BPAT over the limit: %v", err)
	}
	// The BPAT fits; its snapshot, vertices × bpsm.VertexSize bytes a frame
	// against bones × 48, does not.
	m.Job.MaxBytes = o.Bytes
	snap := &SnapshotSettings{Triangles: 100, LOD: -1}
	_, err = m.WriteFiles(out, Output{Snapshot: snap})
	if le := (*LimitError)(nil); !errors.As(err, &le) || !le.Snapshot || le.Bytes <= o.Bytes || le.Frames != o.Frames {
		t.Fatalf("snapshot over the limit: %v", err)
	}
	if names := dirNames(dir); len(names) != 0 {
		t.Fatalf("a refused bake wrote %v", names)
	}
	w, err := m.WriteFiles(out, Output{Snapshot: snap, SnapshotAnySize: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fox.bpat", "fox.gait.json", "fox_minimal.bpsm"}; !slices.Equal(dirNames(dir), want) || w.Bytes != o.Bytes || w.Snapshot != filepath.Join(dir, "fox_minimal.bpsm") {
		t.Fatalf("wrote %v (%d bytes, snapshot %q), want %v (%d bytes)", dirNames(dir), w.Bytes, w.Snapshot, want, o.Bytes)
	}
}

// TestWriteFilesGameWarnings: a file that looks meant for Standard of Iron (one
// of its creature ids 0-5, or v2 asked for by name) is told what the game's
// reader refuses (docs/formats/bpat.md §2: v2 only, ids 0-5 only), naming the
// setting that fixes it; a file with an id past the game's, version not asked
// for, is told nothing.
func TestWriteFilesGameWarnings(t *testing.T) {
	model, dir := testfiles.WalkerGLTF(t, true), t.TempDir()
	id := func(v uint32) *uint32 { return &v }
	for i, c := range []struct {
		set  Settings
		want []string
	}{
		{Settings{SpeciesID: id(3)}, []string{"reads BPAT v2 only and refuses this v1 file (\"unsupported version\"): bake with Settings.Version 2"}},
		{Settings{SpeciesID: id(9), Version: 2}, []string{"refuses id 9 (\"unknown species_id\"): pass Settings.SpeciesID 0-5"}},
		{Settings{SpeciesID: id(3), Version: 2}, nil},
		{Settings{SpeciesID: id(9)}, nil},
	} {
		m, err := Load(model, c.set)
		if err != nil {
			t.Fatal(err)
		}
		w, err := m.WriteFiles(filepath.Join(dir, strconv.Itoa(i)+".bpat"), Output{})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Warnings) != len(c.want) {
			t.Errorf("%d: warnings %q, want %d", i, w.Warnings, len(c.want))
			continue
		}
		for k, want := range c.want {
			if !strings.Contains(w.Warnings[k], want) {
				t.Errorf("%d: warning %q, want it to say %q", i, w.Warnings[k], want)
			}
		}
	}
}
