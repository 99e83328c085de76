//go:build !amd64 || purego

package main

import "unsafe"

// useWordKernel is false: wordArgs.tests is its Go loops alone.
var useWordKernel = false

// The kernel is never called: it leaves every unit to the Go loops.
func wordAVX2(a *wordArgs, one, pair uint64) uint64 { return one | pair }

func prefetch(p, q unsafe.Pointer) {}
