package bpat

import (
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/formats/internal/formattest"
)

// benchFile writes a 20-bone, 3-socket file of about size bytes and returns its path.
func benchFile(b *testing.B, size int) string {
	const bones = 20
	frames := size / (bones*64 + 3*48)
	c := &Contents{SpeciesID: 0, BoneCount: bones,
		Sockets: []Socket{{"hand_r", 13, [3]float32{}}, {"head", 5, [3]float32{}}, {"back", 3, [3]float32{0, .1, -.12}}}}
	per := frames / 25
	for i := 0; i < 25; i++ {
		c.Clips = append(c.Clips, Clip{Name: "clip" + string(rune('a'+i)), FPS: 24, Loops: i%2 == 0, Markers: NoMarkers()})
		c.Palettes = append(c.Palettes, make([]float32, per*bones*16))
	}
	path := filepath.Join(b.TempDir(), "bench.bpat")
	if err := WriteFile(path, c); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkOpen maps, validates (strictly) and closes a file. With the float scan
// the palette and socket data are read once, at memory speed; without it
// (formats.SkipFloatScan) they are never touched and the time does not grow with the
// file.
func BenchmarkOpen(b *testing.B) {
	formattest.BenchOpen(b, Open, benchFile, 64<<10, 256<<20)
}

func BenchmarkPalette(b *testing.B) {
	f := sampleFile(b, 24, true)
	var sink float32
	i := 0
	for b.Loop() {
		sink += f.Palette(0, i%24)[0]
		i++
	}
	_ = sink
}

func BenchmarkResolve(b *testing.B) {
	p := 0.0
	var sink int
	for b.Loop() {
		r := Resolve(p, 24, true)
		sink += r.Frame
		p += 0.013
	}
	_ = sink
}

// BenchmarkSample20Bones blends two frames of a 20-bone palette (and 10 sockets).
func BenchmarkSample20Bones(b *testing.B) {
	c := &Contents{BoneCount: 20, Clips: []Clip{{Name: "walk", FPS: 24, Loops: true, Markers: NoMarkers()}},
		Palettes: [][]float32{make([]float32, 24*20*16)}}
	for i := 0; i < 10; i++ {
		c.Sockets = append(c.Sockets, Socket{Name: "s" + string(rune('0'+i)), Anchor: i})
	}
	f, err := Parse(write(b, c))
	if err != nil {
		b.Fatal(err)
	}
	pal, soc := make([]float32, 20*16), make([]float32, 10*12)
	for _, run := range []struct {
		name    string
		sockets []float32
	}{{"palette", nil}, {"palette+sockets", soc}} {
		b.Run(run.name, func(b *testing.B) {
			p := 0.0
			for b.Loop() {
				f.Sample(0, p, pal, run.sockets)
				p += 0.013
			}
		})
	}
}
