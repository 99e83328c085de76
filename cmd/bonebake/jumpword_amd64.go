//go:build amd64 && !purego

package main

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useWordKernel says whether wordArgs.tests runs the AVX2 kernel.
var useWordKernel = cpu.X86.HasAVX2

// wordAVX2 is wordArgs.tests eight units at a time (jumpword_amd64.s).
//
//go:noescape
func wordAVX2(a *wordArgs, one, pair uint64) uint64

// prefetch asks for the cache lines at p and q, without waiting for them.
//
//go:noescape
func prefetch(p, q unsafe.Pointer)
