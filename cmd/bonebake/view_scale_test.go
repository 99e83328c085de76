package main

import (
	"path/filepath"
	"strings"
	"testing"
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
