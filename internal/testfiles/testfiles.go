// Package testfiles finds the real files tests read: the repository's own
// testdata/<kind>/ folder first, then the project's shared test data in
// ../shared/testdata/<kind>/ beside the repository (models, motions and
// containers nobody here wrote). Tests skip when a file is in neither, so the
// repository's tests pass on their own.
package testfiles

import (
	"os"
	"path/filepath"
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

// Peer returns the folder of a peer program beside the repository,
// ../shared/peers/<name> (another project's code, packaged to be built and run
// against ours), and whether it is there.
func Peer(name string) (string, bool) {
	root, ok := repoRoot()
	if !ok {
		return "", false
	}
	p := filepath.Join(root, "..", "shared", "peers", name)
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return "", false
	}
	return p, true
}
