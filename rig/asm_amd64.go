//go:build amd64 && !amd64.v3 && !purego

package rig

// useAVX says whether ModelSpace and PutPalette run their assembly: on amd64
// with AVX (the CPU has it and the OS saves the wide registers).
var useAVX = hasAVX()

// hasAVX asks the CPU (CPUID, XGETBV) whether AVX can be used.
func hasAVX() bool

// localsAVX is localMatrix of n bones (a multiple of 4) in assembly
// (asm_amd64.s), four at a time, one bone a lane: the same float64 operations
// in the same order, each rounded alone, so the same bits.
//
//go:noescape
func localsAVX(local *Transform, out *Mat4, n int)

// childrenAVX turns out[i], a bone's local matrix, into parent·local for every
// bone of the n with a parent (an earlier bone), in order: childMatrix's
// product with the same operations, each row four lanes at a time.
//
//go:noescape
func childrenAVX(parents *int, out *Mat4, n int)

// modelSpace is ModelSpace's pass over equal-length slices; see modelSpaceGo.
// With AVX it runs in two passes: every bone's local matrix (independent of
// the others, so four at a time), then each child's product with its parent,
// in order. Bones from the first bad parent on are left alone, as the one
// pass leaves them.
func modelSpace(parents []int, local []Transform, out []Mat4) int {
	if !useAVX || len(parents) == 0 {
		return modelSpaceGo(parents, local, out)
	}
	n, bad := len(parents), -1
	for i, p := range parents {
		if p >= i {
			n, bad = i, i
			break
		}
	}
	four := n &^ 3
	if four > 0 {
		localsAVX(&local[0], &out[0], four)
	}
	for i := four; i < n; i++ {
		localMatrix(&out[i], &local[i])
	}
	if n > 0 {
		childrenAVX(&parents[0], &out[0], n)
	}
	return bad
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
