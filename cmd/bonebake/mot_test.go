package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/mot"
	"github.com/bonebake/bonebake/internal/testfiles"
)

func sharedMot(t *testing.T) string { return testfiles.Path(t, "mot", "pl000f_0a25.wiiu-be.mot") }

func TestMotCommands(t *testing.T) {
	in := sharedMot(t)
	dir := t.TempDir()

	code, out, errOut := bonebake(t, "mot", "inspect", in)
	if code != 0 || !strings.Contains(out, "bayo2, big-endian") || !strings.Contains(out, "96 frames") ||
		!strings.Contains(out, "type 6: 98 records") || !strings.Contains(out, "pl000f_0a25") {
		t.Fatalf("inspect: %d %q %q", code, out, errOut)
	}
	// Sizes as every other summary says them (a bake's, bpx inspect's): the
	// file's 14,424 bytes and type 6's 4,408 bytes of data in decimal KB.
	if !strings.Contains(out, "big-endian, 14.4 KB\n") || !strings.Contains(out, "type 6: 98 records, 4.41 KB of data") {
		t.Errorf("inspect says sizes in bytes: %.300q", out)
	}
	code, out, _ = bonebake(t, "mot", "inspect", in, "--json")
	var info map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil || info["file"] != in || info["frame_count"] != 96.0 || info["format"] != "mot" {
		t.Fatalf("inspect --json: %d %.300s", code, out)
	}

	code, out, _ = bonebake(t, "mot", "dump", in, "--json")
	var d struct {
		Family, ByteOrder string
		FrameCount        int `json:"frame_count"`
		Records           []struct {
			Bone   int16
			Track  uint8
			Type   int8
			Values []float64
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Family != "bayo2" || d.FrameCount != 96 || len(d.Records) != 830 || len(d.Records[0].Values) != 96 {
		t.Fatalf("dump: %d %.300s", code, out)
	}
	dump := filepath.Join(dir, "motion.json")
	if err := os.WriteFile(dump, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}

	conv := filepath.Join(dir, "pc.mot")
	code, out, errOut = bonebake(t, "mot", "convert", in, "-o", conv, "--family", "bayo1", "--byte-order", "little")
	if code != 0 || !strings.Contains(out, "bayo1, little-endian") {
		t.Fatalf("convert: %d %q %q", code, out, errOut)
	}
	if !regexp.MustCompile(`(?m)^wrote .*, 819 records, 1\d(\.\d)? KB \(11 camera records dropped`).MatchString(out) {
		t.Errorf("convert's summary %q does not give the file's size in KB", out)
	}
	m, err := mot.Open(conv)
	if err != nil || m.Family != mot.Bayo1 {
		t.Fatalf("converted file: %v", err)
	}

	enc := filepath.Join(dir, "new.mot")
	code, out, errOut = bonebake(t, "mot", "encode", dump, "-o", enc, "--tolerance", "1e-3", "-q")
	if code != 0 || !strings.Contains(out, "wrote "+enc) {
		t.Fatalf("encode: %d %q %q", code, out, errOut)
	}
	if _, err := mot.Open(enc); err != nil {
		t.Fatal(err)
	}
	// One summary line by default, per track with --verbose; lossless is a
	// valid request: written, exit 0, the float32 rounding said.
	code, out, errOut = bonebake(t, "mot", "encode", dump, "-o", enc, "--tolerance", "0")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, "(tolerance 0)") || strings.Contains(errOut, "bonebake:") {
		t.Errorf("encode --tolerance 0: exit %d %q %q", code, out, errOut)
	}
	if _, out, _ = bonebake(t, "mot", "encode", dump, "-o", enc, "--verbose"); strings.Count(out, "\n") < 100 || !strings.Contains(out, "bone ") {
		t.Errorf("encode --verbose printed %d lines", strings.Count(out, "\n"))
	}

	// Usage errors exit 2, bad files 1, with the file named.
	if code, _, _ := bonebake(t, "mot", "dump", in); code != 2 {
		t.Errorf("dump without --json: exit %d", code)
	}
	if code, _, _ := bonebake(t, "mot", "convert", in, "-o", conv, "--family", "bayo3"); code != 2 {
		t.Errorf("bad family: exit %d", code)
	}
	bad := filepath.Join(dir, "bad.mot")
	os.WriteFile(bad, []byte("mot\x00\x20\x12\x04\x05"), 0o644)
	if code, _, errOut := bonebake(t, "mot", "inspect", bad); code != 1 || !strings.Contains(errOut, bad) {
		t.Errorf("damaged file: exit %d, %q", code, errOut)
	}
	// What only a strict reader refuses is a warning: the games read such files.
	raw, _ := os.ReadFile(in)
	padded := filepath.Join(dir, "padded.mot")
	os.WriteFile(padded, append(raw, 0, 0, 0, 0), 0o644)
	if code, _, errOut := bonebake(t, "mot", "inspect", padded); code != 0 || !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "trailing-bytes") {
		t.Errorf("padded file: exit %d, %q", code, errOut)
	}
	for _, sub := range []string{"inspect", "dump", "convert", "encode"} {
		if code, out, _ := bonebake(t, "mot", sub, "--help"); code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("mot %s --help: exit %d", sub, code)
		}
	}
}

func TestBakeMot(t *testing.T) {
	in := sharedMot(t)
	model := sharedModel(t, "RiggedSimple.gltf")
	dir := t.TempDir()
	out, glb := filepath.Join(dir, "m.bpat"), filepath.Join(dir, "m.glb")
	// "Bone" is the root (motion bone −1), "Bone.001" is motion bone 1: 2 of
	// the motion's 91 bones, which only --force bakes (docs/formats/mot.md §13).
	code, stdout, stderr := bonebake(t, "bake", "--mot", in, "--rig", model, "-o", out, "--gltf", glb)
	if code != 1 || !strings.Contains(stderr, "bone-fit: pl000f_0a25: 2 of 91 bones found") || !strings.Contains(stderr, in) || !strings.Contains(stderr, "--force") {
		t.Fatalf("bake --mot onto a rig with 2 of its bones: %d %q %q, want exit 1 and the bone-fit rule", code, stdout, stderr)
	}
	code, stdout, stderr = bonebake(t, "bake", "--mot", in, "--rig", model, "-o", out, "--gltf", glb, "--force")
	if code != 0 || !strings.Contains(stdout, "2 bones, 1 clip (1.583 s), 96 frames") || !strings.Contains(stdout, "wrote "+glb) || !strings.Contains(stderr, "note: motion pl000f_0a25: 2 of 91 bones found") {
		t.Fatalf("bake --mot --force: %d %q %q", code, stdout, stderr)
	}
	// The summary says what a glTF bake's does: the species id no one chose
	// and how readers take it, and how long the bake took; and the seconds
	// the motion lasts: a one-shot's 96 frames at 60 fps span 95/60 s.
	for _, want := range []string{"1 clip (1.583 s)", "species 6 (the first id not built in: pass --species-id to choose one; readers accept it with --species 6), in "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("bake --mot's summary %q lacks %q", stdout, want)
		}
	}
	// Beside m.bpat's 6, a second motion bake into the folder takes 7, the
	// next id free there, so that the runtime can load the folder.
	if _, stdout, _ := bonebake(t, "bake", "--mot", in, "--rig", model, "-o", filepath.Join(dir, "m2.bpat"), "--force"); !strings.Contains(stdout, "species 7 (the first id free in "+dir) {
		t.Errorf("a second bake --mot into the folder: %q, want species 7, free there", stdout)
	}
	code, stdout, _ = bonebake(t, "inspect", glb)
	if code != 0 || !strings.Contains(stdout, "pl000f_0a25") {
		t.Fatalf("inspect glb: %d %q", code, stdout)
	}
	// The written model keeps the rig's skin (its 2 joints, not every node) and
	// stands in the space the palettes were baked in: baked back, it gives them again.
	back := filepath.Join(dir, "back.bpat")
	if code, stdout, stderr := bonebake(t, "bake", glb, "-o", back); code != 0 || !strings.Contains(stdout, "2 bones, 1 clip, 96 frames") {
		t.Fatalf("bake the written glb back: %d %q %q", code, stdout, stderr)
	}
	samePalettes(t, out, back, 1e-5)
	bm := filepath.Join(dir, "map.yaml")
	os.WriteFile(bm, []byte("Bone: -1\nBone.001: 3\n"), 0o644)
	if code, _, stderr := bonebake(t, "bake", "--mot", in, "--rig", model, "-o", out, "--bone-map", bm, "--rotation-order", "zyx", "--force"); code != 0 {
		t.Fatalf("--bone-map: %d %q", code, stderr)
	}
	if code, _, _ := bonebake(t, "bake", "--mot", in, "--rig", model, "-o", out, "--rotation-order", "xxy"); code != 2 {
		t.Errorf("bad rotation order: exit %d", code)
	}
	if code, _, _ := bonebake(t, "bake", "--mot", in, "-o", out); code != 2 {
		t.Errorf("--mot without --rig: exit %d", code)
	}
	// Issue 41: Fox's joints end in numbers (b_Hip_01) that pick 22 of the
	// Bayonetta motion's 91 bones by chance; it was baked into a ball, exit 0.
	if code, _, stderr := bonebake(t, "bake", "--mot", in, "--rig", sharedModel(t, "Fox.glb"), "-o", out); code != 1 || !strings.Contains(stderr, "22 of 91 bones") || !strings.Contains(stderr, "fewer than 50%") {
		t.Errorf("a Bayonetta motion on Fox: exit %d, %q; want 1 and the bone-fit rule", code, stderr)
	}
	// The rate the engine would refuse is refused up front, as for a model.
	if code, _, stderr := bonebake(t, "bake", "--mot", in, "--rig", model, "-o", out, "--fps", "1e9"); code != 2 || !strings.Contains(stderr, "--fps 1e+09 is outside [0.001, 1e+06]") {
		t.Errorf("--mot --fps 1e9: exit %d: %q", code, stderr)
	}
}

// Bayonetta 1 output holds only types 0, 1, 4, 6 and 7 unless --bayo1-all-types
// is given, and convert's summary names the re-expressed tracks and their cost.
func TestMotBayo1Types(t *testing.T) {
	in := testfiles.Path(t, "mot", "synthetic/bayo2_le.mot") // Bayonetta 2 types 2, 3 and 4
	dir := t.TempDir()
	types := func(path string) map[int8]bool {
		t.Helper()
		m, err := mot.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int8]bool{}
		for _, r := range m.Records {
			seen[r.Type] = true
		}
		return seen
	}
	size := func(path string) int {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return int(st.Size())
	}
	readable, all := filepath.Join(dir, "readable.mot"), filepath.Join(dir, "all.mot")
	code, out, errOut := bonebake(t, "mot", "convert", in, "-o", readable, "--family", "bayo1")
	if code != 0 {
		t.Fatalf("convert: %d %q", code, errOut)
	}
	if code, _, errOut := bonebake(t, "mot", "convert", in, "-o", all, "--family", "bayo1", "--bayo1-all-types"); code != 0 {
		t.Fatalf("convert --bayo1-all-types: %d %q", code, errOut)
	}
	for ty := range types(readable) {
		if ty == 2 || ty == 3 || ty == 5 {
			t.Errorf("convert wrote Bayonetta 1 type %d", ty)
		}
	}
	if seen := types(all); !seen[2] || !seen[3] || !seen[5] {
		t.Errorf("--bayo1-all-types: types %v, want 2, 3 and 5", seen)
	}
	cost := fmt.Sprintf("3 tracks re-expressed in types Bayonetta 1 readers open (0, 1, 4, 6, 7): %+d bytes (%d with types 2, 3 and 5", size(readable)-size(all), size(all))
	if !strings.Contains(out, cost) || !strings.Contains(out, "bone 1 track 3: type 4 → 1 (not 2), 48 → 124 bytes, largest difference ") ||
		!strings.Contains(out, "values identical except 1 track of float Hermite keys") {
		t.Errorf("convert's summary %q lacks %q or the float track", out, cost)
	}

	code, out, _ = bonebake(t, "mot", "dump", sharedMot(t), "--json")
	dump := filepath.Join(dir, "motion.json")
	if code != 0 || os.WriteFile(dump, []byte(out), 0o644) != nil {
		t.Fatal("dump")
	}
	enc, encAll := filepath.Join(dir, "enc.mot"), filepath.Join(dir, "enc_all.mot")
	for _, c := range [][]string{{"-o", enc}, {"-o", encAll, "--bayo1-all-types"}} {
		if code, _, errOut := bonebake(t, append([]string{"mot", "encode", dump, "--family", "bayo1", "-q"}, c...)...); code != 0 {
			t.Fatalf("encode %v: %d %q", c, code, errOut)
		}
	}
	for ty := range types(enc) {
		if ty == 2 || ty == 3 || ty == 5 {
			t.Errorf("encode wrote Bayonetta 1 type %d", ty)
		}
	}
	if seen := types(encAll); !seen[3] {
		t.Errorf("encode --bayo1-all-types: types %v, want per-frame type 3 among them", seen)
	}
}

// mot encode keeps the dump's name in a Bayonetta 2 family file (Bayonetta 1
// headers have no name).
func TestMotEncodeKeepsTheName(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "m.json")
	os.WriteFile(dump, []byte(`{"family":"bayo2","byte_order":"little","frame_count":2,"flags":0,"name":"pl0010_walk","records":[{"bone":0,"track":0,"values":[1,2]}]}`), 0o644)
	out := filepath.Join(dir, "m.mot")
	if code, _, errOut := bonebake(t, "mot", "encode", dump, "-o", out); code != 0 {
		t.Fatal(errOut)
	}
	m, err := mot.Open(out)
	if err != nil || m.Name != "pl0010_walk" {
		t.Errorf("name %q (%v), want pl0010_walk", m.Name, err)
	}
}

// A --camera mapping of a bone the motion lacks (7000, read as decimal, where
// mot inspect prints 0x7000) says so, naming the camera bones the motion has;
// one that is not two ids says they are hex with 0x (issue 45 re-check: the
// first dropped the camera records in silence).
func TestMotCameraMapNamesMissingBone(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b.mot")
	code, so, se := bonebake(t, "mot", "convert", sharedMot(t), "-o", out, "--family", "bayo1", "--camera", "7000=3936")
	if code != 0 || !strings.Contains(se, "--camera 0x1b58 (decimal 7000): the motion has no such camera bone") || !strings.Contains(se, "0x7000, 0x7001") {
		t.Errorf("exit %d: %s%s", code, so, se)
	}
	if code, so, se := bonebake(t, "mot", "convert", sharedMot(t), "-o", out, "--family", "bayo1", "--camera", "0x7000=0xf60"); code != 0 || strings.Contains(se, "note:") {
		t.Errorf("a camera bone the motion has: exit %d: %s%s", code, so, se)
	}
	if code, _, se := bonebake(t, "mot", "convert", sharedMot(t), "-o", out, "--family", "bayo1", "--camera", "7000=f60"); code != 2 || !strings.Contains(se, "hex with 0x") {
		t.Errorf("7000=f60: exit %d: %s", code, se)
	}
}
