package bat

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	pngdata "github.com/bonebake/bonebake/formats/png"
)

// Texture is an image of float channels before encoding (stored values c of §4:
// unorm textures hold c in [0, 1]). Row 0 is the top row.
type Texture struct {
	Width, Height, Channels int
	Data                    []float32 // Width·Height·Channels, row after row
}

func newTexture(w, h, channels int) *Texture {
	return &Texture{Width: w, Height: h, Channels: channels, Data: make([]float32, w*h*channels)}
}

// grid places the entries (row r, column b) of a rows × cols table in a texture
// (§2, §8): texel (b, r), or when the table does not fit 4,096 × 4,096, entry
// i = r·cols + b at texel (i mod 4096, ⌊i/4096⌋). With invertV the image rows are
// stored bottom up.
type grid struct {
	rows, cols int
	w, h       int
	stacked    bool
	invertV    bool
}

func newGrid(rows, cols int, invertV bool) (grid, error) {
	g := grid{rows: rows, cols: cols, w: cols, h: rows, invertV: invertV}
	if rows > maxSide || cols > maxSide {
		g.stacked = true
		g.w = maxSide
		g.h = (rows*cols + maxSide - 1) / maxSide
		if g.h > maxSide {
			return g, fmt.Errorf("%d rows of %d bones need %d × %d texels: more than %d × %d (lower the fps or bake fewer clips)",
				rows, cols, g.w, g.h, maxSide, maxSide)
		}
	}
	return g, nil
}

// texel returns the index of entry (r, b)'s texel in the image, row-major.
func (g grid) texel(r, b int) int {
	x, y := b, r
	if g.stacked {
		i := r*g.cols + b
		x, y = i%maxSide, i/maxSide
	}
	if g.invertV {
		y = g.h - 1 - y
	}
	return y*g.w + x
}

// unormMax is the largest code of an encoding: 255, 65535, or 0 for floats.
func unormMax(encoding string) int {
	switch encoding {
	case Unorm8:
		return 255
	case Unorm16:
		return 65535
	}
	return 0
}

// quantize returns the unorm code of c in [0, 1].
func quantize(c float32, max int) int {
	if !(c > 0) {
		return 0
	}
	if c >= 1 {
		return max
	}
	return int(math.Floor(float64(c)*float64(max) + 0.5))
}

// encodePNG writes t's channels as unorm codes in an RGBA PNG of 8 or 16 bits
// per channel; a three-channel texture gets an opaque alpha.
func encodePNG(t *Texture, bits int) ([]byte, error) {
	top := 1<<bits - 1
	size := bits / 8
	pix := make([]byte, t.Width*t.Height*4*size)
	for i := range t.Width * t.Height {
		for c := range 4 {
			code := top
			if c < t.Channels {
				code = quantize(t.Data[i*t.Channels+c], top)
			}
			p := pix[(i*4+c)*size:]
			if size == 2 {
				p[0], p[1] = byte(code>>8), byte(code)
			} else {
				p[0] = byte(code)
			}
		}
	}
	return pngdata.Encode(pix, t.Width, t.Height, bits), nil
}

// decodePNG reads a PNG into a texture of channels unorm values c = code / max,
// max being 255 or 65535 by the file's bit depth, which must be bits.
func decodePNG(name string, b []byte, channels, bits int) (*Texture, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if cfg.Width > maxSide || cfg.Height > maxSide {
		return nil, fmt.Errorf("%s: %d × %d texels: more than %d × %d", name, cfg.Width, cfg.Height, maxSide, maxSide)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r := img.Bounds()
	t := newTexture(r.Dx(), r.Dy(), channels)
	scale := float32(1) / 65535
	switch m := img.(type) {
	case *image.NRGBA64:
		if bits != 16 {
			return nil, fmt.Errorf("%s: a 16-bit PNG, but the report says %d bits", name, bits)
		}
		for i := range t.Width * t.Height {
			for c := range channels {
				t.Data[i*channels+c] = float32(uint16(m.Pix[i*8+2*c])<<8|uint16(m.Pix[i*8+2*c+1])) * scale
			}
		}
	case *image.NRGBA:
		if bits != 8 {
			return nil, fmt.Errorf("%s: an 8-bit PNG, but the report says %d bits", name, bits)
		}
		for i := range t.Width * t.Height {
			for c := range channels {
				t.Data[i*channels+c] = float32(m.Pix[i*4+c]) / 255
			}
		}
	default: // an opaque file the encoder stored without alpha
		max := float32(65535)
		if bits == 8 {
			max = 255
		}
		for y := range t.Height {
			for x := range t.Width {
				c := color.NRGBA64Model.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.NRGBA64)
				v := [4]uint16{c.R, c.G, c.B, c.A}
				for k := range channels {
					code := float32(v[k])
					if bits == 8 {
						code = float32(v[k] >> 8)
					}
					t.Data[(y*t.Width+x)*channels+k] = code / max
				}
			}
		}
	}
	return t, nil
}
