package bpat

import (
	"encoding/binary"
	"fmt"

	"github.com/bonebake/bonebake/formats"

	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// File is an open, validated BPAT file. Its methods are safe for concurrent use; the
// slices they return view the file and must not be modified.
type File struct {
	parsed       // the name, the bytes and their mapping, the warnings: see Name, Size, Warnings
	header       Header
	clips        []Clip
	clipIndex    binfmt.Index
	sockets      []Socket
	paletteBytes []byte // the palette block and the socket data as stored
	socketBytes  []byte
	palette      []float32 // the same as floats
	socketData   []float32
	frameSize    int // floats per palette frame
	socketSize   int // floats per socket data frame
	sections     []Section
}

// Open maps path read-only and validates it (see Parse). Close unmaps it.
func Open(path string, opts ...Option) (*File, error) {
	return binfmt.Open(path, HeaderSize, opts, Parse)
}

// Parse validates b as a BPAT file. The File keeps b and views it without copying.
// Validation reads the header and tables, and scans the palette and socket data
// for NaN and infinite floats at memory speed; formats.SkipFloatScan leaves the scan
// out, so that a huge trusted file opens without being read.
func Parse(b []byte, opts ...Option) (*File, error) {
	return binfmt.Parse(b, binary.LittleEndian, opts, "bpat", func(c *binfmt.Checker) *File { return (&validator{c}).run() })
}

// parsed is embedded under a name of this package's own, so that File's
// documentation does not show a type users cannot name; binfmt.Parse needs it
// embedded.
type parsed = binfmt.Parsed

// Name is the path the file was opened from, or the name given to Parse with
// formats.Name.
func (f *File) Name() string { return f.parsed.Name() }

// Size is the file's length in bytes.
func (f *File) Size() int64 { return f.parsed.Size() }

// Warnings lists what a lenient parse (formats.Lenient) let pass that strict
// validation refuses, in file order; it is empty for a file that validates
// strictly.
func (f *File) Warnings() []*formats.FormatError { return f.parsed.Warnings() }

// Close releases the mapping. The File and every slice it returned must not be used
// after Close.
func (f *File) Close() error {
	f.paletteBytes, f.socketBytes, f.palette, f.socketData = nil, nil, nil, nil
	return f.parsed.Close()
}

// Header returns the decoded header.
func (f *File) Header() Header { return f.header }

// BoneCount is the number of palette entries per frame.
func (f *File) BoneCount() int { return int(f.header.BoneCount) }

// Clips returns the clip table in file order.
func (f *File) Clips() []Clip { return f.clips }

// Sockets returns the socket table in file order.
func (f *File) Sockets() []Socket { return f.sockets }

// ClipIndex returns the index of the first clip named name, or -1.
func (f *File) ClipIndex(name string) int { return f.clipIndex.Of(name) }

// SocketIndex returns the index of the first socket named name, or -1.
func (f *File) SocketIndex(name string) int {
	for i := range f.sockets {
		if f.sockets[i].Name == name {
			return i
		}
	}
	return -1
}

// Palette returns frame frame of clip clip: BoneCount·16 floats, bone after bone,
// each a row-major model-space matrix. It panics if clip or frame is out of range.
func (f *File) Palette(clip, frame int) []float32 {
	i := f.frame(clip, frame) * f.frameSize
	return f.palette[i : i+f.frameSize : i+f.frameSize]
}

// SocketData returns the socket transforms of one frame: SocketCount·12 floats, the
// top three rows of each socket's matrix. It is empty when the file has no sockets.
func (f *File) SocketData(clip, frame int) []float32 {
	i := f.frame(clip, frame) * f.socketSize
	return f.socketData[i : i+f.socketSize : i+f.socketSize]
}

// frame returns the index in the palette block of frame frame of clip clip.
func (f *File) frame(clip, frame int) int {
	c := &f.clips[clip]
	if uint(frame) >= uint(c.FrameCount) {
		panic(fmt.Sprintf("bpat: frame %d out of range [0,%d) of clip %d", frame, c.FrameCount, clip))
	}
	return c.FrameOffset + frame
}

// PaletteBytes returns the whole palette block as stored: upload it unchanged as an
// RGBA32F texture of width BoneCount·4 and height FrameTotal.
func (f *File) PaletteBytes() []byte { return f.paletteBytes }

// SocketDataBytes returns the socket data block as stored (empty without sockets).
func (f *File) SocketDataBytes() []byte { return f.socketBytes }

// Sections lists the file's regions in file order, with the padding before the
// palette as its own entry.
func (f *File) Sections() []Section { return f.sections }
