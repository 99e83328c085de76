package bat

import (
	"bytes"
	"image"
	"image/png"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestWritePNGDecodes checks writePNG's files with image/png's decoder, in sizes
// that give one band and several (rows not dividing evenly), 8 and 16 bits.
func TestWritePNGDecodes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ w, h, bits int }{{1, 1, 8}, {1, 1, 16}, {3, 5, 8}, {257, 301, 16}, {640, 487, 8}, {1000, 97, 16}} {
		size := c.bits / 8
		pix := make([]byte, c.w*c.h*4*size)
		for i := range pix { // smooth rows with noise, like animation data
			pix[i] = byte(i%(c.w*4*size)) + byte(rng.IntN(4))
		}
		b := writePNG(pix, c.w, c.h, c.bits)
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%dx%d %d-bit: %v", c.w, c.h, c.bits, err)
		}
		var got []byte
		switch m := img.(type) {
		case *image.NRGBA:
			got = m.Pix
		case *image.NRGBA64:
			got = m.Pix
		default:
			t.Fatalf("%dx%d %d-bit: decoded as %T", c.w, c.h, c.bits, img)
		}
		if !bytes.Equal(got, pix) || img.Bounds().Dx() != c.w || img.Bounds().Dy() != c.h {
			t.Errorf("%dx%d %d-bit: decoded pixels differ", c.w, c.h, c.bits)
		}
	}
}
