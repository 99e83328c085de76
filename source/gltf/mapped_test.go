//go:build unix

package gltf

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"
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

// Floats a buffer in the process's memory holds as decoding would give them
// are used in place (CesiumMan's data URI, decoded); those in the file's
// mapping are copied (Fox.glb's BIN chunk), for the mapping is released after
// loading. Either way the values are decode's.
func TestFloatsInPlace(t *testing.T) {
	for _, c := range []struct {
		file    string
		inPlace bool
	}{{"CesiumMan.gltf", true}, {"Fox.glb", false}} {
		_, err := withDocument(modelPath(t, c.file), "", func(d *document) (int, error) {
			acc := d.doc.Meshes[0].Primitives[0].Attributes["POSITION"]
			got, err := d.floats(acc, "POSITION", specVec3)
			if err != nil {
				return 0, err
			}
			want, _, err := decode(d, acc, "POSITION", asFloat(false))
			if err != nil {
				return 0, err
			}
			if !slices.Equal(got, want) || len(got) == 0 {
				t.Errorf("%s: the floats differ from decode's", c.file)
			}
			buf := d.buffers[d.doc.BufferViews[*d.doc.Accessors[acc].BufferView].Buffer]
			start := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
			p := uintptr(unsafe.Pointer(unsafe.SliceData(got)))
			if in := p >= start && p-start < uintptr(len(buf)); in != c.inPlace {
				t.Errorf("%s: the floats lie in the buffer: %v, want %v", c.file, in, c.inPlace)
			}
			return 0, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
