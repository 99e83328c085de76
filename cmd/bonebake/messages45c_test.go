package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// bake MODEL -o fox (no .bpat) is refused as export-gltf and --package refuse a
// name they cannot load: exit 2, one line saying what to write, and nothing
// written (before, a file "fox" that neither the runtime nor view loads, and
// fox.gait.json beside it).
func TestBakeOutputNeedsBPAT(t *testing.T) {
	dir := t.TempDir()
	fox := sharedModel(t, "Fox.glb")
	for _, out := range []string{filepath.Join(dir, "fox"), filepath.Join(dir, "sub", "fox.glb")} {
		code, so, se := bonebake(t, "bake", fox, "-o", out)
		want := "write -o " + strings.TrimSuffix(out, filepath.Ext(out)) + ".bpat\n"
		if code != 2 || !strings.Contains(se, want) || strings.Count(strings.TrimSpace(se), "\n") != 1 {
			t.Errorf("-o %s: exit %d, want 2 and %q: %s%s", out, code, want, so, se)
		}
	}
	// bake --mot writes a BPAT too.
	out := filepath.Join(dir, "m")
	if code, so, se := bonebake(t, "bake", "--mot", sharedMot(t), "--rig", sharedModel(t, "RiggedSimple.gltf"), "-o", out, "--force"); code != 2 || !strings.Contains(se, "write -o "+out+".bpat\n") {
		t.Errorf("--mot -o %s: exit %d, want 2: %s%s", out, code, so, se)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a refused bake left %v", ents)
	}
	// Any case of .bpat is a BPAT, as the runtime's folder scan takes it.
	if code, so, se := bonebake(t, "bake", fox, "-o", filepath.Join(dir, "fox.BPAT")); code != 0 {
		t.Errorf("fox.BPAT: exit %d: %s%s", code, so, se)
	}
}

// Two Mixamo FBX characters baked into one folder: each one's clip is named
// after its file, not both "mixamo.com" (issue 45, round 3).
func TestMixamoClipsNamedAfterFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes two 65-joint FBX characters")
	}
	dir := t.TempDir()
	a, b := testfiles.Path(t, "fbx", "mixamo.fbx"), testfiles.Path(t, "fbx", "Samba_Dancing.fbx")
	if code, so, se := bonebake(t, "bake", a, b, "-o", dir); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	for name, want := range map[string]string{"mixamo.bpat": "mixamo", "Samba_Dancing.bpat": "Samba_Dancing"} {
		f, err := bpat.Open(filepath.Join(dir, name), formats.Lenient())
		if err != nil {
			t.Fatal(err)
		}
		if cs := f.Clips(); len(cs) != 1 || cs[0].Name != want {
			t.Errorf("%s: clips %+v, want one named %s", name, cs, want)
		}
		f.Close()
	}
}

// A missing --manifest or --bone-map is said as every other missing input is,
// "PATH: no such file", not as Go's "stat PATH: no such file or directory".
func TestMissingSideFilesSaidPlainly(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	for _, args := range [][]string{
		{"bake", sharedModel(t, "RiggedSimple.gltf"), "-o", filepath.Join(dir, "r.bpat"), "--manifest", missing},
		{"bake", "--mot", sharedMot(t), "--rig", sharedModel(t, "RiggedSimple.gltf"), "-o", filepath.Join(dir, "m.bpat"), "--bone-map", missing},
	} {
		if code, so, se := bonebake(t, args...); code != 1 || se != "bonebake: "+missing+": no such file\n" {
			t.Errorf("%v: exit %d: %s%q", args[1:], code, so, se)
		}
	}
}

// bake --mot --rig refuses a rig that is not a glTF model saying what it is, as
// bake MODEL does, where the glTF reader answered an FBX model, a BPAT file or a
// motion given as the rig with "the JSON is not a valid glTF document".
func TestMotRigNotGLTF(t *testing.T) {
	dir := t.TempDir()
	for rig, kind := range map[string]string{
		testfiles.Path(t, "fbx", "mixamo.fbx"): "an FBX model (.fbx)",
		sharedMot(t):                           "a PlatinumGames motion file (.mot)",
	} {
		code, so, se := bonebake(t, "bake", "--mot", sharedMot(t), "--rig", rig, "-o", filepath.Join(dir, "x.bpat"))
		if want := "bonebake: " + rig + ": " + kind + ", not a glTF model: --rig takes"; code != 1 || !strings.HasPrefix(se, want) {
			t.Errorf("--rig %s: exit %d: %s%s; want %q", rig, code, so, se, want)
		}
	}
}
