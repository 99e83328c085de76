package gltfbake

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/internal/iopath"
)

// BakeAll is the whole bake of models with set, as one call: one model into
// the BPAT file o.Out (Bake), several into the folder o.Out, one NAME.bpat
// each (PlanFolder, then Folder.WriteFiles). o.Tell is told every line: one
// model's as they come; each of several's whole, in the order given, as soon
// as it is done (what it found, with its path before it; its error, a Failed
// line; what it wrote), then the folder's. The files the settings name are
// checked first (Settings.ClipFiles, the snapshot's Mesh: each a file to
// read, iopath.Input), then Settings.Up against the models (CheckUpUsed),
// then the output: one model's file by
// internal/iopath's rule for a file to write (no folder, existing or named
// with a trailing separator; one that can be replaced; the folders it goes in
// made) and CheckBPATOut, a folder of several not a file; then each model
// (CheckModel, in Bake). The folders it made are removed again when the bake
// fails and leaves them empty. It returns the error that stopped the bake, or
// a *FailedError when some of several models failed.
func BakeAll(models []string, set Settings, o FolderOutput) error {
	var made iopath.Dirs
	err := bakeModels(models, set, o, &made)
	if err != nil {
		made.Undo()
	} else {
		made.Forget()
	}
	return err
}

// bakeModels is BakeAll's work, the folders it makes recorded in made.
func bakeModels(models []string, set Settings, o FolderOutput, made *iopath.Dirs) error {
	files := set.ClipFiles
	if o.Snapshot != nil {
		files = append([]string{o.Snapshot.Mesh}, files...)
	}
	if err := cmp.Or(iopath.Inputs(files...), set.CheckUpUsed(models)); err != nil {
		return err
	}
	if len(models) == 1 {
		out := cmp.Or(o.Out, BPATPath(models[0], ""))
		if err := outFileError(made.Output(out)); err != nil {
			return err
		}
		if err := CheckBPATOut(out); err != nil {
			return err
		}
		return Bake(models[0], out, set, o.Output).Err
	}
	dir := o.Out
	if st, err := os.Stat(dir); dir == "" {
		return &FolderError{fmt.Errorf("%d models: FolderOutput.Out DIR names the folder for their NAME.bpat files", len(models))}
	} else if strings.EqualFold(filepath.Ext(dir), ".bpat") {
		return &FolderError{fmt.Errorf("FolderOutput.Out %s: with several models, FolderOutput.Out names a folder (one NAME.bpat per model)", dir)}
	} else if err == nil && !st.IsDir() {
		return &FolderError{fmt.Errorf("FolderOutput.Out %s: is a file; with several models, FolderOutput.Out names a folder (one NAME.bpat per model)", dir)}
	}
	plan, err := PlanFolder(models, dir, set)
	if err != nil {
		return err
	}
	if err := made.Make(dir); err != nil {
		return fmt.Errorf("FolderOutput.Out %s: %w", dir, err)
	}
	tell, done := o.Tell, o.Done
	o.Done = func(b *Baked) {
		if tell != nil {
			b.tellWhole(tell)
		}
		if done != nil {
			done(b)
		}
	}
	if failed := plan.WriteFiles(o); failed > 0 {
		return &FailedError{Failed: failed, Models: len(models)}
	}
	return nil
}

// outFileError is iopath.Dirs.Output's error on FolderOutput.Out's file in
// the library's terms: a path refused is a *bake.SettingError of Out; a
// folder that could not be made names the setting before the path.
func outFileError(err error) error {
	if oe := (*iopath.OutputError)(nil); errors.As(err, &oe) {
		return &bake.SettingError{Setting: "Out", Err: oe.Err, ReadsOn: oe.ReadsOn}
	}
	if err != nil {
		return fmt.Errorf("FolderOutput.Out %w", err)
	}
	return nil
}

// tellWhole tells the model's lines as a bake of several does: what it found
// and what it is doing, each line it found with its path before it; its error
// (a Failed line naming the model); then what it wrote.
func (b *Baked) tellWhole(tell func(bake.Line)) {
	for _, l := range b.Report {
		if l.Kind == bake.Found {
			l.Text = b.Model + ": " + l.Text
		}
		if l.Kind != bake.Wrote && l.Kind != bake.Total {
			tell(l)
		}
	}
	if b.Err != nil {
		tell(bake.Line{Kind: bake.Failed, Text: b.Model, Err: b.Err})
	}
	for _, l := range b.Report {
		if l.Kind == bake.Wrote || l.Kind == bake.Total {
			tell(l)
		}
	}
}

// FailedError says that some models of a bake of several failed; each one's
// error was told as it came (a Failed line).
type FailedError struct{ Failed, Models int }

func (e *FailedError) Error() string {
	return fmt.Sprintf("%d of %d models failed", e.Failed, e.Models)
}

// CheckBPATOut refuses a BPAT file out whose name does not end in .bpat: the
// runtime and view load a folder's .bpat files, and the gait sidecar and
// snapshot are named after the part before the extension, so "fox" would be
// files nothing finds. It is a *bake.SettingError of FolderOutput.Out.
func CheckBPATOut(out string) error {
	if strings.EqualFold(filepath.Ext(out), ".bpat") {
		return nil
	}
	return &bake.SettingError{Setting: "Out", ReadsOn: true, Err: fmt.Errorf("%s: bake writes a .bpat file, the name the runtime and view load (its gait sidecar and snapshot are named after it): write FolderOutput.Out %s",
		out, strings.TrimSuffix(out, filepath.Ext(out))+".bpat")}
}
