package main

import (
	"fmt"
	"io"

	"github.com/bonebake/bonebake/formats/bpsm"
)

// bpsmReport is what inspect says of a snapshot mesh; keys follow docs/json.md.
type bpsmReport struct {
	File        string          `json:"file"`
	Format      string          `json:"format"`
	Size        int64           `json:"size"`
	Version     uint32          `json:"version"`
	SpeciesID   uint32          `json:"species_id"`
	LOD         uint32          `json:"lod"`
	VertexCount uint32          `json:"vertex_count"`
	IndexCount  uint32          `json:"index_count"`
	ClipCount   uint32          `json:"clip_count"`
	FrameTotal  uint32          `json:"frame_total"`
	StringTable uint32          `json:"string_table_size"`
	Sections    []sectionReport `json:"sections"`
	Clips       []bpsmClip      `json:"clips"`
	Strict      string          `json:"strict_validation"` // "ok" or the problems
}

type bpsmClip struct {
	Index       int    `json:"index"`
	Name        string `json:"name"`
	Frames      int    `json:"frame_count"`
	FrameOffset int    `json:"frame_offset"`
}

func describeBPSM(f *bpsm.File, species speciesFlag) *bpsmReport {
	h := f.Header()
	r := &bpsmReport{File: f.Name(), Format: "bpsm", Size: f.Size(), Version: h.Version, SpeciesID: h.SpeciesID, LOD: h.LOD,
		VertexCount: h.VertexCount, IndexCount: h.IndexCount, ClipCount: h.ClipCount, FrameTotal: h.FrameTotal,
		StringTable: h.StringTableSize, Strict: "ok", Sections: []sectionReport{}, Clips: []bpsmClip{}}
	for _, s := range f.Sections() {
		r.Sections = append(r.Sections, sectionReport(s))
	}
	for i, c := range f.Clips() {
		r.Clips = append(r.Clips, bpsmClip{i, c.Name, c.FrameCount, c.FrameOffset})
	}
	if strict, err := bpsm.Open(f.Name(), species.option()); err != nil {
		r.Strict = oneLine(f.Name(), withSpeciesHint(f.Name(), err))
	} else {
		strict.Close()
	}
	return r
}

func (r *bpsmReport) print(w io.Writer) {
	lod := "full"
	if r.LOD == 1 {
		lod = "minimal"
	}
	fmt.Fprintf(w, "%s: BPSM v%d snapshot mesh, %s\n", r.File, r.Version, bytesText(r.Size))
	fmt.Fprintf(w, "species %d, LOD %d (%s), %s, %s, %s, %s\n", r.SpeciesID, r.LOD, lod,
		plural(int(r.VertexCount), "vertex"), plural(int(r.IndexCount)/3, "triangle"), plural(int(r.ClipCount), "clip"), plural(int(r.FrameTotal), "frame"))
	fmt.Fprintf(w, "strict validation: %s\n\n", r.Strict)
	fmt.Fprintf(w, "%-14s %10s %10s\n", "section", "offset", "size")
	for _, s := range r.Sections {
		fmt.Fprintf(w, "%-14s %10d %10d\n", s.Name, s.Offset, s.Size)
	}
	fmt.Fprintf(w, "\n%3s  %-22s %6s %6s\n", "#", "clip", "frames", "offset")
	for _, c := range r.Clips {
		fmt.Fprintf(w, "%3d  %-22s %6d %6d\n", c.Index, shown(c.Name), c.Frames, c.FrameOffset)
	}
}
