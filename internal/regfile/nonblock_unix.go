//go:build unix

package regfile

import "syscall"

// oNonblock keeps the open from waiting for a writer, should the path have
// become a named pipe after it was looked at.
const oNonblock = syscall.O_NONBLOCK
