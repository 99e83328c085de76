package gltfbake

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/source/gltf"
)

// sharedModel returns the path of a test model (see internal/testfiles).
func sharedModel(t testing.TB, name string) string { return testfiles.Path(t, "gltf", name) }

var models = []string{"Fox.glb", "CesiumMan.gltf", "RiggedSimple.gltf", "SimpleSkin.gltf"}

// TestGLTFPalettesMatchReference bakes each model at 30 and 60 fps, looping and
// one-shot, and compares every palette with the independent float64 evaluator in
// internal/gltfref at the docs/formats/bpat.md §5 frame times, counted from each
// animation's first key (docs/formats/gltf.md §3), and each clip's fps with the
// rate that plays its frames in the animation's length.
func TestGLTFPalettesMatchReference(t *testing.T) {
	for _, name := range models {
		path := sharedModel(t, name)
		m, err := gltf.Load(path, gltf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := gltfref.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		// Translations are compared relative to the skeleton's size.
		size := skeletonSize(ref.Palette(0, -1, 0))
		for _, fps := range []float64{30, 60} {
			for _, loops := range []bool{true, false} {
				r, names, motions := Source(m)
				mf := Manifest{FPS: fps, Loops: &loops}
				job, err := mf.Job(r, names, motions)
				if err != nil {
					t.Fatal(err)
				}
				out, err := bake.Bake(job)
				if err != nil {
					t.Fatal(err)
				}
				anims := ref.Animations()
				if len(out.Clips) != len(anims) {
					t.Fatalf("%s: %d clips, reference has %d animations", name, len(out.Clips), len(anims))
				}
				worst := 0.0
				for ci, a := range anims {
					d := a.Duration - a.Start
					times := gltfref.FrameTimes(d, fps, loops)
					frames := len(out.Palettes[ci]) / (len(names) * 16)
					if frames != len(times) {
						t.Fatalf("%s %s fps %v loops %v: %d frames, want %d", name, a.Name, fps, loops, frames, len(times))
					}
					intervals := float64(frames)
					if !loops {
						intervals--
					}
					if got := float64(out.Clips[ci].FPS) * d; math.Abs(got-intervals) > 1e-5*intervals {
						t.Errorf("%s %s fps %v loops %v: fps %v plays %d frames in %v s, not the animation's %v s", name, a.Name, fps, loops, out.Clips[ci].FPS, frames, intervals/float64(out.Clips[ci].FPS), d)
					}
					for f, tm := range times {
						tm += a.Start
						want := ref.Palette(0, ci, tm)
						got := out.Palettes[ci][f*len(names)*16:]
						for b := range want {
							for k := 0; k < 16; k++ {
								d := math.Abs(float64(got[b*16+k]) - want[b][k])
								if k == 3 || k == 7 || k == 11 {
									d /= size
								}
								worst = max(worst, d)
								if d > 1e-4 {
									t.Fatalf("%s %q fps %v loops %v frame %d (t=%v) bone %d element %d: got %v, want %v", name, a.Name, fps, loops, f, tm, b, k, got[b*16+k], want[b][k])
								}
							}
						}
					}
				}
				t.Logf("%s fps %v loops %v: worst difference %.2g", name, fps, loops, worst)
			}
		}
	}
}

// skeletonSize is the largest distance of a joint from the origin (at least 1e-3).
func skeletonSize(palette [][16]float64) float64 {
	s := 1e-3
	for _, m := range palette {
		s = max(s, math.Sqrt(m[3]*m[3]+m[7]*m[7]+m[11]*m[11]))
	}
	return s
}
