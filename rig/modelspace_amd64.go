//go:build amd64 && !amd64.v3 && !purego

package rig

import "golang.org/x/sys/cpu"

// useAVX says whether ModelSpace runs modelSpaceAVX: on amd64 with AVX.
var useAVX = cpu.X86.HasAVX

// modelSpaceAVX is modelSpaceGo in assembly (modelspace_amd64.s): the same float64
// operations in the same order, each rounded alone, so the same bits, with each
// row of a child's matrix computed four lanes at a time. parents, local and out
// point at n elements each.
//
//go:noescape
func modelSpaceAVX(parents *int, local *Transform, out *Mat4, n int) (bad int)

// modelSpace is ModelSpace's pass over equal-length slices; see modelSpaceGo.
func modelSpace(parents []int, local []Transform, out []Mat4) int {
	if useAVX && len(parents) > 0 {
		return modelSpaceAVX(&parents[0], &local[0], &out[0], len(parents))
	}
	return modelSpaceGo(parents, local, out)
}
