package gltfbake

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/source/gltf"
)

func TestManifest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fox.yaml")
	writeFile(t, path, `
species_id: 7
fps: 24
clips:
  - name: walk
    source: Walk
    fps: 60
  - name: look
    source: Survey
    loops: false
    start: 1
    end: 2
    markers: {anticipation_start: 0.1, contact: 0.58}
sockets:
  - {name: head, bone: b_Head_05, offset: [0, 10, 0]}
`)
	mf, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := gltf.Load(sharedModel(t, "Fox.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, names, motions := Source(m)
	job, err := mf.Job(r, names, motions)
	if err != nil {
		t.Fatal(err)
	}
	out, err := bake.Bake(job)
	if err != nil {
		t.Fatal(err)
	}
	b := new(bytes.Buffer)
	if err := bpat.Write(b, out); err != nil {
		t.Fatal(err)
	}
	f, err := bpat.Parse(b.Bytes(), formats.KnownSpecies(7))
	if err != nil {
		t.Fatal(err)
	}
	cl := f.Clips()
	// Walk is 0.7083 s: round(0.7083·60) = 42 looping frames, stored at the rate that
	// plays them in 0.7083 s (42/0.7083 = 59.29). The 1 s range at 24 fps one-shot:
	// 24 + 1 = 25 frames at exactly 24.
	if len(cl) != 2 || cl[0].Name != "walk" || cl[0].FrameCount != 42 || math.Abs(float64(cl[0].FPS)-42/0.70833333) > 1e-4 || !cl[0].Loops ||
		cl[1].FPS != 24 ||
		cl[1].Name != "look" || cl[1].FrameCount != 25 || cl[1].Loops || cl[1].Markers[bpat.Contact] != 0.58 || cl[1].Markers[bpat.WeaponRelease] != bpat.Unset {
		t.Fatalf("clips %+v", cl)
	}
	if f.Header().Version != 2 || f.Header().SpeciesID != 7 || len(f.Sockets()) != 1 || f.Sockets()[0].Anchor != 6 {
		t.Fatalf("header %+v sockets %+v (b_Head_05 is joint 6 in the file's skin)", f.Header(), f.Sockets())
	}
	// The time range: frame k of "look" is Survey (animation 0) at 1 + k/24 s.
	ref, err := gltfref.Load(sharedModel(t, "Fox.glb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, 7, 24} {
		want := ref.Palette(0, 0, 1+float64(k)/24)
		got := f.Palette(1, k)
		for b := range want {
			for e := 0; e < 16; e++ {
				if math.Abs(float64(got[b*16+e])-want[b][e]) > 1e-3 {
					t.Fatalf("look frame %d bone %d element %d: %v, want %v", k, b, e, got[b*16+e], want[b][e])
				}
			}
		}
	}
}

func TestManifestErrors(t *testing.T) {
	m, err := gltf.Load(sharedModel(t, "SimpleSkin.gltf"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, names, motions := Source(m)
	bad := []struct {
		m    Manifest
		want string
	}{
		{Manifest{Clips: []ManifestClip{{Name: "x", Source: "nope"}}}, "no source animation"},
		{Manifest{Clips: []ManifestClip{{Name: "animation0", Markers: map[string]float32{"contakt": .5}}}}, "unknown marker"},
		{Manifest{Clips: []ManifestClip{{Name: "animation0", Markers: map[string]float32{"contact": 1.5}}}}, "[0,1]"},
		{Manifest{Sockets: []ManifestSocket{{Name: "s", Bone: "nope"}}}, "no bone"},
	}
	for _, b := range bad {
		if _, err := b.m.Job(r, names, motions); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("manifest %+v: err %v, want %q", b.m, err, b.want)
		}
	}
	job, err := (&Manifest{Clips: []ManifestClip{{Name: "animation0", Start: new(3.0), End: 2}}}).Job(r, names, motions)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bake.Bake(job); err == nil || !strings.Contains(err.Error(), "reversed") {
		t.Errorf("reversed range: %v", err)
	}
	path := filepath.Join(t.TempDir(), "typo.yaml")
	writeFile(t, path, "fsp: 30\n")
	if _, err := ReadManifest(path); err == nil || !strings.Contains(err.Error(), "fsp") {
		t.Errorf("typo in manifest: %v", err)
	}
	// A manifest's snapshot budget meets SnapshotSettings.Triangles' rule (0 is
	// the default, docs/formats/bpsm.md §7).
	writeFile(t, path, "snapshot_triangles: -1\n")
	if _, err := ReadManifest(path); err == nil || !strings.Contains(err.Error(), "snapshot_triangles -1: the far mesh needs at least 1 triangle") {
		t.Errorf("snapshot_triangles -1: %v", err)
	}
	// A manifest's scale meets --scale's rule (gltf.CheckScale), in the
	// manifest's words: it is not the setting's.
	writeFile(t, path, "scale: -2\n")
	if _, err := ReadManifest(path); err == nil || !strings.Contains(err.Error(), "manifest "+path+": scale -2 must be a positive number") {
		t.Errorf("scale -2: %v", err)
	}
	writeFile(t, path, "snapshot_triangles: 0\n")
	if _, err := ReadManifest(path); err != nil {
		t.Errorf("snapshot_triangles 0 (the default): %v", err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestParseSocket: NAME=BONE or NAME=BONE@x,y,z, the offset three float32s;
// anything else is a SettingError of Settings.Sockets quoting what was given.
func TestParseSocket(t *testing.T) {
	for s, want := range map[string]ManifestSocket{
		"hand=RightHand":          {Name: "hand", Bone: "RightHand"},
		"hand=RightHand@0,0.1,-2": {Name: "hand", Bone: "RightHand", Offset: [3]float32{0, 0.1, -2}},
		"tip=a=b@ 1, 2 ,3":        {Name: "tip", Bone: "a=b", Offset: [3]float32{1, 2, 3}},
	} {
		if got, err := ParseSocket(s); err != nil || got != want {
			t.Errorf("ParseSocket(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for s, why := range map[string]string{
		"hand": "want NAME=BONE", "=RightHand": "want NAME=BONE", "hand=": "want NAME=BONE",
		"hand=R@1,2": "three numbers", "hand=R@1,x,3": `"x" is not a number`, "hand=R@1e39,0,0": "outside the range of a float32",
	} {
		_, err := ParseSocket(s)
		se := (*bake.SettingError)(nil)
		if !errors.As(err, &se) || se.Setting != "Sockets" || !se.ReadsOn || !strings.HasPrefix(se.Err.Error(), strconv.Quote(s)+": ") || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseSocket(%q): %v, want a Sockets error quoting it: %s", s, err, why)
		}
	}
}

// BoneChoices finds, best first, the bone a name from another rig means: on the
// real skeletons of Fox (b_Name_NN), the Soldier (mixamorig:Name) and CesiumMan
// (nodeN, nothing to match), each case's answer picked by reading the names.
func TestBoneChoicesRealRigs(t *testing.T) {
	names := map[string][]string{}
	for _, f := range []string{"Fox.glb", "threejs/Soldier.glb", "CesiumMan.gltf"} {
		m, err := gltf.Load(testfiles.Path(t, "gltf", f), gltf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		names[f] = m.Skeleton.Names
	}
	for _, c := range []struct{ model, want, says string }{
		{"Fox.glb", "Hips", "close matches: b_Hip_01"},
		{"Fox.glb", "head", "close matches: b_Head_05"},
		{"Fox.glb", "Haed", "close matches: b_Head_05"}, // a typo: words.Near
		{"Fox.glb", "Foot", "close matches: b_LeftFoot01_017, b_LeftFoot02_018, b_RightFoot01_021, b_RightFoot02_022"},
		{"Fox.glb", "Zzz", ""}, // "": none is close, every bone listed
		{"threejs/Soldier.glb", "LeftFoot", "close matches: mixamorig:LeftFoot"},
		{"threejs/Soldier.glb", "b_Hip_01", "close matches: mixamorig:Hips"},
		// Fourteen hold "lefthand": the one that is it, not its fingers.
		{"threejs/Soldier.glb", "LeftHand", "close matches: mixamorig:LeftHand"},
		{"CesiumMan.gltf", "Head", ""},
	} {
		all := names[c.model]
		if c.says == "" {
			c.says = fmt.Sprintf("the %d bones: %s", len(all), strings.Join(all, ", "))
		}
		if got := BoneChoices(c.want, all); got != c.says {
			t.Errorf("%s %q: %s, want %s", c.model, c.want, got, c.says)
		}
	}
}
