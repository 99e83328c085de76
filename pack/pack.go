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
	"strings"

	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/internal/regfile"
)

// Skipped is a file Dir left out, and why.
type Skipped struct {
	Path string
	Why  string
}

func (s Skipped) String() string { return fmt.Sprintf("%q: %s", s.Path, s.Why) }

// Dir lists the regular files under dir as objects named by their path relative
// to dir with '/' separators, sorted by name. Symbolic links and other special
// files are left out and listed in skipped (a package holds files, and a link's
// target may lie outside the folder), as is any file that is one of exclude
// (the package being written, when it is written inside dir), and the stage
// folder (StageName) of an interrupted unpack.
func Dir(dir string, exclude ...string) (objs []bpx.PackInput, skipped []Skipped, err error) {
	var excl []fs.FileInfo
	for _, e := range exclude {
		if st, err := os.Stat(e); err == nil {
			excl = append(excl, st)
		}
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.EqualFold(d.Name(), StageName) && path != dir {
				// An interrupted unpack's stage: its files are not the
				// folder's, and unpack refuses the name.
				skipped = append(skipped, Skipped{path, "the name bpx unpack keeps its stage under, which packages cannot hold (an interrupted unpack's files: the next bpx unpack into its folder finishes or undoes it)"})
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if strings.EqualFold(d.Name(), atomicfile.JournalName) {
			skipped = append(skipped, Skipped{path, "the journal of an interrupted write of several files, which packages cannot hold"})
			return nil
		}
		if !d.Type().IsRegular() {
			why := "not a regular file (a device, a pipe or a socket); packages hold files only"
			if d.Type()&fs.ModeSymlink != 0 {
				why = "a symbolic link, not followed (its target may lie outside the folder); packages hold files only"
			}
			skipped = append(skipped, Skipped{path, why})
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		for _, e := range excl {
			if os.SameFile(info, e) {
				skipped = append(skipped, Skipped{path, "the package being written"})
				return nil
			}
		}
		objs = append(objs, bpx.PackInput{
			Name: filepath.ToSlash(rel), Size: uint64(info.Size()),
			Open: func() (io.ReadCloser, error) {
				// The walk saw a regular file; one swapped for a pipe since is
				// refused rather than waited on.
				f, _, err := regfile.Open(path)
				if err != nil {
					return nil, err
				}
				return f, nil
			},
		})
		return nil
	})
	slices.SortFunc(objs, func(a, b bpx.PackInput) int { return strings.Compare(a.Name, b.Name) })
	return objs, skipped, err
}

// WriteFile writes a package of objs to path atomically (internal/atomicfile):
// into a temporary file, which takes path's name only when the whole package
// is written. On failure path is left as it was.
func WriteFile(path string, objs []bpx.PackInput, o bpx.PackOptions) error {
	return atomicfile.WriteFile(path, func(f *os.File) error { return bpx.WritePackage(f, objs, o) })
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
