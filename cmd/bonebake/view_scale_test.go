package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// viewedSize starts view with args and returns its one asset's warning and
// the height (along +y) of its rest bounds.
func viewedSize(t *testing.T, args ...string) (warning string, height float32) {
	t.Helper()
	var a struct {
		Warning    string
		RestBounds *[2][3]float32 `json:"rest_bounds"`
	}
	viewOne(t, &a, args...)
	if a.RestBounds == nil {
		t.Fatal("/api/assets: no rest_bounds")
	}
	return a.Warning, a.RestBounds[1][1] - a.RestBounds[0][1]
}

// view takes --scale as bake does, and the page shows the size hint bake
// prints: the Fox is modelled in centimetres (about 79 tall, 155 long), so
// unscaled it is drawn 79 m tall with the hint, and with --scale 0.01 it
// stands 0.79 m with none. --scale where no model is given, or a scale that
// is none, is a usage error naming the flag.
func TestViewScaleAndSizeHint(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	warning, h := viewedSize(t, fox)
	if h < 75 || h > 83 || !strings.Contains(warning, "155 m across looks like centimetres: --scale 0.01 bakes it in metres") {
		t.Errorf("view Fox.glb: %.3g m tall, warning %q; want 79 m and the centimetre hint naming --scale", h, warning)
	}
	warning, h = viewedSize(t, fox, "--scale", "0.01")
	if h < 0.75 || h > 0.83 || strings.Contains(warning, "looks like") {
		t.Errorf("view Fox.glb --scale 0.01: %.3g m tall, warning %q; want 0.79 m and no hint", h, warning)
	}
	bpat := filepath.Join(t.TempDir(), "fox.bpat")
	if code, _, errOut := bonebake(t, "bake", fox, "-o", bpat, "--scale", "0.01"); code != 0 {
		t.Fatalf("bake: %d %s", code, errOut)
	}
	for _, args := range [][]string{
		{"view", "--scale", "0.01"},
		{"view", bpat, "--scale", "0.01"},
		{"view", fox, "--scale", "-1"},
		{"view", fox, "--scale", "0"},
	} {
		if code, _, errOut := bonebake(t, args...); code != 2 || !strings.Contains(errOut, "--scale") {
			t.Errorf("%q: exit %d, %q; want a usage error naming --scale", args, code, errOut)
		}
	}
}

// view takes --plant-feet, --face and --in-place as bake does: the palettes
// the page gets for Fox.glb --scale 0.01 --plant-feet (its Walk and Run
// planted), for Soldier.glb --face -z (turned a half turn) and for
// a_biped_walk.bvh --plant-feet --in-place (its root's travel taken out) are
// those of the BPAT bake writes with the same flags, and differ from the bake's without the last
// flag. Given only a .bpat, or no model, the flag is a usage error naming it.
func TestViewPlantFeetAndFace(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		model       string
		given, flag []string
	}{
		{sharedModel(t, "Fox.glb"), []string{"--scale", "0.01"}, []string{"--plant-feet"}},
		{sharedModel(t, "threejs/Soldier.glb"), nil, []string{"--face", "-z"}},
		{testfiles.Path(t, "bvh", "a_biped_walk.bvh"), []string{"--plant-feet"}, []string{"--in-place"}},
	} {
		out := filepath.Join(dir, "m.bpat")
		baked := func(flags ...string) []byte {
			if code, _, errOut := bonebake(t, append([]string{"bake", c.model, "-o", out}, flags...)...); code != 0 {
				t.Fatalf("bake %s %q: %d %s", c.model, flags, code, errOut)
			}
			f, err := bpat.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			return bytes.Clone(f.PaletteBytes())
		}
		flags := append(slices.Clone(c.given), c.flag...)
		plain, want := baked(c.given...), baked(flags...)
		var a struct{ Name string }
		base := viewOne(t, &a, append([]string{c.model}, flags...)...)
		code, got := fetch(t, base+"api/assets/0/palette")
		if code != 200 || !bytes.Equal(got, want) || bytes.Equal(got, plain) {
			t.Errorf("view %s %q: palette of %d bytes (status %d), bake's with %s: %v, bake's without: %v; want bake's with it only",
				c.model, flags, len(got), code, c.flag[0], bytes.Equal(got, want), bytes.Equal(got, plain))
		}
		for _, args := range [][]string{append([]string{"view"}, c.flag...), append([]string{"view", out}, c.flag...)} {
			if code, _, errOut := bonebake(t, args...); code != 2 || !strings.Contains(errOut, c.flag[0]) {
				t.Errorf("%q: exit %d, %q; want a usage error naming %s", args, code, errOut, c.flag[0])
			}
		}
	}
}

// TestViewSaysTheHintInTheTerminal: view prints a model's size hint on stderr,
// as bake and bat do, not only on the page (issue 45 round 4, item 1: `view
// Fox.glb` drew a 79 m fox and said nothing where it was started).
func TestViewSaysTheHintInTheTerminal(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	_, errOut, stop := startView(t, fox)
	stop()
	want := "bonebake view: " + fox + ": 155 m across looks like centimetres: --scale 0.01 bakes it in metres\n"
	if !strings.Contains(errOut.String(), want) {
		t.Errorf("view Fox.glb: stderr %q; want %q", errOut.String(), want)
	}
	_, errOut, stop = startView(t, fox, "--scale", "0.01")
	stop()
	if strings.Contains(errOut.String(), "looks like") {
		t.Errorf("view Fox.glb --scale 0.01: stderr %q; want no hint", errOut.String())
	}
}
