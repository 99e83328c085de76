//go:build !linux

package atomicfile

import (
	"io/fs"
	"os"
)

// stampFile is the Stamp of an open file (see stamp); false where the system
// gives no inode numbers.
func stampFile(f *os.File) (Stamp, bool) {
	st, err := f.Stat()
	if err != nil {
		return Stamp{}, false
	}
	return stampInfo(st)
}

// StampAt is the Stamp of the regular file at path, not following a link;
// false for anything else or nothing.
func StampAt(path string) (Stamp, bool) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return Stamp{}, false
	}
	return stampInfo(st)
}

func stampInfo(st fs.FileInfo) (Stamp, bool) {
	dev, ino, ok := fileID(st)
	if !ok {
		return Stamp{}, false
	}
	return Stamp{Dev: dev, Ino: ino, Size: st.Size(), Mtime: st.ModTime().UnixNano()}, true
}
