package bake

import (
	"math"
	"testing"

	"bonebake/format/bpat"
	"bonebake/rig"
	"bonebake/species"
)

// swinger is a two-bone test creature whose arm turns about z by 90°·phase.
func swinger(t *testing.T) *species.Species {
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
	return &species.Species{ID: 9, Name: "swinger", Skeleton: sk,
		Sockets: []species.Socket{{Name: "tip", Bone: 1, Offset: [3]float32{1, 0, 0}}},
		Clips: []species.Clip{
			{Name: "swing", Frames: 5, FPS: 4, Loops: false, Markers: bpat.Markers{-1, -1, 0.5, -1, -1}, Pose: pose},
			{Name: "spin", Frames: 4, FPS: 8, Loops: true, Markers: bpat.NoMarkers(), Pose: pose},
			{Name: "still", Frames: 1, FPS: 1, Loops: true, Markers: bpat.NoMarkers(), Pose: pose},
		}}
}

func TestBakeSpecies(t *testing.T) {
	out, err := Species(swinger(t))
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
	if _, err := Species(s); err == nil {
		t.Fatal("a clip without frames was baked")
	}
}
