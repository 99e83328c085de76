//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// createTemp creates a hidden temporary file for base in dir, mode 0666 less the
// umask.
func createTemp(dir, base string) (*tempFile, error) {
	f, err := createNamed(dir, base)
	if err != nil {
		return nil, err
	}
	return &tempFile{f: f, dir: dir, name: f.Name()}, nil
}

var unnamedOK = newBool(false)

// commit closes the temporary file and renames it to target.
func (t *tempFile) commit(target string) error {
	if err := t.f.Close(); err != nil {
		return err
	}
	return rename(t, target)
}

// replace renames name to target.
func replace(name, target string) error { return os.Rename(name, target) }

// nameAs is never needed here: every temporary file is named.
func (t *tempFile) nameAs(name string) (string, bool, error) { return t.name, false, nil }

// exchange is not available here: a set's commit keeps the old file as a hard
// link instead.
func exchange(a, b string) error { return errNoExchange }

// errNoExchange says the system cannot exchange two names in one step.
var errNoExchange = errors.New("no rename exchange")
