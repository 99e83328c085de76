package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// stampFile is the Stamp of an open file.
func stampFile(f *os.File) (Stamp, bool) {
	var x unix.Statx_t
	err := unix.Statx(int(f.Fd()), "", unix.AT_EMPTY_PATH, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &x)
	if errors.Is(err, unix.ENOSYS) {
		// A kernel before statx (4.11): no creation time.
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) != nil {
			return Stamp{}, false
		}
		return stampStat(&st), true
	}
	if err != nil {
		return Stamp{}, false
	}
	return stampOf(&x), true
}

// StampAt is the Stamp of the regular file at path, not following a link;
// false for anything else or nothing.
func StampAt(path string) (Stamp, bool) {
	var x unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &x)
	if errors.Is(err, unix.ENOSYS) {
		var st unix.Stat_t
		if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			return Stamp{}, false
		}
		return stampStat(&st), true
	}
	if err != nil || x.Mode&unix.S_IFMT != unix.S_IFREG {
		return Stamp{}, false
	}
	return stampOf(&x), true
}

func stampOf(x *unix.Statx_t) Stamp {
	s := Stamp{
		Dev:   unix.Mkdev(x.Dev_major, x.Dev_minor),
		Ino:   x.Ino,
		Size:  int64(x.Size),
		Mtime: x.Mtime.Sec*1e9 + int64(x.Mtime.Nsec),
	}
	if x.Mask&unix.STATX_BTIME != 0 {
		s.Btime = x.Btime.Sec*1e9 + int64(x.Btime.Nsec)
	}
	return s
}

// stampStat is the Stamp from stat(2), which has no creation time.
func stampStat(st *unix.Stat_t) Stamp {
	return Stamp{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: int64(st.Size), Mtime: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec)}
}
