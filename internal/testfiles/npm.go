package testfiles

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// NpmCache copies files (package.json, its lock and any scripts) from src into
// a cache folder named name under the system's temporary folder, installs the
// lock's packages there with npm ci once per lock (a changed file installs
// again), and returns the folder. It skips the test when npm is not installed
// or the install fails.
func NpmCache(t testing.TB, src, name string, files ...string) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skipf("npm is not installed: %s cannot be installed", name)
	}
	dir := filepath.Join(os.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if old, _ := os.ReadFile(filepath.Join(dir, f)); string(old) != string(b) {
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(dir, "node_modules")) // a new lock: install again
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "three", "package.json")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm ci for %s failed (%v): %s", name, err, out)
		}
	}
	return dir
}
