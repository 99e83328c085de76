package testfiles

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// NpmCache copies files (package.json, its lock and any scripts) from src into
// a cache folder under the system's temporary folder, installs the lock's
// packages there with npm ci once, and returns the folder. The folder is
// named name and a hash of the files, so that a changed file installs into a
// folder of its own, and two checkouts with different locks (or a test on an
// older lock still running) never remove each other's packages. It skips the
// test when npm is not installed or the install fails.
func NpmCache(t testing.TB, src, name string, files ...string) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skipf("npm is not installed: %s cannot be installed", name)
	}
	h := sha256.New()
	contents := make([][]byte, len(files))
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		contents[i] = b
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("%s-%x", name, h.Sum(nil)[:6]))
	installed := filepath.Join(dir, "node_modules", "three", "package.json")
	if _, err := os.Stat(installed); err == nil {
		return dir
	}
	// Installed beside the cache folder and renamed into place: a folder
	// that is there is complete, whoever installed it.
	tmp, err := os.MkdirTemp(os.TempDir(), name+"-install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for i, f := range files {
		if err := os.WriteFile(filepath.Join(tmp, f), contents[i], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm ci for %s failed (%v): %s", name, err, out)
	}
	if _, err := os.Stat(installed); err == nil {
		return dir // another test installed it meanwhile
	}
	os.RemoveAll(dir) // an install that was cut short
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatalf("installing %s: %v", name, err)
	}
	return dir
}
