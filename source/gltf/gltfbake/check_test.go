package gltfbake

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestSettingsCheck: a setting's rule applies to a zero when the caller says
// the setting was given (the command line's --fps 0), and a zero not given is
// the default; the error names the setting and reads on from it ("FPS 0 is
// outside …", docs/formats/bpat.md §5's frame-rate bounds), so that a caller
// puts its own name for the setting first.
func TestSettingsCheck(t *testing.T) {
	only := func(name string) func(string) bool { return func(s string) bool { return s == name } }
	id := uint32(256)
	dir := t.TempDir()
	file := filepath.Join(dir, "a.bin")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what  string
		err   error
		want  string // "" for no error
		value bool
	}{
		{"no settings", Settings{}.Check(nil), "", false},
		{"zero fps not given", Settings{}.Check(only("Scale")), "Scale 0 must be a positive number", true},
		{"zero fps given", Settings{}.Check(only("FPS")), "FPS 0 is outside [0.001, 1e+06]", true},
		{"fps too high", Settings{FPS: 1e7}.Check(nil), "FPS 1e+07 is outside", true},
		{"version 0 given", Settings{}.Check(only("Version")), "Version 0: only 1 and 2 exist", true},
		{"max bones 65", Settings{MaxBones: 65}.Check(nil), "MaxBones 65: a BPAT file holds 1 to 64 bones", true},
		{"up", Settings{Up: "sideways"}.Check(nil), `Up "sideways": an axis`, true},
		{"species id 256", Settings{SpeciesID: &id}.Check(nil), "SpeciesID 256 is above 255, the largest species id", true},
		{"free id unset but given", Settings{}.Check(only("FreeSpeciesID")), "", false},
		{"retarget alone", Settings{Retarget: true}.Check(nil), "Retarget applies to the clips of Settings.ClipFiles", true},
		{"retarget with clips", Settings{Retarget: true, ClipFiles: []string{"a.glb"}}.Check(nil), "", false},
		{"files root missing", Settings{FilesRoot: filepath.Join(dir, "nope")}.Check(nil), "FilesRoot " + filepath.Join(dir, "nope") + ": no such folder", true},
		{"files root a file", Settings{FilesRoot: file}.Check(nil), "FilesRoot " + file + ": a file, not a folder", true},
		{"files root a folder", Settings{FilesRoot: dir}.Check(nil), "", false},
		{"skin -1", Settings{Skin: -1}.Check(nil), "Skin: -1: skins are numbered from 0", false},
		{"snapshot triangles 0 given", SnapshotSettings{}.Check(only("SnapshotTriangles")), "SnapshotTriangles 0: the far mesh needs at least 1 triangle", true},
		{"snapshot triangles -3", SnapshotSettings{Triangles: -3}.Check(nil), "SnapshotTriangles -3:", true},
		{"snapshot fps 0 given", SnapshotSettings{}.Check(only("SnapshotFPS")), "SnapshotFPS 0 is outside", true},
	} {
		if c.want == "" {
			if c.err != nil {
				t.Errorf("%s: %v", c.what, c.err)
			}
			continue
		}
		var se *bake.SettingError
		if !errors.As(c.err, &se) || se.ReadsOn != c.value || !strings.HasPrefix(c.err.Error(), c.want) {
			t.Errorf("%s: got %v, want a SettingError starting %q", c.what, c.err, c.want)
		}
	}
}

// TestLoadManifestScale: a bad scale or face in a manifest built in code (one
// ReadManifest never saw) is the manifest's, not a setting's: no
// *bake.SettingError, which a caller would report as its own setting.
func TestLoadManifestScale(t *testing.T) {
	for _, mf := range []Manifest{{Scale: -2}, {Face: "up"}} {
		_, err := Load(testfiles.WalkerGLTF(t, true), Settings{Manifest: &mf})
		var se *bake.SettingError
		if err == nil || errors.As(err, &se) || !strings.Contains(err.Error(), "manifest: ") {
			t.Errorf("manifest %+v: %v (a SettingError: %v)", mf, err, se != nil)
		}
	}
}

// TestLoadNotesBuiltinID: a model given a built-in's species id is baked with
// it, and its notes say whose it is (docs/species.md: id 2 is the elephant's).
func TestLoadNotesBuiltinID(t *testing.T) {
	id := uint32(2)
	m, err := Load(testfiles.WalkerGLTF(t, true), Settings{SpeciesID: &id})
	if err != nil {
		t.Fatal(err)
	}
	if m.Job.SpeciesID != 2 || len(m.Notes) == 0 || !strings.HasPrefix(m.Notes[0], "species id 2 is the built-in elephant's") {
		t.Errorf("id %d, notes %q", m.Job.SpeciesID, m.Notes)
	}
}

// TestCheckUpUsed: an up axis given for files none of which is a BVH file
// (docs/formats/bvh.md §4: glTF and FBX carry their own axes) is refused,
// naming the setting; with a BVH file among the models or clip files, or a
// manifest whose clip files may be, it stands.
func TestCheckUpUsed(t *testing.T) {
	walker := testfiles.WalkerGLTF(t, true)
	bvh := testfiles.Path(t, "bvh", "a_biped_walk.bvh")
	var se *bake.SettingError
	if err := (Settings{Up: "+Z"}).CheckUpUsed([]string{walker}); !errors.As(err, &se) || se.Setting != "Up" || !strings.HasPrefix(err.Error(), "Up +Z gives a BVH file's up axis, and none of") {
		t.Errorf("no BVH: got %v", err)
	}
	for _, c := range []struct {
		s      Settings
		models []string
	}{
		{Settings{}, []string{walker}},
		{Settings{Up: "+Z"}, []string{walker, bvh}},
		{Settings{Up: "+Z", ClipFiles: []string{bvh}}, []string{walker}},
		{Settings{Up: "+Z", Manifest: &Manifest{}}, []string{walker}},
	} {
		if err := c.s.CheckUpUsed(c.models); err != nil {
			t.Errorf("%+v %q: %v", c.s, c.models, err)
		}
	}
}
