package atomicfile

import (
	"errors"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// createTemp creates the temporary file for base in dir: unnamed (O_TMPFILE),
// so that nothing is left behind whatever happens to the process, or named
// where the file system does not support unnamed files. Either way its mode is
// 0666 less the umask.
func createTemp(dir, base string) (*tempFile, error) {
	if unnamedOK.Load() {
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
		if err == nil {
			return &tempFile{f: os.NewFile(uintptr(fd), dir+"/."+base+".tmp"), dir: dir}, nil
		}
		// ENOENT and ENOTDIR: the folder is missing, which the named path reports
		// too. Anything else (EOPNOTSUPP, EISDIR on kernels without O_TMPFILE,
		// EINVAL): fall back to a named file.
	}
	f, err := createNamed(dir, base)
	if err != nil {
		return nil, err
	}
	return &tempFile{f: f, dir: dir, name: f.Name()}, nil
}

// unnamedOK turns unnamed temporary files off (tests use it to exercise the
// named path; a file system that cannot link them falls back by itself).
var unnamedOK = newBool(true)

// commit closes the temporary file and gives it the name target. An unnamed
// file is first linked into its folder under a hidden name (linkat of
// /proc/self/fd/N, as open(2) documents for O_TMPFILE), then renamed: a link
// cannot replace an existing file.
func (t *tempFile) commit(target string) error {
	if t.name == "" {
		name, err := t.nameUnnamed()
		if err != nil {
			return err
		}
		setName(t, name)
	}
	if err := t.f.Close(); err != nil {
		return err
	}
	return rename(t, target)
}

// nameUnnamed gives an unnamed file a hidden name in its folder and returns it.
func (t *tempFile) nameUnnamed() (string, error) {
	name, err := t.link()
	if err != nil {
		// A file system that makes unnamed files but cannot link them: copy
		// into a named one, and use named ones from now on.
		unnamedOK.Store(false)
		return t.copyToNamed()
	}
	return name, nil
}

// nameAs names the unnamed file name, chosen beforehand for a set's journal,
// and returns the name it has: another one (changed) where the file system
// cannot link an unnamed file and it was copied into a named one.
func (t *tempFile) nameAs(name string) (string, bool, error) {
	fd := int(t.f.Fd())
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
	if errors.Is(err, unix.ENOENT) {
		err = unix.Linkat(fd, "", unix.AT_FDCWD, name, unix.AT_EMPTY_PATH)
	}
	switch {
	case err == nil:
		return name, false, nil
	case errors.Is(err, unix.EEXIST):
		return "", false, &os.LinkError{Op: "link", Old: t.f.Name(), New: name, Err: err}
	}
	unnamedOK.Store(false)
	n, err := t.copyToNamed()
	return n, true, err
}

// link names the unnamed file: through /proc/self/fd, or, without /proc, with
// AT_EMPTY_PATH (which needs CAP_DAC_READ_SEARCH).
func (t *tempFile) link() (string, error) {
	fd := int(t.f.Fd())
	for try := 0; ; try++ {
		name := t.f.Name() + nextSuffix()
		err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
		if errors.Is(err, unix.ENOENT) {
			err = unix.Linkat(fd, "", unix.AT_FDCWD, name, unix.AT_EMPTY_PATH)
		}
		if errors.Is(err, unix.EEXIST) && try < 1000 {
			continue
		}
		if err != nil {
			return "", &os.LinkError{Op: "link", Old: t.f.Name(), New: name, Err: err}
		}
		return name, nil
	}
}

// copyToNamed copies the unnamed file into a named temporary file beside it and
// returns its name; the unnamed file is closed.
func (t *tempFile) copyToNamed() (string, error) {
	defer t.f.Close()
	st, err := t.f.Stat()
	if err != nil {
		return "", err
	}
	name := t.f.Name()
	f, err := createNamed(t.dir, baseOf(name))
	if err != nil {
		return "", err
	}
	err = f.Chmod(st.Mode().Perm())
	if err == nil {
		_, err = io.Copy(f, io.NewSectionReader(t.f, 0, st.Size()))
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	t.f = f
	return f.Name(), nil
}

// baseOf is the target's base name in an unnamed file's label, "DIR/.BASE.tmp".
func baseOf(label string) string {
	for i := len(label) - 1; i >= 0; i-- {
		if label[i] == '/' {
			b := label[i+1:]
			if len(b) > 5 && b[0] == '.' && b[len(b)-4:] == ".tmp" {
				return b[1 : len(b)-4]
			}
			return b
		}
	}
	return label
}

// replace gives name the name target. Over an existing file it swaps the two
// (renameat2 RENAME_EXCHANGE) and removes the old file under the temporary name:
// ext4 (auto_da_alloc) starts writing a file renamed over another to disk at the
// rename, which costs a bake of tens of megabytes more than the bake itself,
// while an exchange leaves writeback to its usual time. The target holds the old
// file or the new one at every instant either way. Where the exchange is not
// available (another file system, an old kernel, no target) it is a plain rename.
func replace(name, target string) error {
	err := unix.Renameat2(unix.AT_FDCWD, name, unix.AT_FDCWD, target, unix.RENAME_EXCHANGE)
	if err != nil {
		return os.Rename(name, target)
	}
	// name now holds what target held. A folder that took the target's place
	// since it was checked goes back, and the write fails as a plain rename
	// over a folder would.
	if st, serr := os.Lstat(name); serr == nil && st.IsDir() {
		if err := unix.Renameat2(unix.AT_FDCWD, name, unix.AT_FDCWD, target, unix.RENAME_EXCHANGE); err != nil {
			return &os.LinkError{Op: "rename", Old: name, New: target, Err: err}
		}
		return &os.LinkError{Op: "rename", Old: name, New: target, Err: unix.EISDIR}
	}
	// The new file is in place: the write succeeded even if the old one could
	// not be removed (it cannot fail in a folder we just renamed in).
	os.Remove(name)
	return nil
}

// exchange swaps the files named a and b in one step (renameat2
// RENAME_EXCHANGE): a set's commit puts a new file in place and keeps the old
// one under the new file's temporary name, to put back if the set fails.
func exchange(a, b string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
