package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/source/gltf/gltfbake"
	motsrc "github.com/bonebake/bonebake/source/mot"
)

// TestSettingFlags: every setting the map names is a field of an adapter's
// Settings (a renamed field would leave its errors unmapped), every flag it
// names is one of bake's, and a SettingError becomes a usage error naming the
// flag.
func TestSettingFlags(t *testing.T) {
	bakeCmd := newBakeCmd()
	for setting, flag := range settingFlags {
		_, inGLTF := reflect.TypeOf(gltfbake.Settings{}).FieldByName(setting)
		_, inMot := reflect.TypeOf(motsrc.Settings{}).FieldByName(setting)
		_, inSnap := reflect.TypeOf(gltfbake.SnapshotSettings{}).FieldByName(strings.TrimPrefix(setting, "Snapshot"))
		if !inGLTF && !inMot && !(inSnap && strings.HasPrefix(setting, "Snapshot")) {
			t.Errorf("%s: no such field in gltfbake.Settings or mot.Settings", setting)
		}
		if bakeCmd.Flags().Lookup(flag) == nil {
			t.Errorf("%s: bake has no flag --%s", setting, flag)
		}
	}
	err := libError(&bake.SettingError{Setting: "OneShot", Err: errors.New("Fox.glb: no clip")})
	if ue := (usageError{}); !errors.As(err, &ue) || err.Error() != "--one-shot: Fox.glb: no clip" {
		t.Fatalf("got %v (%T)", err, err)
	}
}

// TestLibraryProseNamesFlags: every setting gltfbake's messages name
// (Settings.MaxBones, SnapshotSettings.Mesh) has its flag, so the command line
// never prints a Go field name; and gltfbake writes no flag itself. (stride's
// "name them with --feet" is a gait clip's reason, written into the sidecar:
// changing it would change the files bake writes.)
func TestLibraryProseNamesFlags(t *testing.T) {
	if got, want := flagWords("a limit of 30 or more (Settings.MaxBones, max_bones); SnapshotSettings.Mesh: x"),
		"a limit of 30 or more (--max-bones, max_bones); --snapshot-mesh: x"; got != want {
		t.Errorf("flagWords: got %q, want %q", got, want)
	}
	files, _ := filepath.Glob("../../source/gltf/gltfbake/*.go")
	if len(files) == 0 {
		t.Fatal("no sources found")
	}
	refs := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			for _, ref := range settingRef.FindAllString(code, -1) {
				refs++
				if flagWords(ref) == ref {
					t.Errorf("%s: %s has no flag in settingFlags", f, ref)
				}
			}
			if strings.Contains(code, `"`) && strings.Contains(code, " --") {
				t.Errorf("%s: a message names a flag: %s", f, strings.TrimSpace(line))
			}
		}
	}
	if refs == 0 {
		t.Error("the library's messages name no setting")
	}
}
