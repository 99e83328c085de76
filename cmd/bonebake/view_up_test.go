package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// viewOne starts view with args, decodes its one asset from /api/assets into
// asset (a struct of the fields a test reads) and returns the server's base
// URL, which serves until the test ends.
func viewOne(t *testing.T, asset any, args ...string) string {
	t.Helper()
	base, _, stop := startView(t, append(args, "--addr", "127.0.0.1:0")...)
	t.Cleanup(func() { stop() })
	code, body := fetch(t, base+"api/assets")
	var list struct{ Assets []json.RawMessage }
	if code != 200 || json.Unmarshal(body, &list) != nil || len(list.Assets) != 1 || json.Unmarshal(list.Assets[0], asset) != nil {
		t.Fatalf("/api/assets: %d %s", code, body)
	}
	return base
}

// viewedAsset starts view with args and returns its one asset's bone names,
// clip names and frame 0's palette.
func viewedAsset(t *testing.T, args ...string) (bones, clips []string, frame0 []float32) {
	t.Helper()
	var a struct {
		BoneNames []string `json:"bone_names"`
		Clips     []struct{ Name string }
	}
	base := viewOne(t, &a, args...)
	for _, c := range a.Clips {
		clips = append(clips, c.Name)
	}
	code, pal := fetch(t, base+"api/assets/0/palette")
	if code != 200 || len(pal) < len(a.BoneNames)*64 {
		t.Fatalf("palette: %d, %d bytes", code, len(pal))
	}
	frame0 = make([]float32, len(a.BoneNames)*16)
	for i := range frame0 {
		frame0[i] = math.Float32frombits(binary.LittleEndian.Uint32(pal[4*i:]))
	}
	return a.BoneNames, clips, frame0
}

// view takes --up as bake does (bvh.md §4): a_biped_walk.bvh is +Z up, found
// from its skeleton, which stands its hips 1 m up (+Y); told +Y, the file is
// not turned and the hips stand 1 m along +Z, as the file has them. A BVH
// model takes --clips as bake's does. A value that is no axis is a usage error.
func TestViewUpAndBVHClips(t *testing.T) {
	biped := testfiles.Path(t, "bvh", "a_biped_walk.bvh")
	hips := func(bones []string, p []float32) [3]float32 {
		j := slices.Index(bones, "hips")
		if j < 0 {
			t.Fatalf("no hips in %v", bones)
		}
		return [3]float32{p[j*16+3], p[j*16+7], p[j*16+11]}
	}
	near := func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-3 }
	bones, _, p := viewedAsset(t, biped)
	if h := hips(bones, p); !near(h[1], 1) || !near(h[2], 0) {
		t.Errorf("found +Z up: hips at %v, want (0, 1, 0)", h)
	}
	bones, _, p = viewedAsset(t, biped, "--up", "+Y")
	if h := hips(bones, p); !near(h[1], 0) || !near(h[2], 1) {
		t.Errorf("--up +Y: hips at %v, want (0, 0, 1)", h)
	}
	again := filepath.Join(t.TempDir(), "again.bvh")
	if b, err := os.ReadFile(biped); err != nil || os.WriteFile(again, b, 0o644) != nil {
		t.Fatal(err)
	}
	_, clips, _ := viewedAsset(t, biped, "--clips", again, "--up", "+Z")
	if !slices.Equal(clips, []string{"a_biped_walk", "again"}) {
		t.Errorf("view a_biped_walk.bvh --clips again.bvh: clips %v", clips)
	}
	if code, _, errOut := bonebake(t, "view", biped, "--up", "sideways"); code != 2 || !strings.Contains(errOut, "--up") {
		t.Errorf("--up sideways: exit %d, %q", code, errOut)
	}
}

// The page shows a model's warnings as bake prints them: worded with the
// command's flags, not the library's setting names (a BVH's note names the up
// axis and the scale; TestLibraryProseNamesFlags keeps the library's side).
func TestViewWarningsNameFlags(t *testing.T) {
	var a struct {
		Warning string
		Notes   []string
	}
	viewOne(t, &a, testfiles.Path(t, "bvh", "a_biped_walk.bvh"))
	all := a.Warning + " " + strings.Join(a.Notes, " ")
	if !strings.Contains(all, "--up") || !strings.Contains(all, "--scale") || strings.Contains(all, "Settings.") || strings.Contains(all, "Options.") {
		t.Errorf("the page's warning and notes: %q, want --up and --scale named, no setting names", all)
	}
}
