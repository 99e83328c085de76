package gait

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doc is the example of docs/formats/gait.md, written by hand.
const doc = `{
  "format": "bonebake-gait",
  "version": 1,
  "bpat": "fox.bpat",
  "units": "m",
  "feet": ["b_LeftFoot02_018", "b_RightFoot02_022"],
  "feet_from": "name",
  "root_bone": "b_Hip_01",
  "clips": [
    {"name": "Survey", "cycle": 3.4167, "status": "no_travel", "confidence": 0, "reason": "no steady travel"},
    {"name": "Walk", "cycle": 0.7083, "ground_speed": 0.94, "ground_speed_source": "measured",
     "status": "measured", "method": "feet", "confidence": 0.95, "stride": 0.666, "direction": [0.6, 0, -0.8]},
    {"name": "Run", "cycle": 1.1583, "ground_speed": 3, "ground_speed_source": "manifest", "status": "untrusted", "confidence": 0.5, "future_key": 1}
  ]
}`

func TestParseDoc(t *testing.T) {
	f, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		name         string
		cycle, speed float64
		source       string
	}{{"Survey", 3.4167, 0, ""}, {"Walk", 0.7083, 0.94, SourceMeasured}, {"Run", 1.1583, 3, SourceManifest}} {
		c, ok := f.Clip(w.name)
		cy, sp := c.Gait()
		if !ok || cy != w.cycle || sp != w.speed || c.GroundSpeedSource != w.source {
			t.Errorf("%s: %+v, want cycle %v speed %v from %q", w.name, c, w.cycle, w.speed, w.source)
		}
	}
	// A direction given is read; none (the Survey, or a sidecar written
	// before the key) is none.
	walk, _ := f.Clip("Walk")
	survey, _ := f.Clip("Survey")
	if x, z, ok := walk.Dir(); !ok || x != 0.6 || z != -0.8 {
		t.Errorf("Walk's direction %v, %v, %v: want 0.6, -0.8", x, z, ok)
	}
	if _, _, ok := survey.Dir(); ok {
		t.Errorf("Survey's direction %v: want none", survey.Direction)
	}
	if _, ok := f.Clip("Jump"); ok {
		t.Error("a clip that is not there was found")
	}
	if f.RootBone != "b_Hip_01" || len(f.Feet) != 2 || f.FeetFrom != "name" {
		t.Errorf("%+v", f)
	}
}

func TestRoundTripAndOpenFor(t *testing.T) {
	dir := t.TempDir()
	bp := filepath.Join(dir, "fox.bpat")
	if got := SidecarPath(bp); got != filepath.Join(dir, "fox.gait.json") {
		t.Fatalf("sidecar path %s", got)
	}
	if f, err := OpenFor(bp); f != nil || err != nil {
		t.Fatalf("no sidecar: %v %v, want nil, nil", f, err)
	}
	in := &File{BPAT: "fox.bpat", Clips: []Clip{{Name: "Walk", Cycle: 0.7, GroundSpeed: 1.4, GroundSpeedSource: SourceMeasured, Status: "measured", Method: "feet", Confidence: 1, Stride: 0.98, Direction: [3]float64{0, 0, -1}}, {Name: "Idle", Cycle: 2, Status: "no_travel"}}}
	if err := WriteFile(SidecarPath(bp), in); err != nil {
		t.Fatal(err)
	}
	out, err := OpenFor(bp)
	if err != nil {
		t.Fatal(err)
	}
	if out.Format != Format || out.Version != Version || out.Units != "m" || len(out.Clips) != 2 || out.Clips[0] != in.Clips[0] || out.Clips[1] != in.Clips[1] {
		t.Errorf("read back %+v", out)
	}
	b, _ := os.ReadFile(SidecarPath(bp))
	if !strings.Contains(string(b), `"ground_speed": 1.4`) || !strings.HasSuffix(string(b), "}\n") || strings.Count(string(b), `"direction"`) != 1 {
		t.Errorf("%s", b)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"format": "x", "version": 1}`, "format"},
		{`{"format": "bonebake-gait", "version": 2}`, "version 2"},
		{`{"format": "bonebake-gait", "version": 1, "clips": [{"name": "a", "cycle": 0}]}`, "cycle"},
		{`{"format": "bonebake-gait", "version": 1, "clips": [{"name": "a", "cycle": 1}, {"name": "a", "cycle": 1}]}`, "second clip"},
		{`{"format": "bonebake-gait", "version": 1, "clips": [{"name": "a", "cycle": 1, "ground_speed": -1}]}`, "ground_speed"},
		{`{"format": "bonebake-gait", "version": 1, "clips": [{"name": "a", "cycle": 1, "ground_speed": 1}]}`, "ground_speed_source"},
		{`{"format": "bonebake-gait", "version": 1, "clips": [{"name": "a", "cycle": 1, "direction": [0, 0, 2]}]}`, "direction"},
		{`{"format": "bonebake-gait", "version": 1, "clips": [{"name": "a", "cycle": 1, "direction": [0, 1, 0]}]}`, "direction"},
		{`{"format": "bonebake-gait", "version": 1, "clips": [{"name": "a", "cycle": 1, "direction": [0.6, 0.1, 0.8]}]}`, "direction"},
		{`{"format": "bonebake-gait"`, "gait:"},
	} {
		if _, err := Parse([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %s", c.json, err, c.want)
		}
	}
}

// TestWriteRefusesBreakingRules: a sidecar that breaks a rule of §1 (a cycle
// or a stride that is not finite: what a manifest's cycle: 1e308 once gave,
// refused by encoding/json with only "json: unsupported value: +Inf") is not
// written, and the error names the file, the clip, the key and the rule; the
// old sidecar stays.
func TestWriteRefusesBreakingRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fox.gait.json")
	os.WriteFile(path, []byte("old"), 0o644)
	inf := math.Inf(1)
	for _, c := range []struct {
		clip Clip
		key  string
	}{
		{Clip{Name: "Walk", Cycle: inf, Status: "measured"}, "cycle"},
		{Clip{Name: "Walk", Cycle: 1, GroundSpeed: 1e308, GroundSpeedSource: SourceManifest, Stride: inf}, "stride"},
		{Clip{Name: "Walk", Cycle: 1, GroundSpeed: -inf, GroundSpeedSource: SourceManifest}, "ground_speed"},
	} {
		err := WriteFile(path, &File{Clips: []Clip{c.clip}})
		if err == nil {
			t.Errorf("%s: written", c.key)
			continue
		}
		for _, want := range []string{path, `"Walk"`, c.key, "§1"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q does not name %s", c.key, err, want)
			}
		}
		if b, _ := os.ReadFile(path); string(b) != "old" {
			t.Errorf("%s: the old sidecar changed", c.key)
		}
	}
}

// TestTravelsInFrames: only a clip whose ground speed is its root's travel,
// kept in its frames, travels in them (§4); one baked in place, one measured
// from its feet, and one with no speed do not.
func TestTravelsInFrames(t *testing.T) {
	for _, c := range []struct {
		clip Clip
		want bool
	}{
		{Clip{GroundSpeed: 1.2, Method: "root_motion"}, true},
		{Clip{GroundSpeed: 1.2, Method: "root_motion", InPlace: true}, false},
		{Clip{GroundSpeed: 1.2, Method: "feet"}, false},
		{Clip{Method: "root_motion", Status: "untrusted"}, false},
	} {
		if got := c.clip.TravelsInFrames(); got != c.want {
			t.Errorf("%+v: TravelsInFrames %v, want %v", c.clip, got, c.want)
		}
	}
}
