package main

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/gltfref"
)

// TestBakeClips runs issue 41's command, `bake ybot.glb --clips walking.glb
// flair.glb`: one file with ybot's own clip and one per clip file, named after
// the files' animations; the hips (joint 0) at every frame of flair where
// flair.glb itself puts them. A clip file of another body is refused, naming
// the rule and --retarget; the flags' misuse is a usage error.
func TestBakeClips(t *testing.T) {
	ybot, walking, flair := sharedModel(t, "mixamo-clips/ybot.glb"), sharedModel(t, "mixamo-clips/walking.glb"), sharedModel(t, "mixamo-clips/flair.glb")
	out := filepath.Join(t.TempDir(), "ybot.bpat")
	code, stdout, stderr := bonebake(t, "bake", ybot, "--clips", walking, flair, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	f, err := bpat.Open(out, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	for _, c := range f.Clips() {
		names = append(names, c.Name)
	}
	if want := []string{"ybot", "walking", "flair"}; !slices.Equal(names, want) {
		t.Fatalf("clips %q, want %q", names, want)
	}
	ref, err := gltfref.Load(flair)
	if err != nil {
		t.Fatal(err)
	}
	ci := f.ClipIndex("flair")
	c := f.Clips()[ci]
	a := ref.Animations()[0]
	hips := ref.Node("mixamorig:Hips")
	for fr, tm := range gltfref.FrameTimes(a.Duration-a.Start, float64(c.FPS), c.Loops) {
		if fr >= c.FrameCount {
			t.Fatalf("%d frames, want more", c.FrameCount)
		}
		want, got := ref.Global(hips, 0, a.Start+tm), f.Palette(ci, fr)[:16]
		for k := range 12 {
			if d := math.Abs(float64(got[k]) - want[k]); d > 1e-5 {
				t.Fatalf("flair frame %d hips element %d: %v, want %v", fr, k, got[k], want[k])
			}
		}
	}

	code, _, stderr = bonebake(t, "bake", ybot, "--clips", sharedModel(t, "threejs/Xbot.glb"), "-o", out)
	if code != 1 || !strings.Contains(stderr, "clip-fit") || !strings.Contains(stderr, "--retarget") || !strings.Contains(stderr, "Xbot.glb") {
		t.Errorf("Xbot.glb's clips on ybot: exit %d, %s; want 1 and the clip-fit rule, the file and --retarget", code, stderr)
	}
	// view takes --clips alike: the clip file reaches the bake (and is refused).
	code, _, stderr = bonebake(t, "view", ybot, "--clips", sharedModel(t, "threejs/Xbot.glb"), "--addr", "127.0.0.1:0")
	if code != 1 || !strings.Contains(stderr, "clip-fit") {
		t.Errorf("view with Xbot.glb's clips on ybot: exit %d, %s; want 1 and the clip-fit rule", code, stderr)
	}
	for _, args := range [][]string{
		{"view", "--clips", walking},
		{"view", ybot, "--retarget"},
		{"bake", ybot, "--retarget", "-o", out},
		{"bake", "--clips", walking},
		{"bake", "--mot", "x.mot", "--rig", ybot, "--clips", walking},
	} {
		if code, _, stderr := bonebake(t, args...); code != 2 {
			t.Errorf("%q: exit %d (%s), want 2", args, code, stderr)
		}
	}
}

// bake of an animation-only glTF (Mixamo's "without skin" walking.glb) says
// it is one and how to use it, naming --clips, not only that it has no skins.
func TestBakeAnimationOnlyGLTFNamesClips(t *testing.T) {
	walking := sharedModel(t, "mixamo-clips/walking.glb")
	code, _, errOut := bonebake(t, "bake", walking, "-o", filepath.Join(t.TempDir(), "w.bpat"))
	if code != 1 || !strings.Contains(errOut, "no skins, only 1 animation: an animation-only file gives clips to a character with --clips") {
		t.Errorf("bake walking.glb: exit %d, %q; want 1 and a message naming --clips", code, errOut)
	}
}
