package pack

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"bonebake/formats/bpx"
	"bonebake/internal/atomicfile"
)

// SafeName checks an object name for unpacking and returns its parts: it must
// be relative ('/' or '\' separated), with no empty, "." or ".." part, no NUL,
// no drive letter or colon, so that it names a file inside the target folder on
// every system.
func SafeName(name string) ([]string, error) {
	bad := func(why string) ([]string, error) {
		return nil, fmt.Errorf("object %q: %s: %w", name, why, ErrUnsafeName)
	}
	switch {
	case name == "":
		return bad("empty name")
	case strings.IndexByte(name, 0) >= 0:
		return bad("contains a NUL byte")
	case name[0] == '/' || name[0] == '\\':
		return bad("absolute path")
	case strings.ContainsRune(name, ':'):
		return bad("a drive letter or colon (C:, a:b)")
	}
	parts := strings.Split(strings.ReplaceAll(name, `\`, "/"), "/")
	for _, p := range parts {
		if p == "" {
			return bad("an empty part (a doubled or trailing separator)")
		}
		if p == ".." {
			return bad("a '..' part would leave the folder")
		}
		if p == "." {
			return bad("a '.' part")
		}
	}
	return parts, nil
}

// Unpacked is one file Unpack wrote.
type Unpacked struct {
	Path string
	Size uint64
}

// Unpack writes every object of p under dir (created when missing). Every name
// is checked before anything is written (SafeName), no symbolic link on the
// way is followed, and each file is written to a temporary file and renamed
// into place. When unpacking fails (a bad checksum is found only at the end of
// a data section several objects share), the files written so far are removed:
// a failed unpack leaves no file of the package behind.
func Unpack(p *bpx.Package, dir string) (out []Unpacked, err error) {
	parts := make([][]string, len(p.Objects))
	for i, o := range p.Objects {
		if parts[i], err = SafeName(o.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", p.File.Name, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			for _, u := range out {
				os.Remove(u.Path)
			}
			out = nil
		}
	}()
	err = p.Walk(func(i int, r io.Reader) error {
		o := p.Objects[i]
		path, err := makeParents(dir, parts[i])
		if err != nil {
			return fmt.Errorf("object %q: %w", o.Name, err)
		}
		if err := atomicfile.Write(path, func(w io.Writer) error {
			_, err := io.Copy(w, r)
			return err
		}); err != nil {
			return fmt.Errorf("object %q: %w", o.Name, err)
		}
		out = append(out, Unpacked{path, o.Size})
		return nil
	})
	return out, err
}

// makeParents creates the folders of parts under dir, refusing any that exists
// as a symbolic link or a file, and returns the file's path. The file itself,
// if it exists as a link, is replaced by the rename, not followed.
func makeParents(dir string, parts []string) (string, error) {
	path := dir
	for _, p := range parts[:len(parts)-1] {
		path = filepath.Join(path, p)
		st, err := os.Lstat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.Mkdir(path, 0o755); err != nil {
				return "", err
			}
		case err != nil:
			return "", err
		case st.Mode()&os.ModeSymlink != 0:
			return "", fmt.Errorf("%s is a symbolic link; unpacking does not follow links", path)
		case !st.IsDir():
			return "", fmt.Errorf("%s is a file, not a folder", path)
		}
	}
	path = filepath.Join(path, parts[len(parts)-1])
	if st, err := os.Lstat(path); err == nil && st.IsDir() {
		return "", fmt.Errorf("%s is a folder", path)
	}
	return path, nil
}
