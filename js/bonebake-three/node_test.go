package bonebakethree

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestNode runs the package's node tests (node --test) with fixtures written
// here by formats/bpat: a BPAT file, Go's samples of it, and corrupted copies
// with the rules Go's reader finds broken in each, which the JavaScript
// reader must find too; and the playback rule's golden cases
// (testdata/playback/golden.json) through the core's JavaScript
// (golden.test.mjs) and its GLSL PLAYBACK chunk, evaluated as written
// (glsl.test.mjs). It skips when node is not installed, unless
// BONEBAKE_REQUIRE_NODE is set (.ci/run sets it: CI runs them).
func TestNode(t *testing.T) {
	// In the full suite the binding's tests get the pinned three.js; in
	// -short they run in place, three.test.mjs skipping unless the package's
	// own npm ci put three there.
	var three func(testing.TB) string
	if !testing.Short() {
		three = npmPackage
	}
	nodeTests(t, three, nil)
}

// nodeTests runs the package's node tests (those of them that only keep
// passes, when it is not nil), on the three.js that install (npmPackage,
// oldestThree) put in its folder's node_modules when install is not nil:
// the package's files are linked into a folder beside that node_modules
// (node keeps the links' paths, so that 'three' resolves there).
func nodeTests(t *testing.T, install func(testing.TB) string, only func(path string) bool) {
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "node is not installed: the JavaScript package's tests cannot run, among them the playback rule's golden cases for the core's JavaScript and GLSL (install nodejs; .ci/run does)"
		if os.Getenv("BONEBAKE_REQUIRE_NODE") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	writeFixtures(t, dir)
	files, _ := filepath.Glob("test/*.test.mjs")
	if only != nil {
		files = slices.DeleteFunc(files, func(f string) bool { return !only(f) })
	}
	if len(files) == 0 {
		t.Fatal("no test/*.test.mjs")
	}
	run, args := ".", []string{"--test", "--test-reporter=tap"}
	var version string
	if install != nil {
		modules := install(t)
		version = threeVersion(t, filepath.Join(modules, "node_modules", "three", "package.json"))
		run = t.TempDir()
		here, err := filepath.Abs(".")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range [][2]string{{filepath.Join(here, "src"), "src"}, {filepath.Join(here, "test"), "test"}, {filepath.Join(here, "package.json"), "package.json"}, {filepath.Join(modules, "node_modules"), "node_modules"}} {
			if err := os.Symlink(l[0], filepath.Join(run, l[1])); err != nil {
				t.Fatal(err)
			}
		}
		args = append([]string{"--preserve-symlinks", "--preserve-symlinks-main"}, args...)
	}
	golden, ok := testfiles.Find("playback", "golden.json")
	if !ok {
		t.Fatal("testdata/playback/golden.json is missing")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append(args, files...)...)
	cmd.Dir = run
	cmd.Env = append(os.Environ(), "BONEBAKE_FIXTURES="+dir, "BONEBAKE_GOLDEN="+golden, "BONEBAKE_THREE_VERSION="+version)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	if testing.Verbose() || !strings.Contains(string(out), "# skipped 0") {
		t.Logf("%s", out)
	}
	if install != nil && !threeChecked.Match(out) {
		t.Errorf("node --test did not check that three.js is %s (three.test.mjs skipped?)", version)
	}
}

// threeChecked is the TAP line of three.test.mjs's check that node
// imported the three.js release go test installed.
var threeChecked = regexp.MustCompile(`(?m)^\s*ok \d+ - three is the release go test installed\s*$`)

// fixture is what the node tests compare the JavaScript reader with.
type fixture struct {
	File    string      `json:"file"`
	Bones   int         `json:"bones"`
	Clips   []bpat.Clip `json:"clips"`
	Samples []struct {
		Clip    int       `json:"clip"`
		Phase   float64   `json:"phase"`
		Palette []float32 `json:"palette"`
		Sockets []float32 `json:"sockets"`
	} `json:"samples"`
	Broken []broken `json:"broken"`
}

// broken is a corrupted copy of the fixture file: the bytes patched, and the
// problems formats/bpat reports for it, strict and lenient.
type broken struct {
	Name     string    `json:"name"`
	Patch    []patch   `json:"patch"`
	Truncate int       `json:"truncate,omitempty"` // keep only this many bytes (0: all)
	Append   int       `json:"append,omitempty"`   // add this many bytes of 0xAA
	Strict   []problem `json:"strict"`
	Lenient  []problem `json:"lenient"`
}

type patch struct {
	Offset int    `json:"offset"`
	Bytes  []byte `json:"bytes"` // base64 in JSON
}

type problem struct {
	Rule   string `json:"rule"`
	Offset int64  `json:"offset"`
	Index  int    `json:"index"`
}

func writeFixtures(t *testing.T, dir string) {
	t.Helper()
	const bones = 3
	mat := func(seed float64) []float32 { // an affine matrix, row-major
		m := make([]float32, 16)
		for i := range 12 {
			m[i] = float32(math.Sin(seed*1.7 + float64(i)*0.37))
		}
		m[15] = 1
		return m
	}
	frames := func(n int, seed float64) []float32 {
		var p []float32
		for f := range n {
			for b := range bones {
				p = append(p, mat(seed+float64(f*bones+b))...)
			}
		}
		return p
	}
	markers := bpat.NoMarkers()
	markers[bpat.Contact] = 0.5
	c := &bpat.Contents{
		SpeciesID: 9, BoneCount: bones,
		Clips: []bpat.Clip{
			{Name: "walk", FPS: 30, Loops: true, Markers: bpat.NoMarkers()},
			{Name: "strike", FPS: 24, Markers: markers},
		},
		Palettes: [][]float32{frames(4, 0), frames(3, 100)},
		Sockets:  []bpat.Socket{{Name: "hand", Anchor: 2, Offset: [3]float32{0.1, 0.2, -0.3}}},
	}
	path := filepath.Join(dir, "fixture.bpat")
	if err := bpat.WriteFile(path, c); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bpat.Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	fx := fixture{File: path, Bones: bones, Clips: f.Clips()}
	for clip := range f.Clips() {
		for _, ph := range []float64{0, 0.1, 0.37, 0.5, 0.99, 1, 1.25, -0.4} {
			pal, sock := make([]float32, bones*16), make([]float32, 12)
			f.Sample(clip, ph, pal, sock)
			fx.Samples = append(fx.Samples, struct {
				Clip    int       `json:"clip"`
				Phase   float64   `json:"phase"`
				Palette []float32 `json:"palette"`
				Sockets []float32 `json:"sockets"`
			}{clip, ph, pal, sock})
		}
	}
	h := f.Header()
	clip1 := int(h.ClipTableOffset) + 44
	sock := int(h.SocketTableOffset)
	le := func(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
	nan := le(math.Float32bits(float32(math.NaN())))
	cases := []broken{
		{Name: "truncated", Truncate: 40},
		{Name: "magic", Patch: []patch{{0, []byte("BPAX")}}},
		{Name: "version", Patch: []patch{{4, le(3)}}},
		{Name: "bone-count", Patch: []patch{{12, le(65)}}},
		{Name: "no clips", Patch: []patch{{20, le(0)}}},
		{Name: "socket table without sockets", Patch: []patch{{16, le(0)}}},
		{Name: "frame offset", Patch: []patch{{clip1 + 12, le(3)}}},
		{Name: "frame total", Patch: []patch{{24, le(8)}}},
		{Name: "loops", Patch: []patch{{clip1 + 20, []byte{2}}}},
		{Name: "fps NaN", Patch: []patch{{clip1 + 16, nan}}},
		{Name: "marker", Patch: []patch{{clip1 + 24, le(math.Float32bits(1.5))}}},
		{Name: "pad byte", Patch: []patch{{clip1 + 22, []byte{7}}}},
		{Name: "anchor bone", Patch: []patch{{sock + 8, le(3)}}},
		{Name: "socket offset NaN", Patch: []patch{{sock + 16, nan}}},
		{Name: "palette NaN", Patch: []patch{{int(h.PaletteOffset) + 4*21, nan}}},
		{Name: "palette out of bounds", Patch: []patch{{56, le(1 << 30)}}},
		{Name: "palette misaligned", Patch: []patch{{56, le(uint32(h.PaletteOffset) + 4)}}},
		{Name: "name without NUL", Patch: []patch{{clip1 + 4, le(5)}}},
		{Name: "name not UTF-8", Patch: []patch{{int(h.StringTableOffset), []byte{0xff}}}},
		{Name: "trailing bytes", Append: 16},
	}
	for i := range cases {
		b := append([]byte(nil), good...)
		k := &cases[i]
		for _, p := range k.Patch {
			copy(b[p.Offset:], p.Bytes)
		}
		if k.Truncate > 0 {
			b = b[:k.Truncate]
		}
		for range k.Append {
			b = append(b, 0xAA)
		}
		k.Strict = problems(t, k.Name, b)
		k.Lenient = problems(t, k.Name, b, formats.Lenient())
		if len(k.Strict) == 0 {
			t.Fatalf("%s: formats/bpat accepts the corrupted file: the fixture is wrong", k.Name)
		}
	}
	fx.Broken = cases
	js, err := json.Marshal(fx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixture.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
}

// problems lists what formats/bpat finds broken in b (nil when it accepts it).
func problems(t *testing.T, name string, b []byte, opts ...bpat.Option) []problem {
	_, err := bpat.Parse(b, opts...)
	if err == nil {
		return []problem{}
	}
	var ve *formats.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%s: %v is not a ValidationError", name, err)
	}
	var out []problem
	for _, p := range ve.Problems {
		out = append(out, problem{p.Rule, p.Offset, p.Index})
	}
	return out
}

// TestWriteFixtures writes the fixtures into $BONEBAKE_WRITE_FIXTURES, for
// running the node tests by hand (npm test in the package folder).
func TestWriteFixtures(t *testing.T) {
	dir := os.Getenv("BONEBAKE_WRITE_FIXTURES")
	if dir == "" {
		t.Skip("set BONEBAKE_WRITE_FIXTURES to a folder to write the node tests' fixtures there")
	}
	writeFixtures(t, dir)
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
