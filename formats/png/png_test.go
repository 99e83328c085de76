package png

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"math/rand/v2"
	"runtime"
	"strings"
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
		b := Encode(pix, c.w, c.h, c.bits)
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

// The texels are data: the file says they are linear (cICP BT.709/linear/RGB/full
// range and gAMA 1.0) before its image data, with valid CRCs.
func TestWritePNGLinear(t *testing.T) {
	b := Encode(make([]byte, 4*4*2), 2, 2, 16)
	var chunks []string
	data := map[string][]byte{}
	for p := 8; p+12 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[p:]))
		typ := string(b[p+4 : p+8])
		if crc32.ChecksumIEEE(b[p+4:p+8+n]) != binary.BigEndian.Uint32(b[p+8+n:]) {
			t.Fatalf("%s: bad CRC", typ)
		}
		chunks, data[typ] = append(chunks, typ), b[p+8:p+8+n]
		p += 12 + n
	}
	if strings.Join(chunks, " ") != "IHDR cICP gAMA IDAT IEND" || !bytes.Equal(data["cICP"], []byte{1, 8, 0, 1}) || binary.BigEndian.Uint32(data["gAMA"]) != 100000 {
		t.Errorf("chunks %v, cICP %v, gAMA %v", chunks, data["cICP"], data["gAMA"])
	}
}
