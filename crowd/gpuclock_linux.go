package crowd

import (
	"syscall"
	"unsafe"
)

// hugePages asks Linux to back the whole 2 MiB pages within the n bytes at p
// with huge pages (madvise MADV_HUGEPAGE; it does where transparent huge pages
// are enabled "always" or "madvise"). A GPUClock's records and inputs are read
// at random, one line per change: with 4 KiB pages nearly every change also
// misses the TLB (a million records span 64 MiB), with 2 MiB pages few do. It
// is advice: a kernel that declines it changes nothing but the speed.
func hugePages(p unsafe.Pointer, n uintptr) {
	const page = 2 << 20
	lo := (uintptr(p) + page - 1) &^ (page - 1)
	hi := (uintptr(p) + n) &^ (page - 1)
	if hi > lo {
		_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, lo-uintptr(p))), hi-lo), syscall.MADV_HUGEPAGE)
	}
}
