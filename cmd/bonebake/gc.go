package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// lateCollectionHeap is the heap below which a one-model bake runs without the
// garbage collector.
const lateCollectionHeap = 64 << 20

// collectLate turns garbage collection off until the heap reaches 64 MiB, then
// back to the usual pacing (or the caller's GOGC/GOMEMLIMIT, which it leaves
// alone). A bake of a small model allocates a few megabytes: the collection the
// default 4 MiB goal starts stops the sampling workers for milliseconds, a fifth
// of a 20 ms command. A large model pays one collection at 64 MiB and is paced
// as before from then on. The returned function restores the settings.
func collectLate() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	gogc := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(lateCollectionHeap)
	var once sync.Once
	restore = func() {
		once.Do(func() {
			debug.SetGCPercent(gogc)
			debug.SetMemoryLimit(limit)
		})
	}
	// The first collection (the heap at the limit) frees this object and runs
	// its cleanup, which restores the pacing.
	sentinel := new([64]byte)
	runtime.AddCleanup(sentinel, func(r func()) { r() }, restore)
	return restore
}
