package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// paceGC paces the garbage collector for a bake of models and returns what
// restores it. One model collects late (collectLate). Many short-lived ones
// make garbage at a steady rate: collecting when the heap is three times the
// live data, not twice, spares a tenth of the batch's time; the live data is
// at most one model per core. A GOGC the caller set is left alone. It is the
// command's, not a setting of gltfbake's bake: the pacing is the whole
// process's, which a program that bakes beside other work (view) would not
// want changed under it.
func paceGC(models int) (restore func()) {
	if models == 1 {
		return collectLate()
	}
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	gogc := debug.SetGCPercent(200)
	return func() { debug.SetGCPercent(gogc) }
}

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

// growStack grows the calling goroutine's stack to 32 KiB in one copy, while
// the stack is shallow. A model's load (encoding/json's recursion) would grow it
// from 8 KiB to 32 KiB in two doublings deep in the decoder, each copy walking
// every frame through the binary's unwinding tables, pages a short command
// touches for the first time (BENCHMARKS.md, issue 46 round 7).
//
//go:noinline
func growStack() byte {
	var frame [24 << 10]byte // with the frames above it, over 16 KiB: the runtime doubles to 32
	return lastByte(frame[:])
}

//go:noinline
func lastByte(b []byte) byte { return b[len(b)-1] }
