package crowd

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling thread has used, and true, so that a
// benchmark on a shared machine can report the time its own work took apart from
// the time others' processes held its core. The caller locks its goroutine to
// its thread (lockThread) for as long as it measures.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
