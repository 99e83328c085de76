//go:build !linux

package crowd

import "unsafe"

// hugePages does nothing off Linux (see gpuclock_linux.go).
func hugePages(p unsafe.Pointer, n uintptr) {}
