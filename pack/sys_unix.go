//go:build unix

package pack

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockDir takes an exclusive lock on the folder dir (flock), held until the
// returned file is closed or the process ends, however it ends: two unpacks
// into one folder never run at once, and an unpack finds another's journal
// only when that unpack is over.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, unix.EWOULDBLOCK):
		f.Close()
		return nil, fmt.Errorf("%s: another bonebake command is writing into this folder (an unpack, or files written together); wait for it to end: %w", dir, ErrBusy)
	case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
		// A file system without locks (some network ones): unpack unlocked,
		// as on a system without flock.
		return f, nil
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("%s: locking the folder: %w", dir, err)
	}
	return f, nil
}

// haveIDs: the system gives inode numbers, so a journal tells the files an
// unpack put in place from any other.
const haveIDs = true

// crossDevice says whether err is a rename or link across file systems.
func crossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
