package fbx

import "github.com/bonebake/bonebake/formats"

// IsFile reports whether the file at path is an FBX file, by its first bytes
// (a path that cannot be read is not: the reader that opens it says why).
func IsFile(path string) bool {
	k, err := formats.SniffFile(path)
	return err == nil && k == formats.FBX
}
