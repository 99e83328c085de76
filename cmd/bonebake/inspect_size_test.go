package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// inspect MODEL says the model's size and bake's hint as bake says them: the
// Fox is modelled in centimetres (about 79 tall, 155 long), so inspect prints
// the size of bake's summary line and bake's hint, word for word; its --json
// has the box (rest_bounds, the viewer's key) and the hint. CesiumMan (about
// 1.5 m) and a Mixamo FBX character (the Y Bot, about 1.8 m) are in metres:
// a size and no hint.
func TestInspectModelSize(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	code, out, errOut := bonebake(t, "inspect", fox)
	if code != 0 {
		t.Fatalf("inspect Fox: %d %s", code, errOut)
	}
	code, bakeOut, bakeErr := bonebake(t, "bake", fox, "-o", filepath.Join(t.TempDir(), "fox.bpat"))
	if code != 0 {
		t.Fatalf("bake Fox: %d %s", code, bakeErr)
	}
	size := regexp.MustCompile(`(?m)model (\d.*?), in \d[^,]*$`).FindStringSubmatch(bakeOut)
	hint := regexp.MustCompile(`(?m)^hint: .*$`).FindString(bakeErr)
	if size == nil || !strings.HasPrefix(size[1], "79 m tall") || !strings.Contains(hint, "155 m across looks like centimetres: --scale 0.01") {
		t.Fatalf("bake Fox says %q, %q", size, hint)
	}
	if !strings.Contains(out, "\nsize at rest, as bake takes it: "+size[1]+"\n"+hint+"\n") {
		t.Errorf("inspect Fox does not say bake's size %q and hint %q:\n%s", size[1], hint, out)
	}
	code, out, errOut = bonebake(t, "inspect", fox, "--json")
	var info struct {
		RestBounds *[2][3]float64 `json:"rest_bounds"`
		Hint       *string
	}
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil || info.RestBounds == nil || info.Hint == nil {
		t.Fatalf("inspect Fox --json: %d %s%s", code, out, errOut)
	}
	if b := info.RestBounds; b[1][1]-b[0][1] < 78 || b[1][1]-b[0][1] > 80 || b[1][2]-b[0][2] < 150 || b[1][2]-b[0][2] > 160 || "hint: "+*info.Hint != hint {
		t.Errorf("inspect Fox --json: rest_bounds %v, hint %q", b, *info.Hint)
	}
	for _, c := range []struct {
		path   string
		lo, hi float64
	}{
		{sharedModel(t, "CesiumMan.gltf"), 1.4, 1.6},
		{testfiles.Path(t, "fbx", "mixamo.fbx"), 1.7, 1.9},
	} {
		code, out, _ := bonebake(t, "inspect", c.path)
		m := regexp.MustCompile(`(?m)^size at rest, as bake takes it: ([\d.]+) m tall along \+y`).FindStringSubmatch(out)
		if code != 0 || m == nil || strings.Contains(out, "hint:") {
			t.Errorf("inspect %s: %d\n%s", c.path, code, out)
			continue
		}
		code, out, _ = bonebake(t, "inspect", c.path, "--json")
		var info map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &info) != nil || info["rest_bounds"] == nil || info["hint"] != nil {
			t.Errorf("inspect %s --json: %d rest_bounds %v hint %v", c.path, code, info["rest_bounds"], info["hint"])
			continue
		}
		b := info["rest_bounds"].([]any)
		if h := b[1].([]any)[1].(float64) - b[0].([]any)[1].(float64); h < c.lo || h > c.hi {
			t.Errorf("inspect %s --json: %.3g m tall, want %g to %g", c.path, h, c.lo, c.hi)
		}
	}
}

// inspect MODEL names each clip as bake will: a Mixamo FBX character's take
// name "mixamo.com" and a Blender-exported Mixamo file's
// "Armature|mixamo.com|Layer0" bake after their files (mixamo, ybot), which
// inspect says beside the file's own name; the Soldier's named clips bake as
// they are, with no such word. The names are the BPAT's own, read back.
func TestInspectClipNamesAsBaked(t *testing.T) {
	for _, c := range []struct{ path, take string }{
		{testfiles.Path(t, "fbx", "mixamo.fbx"), "mixamo.com"},
		{sharedModel(t, "mixamo-clips/ybot.glb"), "Armature|mixamo.com|Layer0"},
		{sharedModel(t, "threejs/Soldier.glb"), ""},
	} {
		out := filepath.Join(t.TempDir(), "m.bpat")
		if code, _, errOut := bonebake(t, "bake", c.path, "-o", out); code != 0 {
			t.Fatalf("bake %s: %d %s", c.path, code, errOut)
		}
		var bpat struct{ Clips []struct{ Name string } }
		code, js, errOut := bonebake(t, "inspect", out, "--json")
		if code != 0 || json.Unmarshal([]byte(js), &bpat) != nil || len(bpat.Clips) == 0 {
			t.Fatalf("inspect %s --json: %d %s", out, code, errOut)
		}
		code, text, errOut := bonebake(t, "inspect", c.path)
		if code != 0 {
			t.Fatalf("inspect %s: %d %s", c.path, code, errOut)
		}
		for _, clip := range bpat.Clips {
			switch {
			case c.take != "" && !strings.Contains(text, c.take+" (bakes as "+clip.Name+")"):
				t.Errorf("inspect %s does not say %q bakes as %s:\n%s", c.path, c.take, clip.Name, text)
			case c.take == "" && (!regexp.MustCompile(`(?m)^\s+\d+\s+`+regexp.QuoteMeta(clip.Name)+`\s`).MatchString(text) || strings.Contains(text, "bakes as")):
				t.Errorf("inspect %s does not list clip %s as it is:\n%s", c.path, clip.Name, text)
			}
		}
	}
}
