//go:build amd64 && !purego

package main

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/bonebake/bonebake/crowd/unit"
)

// useWordKernel says whether oneWord runs the AVX2 kernel; tests turn it off
// to hold it to the Go loop.
var useWordKernel = cpu.X86.HasAVX2

// oneWordAVX2 is oneWordGo eight units at a time (jumpword_amd64.s).
//
//go:noescape
func oneWordAVX2(key *[64]uint32, species *[64]unit.SpeciesID, clip *[64]unit.ClipID, now, phase, allowed *[64]float32, mask uint64) uint64

// pairWordAVX2 is pairWordGo eight units at a time (jumpword_amd64.s).
//
//go:noescape
func pairWordAVX2(a *pairWordArgs, mask uint64) uint64

// prefetch asks for the cache lines at p's six addresses, without waiting
// for them.
//
//go:noescape
func prefetch(p *[6]unsafe.Pointer)
