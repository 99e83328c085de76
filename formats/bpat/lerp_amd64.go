package bpat

// lerpVector blends the first len(a)&^7 elements with SSE and returns how many it did.
func lerpVector(dst, a, b []float32, t float32) int {
	n := len(a) &^ 7
	if n > 0 {
		lerp8(&dst[0], &a[0], &b[0], n, t)
	}
	return n
}

// lerp8 writes a[i] + (b[i]−a[i])·t into dst[i] for i < n, n a multiple of 8.
//
//go:noescape
func lerp8(dst, a, b *float32, n int, t float32)
