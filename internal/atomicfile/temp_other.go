//go:build !linux

package atomicfile

import "os"

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
