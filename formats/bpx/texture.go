package bpx

import (
	"fmt"
	"math/bits"

	"github.com/bonebake/bonebake/formats"
)

// SectionPixels is a texture's PixelArray section type (docs/formats/bpx.md §10).
const SectionPixels = 1

// PixelFormat is a texture's pixel format (§10).
type PixelFormat uint8

// The pixel formats.
const (
	RGB8    PixelFormat = 1
	RGBA8   PixelFormat = 2
	Grey8   PixelFormat = 3
	Float32 PixelFormat = 4 // one little-endian float32 channel
)

// BytesPerPixel is the size of one pixel, 0 for an unknown format.
func (p PixelFormat) BytesPerPixel() int {
	return [...]int{0, 3, 4, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}[p&15]
}

// Texture flags (the high nibble of TypeExt byte 3).
const (
	TextureArray      = 1
	TextureCompressed = 2
	TextureCubeMap    = 4
)

// Texture is one image of a type 'T' container at its true size. Pixels are row
// by row, top row first, tightly packed.
type Texture struct {
	Width, Height int
	Format        PixelFormat
	MipMaps       uint8
	What          string // what it holds, e.g. "bpat palette"
	Pixels        []byte
}

// padK is the TypeExt size code of the power of two that holds n: 2^(k+1) ≥ n.
func padK(n int) (int, error) {
	if n < 1 || n > 1<<16 {
		return 0, fmt.Errorf("bpx texture: a side of %d px; sides are 1 to 65536", n)
	}
	k := bits.Len(uint(n-1)) - 1 // 2^(k+1) ≥ n
	return max(k, 0), nil
}

// EncodeTexture returns t as the bytes of a type 'T' container: the pixels padded with zeros
// right and below to powers of two, and a BPXSD section with the true width,
// height and what.
func EncodeTexture(t *Texture, comp Compression) ([]byte, error) {
	bpp := t.Format.BytesPerPixel()
	if bpp == 0 {
		return nil, fmt.Errorf("bpx texture: unknown pixel format %d", t.Format)
	}
	if len(t.Pixels) != t.Width*t.Height*bpp {
		return nil, fmt.Errorf("bpx texture: %d bytes of pixels for %d×%d at %d bytes each", len(t.Pixels), t.Width, t.Height, bpp)
	}
	kw, err := padK(t.Width)
	if err != nil {
		return nil, err
	}
	kh, err := padK(t.Height)
	if err != nil {
		return nil, err
	}
	pw, ph := 2<<kw, 2<<kh
	if uint64(pw)*uint64(ph)*uint64(bpp) > 1<<32-1 {
		return nil, fmt.Errorf("bpx texture: %d×%d padded to %d×%d does not fit a section", t.Width, t.Height, pw, ph)
	}
	px := make([]byte, pw*ph*bpp)
	for y := range t.Height {
		copy(px[y*pw*bpp:], t.Pixels[y*t.Width*bpp:(y+1)*t.Width*bpp])
	}
	var ext [16]byte
	ext[2] = byte(kw) | byte(kh)<<4
	ext[3] = byte(t.Format)
	ext[4] = t.MipMaps
	meta, err := EncodeBPXSD((&Object{}).Set("width", U32Value(uint32(t.Width))).Set("height", U32Value(uint32(t.Height))).Set("what", StringValue(t.What)), true)
	if err != nil {
		return nil, err
	}
	return Encode(TypeTexture, ext, []SectionBytes{
		{Type: SectionPixels, Data: px, Compression: comp, Check: CRC32},
		{Type: SectionBPXSD, Data: meta, Check: WeakCheck},
	})
}

// ReadTexture reads the first image of the texture container f at its true
// size (the BPXSD width and height when present, else the padded size).
func ReadTexture(f *File) (*Texture, error) {
	if f.Header.Type != TypeTexture {
		return nil, &formats.FormatError{File: f.Name, Rule: RuleType, Offset: 3, Index: -1, Detail: fmt.Sprintf("container type %q is not a texture ('T')", f.Header.Type)}
	}
	ext := f.Header.TypeExt
	t := &Texture{Format: PixelFormat(ext[3] & 15), MipMaps: ext[4]}
	bpp := t.Format.BytesPerPixel()
	if bpp == 0 {
		return nil, &formats.FormatError{File: f.Name, Rule: RuleType, Offset: 27, Index: -1, Detail: fmt.Sprintf("unknown pixel format %d", t.Format)}
	}
	pw, ph := 2<<(ext[2]&15), 2<<(ext[2]>>4)
	images := max(1, int(le.Uint16(ext[:])))
	if ext[3]>>4&TextureCubeMap != 0 {
		images = 6
	}
	t.Width, t.Height = pw, ph
	pixels := -1
	for i, s := range f.Sections {
		switch s.Type {
		case SectionPixels:
			if pixels < 0 {
				pixels = i
			}
		case SectionBPXSD:
			b, err := f.ReadSectionMax(i, MaxTableBytes, "texture metadata; "+liftTable)
			if err != nil {
				return nil, err
			}
			o, err := DecodeBPXSD(b)
			if err != nil {
				return nil, f.sdFail(i, "texture metadata", err)
			}
			if w, ok := o.Get("width"); ok && w.Uint >= 1 && w.Uint <= uint64(pw) {
				t.Width = int(w.Uint)
			}
			if h, ok := o.Get("height"); ok && h.Uint >= 1 && h.Uint <= uint64(ph) {
				t.Height = int(h.Uint)
			}
			if w, ok := o.Get("what"); ok {
				t.What = w.Str
			}
		}
	}
	if pixels < 0 {
		return nil, &formats.FormatError{File: f.Name, Rule: RuleCount, Offset: 16, Index: -1, Detail: "no PixelArray section"}
	}
	want := uint64(pw) * uint64(ph) * uint64(bpp) * uint64(images)
	if uint64(f.Sections[pixels].Size) != want {
		return nil, f.fail(pixels, RuleSize, uint64(HeaderSize+SectionEntrySize*pixels+12), "PixelArray is %d bytes; %d images of %d×%d at %d bytes are %d", f.Sections[pixels].Size, images, pw, ph, bpp, want)
	}
	px, err := f.ReadSection(pixels)
	if err != nil {
		return nil, err
	}
	t.Pixels = make([]byte, 0, t.Width*t.Height*bpp)
	for y := range t.Height {
		t.Pixels = append(t.Pixels, px[y*pw*bpp:(y*pw+t.Width)*bpp]...)
	}
	return t, nil
}
