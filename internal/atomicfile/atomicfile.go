// Package atomicfile writes files so that a reader sees either the old content or the
// complete new content, never a half-written file: data goes to a temporary file in
// the same directory, which is then renamed over the target. It does not fsync:
// the guarantee is against failed or interrupted writes, not power loss, which
// keeps baking output-sized files fast (an fsync cost more than the bake itself).
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write runs write on a buffered temporary file beside path and renames it to path
// only when write, flush and close all succeed. On any failure the temporary
// file is removed and path is left as it was.
func Write(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("writing %s: %w", path, err)
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
	return os.Rename(tmp.Name(), path)
}
