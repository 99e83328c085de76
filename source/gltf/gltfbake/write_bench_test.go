package gltfbake

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkWriteFilesFox is the fox's whole bake as bake Fox.glb writes it
// (the BPAT and its gait sidecar, one set) at 30 fps, the default, and at
// 2000 fps: what the command line's bake of a model costs past loading it.
func BenchmarkWriteFilesFox(b *testing.B) {
	path := sharedModel(b, "Fox.glb")
	for _, fps := range []float64{30, 2000} {
		m, err := Load(path, Settings{FPS: fps})
		if err != nil {
			b.Fatal(err)
		}
		out := filepath.Join(b.TempDir(), "fox.bpat")
		b.Run(fmt.Sprintf("fps=%v", fps), func(b *testing.B) {
			for b.Loop() {
				if _, err := m.WriteFiles(out, Output{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
