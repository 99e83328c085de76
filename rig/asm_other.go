//go:build !amd64 || amd64.v3 || purego

package rig

// useAVX is false: the assembly is built on amd64 below v3 only (and not with
// the purego tag). Where the compiler fuses multiply-adds (GOAMD64=v3 and up,
// arm64) the Go pass gives other bits than the assembly would, and ModelSpaceOf
// and the IK, which run Go, must agree with ModelSpace bit for bit.
const useAVX = false

// modelSpace is ModelSpace's pass over equal-length slices; see modelSpaceGo.
func modelSpace(parents []int, local []Transform, out []Mat4) int {
	return modelSpaceGo(parents, local, out)
}

// putPalette is PutPalette's work, its arguments checked.
func putPalette(dst []float32, global []Mat4, bones []int) bool {
	return putPaletteGo(dst, global, bones)
}
