package bpsm

import (
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/formats/internal/formattest"
)

// benchContents is a 2,000-vertex, 3,000-triangle mesh (a far-LOD horse is smaller)
// with 25 clips of frames frames each; every clip shares one block of vertices, so
// a big file costs no more memory to build than a small one.
func benchContents(framesPerClip int) *Contents {
	const vertices = 2000
	c := &Contents{SpeciesID: 1, VertexCount: vertices}
	for t := 0; t < 3000; t++ {
		c.Indices = append(c.Indices, uint32(t%vertices), uint32((t+1)%vertices), uint32((t+7)%vertices))
	}
	block := make([]Vertex, framesPerClip*vertices)
	for i := range block {
		block[i] = testVertex(i/vertices, i%vertices)
	}
	for i := 0; i < 25; i++ {
		c.Clips = append(c.Clips, Clip{Name: "clip" + string(rune('a'+i))})
		c.Frames = append(c.Frames, block)
	}
	return c
}

// benchFile writes benchContents of about size bytes and returns its path.
func benchFile(b *testing.B, size int) string {
	perClip := max(1, size/25/(2000*VertexSize))
	path := filepath.Join(b.TempDir(), "bench.bpsm")
	if err := WriteFile(path, benchContents(perClip)); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkOpen maps, validates (strictly) and closes a file. The 9,000 indices are
// all checked, the same in both sizes; with the float scan every vertex is read
// once, and without it (formats.SkipFloatScan) the vertex data is never touched.
func BenchmarkOpen(b *testing.B) {
	formattest.BenchOpen(b, Open, benchFile, 3<<20, 256<<20)
}

// BenchmarkVertex decodes vertices in file order: every vertex of a frame, then
// the next frame, as a CPU consumer of a snapshot walks them.
func BenchmarkVertex(b *testing.B) {
	f, err := Parse(write(b, benchContents(4)))
	if err != nil {
		b.Fatal(err)
	}
	var sink float32
	walk := func(b *testing.B, decode func(clip, frame, i int) *Vertex) {
		clip, frame, i := 0, 0, 0
		b.ReportAllocs()
		for b.Loop() {
			v := decode(clip, frame, i)
			sink += v.Position[0] + v.Weights[3]
			if i++; i == 2000 {
				i = 0
				if frame++; frame == 4 {
					frame = 0
					clip = (clip + 1) % 25
				}
			}
		}
	}
	var v Vertex
	b.Run("Vertex", func(b *testing.B) {
		walk(b, func(clip, frame, i int) *Vertex { v = f.Vertex(clip, frame, i); return &v })
	})
	b.Run("VertexTo", func(b *testing.B) {
		walk(b, func(clip, frame, i int) *Vertex { f.VertexTo(&v, clip, frame, i); return &v })
	})
	_ = sink
}

func BenchmarkFrameBytes(b *testing.B) {
	f, err := Parse(write(b, benchContents(4)))
	if err != nil {
		b.Fatal(err)
	}
	var sink int
	i := 0
	for b.Loop() {
		sink += len(f.FrameBytes(i%25, i%4))
		i++
	}
	_ = sink
}

// BenchmarkCheckVertices reads every vertex of a 21 MiB file once.
func BenchmarkCheckVertices(b *testing.B) {
	f, err := Parse(write(b, benchContents(8)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(f.VertexDataBytes())))
	for b.Loop() {
		if err := f.CheckVertices(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite encodes and writes a 21 MiB file to memory.
func BenchmarkWrite(b *testing.B) {
	c := benchContents(8)
	var sink discard
	b.SetBytes(int64(len(write(b, c))))
	for b.Loop() {
		if err := Write(&sink, c); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
