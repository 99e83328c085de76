// Package atomicfile writes files so that a reader sees either the old content or the
// complete new content, never a half-written file: data goes to a temporary file in
// the same directory, which is then renamed over the target. It does not fsync:
// the guarantee is against failed or interrupted writes, not power loss, which
// keeps baking output-sized files fast (an fsync cost more than the bake itself).
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write runs write on a buffered temporary file beside path and renames it to path
// only when write, flush and close all succeed. On any failure the temporary
// file is removed and path is left as it was.
func Write(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("writing %s: folder %s does not exist: %w", path, dir, fs.ErrNotExist)
		}
		return fmt.Errorf("writing %s: %w", path, withoutPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("writing %s: %w", path, withoutPath(err))
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		return fmt.Errorf("it is a directory")
	}
	return os.Rename(tmp.Name(), path)
}

// withoutPath drops the temporary file's name from an operating-system error: the
// user named the target, not the temporary file.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
