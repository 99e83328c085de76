//go:build amd64 && !amd64.v3

package rig

// goRoundsEachOp: amd64 below v3 has no fused multiply-add, so the Go pass
// rounds every operation alone, as the reference does.
const goRoundsEachOp = true
