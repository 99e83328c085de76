//go:build !unix

package regfile

// oNonblock is 0 where opening a named pipe does not wait (Windows has none in
// the file system).
const oNonblock = 0
