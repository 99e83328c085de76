package rig

import (
	"fmt"
	"math"
	"unsafe"
)

// PutPalette writes the matrices global[bones[i]] into dst[16i:16i+16] as float32,
// row-major (PutFloat32 of each: the BPAT palette layout), and reports whether
// every float written is finite: a finite float64 too large for a float32 is
// written as an infinity and counts as not finite. It panics if dst holds fewer
// than 16·len(bones) floats or a bone is not an index of global. It is the
// per-frame packing of a bake; on amd64 with AVX it converts four floats at a
// time and checks them as they are written, the same bits as PutFloat32.
func PutPalette(dst []float32, global []Mat4, bones []int) (finite bool) {
	if len(dst) < 16*len(bones) {
		panic(fmt.Sprintf("rig: PutPalette of %d bones into %d floats", len(bones), len(dst)))
	}
	for _, b := range bones {
		if uint(b) >= uint(len(global)) {
			panic(fmt.Sprintf("rig: PutPalette: bone %d of %d matrices", b, len(global)))
		}
	}
	return putPalette(dst[:16*len(bones)], global, bones)
}

// putPaletteGo is PutPalette's work in Go, its arguments checked.
func putPaletteGo(dst []float32, global []Mat4, bones []int) bool {
	for i, b := range bones {
		global[b].PutFloat32(dst[i*16 : i*16+16])
	}
	return !anyNonFinite(dst)
}

// anyNonFinite reports whether p holds a NaN or an infinity, without converting a
// float and without a branch per float: a float32 is not finite exactly when its
// eight exponent bits are all ones, and adding one exponent unit to the masked
// exponent carries into the sign bit exactly then. Two floats are tested per
// 64-bit word (a lane's sum never carries into the next: at most 0x80000000).
func anyNonFinite(p []float32) bool {
	const (
		exp  = 0x7f800000_7f800000
		unit = 0x00800000_00800000
		sign = 0x80000000_80000000
	)
	var acc uint64
	if len(p) >= 2 && uintptr(unsafe.Pointer(&p[0]))%8 == 0 {
		w := unsafe.Slice((*uint64)(unsafe.Pointer(&p[0])), len(p)/2)
		for len(w) >= 8 { // a bone's 16 floats a step
			b := (*[8]uint64)(w)
			acc |= (b[0]&exp + unit) | (b[1]&exp + unit) | (b[2]&exp + unit) | (b[3]&exp + unit) |
				(b[4]&exp + unit) | (b[5]&exp + unit) | (b[6]&exp + unit) | (b[7]&exp + unit)
			w = w[8:]
		}
		for _, x := range w {
			acc |= x&exp + unit
		}
		p = p[len(p)&^1:] // the odd float left, if any
	}
	for _, v := range p {
		acc |= uint64(math.Float32bits(v)&0x7f800000 + 0x00800000)
	}
	return acc&sign != 0
}
