//go:build !unix

package atomicfile

// lockDirs has no flock to take here: concurrent commits to one folder are not
// kept apart (the documented limit outside Unix).
func lockDirs(dirs []string) (func(), error) { return func() {}, nil }
