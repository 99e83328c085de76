package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
)

type inspectGaits struct {
	GaitSidecar string `json:"gait_sidecar"`
	Clips       []struct {
		Name              string   `json:"name"`
		Cycle             float64  `json:"cycle"`
		GroundSpeed       *float64 `json:"ground_speed"`
		GroundSpeedSource string   `json:"ground_speed_source"`
	} `json:"clips"`
	Warnings []string `json:"warnings"`
}

// TestInspectShowsGaits: a walker whose planted feet slide back at exactly
// 1.4 m/s over a 1 s cycle (written as raw glTF by testfiles, not by bonebake),
// baked as species 0 with its clip named walk: inspect --json gives the
// sidecar's measured gait (1 s, 1.4 m/s within 2 %); without the sidecar, the
// humanoid table's walk (0.92 s, 1.4 m/s, "table"); a broken sidecar is a warning.
func TestInspectShowsGaits(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(manifest, []byte("clips:\n  - name: walk\n    source: Walk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "walker.bpat")
	if code, _, errOut := bonebake(t, "bake", testfiles.WalkerGLTF(t, false), "-o", out, "--manifest", manifest, "--species-id", "0"); code != 0 {
		t.Fatalf("bake: exit %d: %s", code, errOut)
	}
	inspect := func() inspectGaits {
		t.Helper()
		code, stdout, errOut := bonebake(t, "inspect", out, "--json")
		var r inspectGaits
		if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 || len(r.Clips) != 1 || r.Clips[0].Name != "walk" {
			t.Fatalf("inspect --json: exit %d, %v: %s%s", code, err, stdout, errOut)
		}
		return r
	}
	r, c := inspect(), 0
	w := r.Clips[c]
	if r.GaitSidecar != gait.SidecarPath(out) || w.GroundSpeedSource != "measured" || w.GroundSpeed == nil ||
		math.Abs(*w.GroundSpeed-testfiles.WalkerSpeed) > 0.02*testfiles.WalkerSpeed || math.Abs(w.Cycle-1) > 1e-6 {
		t.Errorf("with the sidecar: %+v, want cycle 1 s, 1.4 m/s measured, from %s", r, gait.SidecarPath(out))
	}
	_, text, _ := bonebake(t, "inspect", out)
	if !strings.Contains(text, "gaits (from "+gait.SidecarPath(out)) || !regexp.MustCompile(`(?m)^\s+0\s+walk\s+1\s+1\.4\d*\s+measured$`).MatchString(text) {
		t.Errorf("inspect text does not show the measured gait:\n%s", text)
	}

	if err := os.Remove(gait.SidecarPath(out)); err != nil {
		t.Fatal(err)
	}
	r = inspect()
	w = r.Clips[c]
	if r.GaitSidecar != "" || w.GroundSpeedSource != "table" || w.GroundSpeed == nil || *w.GroundSpeed != 1.4 || w.Cycle != 0.92 {
		t.Errorf("without the sidecar: %+v, want the humanoid table's walk: 0.92 s, 1.4 m/s", r)
	}

	if err := os.WriteFile(gait.SidecarPath(out), []byte(`{"format":"bonebake-gait","version":7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r = inspect(); len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "version 7") || r.Clips[c].GroundSpeedSource != "table" {
		t.Errorf("a broken sidecar: %+v, want a warning and the table's gait", r)
	}
}

// inspect's gait table tells a clip the bake did not trust (the Fox's Run,
// whose paws slide 46 % at any one speed) from one that does not travel (its
// Survey): both play in place, but only the first is a walk without a speed,
// where both read "no ground speed: plays in place" (issue 45 re-check).
func TestInspectUntrustedGait(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fox.bpat")
	if code, so, se := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "--scale", "0.01", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	_, so, se := bonebake(t, "inspect", out, "--species", "6")
	line := func(clip string) string {
		for _, l := range strings.Split(so, "\n") {
			if f := strings.Fields(l); len(f) > 2 && f[1] == clip && strings.Contains(l, "sidecar") {
				return l
			}
		}
		t.Fatalf("no gait line for %s:\n%s%s", clip, so, se)
		return ""
	}
	if l := line("Run"); !strings.Contains(l, "untrusted") {
		t.Errorf("Run: %q does not say its speed was not trusted", l)
	}
	if l := line("Survey"); strings.Contains(l, "untrusted") {
		t.Errorf("Survey: %q", l)
	}
}

// inspect FILE.bpat says which clips bake --plant-feet planted and which
// travel along another axis than +z, from the sidecar: three.js's Soldier
// walks and runs toward -z (gait.md §8), so baked as it is with --plant-feet
// both clips say so, and its Walk that it was planted (its Run, whose feet
// already stand still as authored, is left so: gait.md §7); baked with
// --face -z and without the flag, neither.
func TestInspectGaitPlantedAndToward(t *testing.T) {
	soldier := sharedModel(t, "threejs/Soldier.glb")
	out := filepath.Join(t.TempDir(), "soldier.bpat")
	for _, c := range []struct {
		flags []string
		says  bool
	}{{[]string{"--plant-feet"}, true}, {[]string{"--face", "-z"}, false}} {
		if code, _, errOut := bonebake(t, append([]string{"bake", soldier, "-o", out}, c.flags...)...); code != 0 {
			t.Fatalf("bake %q: %d %s", c.flags, code, errOut)
		}
		code, text, errOut := bonebake(t, "inspect", out, "--species", "6")
		if code != 0 {
			t.Fatalf("inspect: %d %s", code, errOut)
		}
		for _, clip := range []string{"Walk", "Run"} {
			line := regexp.MustCompile(`(?m)^\s+\d+\s+` + clip + `\s+[\d.]+\s+[\d.]+\s+measured.*$`).FindString(text)
			planted := strings.Contains(line, "feet planted (bake --plant-feet)")
			toward := strings.Contains(line, "travels toward -z, not +z")
			if line == "" || planted != (c.says && clip == "Walk") || toward != c.says {
				t.Errorf("bake %q, inspect's %s gait line %q: planted %v, toward -z %v; want toward -z %v, planted only the Walk", c.flags, clip, line, planted, toward, c.says)
			}
		}
	}
}
