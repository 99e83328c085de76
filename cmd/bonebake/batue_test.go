package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBatUEHint: --preset ue without --z-up or --cm, which Unreal's recipe
// needs (README), says what the bake writes instead and which flags to add
// (issue 45 round 4, item 4: `bat Fox.glb --preset ue` wrote metres, y up,
// and said only "positions in metres").
func TestBatUEHint(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, "hint: --preset ue is for Unreal's AnimToTexture, which reads positions in centimetres, z up; this bake writes them in metres, y up: add --cm --z-up\n"},
		{[]string{"--z-up"}, "this bake writes them in metres: add --cm\n"},
		{[]string{"--z-up", "--cm"}, ""},
	} {
		args := append([]string{"bat", "horse", "-o", filepath.Join(dir, "h"), "--preset", "ue"}, c.flags...)
		code, _, stderr := bonebake(t, args...)
		if code != 0 || (c.want == "") != !strings.Contains(stderr, "hint: --preset ue") || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 0 and %q", c.flags, code, stderr, c.want)
		}
	}
}

// TestBatOutNamedAsAFile: bat's -o is a folder; one not yet there, named as a
// file bat writes (-o out/fox.glb), is refused before anything is made,
// saying the folder to give (issue 45 round 4, item 3: it made a folder
// called fox.glb).
func TestBatOutNamedAsAFile(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := bonebake(t, "bat", "horse", "-o", filepath.Join(dir, "out", "horse.glb"))
	want := "-o " + filepath.Join(dir, "out", "horse.glb") + ": bat writes a folder of files (NAME.bat.json, its textures, NAME.glb), and -o names that folder: give -o " + filepath.Join(dir, "out", "horse")
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}
