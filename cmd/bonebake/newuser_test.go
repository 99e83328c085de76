package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/bpat"
)

// The rough edges a new user found, each pinned by a test.

func TestDirectoriesAndWrongFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range [][]string{{"inspect", dir}, {"validate", dir}, {"sample", dir, "--clip", "a"}} {
		code, out, errOut := bonebake(t, c...)
		if code != 1 || !strings.Contains(out+errOut, "is a directory") || strings.Contains(out+errOut, "mapping") {
			t.Errorf("%v: exit %d: %s%s", c, code, out, errOut)
		}
	}
	creatures := filepath.Join(dir, "creatures")
	if code, _, errOut := bonebake(t, "bake", "--out", creatures, "--species", "horse"); code != 0 {
		t.Fatal(errOut)
	}
	code, _, errOut := bonebake(t, "bake", filepath.Join(creatures, "horse.bpat"), "-o", filepath.Join(dir, "x.bpat"))
	if code != 1 || !strings.Contains(errOut, "a BPAT bone palette file, not a model") {
		t.Errorf("bake of a .bpat: exit %d: %s", code, errOut)
	}
	// inspect and validate read snapshot meshes too.
	snap := filepath.Join(creatures, "horse_minimal.bpsm")
	code, out, errOut := bonebake(t, "inspect", snap)
	if code != 0 || !strings.Contains(out, "BPSM v1 snapshot mesh") || !strings.Contains(out, "270 triangles") {
		t.Errorf("inspect .bpsm: exit %d: %s%s", code, out, errOut)
	}
	code, out, _ = bonebake(t, "validate", snap, filepath.Join(creatures, "horse.bpat"))
	if code != 0 || strings.Count(out, ": ok (") != 2 || !strings.Contains(out, "BPSM v1") {
		t.Errorf("validate .bpsm: exit %d: %s", code, out)
	}
}

func TestBakeOutputs(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	dir := t.TempDir()
	// -o into a folder that does not exist yet: it is made.
	deep := filepath.Join(dir, "a", "b", "fox.bpat")
	code, out, errOut := bonebake(t, "bake", fox, "-o", deep)
	if code != 0 {
		t.Fatalf("bake into a new folder: %s", errOut)
	}
	// Quiet by default: one summary line, with the grammar right.
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.Contains(out, "0 sockets") || !strings.Contains(out, "3 clips") {
		t.Errorf("summary: %q", out)
	}
	code, out, _ = bonebake(t, "bake", fox, "-o", deep, "--socket", "head=b_Head_05", "--species-id", "9")
	if code != 0 || !strings.Contains(out, "1 socket,") || strings.Contains(out, "first id not built in") {
		t.Errorf("one socket, chosen id: %q", out)
	}
	// -o onto a folder: said plainly, no temporary file names.
	code, _, errOut = bonebake(t, "bake", fox, "-o", dir)
	if code != 2 || !strings.Contains(errOut, "is a directory") || strings.Contains(errOut, ".tmp") {
		t.Errorf("-o onto a folder: exit %d: %s", code, errOut)
	}
	// -o onto a folder not yet made ("out/"): refused before the bake, as a
	// usage error, not by the write after it, and no folder is left.
	fresh := filepath.Join(dir, "fresh") + string(filepath.Separator)
	code, _, errOut = bonebake(t, "bake", fox, "-o", fresh)
	if _, err := os.Stat(fresh); code != 2 || !strings.Contains(errOut, "names a folder; give the file name to write") || err == nil {
		t.Errorf("-o %s: exit %d (folder made: %v): %s", fresh, code, err == nil, errOut)
	}
	// With no model, -o out.bpat must not make a folder of that name.
	wd, _ := os.Getwd()
	os.Chdir(dir)
	code, _, errOut = bonebake(t, "bake", "-o", "out.bpat")
	os.Chdir(wd)
	if _, err := os.Stat(filepath.Join(dir, "out.bpat")); code != 2 || err == nil {
		t.Errorf("bake -o out.bpat without a model: exit %d, %s, made it: %v", code, errOut, err == nil)
	}
	// An absurd fps is refused before anything is written, with the size.
	huge := filepath.Join(dir, "huge.bpat")
	code, _, errOut = bonebake(t, "bake", fox, "-o", huge, "--fps", "100000")
	if _, err := os.Stat(huge); code != 1 || !strings.Contains(errOut, "812 MB") || !strings.Contains(errOut, "--force") || err == nil {
		t.Errorf("--fps 100000: exit %d: %s", code, errOut)
	}
	// A large one is announced before it starts.
	code, _, errOut = bonebake(t, "bake", fox, "-o", huge, "--fps", "3000")
	if code != 0 || !strings.Contains(errOut, "writing 24.3 MB to") {
		t.Errorf("--fps 3000: exit %d: %s", code, errOut)
	}
	// The built-ins: one line, or every file with --verbose.
	code, out, _ = bonebake(t, "bake", "--out", filepath.Join(dir, "c"), "--species", "horse,elephant")
	if code != 0 || strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.Contains(out, "baked 2 creatures") || !strings.Contains(out, "4 files") {
		t.Errorf("quiet built-in bake: %q", out)
	}
	code, out, _ = bonebake(t, "bake", "--out", filepath.Join(dir, "c"), "--species", "horse", "--verbose")
	if code != 0 || strings.Count(out, "wrote ") != 2 || !strings.Contains(out, "baked 1 creature ") {
		t.Errorf("verbose built-in bake: %q", out)
	}
}

func TestPlainMessages(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bake", fox, "--fps", "fast"}, `--fps "fast": want a number`},
		{[]string{"bake", fox, "--skin", "1.5"}, `--skin "1.5": want a whole number`},
		{[]string{"bake", fox, "--species-id", "-1"}, `--species-id "-1": want a whole number of at least 0`},
		{[]string{"bake", fox, "--species-id", "99999999999"}, `--species-id "99999999999": want a whole number in range`},
		{[]string{"view", "--dir", "no/such/folder"}, "--dir no/such/folder: no such folder"},
	}
	for _, c := range cases {
		code, _, errOut := bonebake(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "strconv") || strings.Contains(errOut, "Parse") {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
		}
		if hint := "Run 'bonebake " + c.args[0] + " --help' for usage."; !strings.Contains(errOut, hint) {
			t.Errorf("%v: no %q in %s", c.args, hint, errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := bonebake(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "bonebake ") || !strings.Contains(out, "go1.") || !strings.HasSuffix(out, "\n") {
		t.Errorf("--version: exit %d: %q", code, out)
	}
}

func TestValidateJSON(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bpat")
	if code, _, errOut := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", good, "--species-id", "7"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, _ := bonebake(t, "validate", "--json", "--species", "7", good, dir)
	var res []struct {
		File     string
		Format   string
		Valid    bool
		Problems []struct {
			Rule    string
			Offset  int64
			Message string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 || len(res) != 2 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if !res[0].Valid || res[0].Format != "bpat" || res[0].File != good || len(res[0].Problems) != 0 {
		t.Errorf("good file: %+v", res[0])
	}
	if res[1].Valid || len(res[1].Problems) != 1 || !strings.Contains(res[1].Problems[0].Message, "is a directory") {
		t.Errorf("directory: %+v", res[1])
	}
	// Without --species 7 the file breaks the species rule, at offset 8.
	code, out, _ = bonebake(t, "validate", "--json", good)
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 1 || len(res[0].Problems) != 1 ||
		res[0].Problems[0].Rule != "species" || res[0].Problems[0].Offset != 8 {
		t.Errorf("species rule: exit %d: %s", code, out)
	}
}

// TestInspectModelJSON: a model's inspect --json names its file and durations with
// the words every other file's report uses (docs/json.md).
func TestInspectModelJSON(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	code, out, errOut := bonebake(t, "inspect", fox, "--json")
	var info map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if info["file"] != fox || info["format"] != "gltf" || info["path"] != nil {
		t.Errorf("file %v, format %v, path %v", info["file"], info["format"], info["path"])
	}
	anims, _ := info["animations"].([]any)
	if len(anims) != 3 || anims[0].(map[string]any)["duration_s"] == nil {
		t.Errorf("animations %v", anims)
	}
}

// TestLenientSpecies: --lenient accepts a species id it was not told of, with a
// warning that names the rule and offset; strict refuses it.
func TestLenientSpecies(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fox.bpat")
	if code, _, errOut := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", out, "--species-id", "7"); code != 0 {
		t.Fatal(errOut)
	}
	code, stdout, _ := bonebake(t, "validate", "--lenient", out)
	if code != 0 || !strings.Contains(stdout, ": ok (") || !strings.Contains(stdout, "warning: offset 8 (0x8): species") {
		t.Errorf("lenient: exit %d: %s", code, stdout)
	}
	if code, stdout, _ = bonebake(t, "validate", out); code != 1 {
		t.Errorf("strict: exit %d: %s", code, stdout)
	}
}

// TestBakeSaysSize: the summary gives the model's height along +y in metres, a
// model in centimetres gets a hint, and --scale 0.01 bakes it in metres.
func TestBakeSaysSize(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	dir := t.TempDir()
	// The Fox is modelled in centimetres: about 79 tall and 155 long.
	code, out, errOut := bonebake(t, "bake", fox, "-o", filepath.Join(dir, "fox.bpat"))
	if code != 0 || !strings.Contains(out, "model 79 m tall along +y") || !strings.Contains(errOut, "hint: 155 m across looks like centimetres: --scale 0.01") {
		t.Errorf("bake Fox: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = bonebake(t, "bake", fox, "-o", filepath.Join(dir, "fox.bpat"), "--scale", "0.01", "--deforming-only")
	if code != 0 || !strings.Contains(out, "model 0.79 m tall along +y") || strings.Contains(errOut, "hint:") ||
		!strings.Contains(out, "22 bones") || !strings.Contains(errOut, "dropped 2 joints") {
		t.Errorf("bake Fox --scale 0.01 --deforming-only: %d\n%s%s", code, out, errOut)
	}
	for _, bad := range []string{"0", "-1", "NaN"} {
		if code, _, errOut := bonebake(t, "bake", fox, "-o", filepath.Join(dir, "fox.bpat"), "--scale", bad); code != 2 || !strings.Contains(errOut, "--scale") {
			t.Errorf("--scale %s: exit %d %s", bad, code, errOut)
		}
	}
	// RiggedSimple was exported from Blender: its clip's lead-in is dropped, and said.
	code, _, errOut = bonebake(t, "bake", sharedModel(t, "RiggedSimple.gltf"), "-o", filepath.Join(dir, "rs.bpat"))
	if code != 0 || !strings.Contains(errOut, "lead-in before the first key of 1 clip (animation_0 0.04167 s") {
		t.Errorf("bake RiggedSimple: %d %s", code, errOut)
	}
}

// A file the lenient reader accepts with a NaN fps and socket offset gets valid
// JSON from inspect (null, and a warning saying why), and names holding a
// terminal escape are printed quoted, never raw.
func TestInspectOddValues(t *testing.T) {
	c := &bpat.Contents{SpeciesID: 0, BoneCount: 1,
		Clips:    []bpat.Clip{{Name: "walk\x1b[31mred", FPS: 24, Loops: true, Markers: bpat.NoMarkers()}},
		Palettes: [][]float32{{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
		Sockets:  []bpat.Socket{{Name: "tip", Anchor: 0}}}
	var b bytes.Buffer
	if err := bpat.Write(&b, c); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	nan := math.Float32bits(float32(math.NaN()))
	binary.LittleEndian.PutUint32(data[64+16:], nan) // clip 0's fps
	sock := binary.LittleEndian.Uint64(data[40:])
	binary.LittleEndian.PutUint32(data[sock+12:], nan) // socket 0's offset x
	path := filepath.Join(t.TempDir(), "odd.bpat")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := bonebake(t, "inspect", path, "--json")
	var r struct {
		Clips []struct {
			Name string   `json:"name"`
			FPS  *float64 `json:"fps"`
		} `json:"clips"`
		Sockets []struct {
			Offset [3]*float64 `json:"local_offset"`
		} `json:"sockets"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("inspect --json: exit %d, %v: %s%s", code, err, out, errOut)
	}
	if r.Clips[0].FPS != nil || r.Sockets[0].Offset[0] != nil || r.Sockets[0].Offset[1] == nil || len(r.Warnings) != 2 || r.Clips[0].Name != "walk\x1b[31mred" {
		t.Errorf("inspect --json: %s", out)
	}
	_, out, _ = bonebake(t, "inspect", path)
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `"walk\x1b[31mred"`) {
		t.Errorf("inspect printed the name raw: %q", out)
	}
}

// Numbers out of range are refused with the number as given.
func TestNumbersOutOfRange(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bake", fox, "-o", filepath.Join(dir, "f.bpat"), "--fps", "1e-300"}, "--fps 1e-300 is outside [0.001, 1e+06]"},
		{[]string{"bat", fox, "-o", dir, "--fps", "1e-300"}, "--fps 1e-300 is outside"},
		{[]string{"bake", fox, "-o", filepath.Join(dir, "f.bpat"), "--socket", "tip=b_Spine01_02@1e39,0,0"}, `offset "1e39" is outside the range of a float32`},
	} {
		if code, _, errOut := bonebake(t, c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q; want %q", c.args, code, errOut, c.want)
		}
	}
}

// validate of a file bonebake baked for an id beyond the built-in ones says how
// to accept it; every JSON verdict and inspect report names its format.
func TestValidateSaysHowToAccept(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fox.bpat")
	if code, _, errOut := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", out); code != 0 {
		t.Fatal(errOut)
	}
	if code, stdout, _ := bonebake(t, "validate", out); code != 1 || !strings.Contains(stdout, "pass --species 6 to accept it") {
		t.Errorf("validate: exit %d %q", code, stdout)
	}
	if code, _, _ := bonebake(t, "validate", out, "--species", "6"); code != 0 {
		t.Errorf("validate --species 6: exit %d", code)
	}
	readme := filepath.Join(dir, "notes.txt")
	os.WriteFile(readme, []byte("hello"), 0o644)
	_, stdout, _ := bonebake(t, "validate", "--json", readme)
	var vs []map[string]any
	if err := json.Unmarshal([]byte(stdout), &vs); err != nil || len(vs) != 1 || vs[0]["format"] != "unknown" || vs[0]["summary"] == nil {
		t.Errorf("validate --json of an unknown file: %v %s", err, stdout)
	}
	// One socket is "1 socket".
	one := filepath.Join(dir, "one.bpat")
	if code, _, errOut := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", one, "--socket", "head=b_Head_05"); code != 0 {
		t.Fatal(errOut)
	}
	if _, stdout, _ := bonebake(t, "inspect", one, "--species", "6"); !strings.Contains(stdout, "1 socket,") || strings.Contains(stdout, "1 sockets") {
		t.Errorf("inspect: %q", stdout)
	}
	_, stdout, _ = bonebake(t, "inspect", "--json", out, "--species", "6")
	var r map[string]any
	if err := json.Unmarshal([]byte(stdout), &r); err != nil || r["format"] != "bpat" {
		t.Errorf("inspect --json: format %v (%v)", r["format"], err)
	}
}

// Usage errors exit 2 and name the bad value and the valid ones; a failed
// --max-error suggests only settings not already in use.
func TestUsageErrorsSayWhatIsValid(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bake", fox, "-o", filepath.Join(dir, "f.bpat"), "--skin", "-1"}, "skins are numbered from 0"},
		{[]string{"bake", fox, "-o", filepath.Join(dir, "f.bpat"), "--skin", "3"}, "the file has 1 skin (numbered from 0)"},
		{[]string{"bake", fox, "-o", filepath.Join(dir, "f.bpat"), "--fps", "1e9"}, "--fps 1e+09 is outside"},
		{[]string{"bat", "horse", "-o", dir, "--clips", "wakl"}, `no clip "wakl" (its clips: idle, walk,`},
	} {
		if code, _, errOut := bonebake(t, c.args...); code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, `["`) {
			t.Errorf("%v: exit %d %q; want %q", c.args, code, errOut, c.want)
		}
	}
	code, _, errOut := bonebake(t, "bat", "horse", "-o", filepath.Join(dir, "raw"), "--max-error", "1e-12")
	if code != 1 || strings.Contains(errOut, "--preset raw") || strings.Contains(errOut, "--format exr") || !strings.Contains(errOut, "already the most precise") {
		t.Errorf("raw/exr past --max-error: exit %d %q", code, errOut)
	}
	code, _, errOut = bonebake(t, "bat", "horse", "-o", filepath.Join(dir, "ue"), "--preset", "ue", "--max-error", "1e-12")
	if code != 1 || strings.Contains(errOut, "--format exr") || !strings.Contains(errOut, "--preset raw") {
		t.Errorf("ue past --max-error: exit %d %q", code, errOut)
	}
}

// Flags that did nothing are refused, names say what they mean, help reads
// plainly, and a mistyped subcommand gets the closest name.
func TestFlagsAndHelpSayWhatTheyDo(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export-gltf", "horse", "-o", filepath.Join(dir, "horse.txt")}, "writes .glb (binary) or .gltf"},
		{[]string{"bake", "--package", filepath.Join(dir, "c.bpx"), "--out", dir}, "--out does not apply to --package"},
		{[]string{"mot", "incode"}, "did you mean encode?"},
		{[]string{"bpx", "lst"}, "did you mean list?"},
		{[]string{"bake", "--gltf", filepath.Join(dir, "x.glb"), "-o", filepath.Join(dir, "y.bpat")}, "--gltf writes the motions that --mot bakes"},
	} {
		if code, _, errOut := bonebake(t, c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q; want %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "horse.txt")); err == nil {
		t.Error("export-gltf wrote horse.txt")
	}
	code, _, errOut := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", filepath.Join(dir, "f.bpat"), "--species-id", "2")
	if code != 0 || !strings.Contains(errOut, "species id 2 is the built-in elephant's") {
		t.Errorf("--species-id 2: exit %d %q", code, errOut)
	}
	for _, c := range []string{"sample", "simulate"} {
		_, out, _ := bonebake(t, c, "--help")
		if !strings.Contains(out, "Examples:") || strings.Contains(out, "(default [])") || strings.Contains(out, "0.016666") {
			t.Errorf("%s --help:\n%s", c, out)
		}
	}
}
