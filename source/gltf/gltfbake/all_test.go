package gltfbake

import (
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestBakeAllOne: one model is baked into the file FolderOutput.Out, whose
// name must end in .bpat (the runtime and view load .bpat files, and its
// sidecar is named after it): "fox" is refused before anything is read,
// naming the setting and the name to give.
func TestBakeAllOne(t *testing.T) {
	dir, walker := t.TempDir(), testfiles.WalkerGLTF(t, true)
	var se *bake.SettingError
	err := BakeAll([]string{filepath.Join(dir, "missing.gltf")}, Settings{}, FolderOutput{Out: filepath.Join(dir, "fox")})
	want := filepath.Join(dir, "fox") + ": bake writes a .bpat file, the name the runtime and view load (its gait sidecar and snapshot are named after it): write FolderOutput.Out " + filepath.Join(dir, "fox.bpat")
	if !errors.As(err, &se) || se.Setting != "Out" || !se.ReadsOn || se.Err.Error() != want {
		t.Errorf("-o fox: %v, want the Out setting refused: %s", err, want)
	}
	var told []bake.Line
	out := filepath.Join(dir, "w.BPAT") // any case
	if err := BakeAll([]string{walker}, Settings{}, FolderOutput{Out: out, Output: Output{Tell: func(l bake.Line) { told = append(told, l) }}}); err != nil {
		t.Fatal(err)
	}
	if len(told) == 0 || told[0].Kind != bake.Wrote || !strings.HasPrefix(told[0].Text, "wrote "+out+": ") {
		t.Errorf("told %q, want the summary of %s first", told, out)
	}
	if names := dirNames(dir); !slices.Equal(names, []string{"w.BPAT", "w.gait.json"}) {
		t.Errorf("wrote %q", names)
	}
}

// TestBakeAllFolder: several models go into the folder FolderOutput.Out, which
// must be given, not end in .bpat and not be a file, or nothing is made; the
// folder is made when missing. Each model is told of whole, in the order given: what
// it found with its path before it, then what it wrote; a model that fails is
// a Failed line naming it, and the bake goes on, then says how many failed.
func TestBakeAllFolder(t *testing.T) {
	dir, walker := t.TempDir(), testfiles.WalkerGLTF(t, true)
	missing := filepath.Join(dir, "missing.gltf")
	models := []string{missing, walker}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var fe *FolderError
	for out, want := range map[string]string{
		"":                           "2 models: FolderOutput.Out DIR names the folder for their NAME.bpat files",
		filepath.Join(dir, "x.bpat"): filepath.Join(dir, "x.bpat") + ": with several models, FolderOutput.Out names a folder (one NAME.bpat per model)",
		file:                         file + ": is a file; with several models, FolderOutput.Out names a folder (one NAME.bpat per model)",
	} {
		err := BakeAll(models, Settings{}, FolderOutput{Out: out})
		if !errors.As(err, &fe) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("-o %q: %v, want a FolderError ending %q", out, err, want)
		}
	}
	if names := dirNames(dir); !slices.Equal(names, []string{"file"}) {
		t.Errorf("refused folders left %q", names)
	}
	out := filepath.Join(dir, "baked")
	var told []bake.Line
	err := BakeAll(models, Settings{}, FolderOutput{Out: out, Output: Output{Tell: func(l bake.Line) { told = append(told, l) }}})
	var failed *FailedError
	if !errors.As(err, &failed) || *failed != (FailedError{Failed: 1, Models: 2}) {
		t.Errorf("err %v, want 1 of 2 models failed", err)
	}
	if names := dirNames(out); !slices.Equal(names, []string{"walker.bpat", "walker.gait.json"}) {
		t.Errorf("the folder made holds %q, want the walker's files", names)
	}
	if len(told) < 4 || told[0].Kind != bake.Failed || told[0].Text != missing || told[0].Err == nil {
		t.Fatalf("told %q, want the missing model's error first", told)
	}
	// The walker: what it found (its gaits), then its summary, then the total.
	wrote := slices.IndexFunc(told, func(l bake.Line) bool { return l.Kind == bake.Wrote })
	for i, l := range told[1 : len(told)-1] {
		if i+1 < wrote && (l.Kind != bake.Found || !strings.HasPrefix(l.Text, walker+": ")) || i+1 > wrote && l.Kind == bake.Found {
			t.Errorf("line %d %+v: want the walker's findings, each naming it, before what it wrote", i+1, l)
		}
	}
	if wrote < 2 || !strings.HasPrefix(told[wrote].Text, "wrote "+filepath.Join(out, "walker.bpat")) || told[len(told)-1].Kind != bake.Total {
		t.Errorf("told %q", told)
	}
}

// TestBakeAloneTakesAFreeID: a model baked alone into a folder where another
// file already holds 6, the first id not built in, takes 7, the next one free
// there, and says so, so that the runtime can load the folder (it loads one
// file per id: issue 45 item 2, a user baking models one by one into one
// folder). Baked again into its own file it keeps its id (the file it
// replaces holds none); an id given is kept whatever the folder holds.
func TestBakeAloneTakesAFreeID(t *testing.T) {
	dir, walker := t.TempDir(), testfiles.WalkerGLTF(t, true)
	species := func(out string, set Settings) (uint32, string) {
		t.Helper()
		b := Bake(walker, filepath.Join(dir, out), set, Output{})
		if b.Err != nil {
			t.Fatal(b.Err)
		}
		return b.Written.Header.SpeciesID, b.Report[0].Text
	}
	if id, _ := species("a.bpat", Settings{}); id != 6 {
		t.Fatalf("the first model alone in the folder took %d, want 6", id)
	}
	id, said := species("b.bpat", Settings{})
	if id != 7 || !strings.Contains(said, "species 7 (the first id free in "+dir+", built in or taken by no other file there: pass Settings.SpeciesID to choose one") {
		t.Errorf("beside a.bpat's 6: species %d, said %q; want 7, free in the folder", id, said)
	}
	if id, _ := species("b.bpat", Settings{}); id != 7 {
		t.Errorf("b.bpat baked again took %d, want its 7", id)
	}
	six := uint32(6)
	if id, _ := species("c.bpat", Settings{SpeciesID: &six}); id != 6 {
		t.Errorf("--species-id 6 gave %d", id)
	}
}

// TestBakeAllPaths: BakeAll alone, with no help from its caller, applies
// the rules for its paths: a folder given as the file to write (one that
// exists, or a name ending in a separator) is refused as the Out setting
// before anything is made; a path that is missing, a folder or not a model
// fails the bake; and a bake that fails removes the folders it made for its
// output, one model's or several's, but not one that was there before. A
// clip file or a snapshot's mesh that is not a file to read, and an up axis
// no model uses, are refused before anything is made.
func TestBakeAllPaths(t *testing.T) {
	dir, walker := t.TempDir(), testfiles.WalkerGLTF(t, true)
	kept := filepath.Join(dir, "kept")
	text := filepath.Join(dir, "notes.txt")
	if err := cmp.Or(os.Mkdir(kept, 0o755), os.WriteFile(text, []byte("not a model"), 0o644)); err != nil {
		t.Fatal(err)
	}
	var se *bake.SettingError
	for out, want := range map[string]string{
		kept:                                   kept + ": is a directory; give the file name to write",
		filepath.Join(dir, "new", "out") + "/": filepath.Join(dir, "new", "out") + "/: names a folder; give the file name to write",
	} {
		err := BakeAll([]string{walker}, Settings{}, FolderOutput{Out: out})
		if !errors.As(err, &se) || se.Setting != "Out" || !se.ReadsOn || se.Err.Error() != want {
			t.Errorf("Out %q: %v, want the Out setting refused: %s", out, err, want)
		}
	}
	missing := filepath.Join(dir, "missing.gltf")
	for model, want := range map[string]string{
		missing: missing + ": no such file",
		dir:     dir + ": is a directory, not a file",
		text:    text + ": not a file bonebake knows, not a model: ",
	} {
		err := BakeAll([]string{model}, Settings{}, FolderOutput{Out: filepath.Join(dir, "new", "sub", "x.bpat")})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("model %s: %v, want %q", model, err, want)
		}
		if err := BakeAll([]string{model}, Settings{}, FolderOutput{Out: filepath.Join(kept, "x.bpat")}); err == nil {
			t.Errorf("model %s baked into a folder that was there", model)
		}
	}
	// The files the settings name, before anything else.
	for o, want := range map[*FolderOutput]string{
		{Out: filepath.Join(dir, "new", "clips.bpat")}:                                                        missing + ": no such file",
		{Out: filepath.Join(dir, "new", "snap.bpat"), Output: Output{Snapshot: &SnapshotSettings{Mesh: dir}}}: dir + ": is a directory, not a file",
	} {
		err := BakeAll([]string{walker}, Settings{ClipFiles: []string{missing}, Up: "+Z"}, *o)
		if err == nil || err.Error() != want {
			t.Errorf("Out %s, a clip file or snapshot mesh that is not a file: %v, want %q", o.Out, err, want)
		}
	}
	err := BakeAll([]string{missing, text}, Settings{}, FolderOutput{Out: filepath.Join(dir, "new", "several")})
	var failed *FailedError
	if !errors.As(err, &failed) || failed.Failed != 2 {
		t.Errorf("two models that are not: %v, want both failed", err)
	}
	err = BakeAll([]string{walker}, Settings{Up: "+Z"}, FolderOutput{Out: filepath.Join(dir, "new", "w.bpat")})
	if !errors.As(err, &se) || se.Setting != "Up" {
		t.Errorf("Up +Z on a glTF model: %v, want the Up setting refused", err)
	}
	if names := dirNames(dir); !slices.Equal(names, []string{"kept", "notes.txt"}) {
		t.Errorf("the failed bakes left %q, want no folder of theirs", names)
	}
	if names := dirNames(kept); len(names) != 0 {
		t.Errorf("the folder that was there holds %q", names)
	}
}
