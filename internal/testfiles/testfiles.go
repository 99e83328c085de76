// Package testfiles finds the real files tests read: the repository's own
// testdata/<kind>/ folder first, then the project's shared test data in
// ../shared/testdata/<kind>/ beside the repository (models, motions and
// containers nobody here wrote). Tests skip when a file is in neither, so the
// repository's tests pass on their own.
package testfiles

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Find returns the path of testdata/<kind>/<name> (name may hold '/'), from
// the repository or the shared test data, and whether it exists.
func Find(kind, name string) (string, bool) {
	root, ok := repoRoot()
	if !ok {
		return "", false
	}
	for _, dir := range []string{filepath.Join(root, "testdata"), filepath.Join(root, "..", "shared", "testdata")} {
		p := filepath.Join(dir, kind, filepath.FromSlash(name))
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// Path is Find for a test: it skips the test when the file is absent.
func Path(t testing.TB, kind, name string) string {
	t.Helper()
	p, ok := Find(kind, name)
	if !ok {
		t.Skipf("%s/%s is neither in testdata nor in ../shared/testdata", kind, name)
	}
	return p
}

// All returns every file whose name ends in ext under testdata/<kind>/ of the
// repository and of the shared test data (subfolders included), sorted within
// each: whatever motions or models are there, those known to the tests or not.
func All(kind, ext string) []string {
	root, ok := repoRoot()
	if !ok {
		return nil
	}
	var out []string
	for _, dir := range []string{filepath.Join(root, "testdata"), filepath.Join(root, "..", "shared", "testdata")} {
		filepath.WalkDir(filepath.Join(dir, kind), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ext) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// Peer returns the folder of a peer tool in ../shared/peers/ beside the
// repository (another project's reader or writer that tests check files
// against), skipping the test when it is absent.
func Peer(t testing.TB, name string) string {
	t.Helper()
	if root, ok := repoRoot(); ok {
		p := filepath.Join(root, "..", "shared", "peers", name)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
	}
	t.Skipf("peer %s is not in ../shared/peers", name)
	return ""
}

// repoRoot is the folder holding go.mod, found upwards from the test's
// working directory (its package folder).
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
