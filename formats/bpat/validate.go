package bpat

import (
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// validator checks one file against docs/formats/bpat.md §4, collecting every
// problem it can. What the game's reader accepts but strict mode does not goes
// through Strict, so that lenient mode lists it as a warning.
type validator struct {
	*binfmt.Checker
}

func (v *validator) run() *File {
	var h Header
	if !v.Start("BPAT", Magic, &h) || !v.Version(4, h.Version, 1, 2) {
		return nil
	}
	v.Species(8, h.SpeciesID)
	if h.BoneCount < 1 || h.BoneCount > MaxBones {
		v.Fail(RuleBoneCount, 12, -1, "bone count %d outside [1, %d]", h.BoneCount, MaxBones)
	}
	if h.ClipCount < 1 {
		v.Fail(formats.RuleClipCount, 20, -1, "the file has no clips")
	}
	if (h.SocketTableOffset == 0) != (h.SocketCount == 0) {
		v.Fail(RuleSocketTable, 40, -1, "socket_table_offset is %d with %d sockets: it must be 0 exactly when there are none", h.SocketTableOffset, h.SocketCount)
	}

	// Sections, in the order they must appear, and where the canonical layout puts them.
	cClips, cSockets, cStrings, cPalette := h.canonical()
	spans := []binfmt.Span{{Name: "header", Start: 0, End: HeaderSize, OK: true}}
	canonical := []uint64{0}
	clipTable := v.Section("clip table", 32, h.ClipTableOffset, uint64(h.ClipCount), h.ClipEntrySize())
	spans, canonical = append(spans, clipTable), append(canonical, cClips)
	socketTable := binfmt.Span{}
	if h.SocketCount > 0 && h.SocketTableOffset != 0 {
		socketTable = v.Section("socket table", 40, h.SocketTableOffset, uint64(h.SocketCount), SocketEntrySize)
		spans, canonical = append(spans, socketTable), append(canonical, cSockets)
	}
	strTable := v.Section("string table", 48, h.StringTableOffset, uint64(h.StringTableSize), 1)
	palette := v.Section("palette", 56, h.PaletteOffset, uint64(h.FrameTotal)*uint64(h.BoneCount), FloatsPerBone*4)
	spans, canonical = append(spans, strTable, palette), append(canonical, cStrings, cPalette)
	var sockData binfmt.Span
	if palette.OK {
		sockData = v.Section("socket data", 56, palette.End, uint64(h.FrameTotal)*uint64(h.SocketCount), FloatsPerSocket*4)
		spans, canonical = append(spans, sockData), append(canonical, palette.End)
	}
	v.Align(palette, PaletteAlign)
	if h.Version == 1 { // every v1 record is a multiple of 16 bytes
		v.Align(clipTable, 16)
		v.Align(socketTable, 16)
		v.Align(strTable, 16)
	} else {
		v.Align(clipTable, 4)
		v.Align(socketTable, 4)
	}
	v.Layout(spans, canonical, "header, clips, sockets, strings, palette, socket data")

	// Tables.
	var clips []Clip
	if clipTable.OK {
		clips = v.clips(&h, clipTable.Start, strTable)
	}
	var sockets []Socket
	if socketTable.OK {
		sockets = v.sockets(&h, socketTable.Start, strTable)
	}
	v.Finite(formats.RuleFloat, palette)
	v.Finite(formats.RuleFloat, sockData)
	if len(v.Problems) > 0 {
		return nil
	}
	f := &File{
		header: h, clips: clips, sockets: sockets,
		clipIndex:    binfmt.NewIndex(len(clips), func(i int) string { return clips[i].Name }),
		paletteBytes: v.B[palette.Start:palette.End:palette.End],
		socketBytes:  v.B[sockData.Start:sockData.End:sockData.End],
		frameSize:    int(h.BoneCount) * FloatsPerBone,
		socketSize:   int(h.SocketCount) * FloatsPerSocket,
		sections:     binfmt.Sections(spans),
	}
	f.palette, f.socketData = binfmt.Float32s(f.paletteBytes), binfmt.Float32s(f.socketBytes)
	return f
}

func (v *validator) clips(h *Header, table uint64, strTable binfmt.Span) []Clip {
	clips := make([]Clip, h.ClipCount)
	sum := uint64(0)
	for i := range clips {
		e := table + uint64(i)*h.ClipEntrySize()
		c := &clips[i]
		name, count, offset := v.ClipFrames(i, e, strTable, &sum)
		c.Name, c.FrameCount, c.FrameOffset = name, int(count), int(offset)
		c.FPS = v.F32(e + 16)
		c.Loops = v.B[e+20] == 1
		c.Markers = NoMarkers()
		if !finite32(c.FPS) || c.FPS <= 0 {
			v.Strict(RuleFPS, e+16, i, "clip %d %q has fps %v; it must be finite and > 0", i, c.Name, c.FPS)
		}
		if l := v.B[e+20]; l > 1 {
			v.Fail(RuleLoops, e+20, i, "clip %d %q has loops = %d; it must be 0 or 1", i, c.Name, l)
		}
		v.Zeros(e+21, e+24, "clip", i, "pad")
		if h.Version == 1 {
			v.Zeros(e+24, e+32, "clip", i, "reserved")
			continue
		}
		for k := range c.Markers {
			m := v.F32(e + 24 + 4*uint64(k))
			c.Markers[k] = m
			if !validMarker(m) {
				v.Strict(RuleMarker, e+24+4*uint64(k), i, "clip %d %q marker %s = %v is neither -1 nor in [0,1]", i, c.Name, Marker(k), m)
			}
		}
	}
	v.FrameTotal(24, h.FrameTotal, sum)
	return clips
}

func (v *validator) sockets(h *Header, table uint64, strTable binfmt.Span) []Socket {
	sockets := make([]Socket, h.SocketCount)
	for i := range sockets {
		e := table + uint64(i)*SocketEntrySize
		s := &sockets[i]
		s.Name = v.Name("socket", i, e, strTable)
		anchor := v.U32(e + 8)
		s.Anchor = int(anchor)
		if anchor >= h.BoneCount {
			v.Fail(RuleAnchorBone, e+8, i, "socket %d %q anchors to bone %d; the file has %d bones", i, s.Name, anchor, h.BoneCount)
		}
		for k := range s.Offset {
			s.Offset[k] = v.F32(e + 12 + 4*uint64(k))
			if !finite32(s.Offset[k]) {
				v.Strict(formats.RuleFloat, e+12+4*uint64(k), i, "socket %d %q local offset[%d] is %v; it must be finite", i, s.Name, k, s.Offset[k])
			}
		}
		v.Zeros(e+24, e+32, "socket", i, "reserved")
	}
	return sockets
}
