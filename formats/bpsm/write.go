package bpsm

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/bonebake/bonebake/formats/internal/binfmt"
	"github.com/bonebake/bonebake/internal/atomicfile"
)

// Contents is everything a BPSM file holds, as the writer takes it.
type Contents struct {
	SpeciesID uint32
	LOD       uint32 // LODFull or LODMinimal
	// VertexCount is the number of vertices in every frame.
	VertexCount int
	// Indices is the triangle list, three per triangle, each below VertexCount.
	Indices []uint32
	// Clips in file order. FrameCount and FrameOffset are ignored: the writer derives
	// them from Frames.
	Clips []Clip
	// Frames[c] holds clip c's frames back to back, VertexCount vertices per frame:
	// vertex i of frame f is Frames[c][f·VertexCount+i].
	Frames [][]Vertex
}

// layout is the computed placement of every section.
type layout struct {
	header      Header
	strings     []byte
	clipNames   []uint32 // string-table offset of each clip name
	frameCounts []int
}

func (c *Contents) plan() (*layout, error) {
	if c.LOD != LODFull && c.LOD != LODMinimal {
		return nil, fmt.Errorf("bpsm: lod %d is neither 0 (full) nor 1 (minimal)", c.LOD)
	}
	if c.VertexCount < 1 || uint64(c.VertexCount) > math.MaxUint32 {
		return nil, fmt.Errorf("bpsm: vertex count %d outside [1, 2^32)", c.VertexCount)
	}
	if len(c.Indices)%3 != 0 || uint64(len(c.Indices)) > math.MaxUint32 {
		return nil, fmt.Errorf("bpsm: %d indices: not a whole number of triangles below 2^32 indices", len(c.Indices))
	}
	for i, x := range c.Indices {
		if uint64(x) >= uint64(c.VertexCount) {
			return nil, fmt.Errorf("bpsm: index %d is %d; the mesh has %d vertices", i, x, c.VertexCount)
		}
	}
	if len(c.Clips) == 0 {
		return nil, fmt.Errorf("bpsm: a file needs at least one clip")
	}
	if len(c.Frames) != len(c.Clips) {
		return nil, fmt.Errorf("bpsm: %d clips but %d frame blocks", len(c.Clips), len(c.Frames))
	}
	l := &layout{}
	total := uint64(0)
	for ci := range c.Clips {
		name := c.Clips[ci].Name
		vs := c.Frames[ci]
		n := len(vs) / c.VertexCount
		if n < 1 || n*c.VertexCount != len(vs) {
			return nil, fmt.Errorf("bpsm: clip %d %q: %d vertices are not a positive whole number of %d-vertex frames", ci, name, len(vs), c.VertexCount)
		}
		for j := range vs {
			if rule, _, detail := vertexProblem(&vs[j]); rule != "" {
				return nil, fmt.Errorf("bpsm: clip %d %q frame %d vertex %d: %s", ci, name, j/c.VertexCount, j%c.VertexCount, detail)
			}
		}
		l.frameCounts = append(l.frameCounts, n)
		total += uint64(n)
		if total > math.MaxUint32 {
			return nil, fmt.Errorf("bpsm: more than 2^32-1 frames")
		}
	}

	var strs binfmt.Strings // interned, in clip order
	names, err := strs.AddAll("bpsm: clip", len(c.Clips), func(i int) string { return c.Clips[i].Name })
	if err != nil {
		return nil, err
	}
	l.clipNames, l.strings = names, strs.Table
	h := Header{Version: Version, SpeciesID: c.SpeciesID, LOD: c.LOD, VertexCount: uint32(c.VertexCount),
		IndexCount: uint32(len(c.Indices)), ClipCount: uint32(len(c.Clips)), FrameTotal: uint32(total),
		StringTableSize: uint32(len(strs.Table))}
	h.ClipTableOffset, h.StringTableOffset, h.IndexDataOffset, h.VertexDataOffset = h.canonical()
	l.header = h
	return l, nil
}

// Size is the size in bytes of the file Write makes of c: the layout of
// docs/formats/bpsm.md from its vertex, index, clip and frame counts and names.
// Invalid contents are refused as Write refuses them.
func (c *Contents) Size() (int64, error) {
	l, err := c.plan()
	if err != nil {
		return 0, err
	}
	return int64(l.header.VertexDataOffset + l.header.VertexDataSize()), nil
}

// Write checks c and streams it to w in the layout described in the package
// documentation. Invalid contents are refused before anything is written.
func Write(w io.Writer, c *Contents) error {
	l, err := c.plan()
	if err != nil {
		return err
	}
	return l.write(w, c)
}

// WriteFile writes c to path atomically: invalid contents or a failed write leave
// the old file intact.
func WriteFile(path string, c *Contents) error {
	l, err := c.plan()
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return l.write(w, c) })
}

// chunkVertices is how many vertices the writer encodes per Write call (about 64 KiB).
const chunkVertices = 1170

func (l *layout) write(w io.Writer, c *Contents) error {
	h := &l.header
	bw := bufio.NewWriterSize(w, 1<<16)
	le := binary.LittleEndian
	var buf [HeaderSize]byte
	bw.Write(binfmt.PutHeader(buf[:], le, Magic, h))

	offset := uint32(0)
	for i := range c.Clips {
		e := buf[:ClipEntrySize]
		clear(e)
		le.PutUint32(e[0:], l.clipNames[i])
		le.PutUint32(e[4:], uint32(len(c.Clips[i].Name)))
		le.PutUint32(e[8:], uint32(l.frameCounts[i]))
		le.PutUint32(e[12:], offset)
		bw.Write(e)
		offset += uint32(l.frameCounts[i])
	}
	bw.Write(l.strings)
	clear(buf[:DataAlign])
	bw.Write(buf[:h.IndexDataOffset-h.StringTableOffset-uint64(len(l.strings))])

	chunk := make([]byte, chunkVertices*VertexSize)
	for idx := c.Indices; len(idx) > 0; {
		n := min(len(idx), len(chunk)/IndexSize)
		for i, x := range idx[:n] {
			le.PutUint32(chunk[IndexSize*i:], x)
		}
		if _, err := bw.Write(chunk[:IndexSize*n]); err != nil {
			return err
		}
		idx = idx[n:]
	}
	bw.Write(buf[:h.VertexDataOffset-h.IndexDataOffset-h.IndexDataSize()])

	for _, vs := range c.Frames {
		for len(vs) > 0 {
			n := min(len(vs), chunkVertices)
			for i := range vs[:n] {
				putVertex(chunk[i*VertexSize:], &vs[i])
			}
			if _, err := bw.Write(chunk[:n*VertexSize]); err != nil {
				return err
			}
			vs = vs[n:]
		}
	}
	return bw.Flush()
}
