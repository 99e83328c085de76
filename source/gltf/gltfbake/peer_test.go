package gltfbake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/species/creatures"
)

// TestGamePeer runs Standard of Iron's own code, the game the format comes from,
// on what bonebake writes: its BPAT reader, playback and tests
// (tests/render/bpat/, 25 GoogleTests), compiled unmodified from its sources at
// the commit whose format bonebake writes, by the peer's build.sh (once: it
// caches the build under $TMPDIR). It needs g++, Qt 6 and GoogleTest (.ci/run
// installs them) and skips without them; it is not run under -short.
//
// It requires the game's 25 tests to pass on the built-in creatures, and the
// game's reader to load every built-in file and a glTF bake written as v2 under
// each species id the game knows (0-5), resolving the same frames (loops alike;
// one-shots by the game's own rule, docs/formats/bpat.md §5.2) and the same
// palettes as bonebake's reader, to float32 rounding.
func TestGamePeer(t *testing.T) {
	if testing.Short() {
		t.Skip("the game's peer build is not run under -short")
	}
	peer := testfiles.Peer(t, "standard_of_iron")
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++: the game's code cannot be built")
	}
	if err := exec.Command("pkg-config", "--exists", "Qt6Core", "Qt6Gui", "Qt6Widgets", "Qt6OpenGL", "gtest").Run(); err != nil {
		t.Skip("Qt 6 or GoogleTest development files missing (pkg-config): the game's code cannot be built")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "bash", filepath.Join(peer, "build.sh"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("the game's code did not build (%v):\n%s", err, tail(out, 2000))
	}

	dir := t.TempDir()
	var files []string
	for _, c := range creatures.All() {
		written, err := c.WriteFiles(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range written {
			if strings.HasSuffix(f.Path, ".bpat") {
				files = append(files, f.Path)
			}
		}
	}
	builtins := len(files)
	fox := testfiles.Path(t, "gltf", "Fox.glb")
	for id := uint32(0); id <= 5; id++ {
		m, err := Load(fox, Settings{SpeciesID: &id, Version: 2})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), fmt.Sprintf("fox_%d.bpat", id))
		if err := bake.BakeFile(out, m.Job); err != nil {
			t.Fatal(err)
		}
		files = append(files, out)
	}

	run := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(peer, "run.sh"), dir}, files...)...)
	run.Env = append(os.Environ(), "QUERIES=*:0 *:0.3 *:0.5 *:0.97 *:1")
	out, err := run.Output()
	if err != nil {
		t.Fatalf("run.sh: %v\n%s", err, tail(out, 4000))
	}
	passed := regexp.MustCompile(`(?m)^\[  PASSED  \] (\d+) tests?\.`).FindSubmatch(out)
	if passed == nil || string(passed[1]) != "25" || bytes.Contains(out, []byte("[  FAILED  ]")) {
		t.Errorf("the game's tests on the built-in creatures: want 25 passed, 0 failed:\n%s", tail(out, 6000))
	} else {
		t.Logf("the game's tests: 25 passed, 0 failed")
	}

	var reports []peerReport
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<28)
	for sc.Scan() {
		if line := sc.Bytes(); len(line) > 0 && line[0] == '{' {
			var r peerReport
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("harness line: %v", err)
			}
			reports = append(reports, r)
		}
	}
	if len(reports) != len(files) {
		t.Fatalf("%d harness reports for %d files", len(reports), len(files))
	}
	for i, r := range reports {
		name := filepath.Base(files[i])
		f, err := bpat.Open(files[i], formats.KnownSpecies(0, 1, 2, 3, 4, 5))
		if err != nil {
			t.Fatal(err)
		}
		checkPeerReport(t, name, f, r)
		if i >= builtins && (r.Version != 2 || r.SpeciesID != uint32(i-builtins)) {
			t.Errorf("%s: the game read version %d species %d", name, r.Version, r.SpeciesID)
		}
		f.Close()
	}
}

type peerReport struct {
	OK        bool   `json:"ok"`
	Error     string `json:"error"`
	Version   uint32 `json:"version"`
	SpeciesID uint32 `json:"species_id"`
	Bones     int    `json:"bones"`
	Clips     []struct {
		Name   string `json:"name"`
		Frames int    `json:"frames"`
		Loops  bool   `json:"loops"`
	} `json:"clips"`
	Playback []struct {
		Clip    int         `json:"clip_index"`
		Phase   float64     `json:"phase"`
		Valid   bool        `json:"valid"`
		Frame   int         `json:"frame"`
		Next    int         `json:"next"`
		Lerp    float64     `json:"lerp"`
		Palette [][]float64 `json:"palette"`
	} `json:"playback"`
}

// checkPeerReport compares what the game's reader saw in a file with bonebake's
// reading of it.
func checkPeerReport(t *testing.T, name string, f *bpat.File, r peerReport) {
	t.Helper()
	if !r.OK {
		t.Errorf("%s: the game's reader refuses it: %s", name, r.Error)
		return
	}
	clips := f.Clips()
	if r.Bones != f.BoneCount() || len(r.Clips) != len(clips) {
		t.Errorf("%s: the game sees %d bones, %d clips; bonebake %d, %d", name, r.Bones, len(r.Clips), f.BoneCount(), len(clips))
		return
	}
	for i, c := range r.Clips {
		if c.Name != clips[i].Name || c.Frames != clips[i].FrameCount || c.Loops != clips[i].Loops {
			t.Errorf("%s clip %d: the game sees %+v", name, i, c)
		}
	}
	if len(r.Playback) != 5*len(clips) {
		t.Errorf("%s: %d playback results, want %d", name, len(r.Playback), 5*len(clips))
	}
	palette := make([]float32, f.BoneCount()*16)
	for _, p := range r.Playback {
		c := clips[p.Clip]
		want := bpat.Resolve(p.Phase, c.FrameCount, c.Loops)
		if !c.Loops {
			want = gameOneShot(p.Phase, c.FrameCount)
		}
		if !p.Valid || p.Frame != want.Frame || p.Next != want.Next || math.Abs(p.Lerp-float64(want.Lerp)) > 1e-5 {
			t.Errorf("%s %s at %v: the game plays frames %d→%d lerp %v, want %d→%d lerp %v", name, c.Name, p.Phase, p.Frame, p.Next, p.Lerp, want.Frame, want.Next, want.Lerp)
			continue
		}
		// The game's palette at its own (frame, next, lerp), against bonebake's
		// frames blended at the same lerp.
		f.SampleFrames(p.Clip, bpat.Playback{Frame: p.Frame, Next: p.Next, Lerp: float32(p.Lerp)}, palette, nil)
		if len(p.Palette) != f.BoneCount() {
			t.Errorf("%s %s at %v: %d palette matrices", name, c.Name, p.Phase, len(p.Palette))
			continue
		}
	bones:
		for b, m := range p.Palette {
			for e, v := range m {
				w := float64(palette[b*16+e])
				if math.Abs(v-w) > 1e-5*max(1, math.Abs(w)) {
					t.Errorf("%s %s at %v: bone %d element %d: the game %v, bonebake %v", name, c.Name, p.Phase, b, e, v, w)
					break bones
				}
			}
		}
	}
}

// gameOneShot is the game's one-shot playback (resolve_bpat_playback, float32):
// the phase clamped to just below 1, pos = phase·N, the last frame held with no
// blend (docs/formats/bpat.md §5.2).
func gameOneShot(phase float64, frames int) bpat.Playback {
	if frames <= 1 {
		return bpat.Playback{}
	}
	p := float32(min(max(phase, 0), 1))
	p = min(p, math.Nextafter32(1, 0))
	pos := p * float32(frames)
	f := min(int(math.Floor(float64(pos))), frames-1)
	if f == frames-1 {
		return bpat.Playback{Frame: f, Next: f}
	}
	return bpat.Playback{Frame: f, Next: f + 1, Lerp: pos - float32(f)}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
