//go:build amd64 && !amd64.v3 && !purego

package anim

import "golang.org/x/sys/cpu"

// useAVX says whether Sample blends prepared rotations four at a time in
// assembly (slerp4): on amd64 with AVX (the CPU has it and the OS saves the
// wide registers).
var useAVX = cpu.X86.HasAVX

// slerp4 is slerpSpan.slerp of the batch's four rotations in assembly
// (slerp_amd64.s): the same float64 operations in the same order, each
// rounded alone, so the same bits, one rotation a lane.
//
//go:noescape
func slerp4(b *slerpBatch)
