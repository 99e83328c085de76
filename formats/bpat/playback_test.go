package bpat

import (
	"math"
	"testing"
)

func TestResolve(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		frames int
		loops  bool
		phase  float64
		want   Playback
	}{
		// Looping, N = 4: frames at phases 0, .25, .5, .75; the last blends into 0.
		{4, true, 0, Playback{0, 1, 0}},
		{4, true, 0.125, Playback{0, 1, 0.5}},
		{4, true, 0.75, Playback{3, 0, 0}},
		{4, true, 0.875, Playback{3, 0, 0.5}},
		{4, true, 1, Playback{0, 1, 0}},
		{4, true, 1.25, Playback{1, 2, 0}},
		{4, true, 2.5, Playback{2, 3, 0}},
		{4, true, -0.25, Playback{3, 0, 0}},
		{4, true, -1, Playback{0, 1, 0}},
		{4, true, -0.125, Playback{3, 0, 0.5}},
		{4, true, nan, Playback{0, 1, 0}},
		{4, true, math.Inf(1), Playback{0, 1, 0}},
		{2, true, 0.75, Playback{1, 0, 0.5}},
		// One-shot, N = 5: frames at phases 0, .25, .5, .75, 1 (the end pose is stored).
		{5, false, 0, Playback{0, 1, 0}},
		{5, false, 0.5, Playback{2, 3, 0}},
		{5, false, 0.625, Playback{2, 3, 0.5}},
		{5, false, 0.875, Playback{3, 4, 0.5}},
		{5, false, 1, Playback{4, 4, 0}},
		{5, false, 1.5, Playback{4, 4, 0}},
		{5, false, 7, Playback{4, 4, 0}},
		{5, false, -0.3, Playback{0, 1, 0}},
		{5, false, nan, Playback{0, 1, 0}},
		{5, false, math.Inf(-1), Playback{0, 1, 0}},
		{2, false, 0.5, Playback{0, 1, 0.5}},
		// N = 1 never moves.
		{1, true, 0, Playback{0, 0, 0}},
		{1, true, 0.6, Playback{0, 0, 0}},
		{1, false, 1, Playback{0, 0, 0}},
		{1, false, -2, Playback{0, 0, 0}},
	}
	for _, tc := range cases {
		got := Resolve(tc.phase, tc.frames, tc.loops)
		if got != tc.want {
			t.Errorf("Resolve(%v, %d, loops=%v) = %+v, want %+v", tc.phase, tc.frames, tc.loops, got, tc.want)
		}
	}
	// Near the end of a one-shot: pos = .99·4 = 3.96.
	if p := Resolve(0.99, 5, false); p.Frame != 3 || p.Next != 4 || math.Abs(float64(p.Lerp)-0.96) > 1e-6 {
		t.Errorf("Resolve(.99, 5, one-shot) = %+v", p)
	}
}

// TestResolveStaysInRange sweeps phases finely: frames stay in range and lerp in [0,1].
func TestResolveStaysInRange(t *testing.T) {
	for _, n := range []int{1, 2, 3, 24, 72} {
		for _, loops := range []bool{true, false} {
			for i := -3000; i <= 3000; i++ {
				p := Resolve(float64(i)/997, n, loops)
				if p.Frame < 0 || p.Frame >= n || p.Next < 0 || p.Next >= n || p.Lerp < 0 || p.Lerp > 1 {
					t.Fatalf("n=%d loops=%v phase=%v: %+v", n, loops, float64(i)/997, p)
				}
			}
		}
	}
}

// sampleFile has one bone and one socket; every palette float of frame f equals f,
// and the socket data floats of frame f equal 10·f (given explicitly).
func sampleFile(t testing.TB, frames int, loops bool) *File {
	pal := make([]float32, frames*16)
	soc := make([]float32, frames*12)
	for f := 0; f < frames; f++ {
		for i := 0; i < 16; i++ {
			pal[f*16+i] = float32(f)
		}
		for i := 0; i < 12; i++ {
			soc[f*12+i] = 10 * float32(f)
		}
	}
	b := write(t, &Contents{BoneCount: 1, Clips: []Clip{{Name: "c", FPS: 24, Loops: loops, Markers: NoMarkers()}},
		Palettes: [][]float32{pal}, Sockets: []Socket{{Name: "s"}}, SocketData: [][]float32{soc}})
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSample(t *testing.T) {
	f := sampleFile(t, 4, true)
	pal := make([]float32, 16)
	soc := make([]float32, 12)
	// Phase .9375 → pos 3.75 → frames 3 and 0, lerp .75: 3 + (0−3)·.75 = .75.
	p := f.Sample(0, 0.9375, pal, soc)
	if p != (Playback{3, 0, 0.75}) {
		t.Fatalf("playback %+v", p)
	}
	for i := range pal {
		if pal[i] != 0.75 {
			t.Fatalf("palette[%d] = %v, want .75", i, pal[i])
		}
	}
	for i := range soc {
		if soc[i] != 7.5 {
			t.Fatalf("sockets[%d] = %v, want 7.5", i, soc[i])
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { f.Sample(0, 0.3, pal, soc) }); allocs != 0 {
		t.Fatalf("Sample allocates %v times", allocs)
	}
	// One-shot at phase 1 holds the stored end pose.
	g := sampleFile(t, 5, false)
	g.Sample(0, 1, pal, nil)
	if pal[0] != 4 {
		t.Fatalf("one-shot end = %v, want 4", pal[0])
	}
}
