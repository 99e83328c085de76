package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrongKindOfFile: a file of a format bonebake knows, given where another
// is read, is refused naming what it is (issue 45 round 4, item 3): a BPAT,
// BPSM or BPX given to --clips or --model was called invalid glTF JSON
// ("invalid character 'B' looking for beginning of value"), and a model given
// to sample or mot inspect was named only by the magic it lacked.
func TestWrongKindOfFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, magic string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, append([]byte(magic), make([]byte, 60)...), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bp, sm, px := write("horse.bpat", "BPAT"), write("horse_minimal.bpsm", "BPSM"), write("p.bpx", "BPXP")
	fox := sharedModel(t, "Fox.glb")
	built := t.TempDir()
	if code, _, stderr := bonebake(t, "bake", "--species", "horse", "-o", built); code != 0 {
		t.Fatalf("bake --species horse: exit %d: %s", code, stderr)
	}
	horse := filepath.Join(built, "horse.bpat")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bake", fox, "-o", filepath.Join(dir, "a.bpat"), "--clips", bp}, bp + ": a BPAT bone palette file, not a model: glTF 2.0 (.gltf, .glb), FBX 7 (.fbx) and BVH (.bvh) files are read"},
		{[]string{"bat", bp, "-o", filepath.Join(dir, "b"), "--model", sm}, sm + ": a BPSM snapshot mesh, not a model"},
		{[]string{"sample", horse, "--clip", "walk", "--phase", "0", "--model", px}, px + ": a BPX container, not a model"},
		{[]string{"sample", fox, "--clip", "Walk", "--phase", "0"}, fox + ": a binary glTF model (.glb), not a BPAT bone palette file: bake it first (bonebake bake " + fox + " -o Fox.bpat)"},
		{[]string{"mot", "inspect", fox}, fox + ": a binary glTF model (.glb), not a PlatinumGames motion file (.mot)"},
	} {
		code, _, stderr := bonebake(t, c.args...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("left in the folder: %v", entries)
	}
}

// TestEncodeGivenAMotion: mot encode given a motion file, not its dump, says so
// and how to dump it (issue 45 round 4, item 3: "line 1 (offset 0): syntax:
// not a motion dump: invalid character 'm' looking for beginning of value").
func TestEncodeGivenAMotion(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "pl0010.mot")
	if err := os.WriteFile(m, append([]byte("mot\x00"), make([]byte, 60)...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := bonebake(t, "mot", "encode", m, "-o", filepath.Join(dir, "out.mot"))
	want := m + ": a PlatinumGames motion file (.mot), not a motion dump (the JSON mot dump writes): dump it first (bonebake mot dump " + m + " --json > motion.json)"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}
