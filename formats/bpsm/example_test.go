package bpsm_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/bonebake/bonebake/formats/bpsm"
)

// A one-triangle snapshot mesh with a two-frame "walk" clip, written and read back.
func ExampleWriteFile() {
	tri := func(y float32) []bpsm.Vertex {
		vs := make([]bpsm.Vertex, 3)
		for i := range vs {
			vs[i] = bpsm.Vertex{
				Position: [3]float32{float32(i), y, 0},
				Normal:   [3]float32{0, 0, 1},
				Weights:  [4]float32{1, 0, 0, 0},
			}
		}
		return vs
	}
	c := &bpsm.Contents{
		SpeciesID:   1, // horse
		LOD:         bpsm.LODMinimal,
		VertexCount: 3,
		Indices:     []uint32{0, 1, 2},
		Clips:       []bpsm.Clip{{Name: "walk"}},
		Frames:      [][]bpsm.Vertex{append(tri(0), tri(0.5)...)}, // frame 0, then frame 1
	}
	dir, err := os.MkdirTemp("", "bpsm")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "horse_minimal.bpsm")
	if err := bpsm.WriteFile(path, c); err != nil {
		log.Fatal(err)
	}

	f, err := bpsm.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	walk := f.ClipIndex("walk")
	fmt.Println("clip", walk, "frames:", f.Clips()[walk].FrameCount)
	fmt.Println("vertex 1 of frame 1:", f.Vertex(walk, 1, 1).Position)
	fmt.Println("bytes to upload per frame:", len(f.FrameBytes(walk, 0)))
	for _, s := range f.Sections() {
		fmt.Printf("%-12s at %3d, %3d bytes\n", s.Name, s.Offset, s.Size)
	}
	fmt.Println("vertices ok:", f.CheckVertices() == nil)
	// Output:
	// clip 0 frames: 2
	// vertex 1 of frame 1: [1 0.5 0]
	// bytes to upload per frame: 168
	// header       at   0,  72 bytes
	// clip table   at  72,  32 bytes
	// string table at 104,   5 bytes
	// padding      at 109,   3 bytes
	// index data   at 112,  12 bytes
	// padding      at 124,   4 bytes
	// vertex data  at 128, 336 bytes
	// vertices ok: true
}
