package gltfbake

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/roster"
	"github.com/bonebake/bonebake/source/gltf"
	"github.com/bonebake/bonebake/species/creatures"
	"github.com/bonebake/bonebake/stride"
)

// TestBuiltinGaitsMeasured exports each built-in creature to glTF (which carries
// no speeds), bakes it back and checks the measured ground speeds against the
// roster's table (docs/species.md §1), the external reference: within 5 % for
// every locomotion clip (with a confidence under 0.8 when its feet slip over
// 5 % at the table's speed too: the gallop's hind foot), and no speed for
// every clip the table plays in place (the rider's reining, whose feet shift
// in the stirrups, included).
func TestBuiltinGaitsMeasured(t *testing.T) {
	names := []string{"humanoid", "horse", "elephant"}
	if !testing.Short() {
		names = append(names, "humanoid_sword", "humanoid_spear", "humanoid_skeleton")
	}
	dir := t.TempDir()
	for _, name := range names {
		s := creatures.ByName(name)
		path := filepath.Join(dir, name+".glb")
		if err := gltf.WriteFile(path, s.ExportGLTF()); err != nil {
			t.Fatal(err)
		}
		m, err := Load(path, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		f := m.Gaits(filepath.Join(dir, name+".bpat"))
		def, _ := roster.ByName(name)
		for _, c := range f.Clips {
			want := def.Gait(c.Name)
			if want.Cycle > 0 && math.Abs(c.Cycle-want.Cycle) > 1e-4 {
				t.Errorf("%s %s: cycle %v, want the table's %v", name, c.Name, c.Cycle, want.Cycle)
			}
			switch {
			case want.Speed > 0:
				// At the table's speed, how far do the clip's feet slip? (slip,
				// which shares no code with the estimator.)
				cc := c
				cc.GroundSpeed, cc.Stride, cc.Method = want.Speed, want.Speed*c.Cycle, "feet"
				r := slip(m, slices.IndexFunc(f.Clips, func(x gait.Clip) bool { return x.Name == c.Name }), cc)
				t.Logf("%s %s: measured %.4g m/s (table %v) from %s, confidence %.2f; at the table's speed a stance slips %.1f%% (%s)",
					name, c.Name, c.GroundSpeed, want.Speed, c.Method, c.Confidence, 100*r.worst, r.where)
				switch {
				case c.GroundSpeedSource != gait.SourceMeasured || math.Abs(c.GroundSpeed-want.Speed) > 0.05*want.Speed:
					t.Errorf("%s %s: %+v, want %v m/s measured within 5%%", name, c.Name, c, want.Speed)
				case r.worst > 0.05 && c.Confidence >= 0.8:
					// The procedural clip's own feet slide at the game's
					// speed (the gallop's hind foot): the confidence must
					// say so.
					t.Errorf("%s %s: %+v: its feet slip %.1f%% at the table's speed, want a confidence under 0.8", name, c.Name, c, 100*r.worst)
				}
			case c.GroundSpeed != 0:
				t.Errorf("%s %s: %+v: the table plays it in place, want no speed", name, c.Name, c)
			}
		}
	}
}

// TestSyntheticWalkerGLTF: a biped walking at 1.4 m/s, in place and with root
// motion, measures within 2 %; --in-place removes the root's travel from the
// baked palettes and keeps the speed.
func TestSyntheticWalkerGLTF(t *testing.T) {
	for _, c := range []struct {
		rootMotion, inPlace bool
		method              string
	}{{false, false, "feet"}, {true, false, "root_motion"}, {true, true, "root_motion"}} {
		path := testfiles.WalkerGLTF(t, c.rootMotion)
		m, err := Load(path, Settings{InPlace: c.inPlace})
		if err != nil {
			t.Fatal(err)
		}
		f := m.Gaits("walker.bpat")
		w, _ := f.Clip("Walk")
		if w.GroundSpeedSource != gait.SourceMeasured || w.Method != c.method || math.Abs(w.GroundSpeed-1.4) > 0.02*1.4 || w.InPlace != c.inPlace {
			t.Errorf("root motion %v, in place %v: %+v, want 1.4 m/s from %s within 2%%", c.rootMotion, c.inPlace, w, c.method)
		}
		if strings.Join(f.Feet, ",") != "FootL,FootR" || f.RootBone != "Pelvis" {
			t.Errorf("feet %v root %s", f.Feet, f.RootBone)
		}
		b, err := bake.Bytes(m.Job)
		if err != nil {
			t.Fatal(err)
		}
		bf, err := bpat.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
		if err != nil {
			t.Fatal(err)
		}
		n := bf.Clips()[0].FrameCount
		first, last := bf.Palette(0, 0), bf.Palette(0, n-1)
		travel := float64(last[11] - first[11]) // the root's z (row-major translation)
		want := 0.0
		if c.rootMotion && !c.inPlace {
			want = 1.4 * float64(n-1) / float64(n)
		}
		if math.Abs(travel-want) > 1e-3 {
			t.Errorf("root motion %v, in place %v: the root travels %.4f m over the baked frames, want %.4f", c.rootMotion, c.inPlace, travel, want)
		}
	}
}

// TestGaitManifestKeys: a manifest's in_place, cycle, ground_speed, feet and
// root_bone reach the sidecar; a bad value or bone is refused.
func TestGaitManifestKeys(t *testing.T) {
	path := testfiles.WalkerGLTF(t, true)
	dir := t.TempDir()
	read := func(yaml string) (*Manifest, error) {
		p := filepath.Join(dir, "m.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return ReadManifest(p)
	}
	mf, err := read("feet: [FootR]\nroot_bone: Root\nclips:\n  - name: walk\n    source: Walk\n    in_place: true\n    cycle: 0.5\n  - name: fast\n    source: Walk\n    ground_speed: 3\n")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, Settings{Manifest: mf})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Gaits("x.bpat")
	w, _ := f.Clip("walk")
	if !w.InPlace || w.Cycle != 0.5 || math.Abs(w.GroundSpeed-2.8) > 0.02*2.8 || w.GroundSpeedSource != gait.SourceMeasured {
		t.Errorf("walk: %+v, want in place, 1.4 m per 0.5 s cycle = 2.8 m/s measured", w)
	}
	if fast, _ := f.Clip("fast"); fast.InPlace || fast.GroundSpeed != 3 || fast.GroundSpeedSource != gait.SourceManifest {
		t.Errorf("fast: %+v, want 3 m/s from the manifest, not in place", fast)
	}
	if strings.Join(f.Feet, ",") != "FootR" || f.FeetFrom != "given" || f.RootBone != "Root" {
		t.Errorf("feet %v from %s, root %s", f.Feet, f.FeetFrom, f.RootBone)
	}
	if mf, err := read("clips:\n  - name: walk\n    source: Walk\n    cycle: -1\n"); err == nil {
		if _, err = Load(path, Settings{Manifest: mf}); err == nil || !strings.Contains(err.Error(), "cycle") {
			t.Errorf("negative cycle: %v", err)
		}
	}
	var se *bake.SettingError
	if _, err := Load(path, Settings{Feet: []string{"Paw"}}); !errors.As(err, &se) || se.Setting != "Feet" {
		t.Errorf("unknown foot: %v", err)
	}
}

// TestGaitManifestBounds: a cycle or ground speed outside its physical bounds
// (a cycle: 1e308 once failed after the BPAT was written, with only "json:
// unsupported value: +Inf"; a ground_speed: 1e39 was taken as 1e39 m/s) is
// refused when the manifest is read, naming the file, the key's line, the key
// and the bound; a manifest made in code (a model's extras) meets the same
// bounds when the job is made.
func TestGaitManifestBounds(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.yaml")
	for _, c := range []struct{ key, value, bound string }{
		{"cycle", "1e308", "3600"}, {"cycle", "0", "0.001"}, {"cycle", "1e-9", "0.001"},
		{"ground_speed", "1e39", "10000"}, {"ground_speed", "-1", "0.001"}, {"ground_speed", "3e8", "10000"},
	} {
		yaml := "clips:\n  - name: idle\n    source: Idle\n  - name: walk\n    source: Walk\n    fps: 30\n    " + c.key + ": " + c.value + "\n"
		os.WriteFile(p, []byte(yaml), 0o644)
		_, err := ReadManifest(p)
		if err == nil {
			t.Errorf("%s: %s accepted", c.key, c.value)
			continue
		}
		for _, want := range []string{p, "line 7", c.key, c.bound} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %s: %q does not say %s", c.key, c.value, err, want)
			}
		}
	}
	os.WriteFile(p, []byte("clips:\n  - name: walk\n    source: Walk\n    cycle: 3600\n    ground_speed: 0.001\n"), 0o644)
	if _, err := ReadManifest(p); err != nil {
		t.Errorf("the bounds themselves: %v", err)
	}
	path := testfiles.WalkerGLTF(t, true)
	mf := &Manifest{Clips: []ManifestClip{{Name: "walk", Source: "Walk", Cycle: 1e308}}}
	if _, err := Load(path, Settings{Manifest: mf}); err == nil || !strings.Contains(err.Error(), "cycle 1e+308 is outside") {
		t.Errorf("a manifest made in code: %v", err)
	}
}

// TestFoxFourFeet: a quadruped whose front feet are named hands (the Fox) is
// measured on all four: the hind paws by name, the front ones as the low
// leaves of limbs that name no foot.
func TestFoxFourFeet(t *testing.T) {
	m, err := Load(sharedModel(t, "Fox.glb"), Settings{Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Gaits("fox.bpat")
	want := "b_RightHand_08,b_LeftHand_011,b_LeftFoot02_018,b_RightFoot02_022"
	if got := strings.Join(f.Feet, ","); got != want || f.FeetFrom != "name" {
		t.Errorf("feet %s from %s, want %s", got, f.FeetFrom, want)
	}
}

// TestFeetNotEndBones: a chain's tip that no vertex follows is no foot.
// Blender's FBX exporter adds one to every chain (NAME_end, along the last
// bone as far as its length reaches: the Fox's lie 0.05·H under its front
// paws), and the Blender variants of the Fox and CesiumMan (testdata/fbx),
// their feet found by name and by hierarchy, measure their walks from the
// joints the originals do, at the originals' speeds (Fox.glb's Walk 163.1 cm
// per s, CesiumMan's 0.8694 m/s, scaled 0.01 in cesiumman.xbones.fbx). From
// the _end bones the Fox's Walk measured 268 and got no speed (its feet
// disagreeing by 3×), CesiumMan's 0.009787.
func TestFeetNotEndBones(t *testing.T) {
	for _, k := range []struct {
		file, clip string
		feet       []string
		speed      float64 // the original's, in the file's units
	}{
		{"fox.default.fbx", "root|Walk_root", []string{"b_RightHand_08", "b_LeftHand_011", "b_LeftFoot02_018", "b_RightFoot02_022"}, 163.1},
		{"cesiumman.xbones.fbx", "Armature|Anim_0_Armature", []string{"Node_10", "Node_6"}, 0.008694},
	} {
		t.Run(k.file, func(t *testing.T) {
			m, err := Load(testfiles.Path(t, "fbx", k.file), Settings{})
			if err != nil {
				t.Fatal(err)
			}
			f := m.Gaits("x.bpat")
			if !slices.Equal(f.Feet, k.feet) {
				t.Errorf("feet %q: want %q", f.Feet, k.feet)
			}
			i := slices.IndexFunc(f.Clips, func(c gait.Clip) bool { return c.Name == k.clip })
			if i < 0 {
				t.Fatalf("no clip %q", k.clip)
			}
			c := f.Clips[i]
			t.Logf("%s: %s", c.Name, m.GaitLine(c))
			if math.Abs(c.GroundSpeed-k.speed) > 0.01*k.speed {
				t.Errorf("%+v: want a speed within 1 %% of the original's %.4g", c, k.speed)
			}
		})
	}
}

// TestSolesFollowLegs: a part of another limb hanging lower than the feet in
// the mesh at rest (the three.js robot through Blender's glTF importer and
// exporter holds its skinned hands 0.2 to 0.3 below its feet, three.js
// drawing it so too) is no sole, and the feet keep theirs. Xbot with a hand's
// vertices copied under and beside each foot: before, the lowest 3 % of the
// mesh was those vertices', each foot's sole was its hand's copies, and the
// feet's own vertices were none of it.
func TestSolesFollowLegs(t *testing.T) {
	m, err := Load(sharedModel(t, "threejs/Xbot.glb"), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	r, mesh := m.gaitRig, m.GLTF.Mesh
	bones := m.Job.Rig.PaletteBones()
	hand := slices.IndexFunc(bones, func(b int) bool { return r.Skeleton.Names[b] == "mixamorig:LeftHand" })
	if hand < 0 {
		t.Fatal("no mixamorig:LeftHand in the palette")
	}
	rest := r.Skeleton.RestModelSpace()
	for _, f := range r.Feet {
		at := rest[f].Translation()
		for k := range 20 {
			p := [3]float32{float32(at[0]) + 0.002*float32(k), float32(-0.25 * r.Height), float32(at[2])}
			mesh.Positions = append(mesh.Positions, p)
			mesh.Joints = append(mesh.Joints, [4]uint16{uint16(hand)})
			mesh.Weights = append(mesh.Weights, [4]float32{1})
		}
	}
	for i, sole := range m.soles() {
		foot := r.Skeleton.Names[r.Feet[i]]
		if len(sole) == 0 {
			t.Errorf("foot %s: no sole", foot)
		}
		for _, p := range sole {
			if p.Bone[0] == bones[hand] {
				t.Errorf("foot %s: its sole holds a vertex following %s", foot, r.Skeleton.Names[bones[hand]])
				break
			}
		}
	}
}

// TestSkeletonOffMesh: a skeleton that does not stand in its mesh, its
// joints a body's height below the mesh they carry (the three.js robot
// through Blender's glTF importer and exporter: 2.37 units, 0.77·H from each
// foot's sole, its feet swinging their mesh 3 units under the ground), gets
// no speed for any clip, each saying why, and no planting. The built-in
// humanoid exported with its skeleton so lowered: before, its walk measured
// 1.38 m/s at full confidence from joints that stand nowhere near its feet.
func TestSkeletonOffMesh(t *testing.T) {
	e := creatures.ByName("humanoid").ExportGLTF()
	sk := e.Skeleton
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range sk.RestModelSpace() {
		lo, hi = math.Min(lo, m[7]), math.Max(hi, m[7])
	}
	d := hi - lo // the body's height: the joints that far below the mesh
	rest := sk.RestPose()
	for b, p := range sk.Parents {
		if p < 0 {
			rest[b].Translation[1] -= d
		}
	}
	low, err := rig.New(sk.Names, sk.Parents, rest)
	if err != nil {
		t.Fatal(err)
	}
	e.Skeleton = low
	for j, m := range low.RestModelSpace() { // bound where the joints now stand
		e.InverseBind[j], _ = m.Inverse()
	}
	for _, c := range e.Clips {
		for _, pose := range c.Poses {
			for b, p := range sk.Parents {
				if p < 0 {
					pose[b].Translation[1] -= d
				}
			}
		}
	}
	path := filepath.Join(t.TempDir(), "low.glb")
	if err := gltf.WriteFile(path, e); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, Settings{PlantFeet: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Gaits("x.bpat").Clips {
		if c.GroundSpeed != 0 || c.Status != string(stride.StatusUntrusted) || c.Planted ||
			!strings.Contains(c.Reason, "the skeleton is not where the mesh is") {
			t.Errorf("%s: %+v: want no speed, untrusted, not planted, the reason saying the skeleton is not where the mesh is", c.Name, c)
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("%s", m.GaitLine(m.Gaits("x.bpat").Clips[0]))
}
