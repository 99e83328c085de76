package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// --socket naming a bone the model lacks is the flag's usage error: exit 2,
// blaming the flag (not a manifest the user never gave), with the bones that
// come close (issue 45 item 7).
func TestSocketFlagMissingBone(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fox.bpat")
	code, so, se := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", out, "--socket", "head=Head")
	if code != 2 || strings.Contains(se, "manifest") || !strings.Contains(se, "--socket") || !strings.Contains(se, "b_Head_05") {
		t.Errorf("exit %d, want 2 naming --socket and b_Head_05: %s%s", code, so, se)
	}
	// Nothing close: every bone is listed (Fox has 24).
	if _, _, se := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", out, "--socket", "x=Zzz"); !strings.Contains(se, "b_Tail03_014") {
		t.Errorf("no bone list: %s", se)
	}
}

// --feet and --root-bone naming a bone the model lacks name the close
// matches as --socket does (one rule, gltfbake.BoneChoices), not the first
// dozen bones; named by a manifest, the manifest is blamed, not the flag.
func TestFeetRootBoneFlagsMissingBone(t *testing.T) {
	fox, out := sharedModel(t, "Fox.glb"), filepath.Join(t.TempDir(), "fox.bpat")
	for _, c := range []struct{ flag, name, want, notWant string }{
		// The Fox's first dozen bones, which the old list stopped at, hold
		// no foot; its four foot bones are the matches.
		{"--feet", "Foot", "close matches: b_LeftFoot01_017, b_LeftFoot02_018, b_RightFoot01_021, b_RightFoot02_022", "b_Root_00"},
		{"--root-bone", "Hip", "close matches: b_Hip_01", "b_Root_00"},
	} {
		code, so, se := bonebake(t, "bake", fox, "-o", out, c.flag, c.name)
		if code != 2 || !strings.Contains(se, c.flag+": ") || !strings.Contains(se, c.want) || strings.Contains(se, c.notWant) {
			t.Errorf("%s %s: exit %d, want 2 naming %q: %s%s", c.flag, c.name, code, c.want, so, se)
		}
	}
	mf := filepath.Join(t.TempDir(), "fox.yaml")
	if err := os.WriteFile(mf, []byte("feet: [Paw]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, so, se := bonebake(t, "bake", fox, "-o", out, "--manifest", mf)
	if code != 1 || strings.Contains(se, "--feet") || !strings.Contains(se, "manifest "+mf+": foot \"Paw\"") || !strings.Contains(se, "b_Tail03_014") {
		t.Errorf("manifest feet: exit %d, want 1 blaming the manifest, every bone listed: %s%s", code, so, se)
	}
}

// inspect prints a clip's fps in plain decimals, never "2e+04".
func TestInspectFPSPlain(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.bpat")
	if code, so, se := bonebake(t, "bake", sharedModel(t, "RiggedSimple.gltf"), "-o", out, "--fps", "20000"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	_, so, _ := bonebake(t, "inspect", out, "--species", "6")
	if strings.Contains(so, "e+") || !strings.Contains(so, " 20000 ") {
		t.Errorf("fps not plain:\n%s", so)
	}
}

// inspect says a skin, mesh or material the file leaves unnamed is
// "(unnamed)", as it says of an animation, not "" (SimpleSkin names none of
// its skin and mesh); a name given stays quoted (CesiumMan's "Armature").
func TestInspectUnnamedParts(t *testing.T) {
	_, so, _ := bonebake(t, "inspect", sharedModel(t, "SimpleSkin.gltf"))
	if !strings.Contains(so, "\nskin 0 (unnamed): 2 joints") || !strings.Contains(so, "\nmesh 0 (unnamed): 10 vertices") || strings.Contains(so, `""`) {
		t.Errorf("SimpleSkin.gltf:\n%s", so)
	}
	if _, so, _ := bonebake(t, "inspect", sharedModel(t, "CesiumMan.gltf")); !strings.Contains(so, "\nskin 0 \"Armature\": 19 joints") {
		t.Errorf("CesiumMan.gltf:\n%s", so)
	}
}

// mot inspect writes camera bones in hex, as --camera takes them.
func TestMotInspectCameraHex(t *testing.T) {
	f := testfiles.Path(t, "mot", "pl000f_0a25.wiiu-be.mot")
	code, so, se := bonebake(t, "mot", "inspect", f)
	if code != 0 || !strings.Contains(so, "bone 0x7000 (camera):") || strings.Contains(so, "bone 28672") {
		t.Errorf("exit %d: %s%s", code, so, se)
	}
}

// A failed bake removes the -o folders it made, and only those.
func TestFailedBakeRemovesItsFolder(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "new", "deeper", "fox.bpat")
	if code, so, se := bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", out, "--socket", "x=Nope"); code == 0 {
		t.Fatalf("bake succeeded: %s%s", so, se)
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Errorf("the failed bake left the folder it made: %v", err)
	}
	// A folder that was there already stays, even empty.
	had := filepath.Join(root, "had")
	if err := os.Mkdir(had, 0o755); err != nil {
		t.Fatal(err)
	}
	bonebake(t, "bake", sharedModel(t, "Fox.glb"), "-o", filepath.Join(had, "sub", "f.bpat"), "--socket", "x=Nope")
	if _, err := os.Stat(filepath.Join(had, "sub")); !os.IsNotExist(err) {
		t.Errorf("sub left: %v", err)
	}
	if _, err := os.Stat(had); err != nil {
		t.Errorf("the user's folder was removed: %v", err)
	}
	// A bake that succeeds keeps its folder.
	ok := filepath.Join(root, "ok", "r.bpat")
	if code, so, se := bonebake(t, "bake", sharedModel(t, "RiggedSimple.gltf"), "-o", ok); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	if _, err := os.Stat(ok); err != nil {
		t.Error(err)
	}
}

// Unstamped (go run, go test), --version still names the commit the source tree
// holds, as git itself reads it.
func TestVersionUnstampedNamesRevision(t *testing.T) {
	b, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("no git:", err)
	}
	rev := strings.TrimSpace(string(b))
	_, so, _ := bonebake(t, "--version")
	if !strings.Contains(so, "revision "+rev[:12]) {
		t.Errorf("--version %q does not name HEAD %s", so, rev[:12])
	}
	// This binary is go test's, and GOFLAGS=-buildvcs=false makes go build's
	// unstamped too: the line must not say go run made it.
	if strings.Contains(so, "by go run") {
		t.Errorf("--version %q says go run built the binary go test built", so)
	}
}

// The README's examples bake the fox (a model in centimetres) in metres: no
// bake or bat line of it draws the size hint; and bat gives the hint bake gives
// when the scale is left out (issue 45 item 4).
func TestREADMEFoxInMetres(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	// bake --help's and bat --help's examples too: a newcomer copies them first.
	lines := readmeCommands(t, filepath.Join(root, "README.md"))
	for _, c := range newRoot(nil).Commands() {
		if c.Name() == "bake" || c.Name() == "bat" {
			lines = append(lines, strings.Split(c.Example, "\n")...)
		}
	}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "bonebake" || (f[1] != "bake" && f[1] != "bat") || !strings.Contains(line, "Fox.glb") {
			continue
		}
		out := t.TempDir()
		for i := range f {
			if strings.HasPrefix(f[i], "testdata/") {
				f[i] = filepath.Join(root, f[i])
			} else if f[i] == "Fox.glb" { // a help example's
				f[i] = filepath.Join(root, "testdata", "gltf", "Fox.glb")
			} else if i > 0 && f[i-1] == "-o" {
				f[i] = filepath.Join(out, filepath.Base(f[i]))
			}
		}
		code, so, se := bonebake(t, f[1:]...)
		if code != 0 || strings.Contains(se, "hint:") {
			t.Errorf("%s: exit %d: %s%s", line, code, so, se)
		}
		ran++
	}
	if ran < 3 {
		t.Errorf("ran %d of the README's fox lines", ran)
	}
	dir := t.TempDir()
	code, _, se := bonebake(t, "bat", filepath.Join(root, "testdata", "gltf", "Fox.glb"), "-o", dir, "--preset", "ue", "--z-up")
	if code != 0 || !strings.Contains(se, "hint:") || !strings.Contains(se, "--scale 0.01") {
		t.Errorf("bat of the unscaled fox: exit %d, no size hint: %s", code, se)
	}
}

// sample names the bones: a built-in creature's from its skeleton, a baked
// model's with --model (BPAT stores no names); without either it says how.
func TestSampleNamesBones(t *testing.T) {
	dir := t.TempDir()
	if code, so, se := bonebake(t, "bake", "-o", dir, "--species", "horse"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	_, so, _ := bonebake(t, "sample", filepath.Join(dir, "horse.bpat"), "--clip", "gallop", "--phase", "0.5")
	if !strings.Contains(so, "\nbone 0 Root\n") {
		t.Errorf("horse: no bone names:\n%.300s", so)
	}
	fox := sharedModel(t, "Fox.glb")
	out := filepath.Join(dir, "fox.bpat")
	if code, so, se := bonebake(t, "bake", fox, "-o", out, "--scale", "0.01"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	_, so, _ = bonebake(t, "sample", out, "--species", "6", "--clip", "Walk", "--model", fox)
	if !strings.Contains(so, "\nbone 6 b_Head_05\n") {
		t.Errorf("fox --model: no bone names:\n%.300s", so)
	}
	if _, so, _ = bonebake(t, "sample", out, "--species", "6", "--clip", "Walk"); !strings.Contains(so, "--model") {
		t.Errorf("fox without --model does not say how to name bones:\n%.300s", so)
	}
}

// bat into a folder holding another preset's set of the same name replaces that
// set whole: the old preset's textures and XML go (issue 45 item 7); a file the
// old report does not name stays.
func TestBatReplacesOtherPresetsSet(t *testing.T) {
	dir := t.TempDir()
	fox := sharedModel(t, "Fox.glb")
	if code, so, se := bonebake(t, "bat", fox, "--scale", "0.01", "-o", dir, "--preset", "gametools"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	mine := filepath.Join(dir, "Fox.notes.txt")
	writeTestFile(t, mine, "mine")
	code, so, se := bonebake(t, "bat", fox, "--scale", "0.01", "-o", dir, "--preset", "ue", "--z-up")
	if code != 0 || !strings.Contains(se, "note: removed") {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := "Fox.bat.json Fox.glb Fox.notes.txt Fox.position.png Fox.rotation.png Fox.skin.png"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("folder holds %s, want %s", got, want)
	}
}

// inspect gives a file's size as every summary does (bake's, bpx inspect's,
// mot inspect's): horse.bpat's 153,984 bytes as 154 KB, its snapshot's
// 1,484,328 as 1.48 MB; the section tables keep exact offsets and sizes.
func TestInspectSizesAsSummariesSay(t *testing.T) {
	dir := t.TempDir()
	if code, so, se := bonebake(t, "bake", "--species", "horse", "-o", dir); code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	for file, want := range map[string]string{"horse.bpat": ": BPAT v2, 154 KB\n", "horse_minimal.bpsm": ": BPSM v1 snapshot mesh, 1.48 MB\n"} {
		_, so, _ := bonebake(t, "inspect", filepath.Join(dir, file))
		if !strings.Contains(so, want) {
			t.Errorf("inspect %s: %.200q, want %q", file, so, want)
		}
	}
}

// Every command with --force says in its help that a bake's frames stay
// bounded by 2²² = 4,194,304 in all, a bound --force does not lift (issue 45
// item 7: bake refused past it, and no help said so; bat's still did not).
func TestForceHelpNamesTheFrameBound(t *testing.T) {
	for _, cmd := range []string{"bake", "bat"} {
		_, help, _ := bonebake(t, cmd, "--help")
		if !strings.Contains(help, "4194304 frames in all stay its bound") {
			t.Errorf("%s --help: --force does not say that the 4194304 frames stay its bound", cmd)
		}
	}
}
