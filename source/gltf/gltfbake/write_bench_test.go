package gltfbake

import (
	"fmt"
	"path/filepath"
	"strings"
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

// BenchmarkPlantFeet is bake MODEL --plant-feet as the command line runs it,
// loading included (the feet are planted as the model loads), beside the same
// bake without planting: what locking the feet costs (docs/formats/gait.md §7).
func BenchmarkPlantFeet(b *testing.B) {
	for _, name := range []string{"threejs/Xbot.glb", "threejs/Soldier.glb", "Fox.glb", "CesiumMan.gltf", "threejs/RobotExpressive.glb"} {
		path := sharedModel(b, name)
		out := filepath.Join(b.TempDir(), "model.bpat")
		for _, plant := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/planted=%v", strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)), plant), func(b *testing.B) {
				for b.Loop() {
					m, err := Load(path, Settings{PlantFeet: plant})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := m.WriteFiles(out, Output{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
