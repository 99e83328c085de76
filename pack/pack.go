// Package pack puts bonebake's files into BPX containers and takes them out
// again (docs/formats/bpx.md): packing a folder, unpacking a package into a
// folder without ever writing outside it, baking the built-in creatures into one
// package, and carrying palettes and creatures as BPX textures (T) and models
// (M). The container format itself is format/bpx; this package adds what needs
// the file system, the bake and the species.
package pack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"bonebake/formats/bpx"
)

// Dir lists the regular files under dir as objects named by their path relative
// to dir with '/' separators, sorted by name. A symbolic link or other special
// file is an error: a package holds files, and a link's target may lie outside
// the folder.
func Dir(dir string) ([]bpx.PackInput, error) {
	var out []bpx.PackInput
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file (a link or device); packages hold files only", path)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, bpx.PackInput{
			Name: filepath.ToSlash(rel), Size: uint64(info.Size()),
			Open: func() (io.ReadCloser, error) { return os.Open(path) },
		})
		return nil
	})
	slices.SortFunc(out, func(a, b bpx.PackInput) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out, err
}

// WriteFile writes a package of objs to path: into a temporary file beside it,
// renamed over path only when the whole package is written. On failure path is
// left as it was.
func WriteFile(path string, objs []bpx.PackInput, o bpx.PackOptions) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = bpx.WritePackage(tmp, objs, o); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		return fmt.Errorf("writing %s: it is a directory", path)
	}
	return os.Rename(tmp.Name(), path)
}

// Bytes is an object held in memory.
func Bytes(name string, b []byte) bpx.PackInput {
	return bpx.PackInput{Name: name, Size: uint64(len(b)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
}

// ErrUnsafeName is what Unpack returns (wrapped) for an object name that would
// land outside the target folder.
var ErrUnsafeName = errors.New("unsafe object name")
