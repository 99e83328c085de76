//go:build unix

package atomicfile

import (
	"cmp"
	"errors"
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockDirs takes an exclusive flock(2) on each of the folders dirs, in the
// order of their device and inode numbers (so that two commits locking
// overlapping folders, however they spell them, cannot deadlock), and returns
// what releases them. A folder reached by two spellings is locked once: two
// descriptors of one folder would conflict with each other. A file system
// that has no flock (some network file systems) is committed to without the
// lock, and so is a folder that can be written but not read (the documented
// limit: concurrent commits there can interleave).
func lockDirs(dirs []string) (func(), error) {
	type held struct {
		f        *os.File
		dev, ino uint64
	}
	var locks []held
	release := func() {
		for _, l := range locks {
			l.f.Close() // closing the last descriptor releases the lock
		}
	}
	for i, d := range dirs {
		if slices.Contains(dirs[:i], d) {
			continue // the same spelling again (a set's files share a folder): no open to find it is locked
		}
		f, err := os.Open(d)
		if errors.Is(err, os.ErrPermission) {
			continue // a folder one may write but not read: committed to unlocked
		}
		if err != nil {
			release()
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			release()
			return nil, err
		}
		sys, _ := st.Sys().(*syscall.Stat_t)
		var dev, ino uint64
		if sys != nil {
			dev, ino = uint64(sys.Dev), uint64(sys.Ino)
		}
		if slices.ContainsFunc(locks, func(l held) bool { return l.dev == dev && l.ino == ino }) {
			f.Close()
			continue
		}
		locks = append(locks, held{f, dev, ino})
	}
	slices.SortFunc(locks, func(a, b held) int {
		return cmp.Or(cmp.Compare(a.dev, b.dev), cmp.Compare(a.ino, b.ino))
	})
	for _, l := range locks {
		for {
			err := unix.Flock(int(l.f.Fd()), unix.LOCK_EX)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil && !errors.Is(err, unix.ENOLCK) && !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EBADF) && !errors.Is(err, unix.EINVAL) {
				release()
				return nil, &os.PathError{Op: "flock", Path: l.f.Name(), Err: err}
			}
			break
		}
	}
	return release, nil
}

// tryLockDir takes an exclusive flock on dir if no one holds it, for undoing a
// killed commit that also touched a folder this commit does not lock.
func tryLockDir(dir string) (func(), bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil && !errors.Is(err, unix.ENOLCK) && !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EBADF) && !errors.Is(err, unix.EINVAL) {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}

// openNoFollow opens the regular file at path for reading, refusing a link at
// its name and never waiting on a named pipe (a journal found in a folder).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
