package formats

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/bonebake/bonebake/internal/regfile"
)

// Kind is a file format that Sniff recognizes.
type Kind string

// The kinds Sniff tells apart.
const (
	Unknown Kind = ""
	BPAT    Kind = "bpat" // baked bone palettes
	BPSM    Kind = "bpsm" // snapshot meshes
	GLB     Kind = "glb"  // binary glTF
	GLTF    Kind = "gltf" // JSON glTF
	BPX     Kind = "bpx"  // BPX container
	Mot     Kind = "mot"  // PlatinumGames motion
	BVH     Kind = "bvh"  // Biovision Hierarchy motion capture (text)
	FBX     Kind = "fbx"  // Autodesk FBX, binary or ASCII
)

// Words says what a file of kind k is, as messages name it to people ("a
// binary glTF model (.glb)"): one wording for the command line's messages and
// the libraries' refusals of a file of the wrong kind.
func (k Kind) Words() string {
	switch k {
	case BPAT:
		return "a BPAT bone palette file"
	case BPSM:
		return "a BPSM snapshot mesh"
	case GLB:
		return "a binary glTF model (.glb)"
	case GLTF:
		return "a glTF model (.gltf)"
	case FBX:
		return "an FBX model (.fbx)"
	case BPX:
		return "a BPX container"
	case Mot:
		return "a PlatinumGames motion file (.mot)"
	case BVH:
		return "a BVH motion capture file (.bvh)"
	}
	return "not a file bonebake knows"
}

// sniffLen is how many bytes Sniff looks at.
const sniffLen = 512

// Sniff names the format whose file starts with b (the first 512 bytes are
// enough), or returns Unknown. A JSON glTF is recognized by a leading '{' and an
// "asset" member among those bytes.
func Sniff(b []byte) Kind {
	switch {
	case bytes.HasPrefix(b, []byte("BPAT")):
		return BPAT
	case bytes.HasPrefix(b, []byte("BPSM")):
		return BPSM
	case bytes.HasPrefix(b, []byte("glTF")):
		return GLB
	case bytes.HasPrefix(b, []byte("BPX")) && len(b) >= 4:
		return BPX
	case bytes.HasPrefix(b, []byte("mot\x00")):
		return Mot
	case bytes.HasPrefix(b, []byte("Kaydara FBX Binary  \x00")):
		return FBX
	}
	j := bytes.TrimLeft(b[:min(len(b), sniffLen)], " \t\r\n\ufeff")
	if len(j) > 0 && j[0] == '{' && bytes.Contains(j, []byte(`"asset"`)) {
		return GLTF
	}
	if h, ok := bytes.CutPrefix(j, []byte("HIERARCHY")); ok && (len(h) == 0 || h[0] == '\n' || h[0] == '\r' || h[0] == ' ' || h[0] == '\t') {
		return BVH
	}
	if bytes.HasPrefix(j, []byte("; FBX ")) { // an ASCII FBX's first comment
		return FBX
	}
	return Unknown
}

// ErrIsDirectory is what SniffFile and every reader's Open return for a
// directory, wrapped in an error naming it.
var ErrIsDirectory = regfile.ErrIsDirectory

// ErrNotRegular is what SniffFile and every reader's Open return, wrapped in an
// error naming the path and its type, for a named pipe, a device or a socket:
// readers read regular files only, at once, rather than wait on a pipe or read
// a device's endless or foreign bytes.
var ErrNotRegular = regfile.ErrNotRegular

// SniffFile reads the start of the file at path and names its format. A file too
// short or unlike any format is Unknown with a nil error; a path that cannot be
// read is an error, a directory is one wrapping ErrIsDirectory, and a named
// pipe, device or socket one wrapping ErrNotRegular.
func SniffFile(path string) (Kind, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return Unknown, err
	}
	defer f.Close()
	b := make([]byte, sniffLen)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return Unknown, fmt.Errorf("%s: %w", path, err)
	}
	k := Sniff(b[:n])
	// A .gltf file may put "asset" after its first 512 bytes (SimpleSkin.gltf
	// ends with it): a JSON object under that name is taken for glTF.
	if j := bytes.TrimLeft(b[:n], " \t\r\n\ufeff"); k == Unknown && len(j) > 0 && j[0] == '{' && strings.EqualFold(filepath.Ext(path), ".gltf") {
		k = GLTF
	}
	return k, nil
}

// HeaderSpecies reads the species id in the header of the BPAT or BPSM file at
// path (bytes 8-11 in both: docs/formats/bpat.md §2, bpsm.md §2), or false when
// the file is neither or cannot be read that far. It checks nothing else of the
// file: it is for naming the ids a folder's files hold, not for reading them.
func HeaderSpecies(path string) (uint32, bool) {
	k, id := headerSpecies(path)
	return id, k != Unknown
}

// BPATSpecies is HeaderSpecies for a BPAT file only: false for a BPSM. One
// open and read where SniffFile then HeaderSpecies would take two.
func BPATSpecies(path string) (uint32, bool) {
	k, id := headerSpecies(path)
	return id, k == BPAT
}

// headerSpecies is the kind of the file at path, BPAT, BPSM or Unknown (not
// either, or shorter than a species id), and its header's species id.
func headerSpecies(path string) (Kind, uint32) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return Unknown, 0
	}
	defer f.Close()
	var b [12]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return Unknown, 0
	}
	if k := Sniff(b[:]); k == BPAT || k == BPSM {
		return k, binary.LittleEndian.Uint32(b[8:])
	}
	return Unknown, 0
}
