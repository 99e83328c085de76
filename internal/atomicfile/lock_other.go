//go:build !unix

package atomicfile

import "os"

// lockDirs has no flock to take here: concurrent commits to one folder are not
// kept apart (the documented limit outside Unix).
func lockDirs(dirs []string) (func(), error) { return func() {}, nil }

func tryLockDir(dir string) (func(), bool) { return func() {}, true }

// fileID is not known here: commits keep no journal.
func fileID(st os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// openNoFollow opens the file at path for reading (its kind was checked).
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }
