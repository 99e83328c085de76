package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// The README's Mixamo example: a character FBX and an animation FBX baked
// into one BPAT in one command; inspect describes an FBX file.
func TestBakeFBXWithClips(t *testing.T) {
	char := testfiles.Path(t, "fbx", "mixamo.fbx")
	dance := testfiles.Path(t, "fbx", "Samba_Dancing.fbx")
	out := filepath.Join(t.TempDir(), "ybot.bpat")
	code, _, errOut := bonebake(t, "bake", char, "--clips", dance, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := bpat.Open(out, formats.Lenient())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Clips()) != 2 || f.ClipIndex("Samba_Dancing") != 1 || f.Clips()[1].FrameCount != 594 {
		t.Errorf("clips %+v", f.Clips())
	}
	// Each file has an empty "Take 001": the clip file's note names it, or
	// the two notes read as one said twice.
	if !strings.Contains(errOut, `Samba_Dancing.fbx: take "Take 001" has no keys`) {
		t.Errorf("the clip file's note does not name it:\n%s", errOut)
	}
	code, text, errOut := bonebake(t, "inspect", char)
	if code != 0 || !strings.Contains(text, "FBX 7700 (binary)") || !strings.Contains(text, "65 bones") || !strings.Contains(text, "mixamo.com") {
		t.Errorf("inspect: exit %d: %s%s", code, text, errOut)
	}
	// bat: the textures, verified by rebuilding every vertex from them.
	code, text, errOut = bonebake(t, "bat", char, "-o", filepath.Join(t.TempDir(), "bat"))
	if code != 0 || !strings.Contains(text+errOut, "verified from the files") {
		t.Errorf("bat: exit %d: %s%s", code, text, errOut)
	}
	code, text, errOut = bonebake(t, "inspect", "--json", dance)
	var info struct {
		Format string
		Scale  float64
		Clips  []struct {
			Name     string
			Duration float64 `json:"duration_s"`
		}
	}
	if err := json.Unmarshal([]byte(text), &info); code != 0 || err != nil || info.Format != "fbx" || info.Scale != 0.01 || len(info.Clips) != 1 || info.Clips[0].Duration < 19.79 {
		t.Errorf("inspect --json: exit %d, %v: %+v %s", code, err, info, errOut)
	}
}
