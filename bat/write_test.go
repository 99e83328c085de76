package bat

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Write replaces a bake's files as a set: a bake refused before verification
// leaves the previous set untouched, a successful one keeps the replaced files'
// modes and leaves nothing but the set.
func TestWriteReplacesTheSet(t *testing.T) {
	in := synthetic(t, 3, 20, 40)
	dir := t.TempDir()
	if _, err := Write(dir, in, Options{}); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, in.Name+".bat.json")
	if err := os.Chmod(report, 0o640); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(report)

	// Refused: every file as it was.
	defer func(v int64) { maxVerifyWork = v }(maxVerifyWork)
	maxVerifyWork = 10
	if _, err := Write(dir, in, Options{Format: EXR16}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v; want the verification limit", err)
	}
	if after, _ := os.ReadFile(report); string(after) != string(before) {
		t.Error("a refused bake changed the report")
	}
	// Lifted, and done: the new set in place, the mode kept, nothing staged.
	var calls atomic.Int64 // Progress is called from every verifying core
	if _, err := Write(dir, in, Options{Format: EXR16, NoLimit: true, Progress: func(done, total int) { calls.Add(1) }}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(report); string(after) == string(before) || !strings.Contains(string(after), `"float16"`) {
		t.Error("the report was not replaced")
	}
	if st, _ := os.Stat(report); st.Mode().Perm() != 0o640 {
		t.Errorf("the report's mode is %v, want 0640 kept", st.Mode().Perm())
	}
	if e, _ := os.ReadDir(dir); len(e) != 5 {
		t.Errorf("the folder holds %d files, want the set's 5: %v", len(e), e)
	}
	if n := calls.Load(); n != 20 {
		t.Errorf("progress called %d times for 20 frames", n)
	}
}

// TestWriteFolderAtAnOutput: a folder where one of the outputs goes fails the
// bake before any file is replaced: every other file of the previous set is as
// it was, the folder stays, and nothing else is left in the output folder.
func TestWriteFolderAtAnOutput(t *testing.T) {
	in := synthetic(t, 3, 20, 40)
	first := t.TempDir()
	if _, err := Write(first, in, Options{}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(first)
	for _, blocked := range entries {
		dir := t.TempDir()
		old := map[string]string{}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(first, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() == blocked.Name() {
				os.Mkdir(filepath.Join(dir, e.Name()), 0o755)
				continue
			}
			old[e.Name()] = string(b)
			os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
		}
		// Half floats: every file differs from the first bake's.
		_, err := Write(dir, in, Options{Format: EXR16})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, blocked.Name())) {
			t.Errorf("a folder at %s: err = %v, want one naming it", blocked.Name(), err)
		}
		after, _ := os.ReadDir(dir)
		if len(after) != len(entries) {
			t.Errorf("a folder at %s: the folder holds %v, want the old set only", blocked.Name(), after)
		}
		for name, want := range old {
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
				t.Errorf("a folder at %s: %s was replaced", blocked.Name(), name)
			}
		}
		if st, err := os.Stat(filepath.Join(dir, blocked.Name())); err != nil || !st.IsDir() {
			t.Errorf("the folder at %s is gone", blocked.Name())
		}
	}
}
