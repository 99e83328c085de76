package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	bvhsrc "github.com/bonebake/bonebake/source/bvh"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	motsrc "github.com/bonebake/bonebake/source/mot"
	"github.com/bonebake/bonebake/stride"
)

// TestSettingFlags: every setting the map names is a field of a library's
// settings (an adapter's Settings, or the options below them that the
// libraries' prose names: a renamed field would leave its errors unmapped),
// every flag it names is one of bake's, and a SettingError becomes a usage
// error naming the flag. The readers' option the bake's report names
// (formats.KnownSpecies, a function) is the one name that is not a field.
func TestSettingFlags(t *testing.T) {
	bakeCmd := newBakeCmd()
	options := map[string]any{"KnownSpecies": formats.KnownSpecies}
	for setting, flag := range settingFlags {
		found := false
		for _, v := range []any{gltfbake.Settings{}, gltfbake.FolderOutput{}, motsrc.Settings{}, gltf.Options{}, bvhsrc.Options{}, stride.Options{}, bake.Job{}} {
			_, ok := reflect.TypeOf(v).FieldByName(setting)
			found = found || ok
		}
		_, inSnap := reflect.TypeOf(gltfbake.SnapshotSettings{}).FieldByName(strings.TrimPrefix(setting, "Snapshot"))
		if _, isOption := options[setting]; !found && !isOption && !(inSnap && strings.HasPrefix(setting, "Snapshot")) {
			t.Errorf("%s: no such field in the libraries' settings", setting)
		}
		if bakeCmd.Flags().Lookup(flag) == nil && bakeCmd.Flags().ShorthandLookup(flag) == nil {
			t.Errorf("%s: bake has no flag %s", setting, dashed(flag))
		}
	}
	err := libError(&bake.SettingError{Setting: "OneShot", Err: errors.New("Fox.glb: no clip")})
	if ue := (usageError{}); !errors.As(err, &ue) || err.Error() != "--one-shot: Fox.glb: no clip" {
		t.Fatalf("got %v (%T)", err, err)
	}
	// A one-letter flag is named as it is given: -o.
	err = libError(&bake.SettingError{Setting: "Out", Err: errors.New("fox: write FolderOutput.Out fox.bpat"), ReadsOn: true})
	if ue := (usageError{}); !errors.As(err, &ue) || err.Error() != "-o fox: write -o fox.bpat" {
		t.Errorf("got %v (%T)", err, err)
	}
}

// TestLibraryProseNamesFlags: every setting the libraries' messages name
// (Settings.MaxBones, SnapshotSettings.Mesh, Options.Up, Job.MaxBytes) has its
// flag, so the command line never prints a Go field name; and no library below
// the command line writes a flag itself.
func TestLibraryProseNamesFlags(t *testing.T) {
	if got, want := flagWords("a limit of 30 or more (Settings.MaxBones, max_bones); SnapshotSettings.Mesh: x; with gltfbake.Settings.ClipFiles (Options.Up)"),
		"a limit of 30 or more (--max-bones, max_bones); --snapshot-mesh: x; with --clips (--up)"; got != want {
		t.Errorf("flagWords: got %q, want %q", got, want)
	}
	if got, want := flagWords("name them with the feet setting, the root_bone setting or the colour setting"),
		"name them with --feet, --root-bone or the colour setting"; got != want {
		t.Errorf("flagWords: got %q, want %q", got, want)
	}
	if got, want := flagWords("pass Settings.SpeciesID to choose one; readers accept it with formats.KnownSpecies 6 (not formats.Lenient)"),
		"pass --species-id to choose one; readers accept it with --species 6 (not formats.Lenient)"; got != want {
		t.Errorf("flagWords: got %q, want %q", got, want)
	}
	var files []string
	for _, dir := range []string{"bake", "stride", "source/*", "source/*/*"} {
		f, _ := filepath.Glob("../../" + dir + "/*.go")
		files = append(files, f...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d sources found", len(files))
	}
	literal := regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`) // the Go string literals
	flag := regexp.MustCompile(`(^|[ (])--[a-z]`)
	refs := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, lit := range literal.FindAllString(string(b), -1) {
			for _, ref := range keyRef().FindAllString(lit, -1) {
				refs++
				if flagWords(ref) == ref {
					t.Errorf("%s: %q names a setting no flag sets", f, ref)
				}
			}
			for _, ref := range settingRef().FindAllString(lit, -1) {
				refs++
				if flagWords(ref) == ref {
					t.Errorf("%s: %s has no flag in settingFlags", f, ref)
				}
			}
			if flag.MatchString(lit) {
				t.Errorf("%s: a message names a flag: %s", f, lit)
			}
		}
	}
	if refs == 0 {
		t.Error("the library's messages name no setting")
	}
}

// A gait sidecar is read by people who never see the library's Go names: a
// clip with no feet to measure says to name them with the feet setting (a
// manifest's feet), where the file said Options.Feet; the same reason on
// stderr names the flag (issue 45, round 3 re-check).
func TestGaitSidecarNamesNoGo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rs.bpat")
	code, so, se := bonebake(t, "bake", sharedModel(t, "RiggedSimple.gltf"), "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, so, se)
	}
	b, err := os.ReadFile(strings.TrimSuffix(out, ".bpat") + ".gait.json")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "no feet were found to measure (name them with the feet setting)") || settingRef().MatchString(s) {
		t.Errorf("the sidecar's reason:\n%s", s)
	}
	if !strings.Contains(se, "no feet were found to measure (name them with --feet)") {
		t.Errorf("stderr does not name --feet:\n%s", se)
	}
}
