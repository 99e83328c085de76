//go:build unix && !linux

package atomicfile

import (
	"os"
	"syscall"
)

// fileID is a file's device and inode numbers: part of a file's stamp where
// there is no statx.
func fileID(st os.FileInfo) (dev, ino uint64, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(sys.Dev), uint64(sys.Ino), true
}
