package iopath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInputs: the first path that is not a file to read is the error, in
// Input's words; an empty path (a flag not given) is skipped.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.glb")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Inputs("", f, ""); err != nil {
		t.Errorf("a file and empty paths: %v", err)
	}
	missing := filepath.Join(dir, "b.glb")
	if err := Inputs(f, "", dir, missing); err == nil || err.Error() != dir+": is a directory, not a file" {
		t.Errorf("a folder then a missing file: %v, want the folder named", err)
	}
	if err := Input(missing); err == nil || err.Error() != missing+": no such file" {
		t.Errorf("a missing file: %v", err)
	}
}

// TestOutputRefused: an existing folder, a name ending in a separator (a
// folder, before it exists) and a file that cannot be replaced are refused
// before any folder is made, each an *OutputError that says whether it reads
// on from the name of what gave the path.
func TestOutputRefused(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "p.bpat")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		path, want string
		readsOn    bool
	}{
		{dir, dir + ": is a directory; give the file name to write", true},
		{filepath.Join(dir, "new", "sub") + "/", filepath.Join(dir, "new", "sub") + "/: names a folder; give the file name to write", true},
		{pipe, "writing " + pipe + ": ", false},
	} {
		var d Dirs
		err := d.Output(tc.path)
		var oe *OutputError
		if !errors.As(err, &oe) || oe.ReadsOn != tc.readsOn || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v (%#v), want an OutputError %q, reads on %v", tc.path, err, oe, tc.want, tc.readsOn)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("a refused path made its folder: %v", err)
	}
}

// TestOutputMakesFolders: the folders a file goes in are made and recorded;
// Undo removes those left empty, innermost first, and keeps one a file was
// written into and those that were there before; Forget keeps them all.
func TestOutputMakesFolders(t *testing.T) {
	dir := t.TempDir()
	var d Dirs
	if err := d.Output(filepath.Join(dir, "a", "b", "x.bpat")); err != nil {
		t.Fatal(err)
	}
	if err := d.Output(filepath.Join(dir, "c", "y.bpat")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c", "y.bpat"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d.Undo()
	for p, want := range map[string]bool{"a": false, "c": true, "c/y.bpat": true} {
		if _, err := os.Stat(filepath.Join(dir, p)); (err == nil) != want {
			t.Errorf("%s after Undo: %v, want there %v", p, err, want)
		}
	}
	if err := d.Output(filepath.Join(dir, "a", "z.bpat")); err != nil {
		t.Fatal(err)
	}
	d.Forget()
	d.Undo()
	if _, err := os.Stat(filepath.Join(dir, "a")); err != nil {
		t.Errorf("a folder made, then forgotten: %v", err)
	}
	// A folder that cannot be made: its error names the file first.
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(ro, "new", "z.bpat")
	if err := d.Output(blocked); os.Getuid() != 0 && (err == nil || !strings.HasPrefix(err.Error(), blocked+": ")) {
		t.Errorf("a folder in a read-only one: %v, want an error naming %s", err, blocked)
	}
}
