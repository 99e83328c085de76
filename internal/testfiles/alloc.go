package testfiles

import "runtime"

// Allocated returns the bytes f allocates (after a collection, so that earlier
// garbage does not count): what tests of memory limits measure.
func Allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}
