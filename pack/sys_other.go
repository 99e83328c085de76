//go:build !unix

package pack

import (
	"io/fs"
	"os"
)

// lockDir opens dir unlocked: this system has no flock, so two unpacks into
// one folder at once are not detected here.
func lockDir(dir string) (*os.File, error) { return os.Open(dir) }

// fileID is unknown here: recovery then takes a file at a name it put in place
// for its own (docs/formats/bpx.md §12).
func fileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }

func crossDevice(error) bool { return false }
