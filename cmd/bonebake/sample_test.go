package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
)

// sampled is what `sample --json` prints, as a test reads it.
type sampled struct {
	Frame, Next int
	Lerp        float64
	To          *struct {
		Clip        string
		Frame, Next int
		Lerp        float64
	}
	Weight  *float64
	Palette [][]float64
	Sockets []struct{ Rows []float64 }
}

func sampleJSON(t *testing.T, args ...string) sampled {
	t.Helper()
	code, stdout, stderr := bonebake(t, append([]string{"sample"}, args...)...)
	if code != 0 {
		t.Fatalf("sample %v: exit %d: %s", args, code, stderr)
	}
	var s sampled
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSampleCrossFade: `sample --to --weight` is (1−w)·A + w·B, each side the
// two-frame interpolation of docs/formats/bpat.md §5, computed here from the
// file's raw frames in float64 (frames found from the phase by §5.2's rule for
// a looping clip, not by the command's code); w = 0 and w = 1 give each clip
// alone.
func TestSampleCrossFade(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fox.bpat")
	if code, _, stderr := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", out, "--socket", "head=b_Head_05@0,10,0"); code != 0 {
		t.Fatal(stderr)
	}
	f, err := bpat.Open(out, formats.KnownSpecies(6))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	walk, run := f.ClipIndex("Walk"), f.ClipIndex("Run")
	const pw, pr, w = 0.37, 0.81, 0.3
	side := func(c int, phase float64, data func(c, frame int) []float32) []float64 {
		n := f.Clips()[c].FrameCount
		pos := (phase - math.Floor(phase)) * float64(n)
		k := int(math.Floor(pos))
		a, b := data(c, k), data(c, (k+1)%n)
		out := make([]float64, len(a))
		for i := range a {
			out[i] = float64(a[i]) + (float64(b[i])-float64(a[i]))*(pos-float64(k))
		}
		return out
	}
	fadeP := make([]float64, 0)
	a, b := side(walk, pw, f.Palette), side(run, pr, f.Palette)
	for i := range a {
		fadeP = append(fadeP, (1-w)*a[i]+w*b[i])
	}
	as, bs := side(walk, pw, f.SocketData), side(run, pr, f.SocketData)
	got := sampleJSON(t, out, "--species", "6", "--clip", "Walk", "--phase", "0.37", "--to", "Run", "--to-phase", "0.81", "--weight", "0.3", "--json")
	if got.To == nil || got.To.Clip != "Run" || got.Weight == nil || *got.Weight != w || len(got.Palette) != f.BoneCount() || len(got.Sockets) != 1 {
		t.Fatalf("sample --to: %+v", got)
	}
	scale := 0.0
	for _, v := range fadeP {
		scale = max(scale, math.Abs(v))
	}
	for bone, m := range got.Palette {
		for k, v := range m {
			if want := fadeP[bone*16+k]; math.Abs(v-want) > 1e-6*scale {
				t.Fatalf("palette bone %d element %d = %v, want %v", bone, k, v, want)
			}
		}
	}
	for k, v := range got.Sockets[0].Rows {
		if want := (1-w)*as[k] + w*bs[k]; math.Abs(v-want) > 1e-6*scale {
			t.Fatalf("socket element %d = %v, want %v", k, v, want)
		}
	}
	// The ends of the fade are each clip alone, exactly as plain sampling gives it.
	for _, c := range []struct {
		weight   string
		clip, at string
	}{{"0", "Walk", "0.37"}, {"1", "Run", "0.81"}} {
		end := sampleJSON(t, out, "--species", "6", "--clip", "Walk", "--phase", "0.37", "--to", "Run", "--to-phase", "0.81", "--weight", c.weight, "--json")
		alone := sampleJSON(t, out, "--species", "6", "--clip", c.clip, "--phase", c.at, "--json")
		for bone := range alone.Palette {
			for k := range alone.Palette[bone] {
				if end.Palette[bone][k] != alone.Palette[bone][k] {
					t.Fatalf("weight %s: bone %d element %d = %v, %s alone %v", c.weight, bone, k, end.Palette[bone][k], c.clip, alone.Palette[bone][k])
				}
			}
		}
	}
}

func TestSampleCrossFadeUsage(t *testing.T) {
	for _, c := range [][]string{
		{"x.bpat", "--clip", "a", "--to", "b"},                                     // no weight
		{"x.bpat", "--clip", "a", "--weight", "0.5"},                               // weight without --to
		{"x.bpat", "--clip", "a", "--to-phase", "0.5"},                             // phase without --to
		{"x.bpat", "--clip", "a", "--to", "b", "--weight", "1.5"},                  // out of range
		{"x.bpat", "--clip", "a", "--to", "b", "--weight", "NaN"},                  // not a number
		{"x.bpat", "--clip", "a", "--to", "b", "--weight", "1", "--to-phase", "x"}, // bad phase
		{"x.bpat", "--clip", "a", "--to", "", "--weight", "1"},                     // empty clip
	} {
		if code, _, _ := bonebake(t, append([]string{"sample"}, c...)...); code != 2 {
			t.Errorf("sample %v: exit %d, want 2", c, code)
		}
	}
}

// TestSampleUnknownClipIsUsage: a --clip or --to the file lacks is a usage
// error (exit 2) naming the flag and the clips there are, as bat --clips
// refuses one (issue 45 round 4, item 3: sample exited 1).
func TestSampleUnknownClipIsUsage(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := bonebake(t, "bake", "--species", "horse", "-o", dir); code != 0 {
		t.Fatalf("bake: exit %d: %s", code, stderr)
	}
	horse := filepath.Join(dir, "horse.bpat")
	for _, c := range []struct {
		flag, name string // the one the file lacks
		args       []string
	}{
		{"--clip", "gallp", []string{"--clip", "gallp", "--phase", "0.5"}},
		{"--to", "fly", []string{"--clip", "gallop", "--phase", "0.5", "--to", "fly", "--weight", "0.5"}},
	} {
		code, _, stderr := bonebake(t, append([]string{"sample", horse}, c.args...)...)
		flag, name := c.flag, c.name
		want := flag + " " + name + ": " + horse + ` has no clip "` + name + `" (clips: idle, walk, trot, canter, gallop, fight, die, dead)`
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c, code, stderr, want)
		}
	}
}
