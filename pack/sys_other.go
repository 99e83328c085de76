//go:build !unix

package pack

import "os"

// lockDir opens dir unlocked: this system has no flock, so two unpacks into
// one folder at once are not detected here.
func lockDir(dir string) (*os.File, error) { return os.Open(dir) }

// haveIDs: no inode numbers here; recovery then takes a file at a name it put
// in place for its own (docs/formats/bpx.md §12).
const haveIDs = false

func crossDevice(error) bool { return false }
