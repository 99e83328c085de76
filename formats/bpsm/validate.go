package bpsm

import (
	"encoding/binary"
	"fmt"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/internal/binfmt"
)

// vertexFloatWords marks the 4-byte words of a vertex record that are floats:
// position, normal and uv (words 0-7) and the weights (words 9-12).
const vertexFloatWords = 0b1_1110_1111_1111

// validator checks one file against docs/formats/bpsm.md, collecting every problem
// it can. What a reader seeking by the header's offsets accepts but strict mode
// does not goes through Strict, so that lenient mode lists it as a warning.
type validator struct {
	*binfmt.Checker
}

func (v *validator) run() *File {
	var h Header
	if !v.Start("BPSM", Magic, &h) || !v.Version(4, h.Version, Version) {
		return nil
	}
	v.Species(8, h.SpeciesID)
	if h.LOD != LODFull && h.LOD != LODMinimal {
		v.Fail(RuleLOD, 12, -1, "lod %d is neither 0 (full) nor 1 (minimal)", h.LOD)
	}
	if h.VertexCount < 1 {
		v.Fail(RuleVertexCount, 16, -1, "the file has no vertices")
	}
	if h.IndexCount%3 != 0 {
		v.Fail(RuleIndexCount, 20, -1, "index count %d is not a multiple of 3 (indices form a triangle list)", h.IndexCount)
	}
	if h.ClipCount < 1 {
		v.Fail(formats.RuleClipCount, 24, -1, "the file has no clips")
	}
	v.Zeros(36, 40, "header", -1, "reserved")

	// Sections, in the order they must appear, and where the canonical layout puts them.
	header := binfmt.Span{Name: "header", Start: 0, End: HeaderSize, OK: true}
	clipTable := v.Section("clip table", 40, h.ClipTableOffset, uint64(h.ClipCount), ClipEntrySize)
	strTable := v.Section("string table", 48, h.StringTableOffset, uint64(h.StringTableSize))
	indexData := v.Section("index data", 56, h.IndexDataOffset, uint64(h.IndexCount), IndexSize)
	vertexData := v.Section("vertex data", 64, h.VertexDataOffset, uint64(h.FrameTotal), uint64(h.VertexCount), VertexSize)
	cClips, cStrings, cIndices, cVertices := h.canonical()
	v.Align(clipTable, MinDataAlign)
	v.Align(indexData, MinDataAlign)
	v.Align(vertexData, MinDataAlign)
	spans := []binfmt.Span{header, clipTable, strTable, indexData, vertexData}
	v.Layout(spans, []uint64{0, cClips, cStrings, cIndices, cVertices}, "header, clips, strings, indices, vertices")

	var clips []Clip
	if clipTable.OK {
		clips = v.clips(&h, clipTable.Start, strTable)
	}
	if indexData.OK {
		v.indices(&h, indexData)
	}
	v.FiniteRecords(RuleVertexFloat, vertexData, "vertex", VertexSize, vertexFloatWords)
	if len(v.Problems) > 0 {
		return nil
	}
	return &File{
		header: h, clips: clips,
		clipIndex:  binfmt.NewIndex(len(clips), func(i int) string { return clips[i].Name }),
		indexBytes: v.B[indexData.Start:indexData.End:indexData.End],
		indices:    binfmt.Uint32s(v.B[indexData.Start:indexData.End]),
		vertexData: v.B[vertexData.Start:vertexData.End:vertexData.End],
		frameSize:  int(h.VertexCount) * VertexSize,
		lenient:    v.Opts.Lenient,
		sections:   binfmt.Sections(spans),
	}
}

func (v *validator) clips(h *Header, table uint64, strTable binfmt.Span) []Clip {
	clips := make([]Clip, h.ClipCount)
	sum := uint64(0)
	for i := range clips {
		e := table + uint64(i)*ClipEntrySize
		name, count, offset := v.ClipFrames(i, e, strTable, &sum)
		clips[i] = Clip{Name: name, FrameCount: int(count), FrameOffset: int(offset)}
		v.Zeros(e+16, e+32, "clip", i, "reserved")
	}
	v.FrameTotal(28, h.FrameTotal, sum)
	return clips
}

// indices checks that every index names a vertex. It reports the first bad index
// and how many more there are, one problem in all.
func (v *validator) indices(h *Header, s binfmt.Span) {
	idx := v.B[s.Start:s.End]
	bad, first := 0, -1
	for i := 0; i+IndexSize <= len(idx); i += IndexSize {
		if binary.LittleEndian.Uint32(idx[i:]) >= h.VertexCount {
			if bad == 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return
	}
	pos, off := first/IndexSize, s.Start+uint64(first)
	more := ""
	if bad > 1 {
		more = fmt.Sprintf(" (and %d more indices out of range)", bad-1)
	}
	v.Fail(RuleIndex, off, pos, "index %d is %d; the file has %d vertices%s", pos, v.U32(off), h.VertexCount, more)
}
