package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/crowd"
)

func TestSimulateJSON(t *testing.T) {
	code, stdout, stderr := bonebake(t, "simulate", "--units", "300", "--seconds", "30", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var fields map[string]any
	if err := json.Unmarshal([]byte(stdout), &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"units", "steps", "step_ns_per_unit_median", "step_ns_per_unit_p99", "attacks_started",
		"hits_landed", "hits_cancelled", "frame_ms_p50", "frame_ms_p99", "species", "kills"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	var res simResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Units != 300 || res.Steps != 1800 {
		t.Errorf("units %d steps %d", res.Units, res.Steps)
	}
	if !(res.StepNsPerUnitMedian > 0) || res.StepNsPerUnitP99 < res.StepNsPerUnitMedian || res.FrameMsP99 < res.FrameMsP50 {
		t.Errorf("timings: %+v", res)
	}
	// In 30 s the armies meet and fight: swings start, land, get cancelled, kill.
	if res.AttacksStarted == 0 || res.HitsLanded == 0 || res.Kills == 0 {
		t.Errorf("no battle: %+v", res)
	}
	if res.HitsLanded+res.HitsCancelled > res.AttacksStarted || res.Kills > res.HitsLanded {
		t.Errorf("counts do not add up: %+v", res)
	}
	total := 0
	for _, n := range res.Species {
		total += n
	}
	if total != 300 || len(res.Species) != 6 {
		t.Errorf("species %v", res.Species)
	}
}

func TestSimulateText(t *testing.T) {
	code, stdout, stderr := bonebake(t, "simulate", "--units", "50", "--seconds", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"ns/unit median", "ns/unit p99", "frame time: p50", "attacks started", "hits landed on contact", "hits cancelled"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

func TestSimulateAssets(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := bonebake(t, "bake", "--out", dir); code != 0 {
		t.Fatalf("bake: %s", stderr)
	}
	code, stdout, stderr := bonebake(t, "simulate", "--units", "40", "--seconds", "1", "--assets", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res simResult
	json.Unmarshal([]byte(stdout), &res)
	if res.Assets != dir || res.Steps != 60 {
		t.Errorf("assets %q, %d steps", res.Assets, res.Steps)
	}
	// A model baked beside the built-ins takes a species id of its own, so it does
	// not break them: simulate is told of it with --species, or says so.
	if code, _, stderr := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", filepath.Join(dir, "fox.bpat")); code != 0 {
		t.Fatalf("bake fox: %s", stderr)
	}
	code, _, stderr = bonebake(t, "simulate", "--units", "40", "--seconds", "1", "--assets", dir)
	if code != 1 || !strings.Contains(stderr, "species id 6") || !strings.Contains(stderr, "--species") || strings.Contains(stderr, "WithSpecies") { // the flag, not the library's option
		t.Errorf("fox without --species: exit %d: %s", code, stderr)
	}
	if code, _, stderr = bonebake(t, "simulate", "--units", "40", "--seconds", "1", "--assets", dir, "--species", "6"); code != 0 {
		t.Errorf("fox with --species 6: exit %d: %s", code, stderr)
	}
	// A file in the wrong slot: refused, naming it.
	bad := filepath.Join(dir, "horse.bpat")
	os.Rename(filepath.Join(dir, "elephant.bpat"), bad)
	code, _, stderr = bonebake(t, "simulate", "--units", "40", "--seconds", "1", "--assets", dir)
	if code != 1 || !strings.Contains(stderr, bad) {
		t.Errorf("wrong slot: exit %d: %s", code, stderr)
	}
}

func TestSimulateUsage(t *testing.T) {
	for _, c := range [][]string{{"simulate", "--units", "1"}, {"simulate", "--seconds", "0"}, {"simulate", "--dt", "2"},
		{"simulate", "extra"}, {"simulate", "--units", "x"}} {
		if code, _, _ := bonebake(t, c...); code != 2 {
			t.Errorf("%v: exit %d, want 2", c, code)
		}
	}
	if code, out, _ := bonebake(t, "simulate", "--help"); code != 0 || !strings.Contains(out, "--assets") {
		t.Errorf("help: exit %d", code)
	}
}

// TestSimulateProgress: a run that lasts longer than its threshold reports its
// steps while it goes and ends on the total, so a terminal's bar fills and clears.
func TestSimulateProgress(t *testing.T) {
	reg, _, err := simRegistry("", false)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	var calls [][2]int
	cfg := simConfig{units: 50, seconds: 2, dt: 1.0 / 60, seed: 1, progressAfter: time.Nanosecond,
		progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }}
	if _, err := simulate(cfg, reg); err != nil {
		t.Fatal(err)
	}
	if len(calls) < 2 || calls[len(calls)-1] != [2]int{120, 120} {
		t.Fatalf("progress calls %v", calls)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i][0] < calls[i-1][0] || calls[i][1] != 120 {
			t.Fatalf("progress calls %v", calls)
		}
	}
	// The default threshold keeps a short run silent.
	calls = nil
	cfg.progressAfter = 0
	if _, err := simulate(cfg, reg); err != nil || len(calls) != 0 {
		t.Fatalf("short run reported progress: %v %v", err, calls)
	}
}

// What cannot fit is refused up front with the limit in the message (it ran out
// of memory, or panicked in makeslice).
func TestSimulateLimits(t *testing.T) {
	for _, args := range [][]string{{"--units", "1000000000"}, {"--seconds", "1e9", "--dt", "1e-9"}} {
		code, _, errOut := bonebake(t, append([]string{"simulate"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "at most") {
			t.Errorf("simulate %v: exit %d %q", args, code, errOut)
		}
	}
}

// A folder that lacks some built-in species: the battle still fields them, baked
// in memory, and says so; species are named, never "species 0".
func TestSimulatePartialAssets(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := bonebake(t, "bake", "--out", dir, "--species", "horse"); code != 0 {
		t.Fatalf("bake: %s", stderr)
	}
	code, stdout, stderr := bonebake(t, "simulate", "--units", "200", "--seconds", "0.1", "--assets", dir)
	if code != 0 || !strings.Contains(stdout, "the built-in species it lacks baked in memory: humanoid, elephant") || strings.Contains(stdout, "species 0") || !strings.Contains(stdout, "humanoid_sword ") {
		t.Errorf("exit %d: %s%s", code, stdout, stderr)
	}
}

// Fades: the same battle (same seed) with and without them changes clips as
// often, lands the same hits, and with fades moves no bone by more than half the
// largest pop of the run without.
func TestSimulateFades(t *testing.T) {
	run := func(extra ...string) simResult {
		res := simulateJSON(t, append([]string{"--units", "300", "--seconds", "20"}, extra...)...)
		if res.MaxBoneJumpM == nil {
			t.Fatalf("no max_bone_jump_m: %+v", res)
		}
		return res
	}
	on, off := run(), run("--no-fade")
	t.Logf("with fades: %d changes, %d faded, largest move %.3f m; without: %d, %d, %.3f m",
		on.Transitions, on.Fades, *on.MaxBoneJumpM, off.Transitions, off.Fades, *off.MaxBoneJumpM)
	if !on.Fading || off.Fading || on.Transitions == 0 || on.Fades == 0 || on.Fades > on.Transitions || off.Fades != 0 {
		t.Errorf("fading %v/%v, transitions %d/%d, fades %d/%d", on.Fading, off.Fading, on.Transitions, off.Transitions, on.Fades, off.Fades)
	}
	if on.Transitions != off.Transitions || on.HitsLanded != off.HitsLanded || on.HitsCancelled != off.HitsCancelled || on.Kills != off.Kills {
		t.Errorf("fades changed the battle: %+v\nagainst %+v", on, off)
	}
	if !(*on.MaxBoneJumpM > 0) || *on.MaxBoneJumpM > *off.MaxBoneJumpM/2 {
		t.Errorf("largest bone move in a frame %.3f m with fades, %.3f m without: want at most half", *on.MaxBoneJumpM, *off.MaxBoneJumpM)
	}
}

// --workers: the animation step shared among goroutines gives the battle and
// the poses of one goroutine (the same counts and the same largest bone move,
// measured from every unit's pose at every step), and says how many it used.
func TestSimulateWorkers(t *testing.T) {
	units := fmt.Sprint(2 * crowd.ParallelUnits)
	one := simulateJSON(t, "--units", units, "--seconds", "1", "--workers", "1")
	two := simulateJSON(t, "--units", units, "--seconds", "1", "--workers", "2")
	if one.Workers != 1 || two.Workers != 2 {
		t.Errorf("workers %d and %d, want 1 and 2", one.Workers, two.Workers)
	}
	if one.MaxBoneJumpM == nil || two.MaxBoneJumpM == nil || *one.MaxBoneJumpM != *two.MaxBoneJumpM ||
		one.Transitions != two.Transitions || one.Fades != two.Fades || one.AttacksStarted != two.AttacksStarted ||
		one.Alive != two.Alive || one.Transitions == 0 {
		t.Errorf("one goroutine: %+v\ntwo: %+v", one, two)
	}
	if few := simulateJSON(t, "--units", "300", "--seconds", "1", "--workers", "8"); few.Workers != 1 {
		t.Errorf("300 units on %d goroutines", few.Workers)
	}
	if code, _, _ := bonebake(t, "simulate", "--workers", "0"); code != 2 {
		t.Errorf("--workers 0: exit %d, want 2", code)
	}
}

// --camera: every unit is at some level each step, near and far levels both
// occur for a camera at the edge of the field, units change level rarely (they
// march, the camera stands), and the battle is the one without a camera.
func TestSimulateCamera(t *testing.T) {
	run := func(extra ...string) simResult {
		return simulateJSON(t, append([]string{"--units", "1000", "--seconds", "5"}, extra...)...)
	}
	plain, lod, far := run(), run("--camera", "0,5,-20"), run("--camera", "0,30,-160")
	if plain.LOD != nil || lod.LOD == nil || lod.LODSwitchesPerUnitSecond == nil {
		t.Fatalf("lod %v without a camera, %v with one", plain.LOD, lod.LOD)
	}
	for _, r := range []simResult{lod, far} {
		if total := r.LOD["full"] + r.LOD["reduced"] + r.LOD["snapshot"]; math.Abs(total-1000) > 1e-6 {
			t.Errorf("units per level %v: want all 1000 units", r.LOD)
		}
	}
	if lod.LOD["full"] < 100 || far.LOD["full"] != 0 || far.LOD["snapshot"] < 500 {
		t.Errorf("units per level %v near the armies, %v far away", lod.LOD, far.LOD)
	}
	if s := *lod.LODSwitchesPerUnitSecond; !(s >= 0 && s < 0.5) {
		t.Errorf("%.3f level changes per unit and second: units flicker", s)
	}
	if plain.HitsLanded == 0 || plain.AttacksStarted != lod.AttacksStarted || plain.HitsLanded != lod.HitsLanded || plain.HitsCancelled != lod.HitsCancelled || plain.Kills != lod.Kills {
		t.Errorf("the camera changed the battle: %+v against %+v", lod, plain)
	}
	if code, _, stderr := bonebake(t, "simulate", "--camera", "1,2"); code != 2 || !strings.Contains(stderr, "--camera") {
		t.Errorf("--camera 1,2: exit %d, %s", code, stderr)
	}
}

// simulateJSON runs simulate --json with args and decodes its report.
func simulateJSON(t *testing.T, args ...string) simResult {
	t.Helper()
	code, stdout, stderr := bonebake(t, append([]string{"simulate", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res simResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	return res
}
