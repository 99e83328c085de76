package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInputFiles: the first path that is not a file to read is the error, in
// inputFile's words; an empty path (a flag not given) is skipped.
func TestInputFiles(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.glb")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := inputFiles("", f, ""); err != nil {
		t.Errorf("a file and empty paths: %v", err)
	}
	missing := filepath.Join(dir, "b.glb")
	if err := inputFiles(f, "", dir, missing); err == nil || err.Error() != dir+": is a directory, not a file" {
		t.Errorf("a folder then a missing file: %v, want the folder named", err)
	}
}
