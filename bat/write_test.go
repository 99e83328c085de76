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
// modes and leaves no staging folder, and a staging folder an interrupted bake
// left behind is cleared.
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
	stale := filepath.Join(dir, stagePrefix+"123")
	os.Mkdir(stale, 0o755)
	os.WriteFile(filepath.Join(stale, "junk"), []byte("x"), 0o644)

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
	if m, _ := filepath.Glob(filepath.Join(dir, stagePrefix+"*")); len(m) != 0 {
		t.Errorf("staging folders left: %v", m)
	}
	if n := calls.Load(); n != 20 {
		t.Errorf("progress called %d times for 20 frames", n)
	}
}
