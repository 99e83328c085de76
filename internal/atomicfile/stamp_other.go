//go:build !linux

package atomicfile

import (
	"io/fs"
	"os"
)

// stampFile is the stamp of an open file (see stamp); false where the system
// gives no inode numbers.
func stampFile(f *os.File) (stamp, bool) {
	st, err := f.Stat()
	if err != nil {
		return stamp{}, false
	}
	return stampInfo(st)
}

// stampAt is the stamp of the regular file at path, not following a link;
// false for anything else or nothing.
func stampAt(path string) (stamp, bool) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return stamp{}, false
	}
	return stampInfo(st)
}

func stampInfo(st fs.FileInfo) (stamp, bool) {
	dev, ino, ok := fileID(st)
	if !ok {
		return stamp{}, false
	}
	return stamp{Dev: dev, Ino: ino, Size: st.Size(), Mtime: st.ModTime().UnixNano()}, true
}
