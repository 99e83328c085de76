package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBatCommand(t *testing.T) {
	fox := sharedModel(t, "Fox.glb")
	dir := filepath.Join(t.TempDir(), "fox")
	code, out, errOut := bonebake(t, "bat", fox, "-o", dir, "--max-error", "0.001")
	if code != 0 || !strings.Contains(out, "verified from the files") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"Fox.bat.json", "Fox.position.exr", "Fox.rotation.exr", "Fox.skin.exr", "Fox.glb"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	var r struct {
		Bones    int `json:"bones"`
		MaxError struct {
			Vertex float64 `json:"vertex"`
		} `json:"max_error"`
		Position struct {
			Encoding string `json:"encoding"`
		} `json:"position"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "Fox.bat.json"))
	if err := json.Unmarshal(b, &r); err != nil || r.Bones != 24 || r.Position.Encoding != "float32" || !(r.MaxError.Vertex > 0) {
		t.Errorf("report %+v, err %v", r, err)
	}

	// 8-bit Unreal textures of a horse cost centimetres: --max-error 1 mm fails,
	// before any file takes its name (the README: a failed bake leaves the
	// previous set and nothing else): the 16-bit set baked before stays as it
	// was, and a folder the command made is removed.
	prev := t.TempDir()
	if code, _, e := bonebake(t, "bat", "horse", "-o", prev, "--preset", "ue"); code != 0 {
		t.Fatal(e)
	}
	before, _ := os.ReadFile(filepath.Join(prev, "horse.position.png"))
	code, _, errOut = bonebake(t, "bat", "horse", "-o", prev, "--preset", "ue", "--format", "png8", "--max-error", "0.001")
	if code != exitFailure || !strings.Contains(errOut, "more than --max-error") {
		t.Errorf("png8 with --max-error 0.001: exit %d, %s", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(prev, "horse.position.png")); len(before) == 0 || string(after) != string(before) {
		t.Error("a bake failing --max-error replaced the set baked before")
	}
	fresh := filepath.Join(t.TempDir(), "new")
	if code, _, _ := bonebake(t, "bat", "horse", "-o", fresh, "--preset", "ue", "--format", "png8", "--max-error", "0.001"); code != exitFailure {
		t.Errorf("png8 with --max-error 0.001 into a new folder: exit %d", code)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("a bake failing --max-error left the folder it made: %v", err)
	}
	code, out, _ = bonebake(t, "bat", "horse", "-o", t.TempDir(), "--preset", "gametools", "--json", "--clips", "walk")
	if code != 0 || !strings.Contains(out, `"mode": "axis_angle"`) || strings.Count(out, `"first_row"`) != 1 {
		t.Errorf("gametools --json --clips walk: exit %d\n%s", code, out)
	}

	for _, c := range [][]string{
		{"bat", "horse"}, // no -o
		{"bat", "horse", "-o", t.TempDir(), "--preset", "nope"},  // unknown preset
		{"bat", "horse", "-o", t.TempDir(), "--format", "png16"}, // raw cannot be unorm
		{"bat", "horse", "-o", t.TempDir(), "--fps", "60"},       // species carry their fps
		{"bat", "unicorn", "-o", t.TempDir()},                    // no such creature
		{"bat", fox, "-o", t.TempDir(), "--fps", "-1"},           // bad fps
	} {
		if code, _, errOut := bonebake(t, c...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", c, code, exitUsage, errOut)
		}
	}
	if code, _, errOut := bonebake(t, "bat", "horse", "-o", t.TempDir(), "--clips", "fly"); code != exitUsage || !strings.Contains(errOut, `no clip "fly"`) {
		t.Errorf("unknown clip: exit %d, %s", code, errOut)
	}
}

// A Draco-compressed model has no mesh bonebake can read: bat says so.
func TestBatDraco(t *testing.T) {
	src := sharedModel(t, "SimpleSkin.gltf")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	d["extensionsUsed"] = []any{"KHR_draco_mesh_compression"}
	d["extensionsRequired"] = []any{"KHR_draco_mesh_compression"}
	prim := d["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)[0].(map[string]any)
	prim["extensions"] = map[string]any{"KHR_draco_mesh_compression": map[string]any{"bufferView": 0, "attributes": map[string]any{"POSITION": 0}}}
	path := filepath.Join(t.TempDir(), "draco.gltf")
	b, _ = json.Marshal(d)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := bonebake(t, "bat", path, "-o", t.TempDir())
	if code != exitFailure || !strings.Contains(errOut, "Draco") || !strings.Contains(errOut, "need the skinned mesh") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestBatCentimetres: --cm writes Unreal's centimetres: the report's position
// offset and range are 100 times the metres bake's, its units say "cm", the
// summary says which unit was written, and the mesh stays in metres; the
// README's Unreal recipe is the one `bat --help` gives.
func TestBatCentimetres(t *testing.T) {
	type report struct {
		Units    string `json:"units"`
		Position struct {
			Offset [3]float64 `json:"offset"`
			Range  [3]float64 `json:"range"`
		} `json:"position"`
	}
	bat := func(unit string, extra ...string) (report, []byte) {
		dir := t.TempDir()
		code, out, errOut := bonebake(t, append([]string{"bat", "horse", "-o", dir, "--preset", "ue", "--z-up", "--clips", "walk"}, extra...)...)
		if code != 0 || !strings.Contains(out, "positions in "+unit) {
			t.Fatalf("%v: exit %d, want the summary to say positions in %s\n%s%s", extra, code, unit, out, errOut)
		}
		var r report
		b, _ := os.ReadFile(filepath.Join(dir, "horse.bat.json"))
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		glb, err := os.ReadFile(filepath.Join(dir, "horse.glb"))
		if err != nil {
			t.Fatal(err)
		}
		return r, glb
	}
	m, mGLB := bat("metres")
	cm, cmGLB := bat("centimetres", "--cm")
	if m.Units != "m" || cm.Units != "cm" {
		t.Errorf("units %q and %q, want m and cm", m.Units, cm.Units)
	}
	for k := range 3 {
		if math.Abs(cm.Position.Offset[k]-100*m.Position.Offset[k]) > 1e-9*math.Abs(cm.Position.Offset[k])+1e-12 ||
			math.Abs(cm.Position.Range[k]-100*m.Position.Range[k]) > 1e-9*cm.Position.Range[k] {
			t.Errorf("axis %d: offset %g and range %g in cm, %g and %g in m: want 100 times", k,
				cm.Position.Offset[k], cm.Position.Range[k], m.Position.Offset[k], m.Position.Range[k])
		}
	}
	if !bytes.Equal(mGLB, cmGLB) {
		t.Error("the mesh differs with --cm: want it in metres, glTF's unit")
	}
	if code, _, errOut := bonebake(t, "bat", "horse", "-o", t.TempDir(), "--preset", "gametools", "--cm"); code != exitUsage || !strings.Contains(errOut, "--unit-scale") {
		t.Errorf("gametools --cm: exit %d, %s: want a usage error naming --unit-scale", code, errOut)
	}
	_, help, _ := bonebake(t, "bat", "--help")
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const recipe = "--preset ue --z-up --cm"
	if !strings.Contains(help, recipe) || !strings.Contains(string(readme), "**Unreal** (`"+recipe) || strings.Contains(string(readme), "by 100)") {
		t.Errorf("bat --help and the README's Unreal steps should both give %q (and no scaling by hand)", recipe)
	}
	// The recipe leaves --invert-v off; the flag's own line must not send
	// Unreal users to it (it said "DirectX-style UVs, Unreal").
	for _, line := range strings.Split(help, "\n") {
		if strings.Contains(line, "--invert-v ") && strings.Contains(line, "Unreal") {
			t.Errorf("bat --help: %q names Unreal, whose recipe leaves --invert-v off", strings.TrimSpace(line))
		}
	}
}
