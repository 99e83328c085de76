package species

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
)

// swinger is a two-bone test creature whose arm turns about z by 90°·phase.
func swinger(t *testing.T) *Creature {
	sk, err := rig.New([]string{"root", "arm"}, []int{-1, 0}, []rig.Transform{
		rig.IdentityTransform(),
		{Translation: [3]float64{0, 1, 0}, Rotation: rig.Quat{0, 0, 0, 1}, Scale: [3]float64{1, 1, 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	pose := func(phase float64, p []rig.Transform) {
		p[0] = rig.IdentityTransform()
		p[1] = rig.Transform{Translation: [3]float64{0, 1, 0}, Rotation: rig.QuatFromAxisAngle([3]float64{0, 0, 1}, phase*math.Pi/2), Scale: [3]float64{1, 1, 1}}
	}
	return &Creature{ID: 9, Name: "swinger", Skeleton: sk,
		Sockets: []Socket{{Name: "tip", Anchor: 1, Offset: [3]float32{1, 0, 0}}},
		Clips: []Clip{
			{Clip: bake.Clip{Name: "swing", FPS: 4, Loops: false, Markers: bpat.Markers{-1, -1, 0.5, -1, -1}}, Frames: 5, Pose: pose},
			{Clip: bake.Clip{Name: "spin", FPS: 8, Loops: true, Markers: bpat.NoMarkers()}, Frames: 4, Pose: pose},
			{Clip: bake.Clip{Name: "still", FPS: 1, Loops: true, Markers: bpat.NoMarkers()}, Frames: 1, Pose: pose},
		}}
}

func TestBakeSpecies(t *testing.T) {
	out, err := swinger(t).Bake()
	if err != nil {
		t.Fatal(err)
	}
	if out.SpeciesID != 9 || len(out.Clips) != 3 || out.Clips[0].Markers[bpat.Contact] != 0.5 {
		t.Fatalf("contents %+v", out.Clips)
	}
	// Frame counts are the species' own: 5, 4, 1.
	for i, want := range []int{5, 4, 1} {
		if got := len(out.Palettes[i]) / 32; got != want {
			t.Fatalf("clip %d: %d frames, want %d", i, got, want)
		}
	}
	// The one-shot's frame f is at phase f/4: the arm turned by 22.5°·f. Its tip
	// socket (one unit along the arm's x) is at (cos, 1 + sin) of that angle.
	for f := 0; f < 5; f++ {
		a := float64(f) * math.Pi / 8
		m := out.Palettes[0][f*32+16 : f*32+32]
		if math.Abs(float64(m[0])-math.Cos(a)) > 1e-6 || math.Abs(float64(m[4])-math.Sin(a)) > 1e-6 || m[7] != 1 {
			t.Fatalf("frame %d arm matrix %v, want rotation %v°", f, m, a*180/math.Pi)
		}
	}
	// The looping clip's frames are at phases 0, 1/4, 2/4, 3/4 (the end is not stored).
	if m := out.Palettes[1][3*32+16:]; math.Abs(float64(m[0])-math.Cos(3*math.Pi/8)) > 1e-6 {
		t.Fatalf("loop frame 3: %v", m[:4])
	}
}

func TestBakeSpeciesRejectsBadFrames(t *testing.T) {
	s := swinger(t)
	s.Clips[0].Frames = 0
	if _, err := s.Bake(); err == nil {
		t.Fatal("a clip without frames was baked")
	}
}

// TestExportRoundTrip writes a creature as glTF and bakes the file back: the same
// clips, frame counts, fps, loop flags, markers, sockets and palettes (1e-5).
func TestExportRoundTrip(t *testing.T) {
	s := swinger(t)
	direct, err := s.Bake()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"swinger.glb", "swinger.gltf"} {
		path := filepath.Join(t.TempDir(), name)
		if err := gltf.WriteFile(path, s.ExportGLTF()); err != nil {
			t.Fatal(err)
		}
		m, err := gltf.Load(path, gltf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, names, motions := gltfbake.Source(m)
		job, err := gltfbake.ManifestOf(m).Job(r, names, motions)
		if err != nil {
			t.Fatal(err)
		}
		back, err := bake.Bake(job)
		if err != nil {
			t.Fatal(err)
		}
		if back.SpeciesID != 9 || len(back.Sockets) != 1 || back.Sockets[0] != direct.Sockets[0] {
			t.Fatalf("%s: species %d sockets %+v", name, back.SpeciesID, back.Sockets)
		}
		for i, c := range direct.Clips {
			bc := back.Clips[i]
			if bc.Name != c.Name || bc.FPS != c.FPS || bc.Loops != c.Loops || bc.Markers != c.Markers {
				t.Fatalf("%s clip %d: %+v, want %+v", name, i, bc, c)
			}
			if len(back.Palettes[i]) != len(direct.Palettes[i]) {
				t.Fatalf("%s clip %s: %d floats, want %d", name, c.Name, len(back.Palettes[i]), len(direct.Palettes[i]))
			}
			for k, v := range direct.Palettes[i] {
				if math.Abs(float64(back.Palettes[i][k]-v)) > 1e-5 {
					t.Fatalf("%s clip %s float %d: %v, want %v", name, c.Name, k, back.Palettes[i][k], v)
				}
			}
		}
		// The independent reader agrees on the file: rest palette × inverse bind = I.
		ref, err := gltfref.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		rest, ibm := ref.Palette(0, -1, 0), ref.InverseBind(0)
		for b := range rest {
			for r := 0; r < 4; r++ {
				for c := 0; c < 4; c++ {
					v := 0.0
					for k := 0; k < 4; k++ {
						v += rest[b][r*4+k] * ibm[b][k*4+c]
					}
					if want := map[bool]float64{true: 1, false: 0}[r == c]; math.Abs(v-want) > 1e-6 {
						t.Fatalf("%s bone %d: rest × inverse bind [%d][%d] = %v", name, b, r, c, v)
					}
				}
			}
		}
	}
}
