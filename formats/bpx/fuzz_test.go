package bpx

import (
	"bytes"
	"io"
	"testing"
)

// FuzzOpen: any bytes give a container or an error, and reading every section
// and object of what opens ends in bytes or an error, never a panic or a hang.
func FuzzOpen(f *testing.F) {
	var buf Buffer
	if err := WritePackage(&buf, demoObjects, demoOptions()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	big, _ := Encode('X', [16]byte{}, []SectionBytes{{Type: 1, Data: bytes.Repeat([]byte("ab"), 40000), Compression: XZ, Check: CRC32}})
	f.Add(big)
	zl, _ := Encode('P', [16]byte{}, []SectionBytes{{Type: 1, Data: bytes.Repeat([]byte("ab"), 40000), Compression: Zlib, Check: WeakCheck}})
	f.Add(zl)
	tex, _ := EncodeTexture(&Texture{Width: 3, Height: 2, Format: RGB8, Pixels: make([]byte, 18)}, NoCompression)
	f.Add(tex)
	model, _ := EncodeModel(testModel(), NoCompression)
	f.Add(model)
	f.Fuzz(func(t *testing.T, b []byte) {
		fl, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for i := range fl.Sections {
			fl.ReadSection(i)
		}
		ReadTexture(fl)
		ReadModel(fl)
		p, err := ReadPackage(fl)
		if err != nil {
			return
		}
		for i := range p.Objects {
			if r, err := p.Open(i); err == nil {
				io.Copy(io.Discard, r)
			}
		}
	})
}
