// Package exr reads and writes the small subset of OpenEXR 2 that bone animation
// textures need (docs/formats/bat.md §4): single-part scanline images of HALF or
// FLOAT channels, uncompressed or ZIP (16 lines per chunk), increasing y. Encode
// writes it; Decode reads back exactly that subset and refuses anything else with
// the file, the offset and the rule. Files are checked with OpenImageIO's
// oiiotool in the tests.
package exr

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/x448/float16"
)

// Image is an image of float channels, row 0 at the top.
type Image struct {
	Width, Height, Channels int
	Data                    []float32 // Width·Height·Channels, row after row
}

// MaxSide is the largest width or height Decode accepts.
const MaxSide = 4096

const exrMagic = 20000630

// EXR pixel types.
const (
	exrHalf  = 1
	exrFloat = 2
)

// EXR compression methods.
const (
	exrNone = 0
	exrZIP  = 3 // zlib over 16 scanlines, after a byte split and a delta predictor
)

// exrChannels returns, for a texture of n channels (3: RGB, 4: RGBA), the EXR
// channel names in file order and the texture channel each one holds.
func exrChannels(n int) (names []string, src []int) {
	if n == 3 {
		return []string{"B", "G", "R"}, []int{2, 1, 0}
	}
	return []string{"A", "B", "G", "R"}, []int{3, 2, 1, 0}
}

// Encode writes t (float data) as an EXR file with half (16-bit) or float
// (32-bit) channels.
func Encode(t *Image, half, zip bool) []byte {
	names, src := exrChannels(t.Channels)
	size := 4
	pixType := int32(exrFloat)
	if half {
		size, pixType = 2, exrHalf
	}
	var h bytes.Buffer
	le := binary.LittleEndian
	h.Write(le.AppendUint32(nil, exrMagic))
	h.Write(le.AppendUint32(nil, 2)) // version 2, single-part scanline
	attr := func(name, typ string, value []byte) {
		h.WriteString(name + "\x00" + typ + "\x00")
		h.Write(le.AppendUint32(nil, uint32(len(value))))
		h.Write(value)
	}
	var ch []byte
	for _, n := range names {
		ch = append(ch, n...)
		ch = append(ch, 0)
		ch = le.AppendUint32(ch, uint32(pixType))
		ch = append(ch, 0, 0, 0, 0) // pLinear, reserved
		ch = le.AppendUint32(ch, 1)
		ch = le.AppendUint32(ch, 1)
	}
	ch = append(ch, 0)
	attr("channels", "chlist", ch)
	comp := byte(exrNone)
	lines := 1
	if zip {
		comp, lines = exrZIP, 16
	}
	attr("compression", "compression", []byte{comp})
	box := le.AppendUint32(nil, 0)
	box = le.AppendUint32(box, 0)
	box = le.AppendUint32(box, uint32(t.Width-1))
	box = le.AppendUint32(box, uint32(t.Height-1))
	attr("dataWindow", "box2i", box)
	attr("displayWindow", "box2i", box)
	attr("lineOrder", "lineOrder", []byte{0})
	attr("pixelAspectRatio", "float", le.AppendUint32(nil, math.Float32bits(1)))
	attr("screenWindowCenter", "v2f", make([]byte, 8))
	attr("screenWindowWidth", "float", le.AppendUint32(nil, math.Float32bits(1)))
	h.WriteByte(0)

	chunks := (t.Height + lines - 1) / lines
	lineBytes := t.Width * t.Channels * size
	out := make([]byte, h.Len()+8*chunks, h.Len()+8*chunks+chunks*8+t.Height*lineBytes)
	copy(out, h.Bytes())
	table := out[h.Len():]
	raw := make([]byte, lines*lineBytes)
	var zbuf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&zbuf, zlib.BestSpeed)
	var scratch []byte
	for c := range chunks {
		y0 := c * lines
		n := min(lines, t.Height-y0)
		data := raw[:n*lineBytes]
		i := 0
		for y := y0; y < y0+n; y++ {
			row := t.Data[y*t.Width*t.Channels : (y+1)*t.Width*t.Channels]
			for _, s := range src {
				for x := range t.Width {
					v := row[x*t.Channels+s]
					if half {
						le.PutUint16(data[i:], float16.Fromfloat32(v).Bits())
					} else {
						le.PutUint32(data[i:], math.Float32bits(v))
					}
					i += size
				}
			}
		}
		if zip {
			scratch = zipPack(scratch, data)
			zbuf.Reset()
			zw.Reset(&zbuf)
			zw.Write(scratch)
			zw.Close()
			if zbuf.Len() < len(data) { // otherwise the chunk is stored as is
				data = zbuf.Bytes()
			}
		}
		le.PutUint64(table[8*c:], uint64(len(out)))
		out = le.AppendUint32(out, uint32(y0))
		out = le.AppendUint32(out, uint32(len(data)))
		out = append(out, data...)
	}
	return out
}

// zipPack reorders raw for ZIP compression as OpenEXR does: even bytes then odd
// bytes, then each byte replaced by its difference from the one before (+128).
func zipPack(dst, raw []byte) []byte {
	dst = append(dst[:0], make([]byte, len(raw))...)
	half := (len(raw) + 1) / 2
	for i, b := range raw {
		if i%2 == 0 {
			dst[i/2] = b
		} else {
			dst[half+i/2] = b
		}
	}
	p := dst[0]
	for i := 1; i < len(dst); i++ {
		d := dst[i] - p + 128
		p = dst[i]
		dst[i] = d
	}
	return dst
}

// zipUnpack undoes zipPack.
func zipUnpack(t []byte) []byte {
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] + t[i] - 128
	}
	out := make([]byte, len(t))
	half := (len(t) + 1) / 2
	for i := range out {
		if i%2 == 0 {
			out[i] = t[i/2]
		} else {
			out[i] = t[half+i/2]
		}
	}
	return out
}

// exrError is a file that is not the EXR subset encodeEXR writes.
func exrError(name string, off int, format string, args ...any) error {
	return fmt.Errorf("%s: offset %d: %s", name, off, fmt.Sprintf(format, args...))
}

// Decode reads an EXR file of the subset Encode writes into an image of
// channels floats per texel. name is used in errors.
func Decode(name string, b []byte, channels int) (*Image, error) {
	le := binary.LittleEndian
	if len(b) < 8 || le.Uint32(b) != exrMagic {
		return nil, exrError(name, 0, "not an OpenEXR file (magic)")
	}
	if v := le.Uint32(b[4:]); v != 2 {
		return nil, exrError(name, 4, "version/flags %#x: only single-part scanline files (2) are read", v)
	}
	off := 8
	cstr := func() (string, error) {
		i := bytes.IndexByte(b[off:], 0)
		if i < 0 {
			return "", exrError(name, off, "unterminated string in the header")
		}
		s := string(b[off : off+i])
		off += i + 1
		return s, nil
	}
	var (
		pixType  = -1
		names    []string
		comp     = -1
		w, h     int
		haveData bool
	)
	for {
		attrName, err := cstr()
		if err != nil {
			return nil, err
		}
		if attrName == "" {
			break
		}
		if _, err := cstr(); err != nil {
			return nil, err
		}
		if off+4 > len(b) {
			return nil, exrError(name, off, "header truncated")
		}
		n := int(le.Uint32(b[off:]))
		off += 4
		if n < 0 || off+n > len(b) {
			return nil, exrError(name, off, "attribute %s of %d bytes runs past the end", attrName, n)
		}
		v := b[off : off+n]
		switch attrName {
		case "channels":
			for len(v) > 1 {
				i := bytes.IndexByte(v, 0)
				if i < 0 || len(v) < i+17 {
					return nil, exrError(name, off, "bad channel list")
				}
				names = append(names, string(v[:i]))
				pt := int(le.Uint32(v[i+1:]))
				if pixType >= 0 && pt != pixType {
					return nil, exrError(name, off, "channels of mixed pixel types")
				}
				pixType = pt
				v = v[i+17:]
			}
		case "compression":
			if n != 1 {
				return nil, exrError(name, off, "compression attribute of %d bytes", n)
			}
			comp = int(v[0])
		case "dataWindow":
			if n != 16 {
				return nil, exrError(name, off, "dataWindow of %d bytes", n)
			}
			x0, y0 := int32(le.Uint32(v)), int32(le.Uint32(v[4:]))
			x1, y1 := int32(le.Uint32(v[8:])), int32(le.Uint32(v[12:]))
			if x0 != 0 || y0 != 0 || x1 < 0 || y1 < 0 || x1 >= MaxSide || y1 >= MaxSide {
				return nil, exrError(name, off, "data window (%d,%d)-(%d,%d): want (0,0) to at most %d", x0, y0, x1, y1, MaxSide-1)
			}
			w, h, haveData = int(x1)+1, int(y1)+1, true
		}
		off += n
	}
	want, src := exrChannels(channels)
	if fmt.Sprint(names) != fmt.Sprint(want) {
		return nil, exrError(name, 8, "channels %v, want %v", names, want)
	}
	if !haveData || (pixType != exrHalf && pixType != exrFloat) || (comp != exrNone && comp != exrZIP) {
		return nil, exrError(name, 8, "header lacks a data window, or has pixel type %d or compression %d (read: half or float, none or ZIP)", pixType, comp)
	}
	size := 4
	if pixType == exrHalf {
		size = 2
	}
	lines := 1
	if comp == exrZIP {
		lines = 16
	}
	chunks := (h + lines - 1) / lines
	if off+8*chunks > len(b) {
		return nil, exrError(name, off, "offset table runs past the end")
	}
	t := &Image{Width: w, Height: h, Channels: channels, Data: make([]float32, w*h*channels)}
	lineBytes := w * channels * size
	for c := range chunks {
		at := int(le.Uint64(b[off+8*c:]))
		if at < 0 || at+8 > len(b) {
			return nil, exrError(name, off+8*c, "chunk %d at offset %d is outside the file", c, at)
		}
		y0 := int(int32(le.Uint32(b[at:])))
		n := int(le.Uint32(b[at+4:]))
		if y0 != c*lines || n < 0 || at+8+n > len(b) {
			return nil, exrError(name, at, "chunk %d: first line %d, %d bytes", c, y0, n)
		}
		rows := min(lines, h-y0)
		data := b[at+8 : at+8+n]
		if n < rows*lineBytes {
			if comp != exrZIP {
				return nil, exrError(name, at, "chunk %d: %d bytes for %d uncompressed", c, n, rows*lineBytes)
			}
			zr, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, exrError(name, at+8, "chunk %d: %v", c, err)
			}
			packed, err := io.ReadAll(io.LimitReader(zr, int64(rows*lineBytes)+1))
			if err != nil || len(packed) != rows*lineBytes {
				return nil, exrError(name, at+8, "chunk %d: inflates to %d bytes, want %d (%v)", c, len(packed), rows*lineBytes, err)
			}
			data = zipUnpack(packed)
		} else if n != rows*lineBytes {
			return nil, exrError(name, at, "chunk %d: %d bytes, want %d", c, n, rows*lineBytes)
		}
		i := 0
		for y := y0; y < y0+rows; y++ {
			row := t.Data[y*w*channels : (y+1)*w*channels]
			for _, s := range src {
				for x := range w {
					if size == 2 {
						row[x*channels+s] = float16.Frombits(le.Uint16(data[i:])).Float32()
					} else {
						row[x*channels+s] = math.Float32frombits(le.Uint32(data[i:]))
					}
					i += size
				}
			}
		}
	}
	return t, nil
}
