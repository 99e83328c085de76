//go:build !amd64 || purego

package main

import (
	"unsafe"

	"github.com/bonebake/bonebake/crowd/unit"
)

// useWordKernel is false: oneWord is its Go loop alone.
var useWordKernel = false

// The kernels are never called: each leaves every unit to the Go loop.

func oneWordAVX2(key *[64]uint32, species *[64]unit.SpeciesID, clip *[64]unit.ClipID, now, phase, allowed *[64]float32, mask uint64) uint64 {
	return mask
}

func pairWordAVX2(a *pairWordArgs, mask uint64) uint64 { return mask }

func prefetch(p *[6]unsafe.Pointer) {}
