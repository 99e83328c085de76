package bpat_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/species/creatures"
)

// humanoidPath bakes the built-in humanoid into a temporary folder, as 'bonebake
// bake' does, and returns the file's path and a function that removes it.
func humanoidPath() (string, func()) {
	dir, err := os.MkdirTemp("", "creatures")
	if err != nil {
		log.Fatal(err)
	}
	b, err := creatures.ByName("humanoid").Bytes()
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(dir, "humanoid.bpat")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		log.Fatal(err)
	}
	return path, func() { os.RemoveAll(dir) }
}

// Example_readme is the README's "reading a file".
func Example_readme() {
	path, remove := humanoidPath() // assets/creatures/humanoid.bpat, as 'bonebake bake' writes it
	defer remove()

	f, err := bpat.Open(path) // maps and validates; no palette copy
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	walk := f.ClipIndex("walk") // O(1); do it once, off the hot path
	palette := make([]float32, f.BoneCount()*bpat.FloatsPerBone)
	p := f.Sample(walk, 0.25, palette, nil) // blend two frames, no allocation
	gpu := f.PaletteBytes()                 // upload as an RGBA32F texture
	fmt.Printf("%d bones, %d clips; walk at 0.25: frames %d→%d, lerp %.2f; %d palette bytes\n",
		f.BoneCount(), len(f.Clips()), p.Frame, p.Next, p.Lerp, len(gpu))
	// Output: 20 bones, 25 clips; walk at 0.25: frames 6→7, lerp 0.00; 934400 palette bytes
}
