//go:build !amd64

package bpat

// lerpVector blends eight floats at a time with the bounds checks hoisted.
func lerpVector(dst, a, b []float32, t float32) int {
	n := len(a) &^ 7
	for i := 0; i < n; i += 8 {
		d, x, y := dst[i:i+8:i+8], a[i:i+8:i+8], b[i:i+8:i+8]
		for k := range 8 {
			d[k] = x[k] + float32((y[k]-x[k])*t) // the conversion forbids a fused multiply-add
		}
	}
	return n
}
