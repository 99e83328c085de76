// Package png writes the RGBA PNG files of bone animation textures
// (docs/formats/bat.md §4) fast: rows Up-filtered and deflated in bands on every
// core as one zlib stream, and marked as linear data (cICP and gAMA), not sRGB
// colours. Any PNG reader (image/png included) decodes them.
package png

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"runtime"
	"sync"
)

// Encode encodes rows of RGBA samples of bits 8 or 16 (16-bit samples
// big-endian, as PNG stores them) as a PNG file.
//
// image/png tries every filter on every row and deflates on one core, about
// 37 MB/s here. An animation texture changes little from one frame row to the
// next, so every row takes the Up filter, and bands of rows are deflated on all
// cores at once and joined into one zlib stream: each band but the last ends on
// a sync flush, which leaves the bit stream byte-aligned for the next band's
// first block. Files are about a third larger than image/png's and any PNG
// reader decodes them.
func Encode(pix []byte, width, height, bits int) []byte {
	stride := width * 4 * bits / 8
	filtered := make([]byte, height*(1+stride))
	var prev []byte
	for y := range height {
		row, out := pix[y*stride:(y+1)*stride], filtered[y*(1+stride):(y+1)*(1+stride)]
		out[0] = 2 // Up
		if prev == nil {
			copy(out[1:], row)
		} else {
			for i, v := range row {
				out[1+i] = v - prev[i]
			}
		}
		prev = row
	}

	// Bands of whole rows of at least 256 KiB, one per core at most.
	rowBytes := 1 + stride
	bands := min(runtime.GOMAXPROCS(0), max(1, len(filtered)/(256<<10)))
	rowsPerBand := (height + bands - 1) / max(bands, 1)
	parts := make([][]byte, 0, bands)
	for y := 0; y < height; y += rowsPerBand {
		parts = append(parts, filtered[y*rowBytes:min(y+rowsPerBand, height)*rowBytes])
	}
	deflated := make([]bytes.Buffer, len(parts))
	var wg sync.WaitGroup
	for i, part := range parts {
		wg.Go(func() {
			z, _ := flate.NewWriter(&deflated[i], flate.BestSpeed) // the level is valid: no error
			z.Write(part)                                          // a bytes.Buffer does not fail
			if i == len(parts)-1 {
				z.Close()
			} else {
				z.Flush()
			}
		})
	}
	wg.Wait()

	idat := []byte{0x78, 0x01} // zlib: deflate, 32 KiB window, fastest level
	for i := range deflated {
		idat = append(idat, deflated[i].Bytes()...)
	}
	idat = binary.BigEndian.AppendUint32(idat, adler32.Checksum(filtered))

	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(width)), uint32(height))
	ihdr = append(ihdr, byte(bits), 6, 0, 0, 0) // RGBA, deflate, adaptive filtering, no interlace
	out := []byte("\x89PNG\r\n\x1a\n")
	out = appendChunk(out, "IHDR", ihdr)
	// The texels are data, not colours: say they are linear so that image tools
	// and engines do not decode them as sRGB. cICP (PNG 3rd edition): BT.709
	// primaries, linear transfer, RGB, full range; gAMA 1.0 for older readers.
	out = appendChunk(out, "cICP", []byte{1, 8, 0, 1})
	out = appendChunk(out, "gAMA", binary.BigEndian.AppendUint32(nil, 100000))
	out = appendChunk(out, "IDAT", idat)
	return appendChunk(out, "IEND", nil)
}

// appendChunk appends a PNG chunk: length, type, data, CRC of type and data.
func appendChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(append(b, typ...), data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}
