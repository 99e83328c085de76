//go:build unix

package gltf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The model file is mapped while it is read: one cut short meanwhile (another
// program writing it anew) makes reading the pages it lost fault, which must be
// an error naming the file, not a crash.
func TestMappedFileCutShort(t *testing.T) {
	src, err := os.ReadFile(modelPath(t, "Fox.glb"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "Fox.glb")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	read := 0
	_, err = withDocument(path, "", func(d *document) (int, error) {
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, b := range d.buffers[0] { // the BIN chunk, in pages the file no longer has
			sum += int(b)
			read++
		}
		return sum, nil
	})
	var ge *Error
	if !errors.As(err, &ge) || ge.Rule != RuleFile || ge.File != path || !strings.Contains(err.Error(), "cut short") {
		t.Fatalf("got %v after reading %d bytes, want a %s error naming %s: cut short", err, read, RuleFile, path)
	}
	// The same file whole again loads.
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, Options{}); err != nil {
		t.Fatal(err)
	}
}
