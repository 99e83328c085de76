// Package bpat reads, writes and validates BPAT files: the baked bone palettes of one
// creature species over a fixed set of named clips, as specified in docs/formats/bpat.md.
//
// A palette entry is the posed model-space transform of a bone, 16 little-endian
// float32 in row-major order (translation at floats 3, 7 and 11). A file holds
// frame_total frames of bone_count entries, clip after clip, then optionally the
// socket data: per frame and socket the top three rows (12 floats) of
// palette[anchor] · translate(local_offset).
//
// Open maps a file read-only and validates it; Palette and SocketData are zero-copy
// views on little-endian hosts. Strict validation (the default) checks every rule of
// docs/formats/bpat.md §4, demands the canonical layout (clip table at 64, each
// section right after the one before, zero padding only up to the 16-byte boundary
// before the palette, nothing after the socket data) and proves every palette and
// socket float finite: a NaN palette poisons every GPU that draws it. That scan
// reads the whole file at memory speed (about 13 GB/s); formats.SkipFloatScan
// leaves it out, so that a huge trusted file opens in the same time at any size.
//
// The species id is checked only against the set a caller gives with
// formats.KnownSpecies; without one any id is accepted.
//
// Lenient validation (formats.Lenient) accepts what the game's own reader accepts:
// non-zero pad, reserved and gap bytes, overlapping sections, trailing bytes, bad
// fps and markers, a non-canonical layout, non-finite floats and an unknown species
// id pass, and File.Warnings lists each. Bounds, order, alignment, counts and names
// are checked in both modes, so that whatever opens can be read without a panic.
package bpat

import (
	"math"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// Magic is the four bytes every BPAT file starts with.
const Magic = "BPAT"

// Sizes of the fixed records (docs/formats/bpat.md §2).
const (
	HeaderSize      = 64
	ClipEntrySizeV1 = 32
	ClipEntrySizeV2 = 44
	SocketEntrySize = 32
	MaxBones        = 64
	// PaletteAlign is the alignment of the palette block in the file.
	PaletteAlign = 16
)

// FloatsPerBone is the size of one palette entry (a 4×4 matrix).
const FloatsPerBone = 16

// FloatsPerSocket is the size of one socket data entry (the top three matrix rows).
const FloatsPerSocket = 12

// Marker indexes the five combat timing markers of a v2 clip entry.
type Marker int

const (
	AnticipationStart Marker = iota // the wind-up begins
	WeaponRelease                   // the weapon starts toward the target
	Contact                         // the hit lands: damage is applied here
	RecoverUnlocked                 // the attacker may recover or chain
	ExitSafe                        // the move may be interrupted or blended out
	NumMarkers
)

var markerNames = [NumMarkers]string{"anticipation_start", "weapon_release", "contact", "recover_unlocked", "exit_safe"}

// String returns the marker's name as written in manifests and JSON.
func (m Marker) String() string {
	if m < 0 || m >= NumMarkers {
		return "marker?"
	}
	return markerNames[m]
}

// MarkerNames returns the marker names in file order.
func MarkerNames() []string { return markerNames[:] }

// Unset is the value of a marker that a clip does not define.
const Unset float32 = -1

// Markers are normalized clip phases in [0,1], or Unset.
type Markers [NumMarkers]float32

// NoMarkers returns markers that are all unset.
func NoMarkers() Markers { return Markers{Unset, Unset, Unset, Unset, Unset} }

// Any reports whether at least one marker is set.
func (m Markers) Any() bool {
	for _, v := range m {
		if v != Unset {
			return true
		}
	}
	return false
}

// Set reports whether marker k is set.
func (m Markers) Set(k Marker) bool { return m[k] != Unset }

func validMarker(v float32) bool { return v == Unset || (v >= 0 && v <= 1) }

// Header is the fixed 64-byte header, field for field (the blank field is the
// magic).
type Header struct {
	_                 [4]byte
	Version           uint32
	SpeciesID         uint32
	BoneCount         uint32
	SocketCount       uint32
	ClipCount         uint32
	FrameTotal        uint32
	StringTableSize   uint32
	ClipTableOffset   uint64
	SocketTableOffset uint64
	StringTableOffset uint64
	PaletteOffset     uint64
}

// ClipEntrySize returns the size of one clip entry for the header's version.
func (h *Header) ClipEntrySize() uint64 {
	if h.Version == 2 {
		return ClipEntrySizeV2
	}
	return ClipEntrySizeV1
}

// PaletteSize is the size in bytes of the palette block.
func (h *Header) PaletteSize() uint64 {
	return uint64(h.FrameTotal) * uint64(h.BoneCount) * FloatsPerBone * 4
}

// SocketDataSize is the size in bytes of the socket data block.
func (h *Header) SocketDataSize() uint64 {
	return uint64(h.FrameTotal) * uint64(h.SocketCount) * FloatsPerSocket * 4
}

// SocketDataOffset is where the socket data starts: right after the palette.
func (h *Header) SocketDataOffset() uint64 { return h.PaletteOffset + h.PaletteSize() }

// Clip describes one clip of a file: its entry in the clip table. The other clip
// types say more or less for their own jobs: registry.Clip adds how the runtime
// plays it (duration, gait), bpsm.Clip is a snapshot file's table (frames only:
// fps, looping and markers are its BPAT's), gait.Clip is the sidecar's record of
// its ground speed, and bake.Clip is a clip to bake (a motion and time range;
// species.Clip embeds it, its motion a pose function).
type Clip struct {
	Name        string
	FrameCount  int // number of baked frames, ≥ 1
	FrameOffset int // index of the clip's first frame in the palette block
	FPS         float32
	Loops       bool
	Markers     Markers
}

// Duration is the clip's playing time in seconds: FrameCount/FPS for a looping clip
// (its end equals its start), (FrameCount-1)/FPS for a one-shot (docs/formats/bpat.md §5).
func (c *Clip) Duration() float64 {
	n := float64(c.FrameCount)
	if !c.Loops {
		n--
	}
	return n / float64(c.FPS)
}

// Socket is a named attachment point that follows a bone at a fixed local offset.
type Socket struct {
	Name   string
	Anchor int
	Offset [3]float32
}

// Section is one region of a file, as reported by File.Sections.
type Section = formats.Section

// canonical returns where the canonical layout (docs/formats/bpat.md §3, what the
// writer emits) puts the clip table, socket table (0 without sockets), string table
// and palette of a file with h's version and counts: each right after the one
// before, the palette on the next 16-byte boundary.
func (h *Header) canonical() (clips, sockets, strs, palette uint64) {
	clips = HeaderSize
	strs = clips + uint64(h.ClipCount)*h.ClipEntrySize()
	if h.SocketCount > 0 {
		sockets = strs
		strs += uint64(h.SocketCount) * SocketEntrySize
	}
	return clips, sockets, strs, binfmt.AlignUp(strs+uint64(h.StringTableSize), PaletteAlign)
}

func finite32(v float32) bool {
	f := float64(v)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}
