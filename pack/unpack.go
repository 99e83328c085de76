package pack

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/formats/bpx"
	"github.com/bonebake/bonebake/internal/atomicfile"
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
// a data section several objects share), what was there is restored exactly:
// the files it replaced are put back, and the files and folders it created are
// removed (docs/formats/bpx.md §12).
func Unpack(p *bpx.Package, dir string) (out []Unpacked, err error) {
	parts := make([][]string, len(p.Objects))
	for i, o := range p.Objects {
		if parts[i], err = SafeName(o.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", p.File.Name, err)
		}
	}
	var u undo
	defer func() {
		if err != nil {
			u.rollback()
			out = nil
		} else {
			u.commit()
		}
	}()
	if err := u.mkdirAll(dir); err != nil {
		return nil, err
	}
	err = p.Walk(func(i int, r io.Reader) error {
		o := p.Objects[i]
		path, err := u.makeParents(dir, parts[i])
		if err != nil {
			return fmt.Errorf("object %q: %w", o.Name, err)
		}
		if err := u.keep(path); err != nil {
			return fmt.Errorf("object %q: %w", o.Name, err)
		}
		if err := atomicfile.WriteReplacingLink(path, func(w io.Writer) error {
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

// undo records what an unpack changed, to put it back if it fails.
type undo struct {
	dirs    []string        // folders created, in order
	created []string        // files created
	backups []backup        // files replaced, and where their old content waits
	touched map[string]bool // paths already created or backed up
}

type backup struct{ path, saved string }

// mkdirAll creates dir and its missing parents, recording each.
func (u *undo) mkdirAll(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		u.dirs = append(u.dirs, missing[i])
	}
	return nil
}

// keep is called before path is written: an existing file (or link) there is
// saved under a hidden name beside it, a hard link where the file system
// allows (so that the file stays in place meanwhile); a new file is recorded
// for removal.
func (u *undo) keep(path string) error {
	if u.touched == nil {
		u.touched = map[string]bool{}
	}
	if u.touched[path] {
		return nil // an earlier object of the same name: already recorded
	}
	u.touched[path] = true
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		u.created = append(u.created, path)
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%s is not a regular file (a pipe, a socket or a device); unpacking replaces only files and links", path)
	}
	for try := 0; ; try++ {
		saved := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.unpack-backup%d", filepath.Base(path), try))
		if st.Mode().IsRegular() {
			err = os.Link(path, saved)
			if err != nil && !errors.Is(err, fs.ErrExist) {
				err = renameNoReplace(path, saved)
			}
		} else {
			err = renameNoReplace(path, saved)
		}
		if errors.Is(err, fs.ErrExist) && try < 1000 {
			continue
		}
		if err != nil {
			return fmt.Errorf("keeping %s to restore it on failure: %w", path, err)
		}
		u.backups = append(u.backups, backup{path, saved})
		return nil
	}
}

// renameNoReplace renames old to new unless new exists.
func renameNoReplace(old, new string) error {
	if _, err := os.Lstat(new); err == nil {
		return fs.ErrExist
	}
	return os.Rename(old, new)
}

// rollback puts back what the unpack changed: created files and folders go,
// replaced files come back.
func (u *undo) rollback() {
	for _, p := range u.created {
		os.Remove(p)
	}
	for i := len(u.backups) - 1; i >= 0; i-- {
		os.Rename(u.backups[i].saved, u.backups[i].path)
	}
	for i := len(u.dirs) - 1; i >= 0; i-- {
		os.Remove(u.dirs[i]) // only when empty: what the user put there stays
	}
}

// commit drops the saved copies of replaced files.
func (u *undo) commit() {
	for _, b := range u.backups {
		os.Remove(b.saved)
	}
}

// makeParents creates the folders of parts under dir, refusing any that exists
// as a symbolic link or a file, and returns the file's path. The file itself,
// if it exists as a link, is replaced by the rename, not followed.
func (u *undo) makeParents(dir string, parts []string) (string, error) {
	path := dir
	for _, p := range parts[:len(parts)-1] {
		path = filepath.Join(path, p)
		st, err := os.Lstat(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.Mkdir(path, 0o755); err != nil {
				return "", err
			}
			u.dirs = append(u.dirs, path)
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
