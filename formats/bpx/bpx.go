// Package bpx reads and writes BPX containers (docs/formats/bpx.md): the main
// header and section table, the section checksums (weak byte sum and the BPX
// CRC, which is not the standard CRC-32), xz and zlib section compression, BPXSD
// structured data, packages of files (type 'P'), and bonebake's palette textures
// (type 'T') and models (type 'M').
//
// Reading is lazy: Open reads the header and section table from an io.ReaderAt
// and each section is read, decompressed and verified only when asked for, in
// memory bounded by the section's declared size. Writing streams: a Writer
// reserves the header and table, streams each section through its compressor,
// and fills the table in at the end.
package bpx

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Sizes of the fixed parts (docs/formats/bpx.md §2, §3).
const (
	HeaderSize       = 40
	SectionEntrySize = 24
	// CompressThreshold: writers compress only sections larger than this (§5).
	CompressThreshold = 64 << 10
)

// Container types (§2).
const (
	TypePackage = 'P'
	TypeTexture = 'T'
	TypeModel   = 'M'
)

// Section types every container type shares (§6, §7).
const (
	SectionStrings = 0xFF
	SectionBPXSD   = 0xFE
)

// Flags are a section's flag bits (§3).
type Flags uint8

// The section flags.
const (
	FlagZlib  Flags = 0x01
	FlagXZ    Flags = 0x02
	FlagCRC32 Flags = 0x04
	FlagWeak  Flags = 0x08
)

var flagNames = []struct {
	f Flags
	s string
}{{FlagZlib, "zlib"}, {FlagXZ, "xz"}, {FlagCRC32, "crc32"}, {FlagWeak, "weak"}}

// Names lists the set flags by name, unknown bits as hex.
func (f Flags) Names() []string {
	out := []string{}
	for _, n := range flagNames {
		if f&n.f != 0 {
			out = append(out, n.s)
		}
	}
	if rest := f &^ (FlagZlib | FlagXZ | FlagCRC32 | FlagWeak); rest != 0 {
		out = append(out, fmt.Sprintf("0x%02x", uint8(rest)))
	}
	return out
}

// String names the set flags, as "xz|crc32"; "none" when none is set.
func (f Flags) String() string {
	if f == 0 {
		return "none"
	}
	return strings.Join(f.Names(), "|")
}

// Header is the main header (§2).
type Header struct {
	Type         byte
	Checksum     uint32
	FileSize     uint64 // as written; may not match the real size
	SectionCount uint32
	Version      uint32
	TypeExt      [16]byte
}

// SectionHeader is one section table entry (§3).
type SectionHeader struct {
	Pointer  uint64 // absolute offset of the section's bytes
	CSize    uint32 // bytes in the file
	Size     uint32 // bytes after decompression
	Checksum uint32 // of the uncompressed bytes, by the check flag
	Type     uint8
	Flags    Flags
}

func (h *Header) encode(b []byte) {
	copy(b, "BPX")
	b[3] = h.Type
	le.PutUint32(b[4:], h.Checksum)
	le.PutUint64(b[8:], h.FileSize)
	le.PutUint32(b[16:], h.SectionCount)
	le.PutUint32(b[20:], h.Version)
	copy(b[24:40], h.TypeExt[:])
}

func decodeHeader(b []byte) Header {
	var h Header
	h.Type = b[3]
	h.Checksum = le.Uint32(b[4:])
	h.FileSize = le.Uint64(b[8:])
	h.SectionCount = le.Uint32(b[16:])
	h.Version = le.Uint32(b[20:])
	copy(h.TypeExt[:], b[24:40])
	return h
}

func (s *SectionHeader) encode(b []byte) {
	le.PutUint64(b, s.Pointer)
	le.PutUint32(b[8:], s.CSize)
	le.PutUint32(b[12:], s.Size)
	le.PutUint32(b[16:], s.Checksum)
	b[20], b[21], b[22], b[23] = s.Type, uint8(s.Flags), 0, 0
}

func decodeSection(b []byte) SectionHeader {
	return SectionHeader{
		Pointer: le.Uint64(b), CSize: le.Uint32(b[8:]), Size: le.Uint32(b[12:]),
		Checksum: le.Uint32(b[16:]), Type: b[20], Flags: Flags(b[21]),
	}
}

var le = binary.LittleEndian

// headerChecksum is the header checksum of §4 over the encoded header and table
// (b): the byte sum of everything except the checksum field itself.
func headerChecksum(b []byte) uint32 {
	var sum uint32
	for i, c := range b {
		if i < 4 || i >= 8 {
			sum += uint32(c)
		}
	}
	return sum
}
