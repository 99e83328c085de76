//go:build amd64 && !amd64.v3 && !purego

package rig

// useAVX says whether ModelSpace and PutPalette run their assembly: on amd64
// with AVX (the CPU has it and the OS saves the wide registers).
var useAVX = hasAVX()

// hasAVX asks the CPU (CPUID, XGETBV) whether AVX can be used.
func hasAVX() bool

// modelSpaceAVX is modelSpaceGo in assembly (asm_amd64.s): the same float64
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

// putPaletteAVX is putPaletteGo in assembly: VCVTPD2PS rounds as the Go
// conversion does (to nearest), and the floats written are checked four at a
// time. It reports a float that is not finite. bones (n of them) index global;
// dst holds 16·n floats.
//
//go:noescape
func putPaletteAVX(dst *float32, global *Mat4, bones *int, n int) (nonFinite bool)

// putPalette is PutPalette's work, its arguments checked.
func putPalette(dst []float32, global []Mat4, bones []int) bool {
	if useAVX && len(bones) > 0 {
		return !putPaletteAVX(&dst[0], &global[0], &bones[0], len(bones))
	}
	return putPaletteGo(dst, global, bones)
}
