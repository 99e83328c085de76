package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/internal/testfiles"

	"github.com/spf13/cobra"
)

func sharedModel(t *testing.T, name string) string { return testfiles.Path(t, "gltf", name) }

// bonebake runs the command in-process and returns its exit code and output.
func bonebake(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestMain removes the command built for the tests (builtBinary) after them.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the command built once for the tests that run it as a user would
// (a go build costs seconds on two cores): a file named bonebake in a folder of
// its own.
var built struct {
	once      sync.Once
	dir, path string
	out       []byte
	err       error
}

// builtBinary returns the path of the built command, building it on first use.
func builtBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "bonebake-bin-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "bonebake")
		built.out, built.err = exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

func TestHelpEverywhere(t *testing.T) {
	for _, c := range [][]string{{"--help"}, {"bake", "--help"}, {"inspect", "--help"}, {"validate", "--help"}, {"sample", "--help"}} {
		code, out, _ := bonebake(t, c...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: exit %d, output %q", c, code, out)
		}
	}
}

// A command run alone under the root (newRoot of its name) is the command the
// whole tree holds: the same name, aliases, help and usage, with subcommands
// and flags alike, and "bonebake NAME --help" prints what the whole tree
// prints; the root's own help lists every command.
func TestRootForOneCommand(t *testing.T) {
	full := newRoot(nil)
	if got := len(full.Commands()); got != len(subcommandMakers) {
		t.Fatalf("the whole tree has %d commands, subcommandMakers %d", got, len(subcommandMakers))
	}
	help := func(c *cobra.Command) string {
		var b bytes.Buffer
		c.SetOut(&b)
		c.SetErr(&b)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, s := range subcommandMakers {
		root := newRoot([]string{s.name, "--flag"})
		if n := len(root.Commands()); n != 1 || root.Commands()[0].Name() != s.name {
			t.Fatalf("newRoot for %s: %d commands, the first %q", s.name, n, root.Commands()[0].Name())
		}
		alone, _, err := root.Find([]string{s.name})
		if err != nil {
			t.Fatal(err)
		}
		inTree, _, err := full.Find([]string{s.name})
		if err != nil || inTree.Name() != s.name {
			t.Fatalf("the whole tree has no command %q: %v", s.name, err)
		}
		if !slices.Equal(alone.Aliases, inTree.Aliases) || help(alone) != help(inTree) || alone.UsageString() != inTree.UsageString() {
			t.Errorf("%s alone differs from %s in the whole tree:\n%s\n---\n%s", s.name, s.name, help(alone), help(inTree))
		}
		for i, sub := range inTree.Commands() {
			if help(sub) != help(alone.Commands()[i]) {
				t.Errorf("%s %s alone differs from the whole tree's", s.name, sub.Name())
			}
		}
		var want bytes.Buffer
		whole := newRoot(nil)
		whole.SetArgs([]string{s.name, "--help"})
		whole.SetOut(&want)
		if err := whole.Execute(); err != nil {
			t.Fatal(err)
		}
		if code, out, _ := bonebake(t, s.name, "--help"); code != 0 || out != want.String() {
			t.Errorf("bonebake %s --help: exit %d, output %q, the whole tree's %q", s.name, code, out, want.String())
		}
	}
	_, out, _ := bonebake(t, "--help")
	for _, s := range subcommandMakers {
		if !strings.Contains(out, "\n  "+s.name+" ") {
			t.Errorf("bonebake --help does not list %s:\n%s", s.name, out)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range [][]string{{"validate"}, {"inspect"}, {"inspect", "a", "b"}, {"sample", "x.bpat"}, {"frobnicate"}, {"validate", "--bogus", "x"}, {"sample", "x", "--clip", "a", "--phase", "NaN"}} {
		if code, _, _ := bonebake(t, c...); code != 2 {
			t.Errorf("%v: exit %d, want 2", c, code)
		}
	}
}

func TestBakeValidateSampleInspect(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "simple.bpat")
	model := sharedModel(t, "SimpleSkin.gltf")
	code, stdout, stderr := bonebake(t, "bake", model, "-o", out, "--socket", "tip=node2@0,1,0")
	if code != 0 {
		t.Fatalf("bake: exit %d: %s%s", code, stdout, stderr)
	}
	// Baked with no species id, the model took 6, the first id that is not built
	// in: readers refuse it until they are told of it.
	if !strings.Contains(stdout, "species 6 (the first id not built in") {
		t.Errorf("bake does not say which species id it chose: %s", stdout)
	}
	code, stdout, _ = bonebake(t, "validate", out)
	if code != 1 || !strings.Contains(stdout, "species id 6") {
		t.Fatalf("validate without --species: exit %d: %s", code, stdout)
	}
	code, stdout, _ = bonebake(t, "validate", out, "--species", "6")
	if code != 0 || !strings.Contains(stdout, "ok") {
		t.Fatalf("validate: exit %d: %s", code, stdout)
	}

	// SimpleSkin's animation lasts 5.5 s: at 30 fps, looping, N = 165 frames. Phase .5
	// is position 82.5: frames 82 and 83, lerp .5.
	code, stdout, stderr = bonebake(t, "sample", out, "--clip", "animation_0", "--phase", "0.5", "--json", "--species", "6")
	if code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	var res struct {
		Clip    string
		Frame   int
		Next    int
		Lerp    float64
		Palette [][]float64
		Sockets []struct {
			Name string
			Rows []float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Clip != "animation_0" || res.Frame != 82 || res.Next != 83 || res.Lerp != 0.5 || len(res.Palette) != 2 || len(res.Sockets) != 1 || res.Sockets[0].Name != "tip" {
		t.Fatalf("sample: %+v", res)
	}
	ref, err := gltfref.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	a, b := ref.Palette(0, 0, 82*5.5/165), ref.Palette(0, 0, 83*5.5/165)
	for bone := range a {
		for k := 0; k < 16; k++ {
			want := (a[bone][k] + b[bone][k]) / 2
			if math.Abs(res.Palette[bone][k]-want) > 1e-5 {
				t.Fatalf("palette bone %d element %d = %v, want %v", bone, k, res.Palette[bone][k], want)
			}
		}
	}
	// The socket sits one unit up bone 1's y axis: translation = palette·(0,1,0,1).
	for r := 0; r < 3; r++ {
		m := res.Palette[1]
		want := m[r*4+1] + m[r*4+3]
		if math.Abs(res.Sockets[0].Rows[r*4+3]-want) > 1e-5 {
			t.Fatalf("socket row %d translation %v, want %v", r, res.Sockets[0].Rows[r*4+3], want)
		}
	}

	code, stdout, _ = bonebake(t, "inspect", out, "--json", "--species", "6")
	var rep struct {
		Version  int    `json:"version"`
		FrameTot int    `json:"frame_total"`
		Strict   string `json:"strict_validation"`
		Sections []struct{ Name string }
		Clips    []struct {
			Name       string
			FrameCount int `json:"frame_count"`
			Loops      bool
		}
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil {
		t.Fatalf("inspect: exit %d: %s", code, stdout)
	}
	if rep.Version != 1 || rep.FrameTot != 165 || rep.Strict != "ok" || len(rep.Clips) != 1 || rep.Clips[0].FrameCount != 165 || !rep.Clips[0].Loops || rep.Sections[len(rep.Sections)-1].Name != "socket data" {
		t.Fatalf("inspect: %+v", rep)
	}
	code, stdout, _ = bonebake(t, "inspect", model)
	if code != 0 || !strings.Contains(stdout, "2 joints") || !strings.Contains(stdout, "5.5000") {
		t.Fatalf("inspect glTF: exit %d: %s", code, stdout)
	}
}

func TestValidateReportsEachFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bpat")
	// the old name of an unnamed animation is accepted, with a note
	if code, _, stderr := bonebake(t, "bake", sharedModel(t, "RiggedSimple.gltf"), "-o", good, "--one-shot", "animation0", "--species-id", "1"); code != 0 || !strings.Contains(stderr, "now called animation_0") {
		t.Fatalf("bake: exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(good)
	bad := filepath.Join(dir, "bad.bpat")
	data[20+64] = 5 // clip 0 loops byte
	os.WriteFile(bad, data, 0o644)
	code, stdout, _ := bonebake(t, "validate", good, bad)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 1 || len(lines) != 2 || !strings.Contains(lines[0], "ok") || !strings.Contains(lines[1], "INVALID") || !strings.Contains(lines[1], "loops") || !strings.Contains(lines[1], "offset 84") {
		t.Fatalf("exit %d, output:\n%s", code, stdout)
	}
	if code, _, _ := bonebake(t, "bake", sharedModel(t, "RiggedSimple.gltf"), "-o", good, "--one-shot", "nope"); code != 2 {
		t.Fatalf("--one-shot with an unknown clip: exit %d", code)
	}
}

// TestBinary builds the command and runs it as a user would, checking exit codes.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := builtBinary(t)
	out := filepath.Join(t.TempDir(), "fox.bpat")
	cmd := exec.Command(bin, "bake", sharedModel(t, "Fox.glb"), "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "24 bones") {
		t.Fatalf("bake: %v\n%s", err, b)
	}
	err := exec.Command(bin, "validate", out, "/dev/null").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("validate of /dev/null: %v, want exit 1", err)
	}
	err = exec.Command(bin, "validate").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("validate without files: %v, want exit 2", err)
	}
}

// TestBakeVersion: --bpat-version and the manifest's bpat_version choose the
// version; the summary names it and why; a file Standard of Iron would refuse
// (v1, or a species id beyond 0-5) gets a warning saying so.
func TestBakeVersion(t *testing.T) {
	dir := t.TempDir()
	fox := sharedModel(t, "Fox.glb")
	version := func(path string) uint32 {
		t.Helper()
		f, err := bpat.Open(path, formats.Lenient())
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return f.Header().Version
	}

	out := filepath.Join(dir, "auto.bpat")
	code, stdout, stderr := bonebake(t, "bake", fox, "-o", out)
	if code != 0 || version(out) != 1 || !strings.Contains(stdout, "BPAT v1 (no clip has a marker") {
		t.Errorf("default: exit %d, v%d: %s", code, version(out), stdout)
	}
	if strings.Contains(stderr, "Standard of Iron") {
		t.Errorf("default (id 6, nothing asked of the game): %q, want no word of the game", stderr)
	}
	// One of the game's ids in v1: the game would refuse the version.
	if code, _, stderr = bonebake(t, "bake", fox, "-o", out, "--species-id", "3"); code != 0 || !strings.Contains(stderr, "warning: Standard of Iron reads BPAT v2 only") {
		t.Errorf("--species-id 3: exit %d %q", code, stderr)
	}
	// v2 asked for, with an id the game does not know.
	if code, _, stderr = bonebake(t, "bake", fox, "-o", out, "--bpat-version", "2"); code != 0 || !strings.Contains(stderr, "refuses id 6") {
		t.Errorf("--bpat-version 2: exit %d %q", code, stderr)
	}

	out = filepath.Join(dir, "v2.bpat")
	code, stdout, stderr = bonebake(t, "bake", fox, "-o", out, "--bpat-version", "2", "--species-id", "5")
	if code != 0 || version(out) != 2 || !strings.Contains(stdout, "species 5, BPAT v2 (as asked)") {
		t.Errorf("--bpat-version 2: exit %d, v%d: %s", code, version(out), stdout)
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("--bpat-version 2 --species-id 5: %q, want no warning", stderr)
	}

	mf := filepath.Join(dir, "fox.yaml")
	if err := os.WriteFile(mf, []byte("species_id: 2\nbpat_version: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "manifest.bpat")
	if code, stdout, stderr = bonebake(t, "bake", fox, "-o", out, "--manifest", mf); code != 0 || version(out) != 2 || strings.Contains(stderr, "warning") {
		t.Errorf("bpat_version 2 in the manifest: exit %d, v%d: %s%s", code, version(out), stdout, stderr)
	}
	if err := os.WriteFile(mf, []byte("bpat_version: 1\nclips:\n  - name: Survey\n    markers: {contact: 0.5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr = bonebake(t, "bake", fox, "-o", out, "--manifest", mf); code == 0 || !strings.Contains(stderr, "v1 cannot store") {
		t.Errorf("markers with bpat_version 1: exit %d: %s", code, stderr)
	}

	for _, c := range [][]string{{"bake", fox, "-o", out, "--bpat-version", "3"}, {"bake", "--out", dir, "--bpat-version", "1"}} {
		if code, _, _ := bonebake(t, c...); code != 2 {
			t.Errorf("%v: exit %d, want 2", c, code)
		}
	}
}

// TestBakeMany: several models in one command, -o a folder. Each NAME.bpat is
// byte-identical to the single bake with the same flags (and, for a model with
// NAME.yaml beside it, --manifest NAME.yaml); a model that fails is reported and
// the others are still written; the exit status says one failed; each model gets
// its summary line in the order given, its notes and hints named by its path,
// and a total.
func TestBakeMany(t *testing.T) {
	dir := t.TempDir()
	fox := filepath.Join(dir, "models", "fox.glb")
	if err := os.MkdirAll(filepath.Dir(fox), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sharedModel(t, "Fox.glb"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, fox, string(b))
	writeTestFile(t, filepath.Join(dir, "models", "fox.yaml"), "species_id: 9\nclips:\n  - name: walk\n    source: Walk\n    fps: 50\n  - name: look\n    source: Survey\n    loops: false\n")
	broken := filepath.Join(dir, "models", "broken.glb")
	writeTestFile(t, broken, "glTF not really")
	models := []string{fox, sharedModel(t, "SimpleSkin.gltf"), broken, sharedModel(t, "RiggedSimple.gltf")}
	flags := []string{"--fps", "24"}

	out := filepath.Join(dir, "out")
	code, stdout, stderr := bonebake(t, append(append([]string{"bake"}, models...), append([]string{"-o", out}, flags...)...)...)
	if code != 1 {
		t.Fatalf("exit %d with a broken model, want 1: %s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "wrote "+filepath.Join(out, "fox.bpat")) || !strings.HasPrefix(lines[1], "wrote "+filepath.Join(out, "SimpleSkin.bpat")) ||
		!strings.HasPrefix(lines[2], "wrote "+filepath.Join(out, "RiggedSimple.bpat")) || !strings.HasPrefix(lines[3], "baked 3 of 4 models into "+out) || !strings.HasSuffix(lines[3], "; 1 failed") {
		t.Errorf("summary lines:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^bonebake: .*`+regexp.QuoteMeta(broken)).MatchString(stderr) || !strings.Contains(stderr, fox+": hint: ") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "broken.bpat")); !os.IsNotExist(err) {
		t.Errorf("a broken model left a file: %v", err)
	}
	for _, m := range models {
		if m == broken {
			continue
		}
		single := filepath.Join(dir, "single", modelName(m)+".bpat")
		args := append([]string{"bake", m, "-o", single}, flags...)
		// The batch gives the models without an id distinct ones, in the order
		// given, skipping fox.yaml's 9: SimpleSkin 6, broken 7, RiggedSimple 8.
		switch m {
		case fox:
			args = append(args, "--manifest", filepath.Join(dir, "models", "fox.yaml"))
		case models[1]:
			args = append(args, "--species-id", "6")
		case models[3]:
			args = append(args, "--species-id", "8")
		}
		if code, so, se := bonebake(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, so, se)
		}
		want, err := os.ReadFile(single)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, modelName(m)+".bpat"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the batch's file differs from the single bake's", m)
		}
	}
	if f, err := bpat.Open(filepath.Join(out, "fox.bpat"), formats.KnownSpecies(9)); err != nil {
		t.Errorf("fox.yaml beside fox.glb was not used: %v", err)
	} else {
		if c := f.Clips(); len(c) != 2 || c[0].Name != "walk" || math.Abs(float64(c[0].FPS)-50) > 1 {
			t.Errorf("fox.bpat clips %+v, want fox.yaml's", c)
		}
		f.Close()
	}

	// All good: exit 0. Usage: no -o, -o a .bpat file, two models of one name.
	if code, so, se := bonebake(t, "bake", fox, models[1], "-o", filepath.Join(dir, "ok")); code != 0 || !strings.Contains(so, "baked 2 of 2 models") {
		t.Errorf("two good models: exit %d: %s%s", code, so, se)
	}
	for _, args := range [][]string{
		{"bake", fox, models[1]},
		{"bake", fox, models[1], "-o", filepath.Join(dir, "x.bpat")},
		{"bake", fox, filepath.Join(dir, "FOX.glb"), "-o", filepath.Join(dir, "ok")},
	} {
		if code, so, se := bonebake(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s%s", args, code, so, se)
		}
	}
}

func writeTestFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// modelName is a model's file name without its extension: NAME of NAME.glb,
// the NAME.bpat a bake into a folder writes.
func modelName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
