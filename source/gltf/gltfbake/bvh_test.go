package gltfbake

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	bvhfile "github.com/bonebake/bonebake/formats/bvh"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

// jointsAt samples clip c of m at time t and returns its joints' model-space
// matrices.
func jointsAt(m *gltf.Model, c int, t float64) []rig.Mat4 {
	s := bake.FromClip(&m.Clips[c], nil).NewSampler()
	pose := m.Skeleton.RestPose()
	s.Sample(t, pose)
	g := make([]rig.Mat4, m.Skeleton.Len())
	m.Skeleton.ModelSpace(pose, g)
	out := make([]rig.Mat4, len(m.Joints))
	for j, b := range m.Joints {
		out[j] = g[b]
	}
	return out
}

func clipIndex(t *testing.T, m *gltf.Model, name string) int {
	t.Helper()
	for i, c := range m.Clips {
		if c.Name == name {
			return i
		}
	}
	t.Fatalf("no clip %q", name)
	return -1
}

// worstDiff is the largest difference of two poses' matrices: translations
// divided by size, the other elements as they are.
func worstDiff(a, b []rig.Mat4, size float64) (worst float64, joint, elem int) {
	for j := range a {
		for i := range 12 {
			d := math.Abs(a[j][i] - b[j][i])
			if i == 3 || i == 7 || i == 11 {
				d /= size
			}
			if d > worst {
				worst, joint, elem = d, j, i
			}
		}
	}
	return worst, joint, elem
}

// TestBVHOnSoldierIsItsWalk puts soldier_walk.bvh, which Blender wrote from
// Soldier.glb's Walk (resampled at its 24 fps), on Soldier.glb by joint name:
// a reference tool's own export, so the clip must be the Walk again. At each
// of the file's frame times within the Walk, every joint's model-space matrix
// agrees with the Walk's within 1e-4 (translations relative to the height).
// Without the re-expression of docs/formats/bvh.md §6 (the BVH's rotations
// copied as local ones) the fit or the poses are far off.
func TestBVHOnSoldierIsItsWalk(t *testing.T) {
	soldier := testfiles.Path(t, "gltf", "threejs/Soldier.glb")
	walkBVH := testfiles.Path(t, "bvh", "soldier_walk.bvh")
	m, err := Load(soldier, Settings{ClipFiles: []string{walkBVH}})
	if err != nil {
		t.Fatal(err)
	}
	g := m.GLTF
	walk, bvh := clipIndex(t, g, "Walk"), clipIndex(t, g, "soldier_walk")
	const frameTime = 0.041667 // the file's Frame Time
	size := jointsSize(g, g.Skeleton.RestModelSpace())
	worst := 0.0
	frames := 0
	for f := 0; float64(f)*frameTime <= g.Clips[walk].Duration; f++ {
		tm := float64(f) * frameTime
		w, j, e := worstDiff(jointsAt(g, bvh, tm), jointsAt(g, walk, g.Clips[walk].Start+tm), size)
		if w > 1e-4 {
			t.Fatalf("frame %d (%.4f s): joint %s element %d differs by %.3g", f, tm, g.JointNames[j], e, w)
		}
		worst = max(worst, w)
		frames++
	}
	if frames < 20 {
		t.Fatalf("compared only %d frames", frames)
	}
	t.Logf("%d frames, worst difference %.2g (translations relative to %.3g m)", frames, worst, size)
}

// TestBVHThreejsPeerAgrees bakes both shared BVH files on their own skeletons
// in the file's own space (--up +Y --scale 1) and plays them with three.js's
// BVHLoader and AnimationMixer at the baked frames' times: every palette
// matrix agrees within 1e-4 (translations relative to the skeleton's size).
// three.js adds each joint's OFFSET to its position channels, where Blender,
// which wrote these files, writes the channels with the offset included
// (docs/formats/bvh.md §3): three.js is given the file with those joints'
// OFFSETs set to 0, which means the same file under bonebake's reading. And
// three.js binds a track by a path in which ':' is reserved, so that
// Mixamo's "mixamorig:Hips" would not move at all: it is given the names with
// '_' for ':'.
func TestBVHThreejsPeerAgrees(t *testing.T) {
	peer := threejsPeerWith(t, "bvh_peer.mjs")
	for _, name := range []string{"a_biped_walk.bvh", "soldier_walk.bvh"} {
		t.Run(name, func(t *testing.T) {
			path := testfiles.Path(t, "bvh", name)
			m, err := Load(path, Settings{Up: "+Y", Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			got, clip, _, times := bakeFirstClip(t, m)
			args := append([]string{"bvh_peer.mjs", threejsOffsets(t, path)}, times...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", args...)
			cmd.Dir = peer
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the three.js peer failed: %v", err)
			}
			var res struct {
				Names  []string
				Frames [][][16]float64
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatal(err)
			}
			for i, n := range res.Names {
				res.Names[i] = strings.ReplaceAll(n, "_", ":")
			}
			if !slices.Equal(res.Names, m.GLTF.JointNames) || len(res.Frames) != int(clip.FrameCount) {
				t.Fatalf("three.js has joints %v and %d frames; bonebake %v and %d", res.Names, len(res.Frames), m.GLTF.JointNames, clip.FrameCount)
			}
			size := jointsSize(m.GLTF, m.GLTF.Skeleton.RestModelSpace())
			worst := 0.0
			for f, joints := range res.Frames {
				p := got.Palette(0, f)
				for j, w := range joints {
					for i := range 12 {
						d := math.Abs(float64(p[j*16+i]) - w[i])
						if i == 3 || i == 7 || i == 11 {
							d /= size
						}
						worst = max(worst, d)
						if d > 1e-4 {
							t.Fatalf("frame %d joint %s element %d: %v; three.js has %v", f, res.Names[j], i, p[j*16+i], w[i])
						}
					}
				}
			}
			t.Logf("%d frames, worst difference %.2g (translations relative to %.3g)", len(res.Frames), worst, size)
		})
	}
}

// threejsOffsets writes a copy of the BVH file at path whose joints with
// position channels have OFFSET 0 0 0 and whose names have '_' for ':', and
// returns its path.
func threejsOffsets(t *testing.T, path string) string {
	t.Helper()
	f, err := bvhfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, j := range f.Joints {
		lines[j.Line-1] = strings.ReplaceAll(lines[j.Line-1], ":", "_")
		if !slices.ContainsFunc(j.Channels, func(c bvhfile.Channel) bool { return !c.Rotation() }) {
			continue
		}
		for i := j.Line; i < len(lines); i++ { // the line after the joint's (Line is 1-based)
			if strings.HasPrefix(strings.TrimSpace(lines[i]), "OFFSET") {
				lines[i] = "OFFSET 0 0 0"
				break
			}
		}
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBVHBakesOnItsOwn bakes both shared files on their own skeletons in
// bonebake's space: up found from the skeleton (+Z for Blender's a_biped_walk,
// -Y for soldier_walk), units from the height, the hips at frame 0 where the
// file's position channels put them, turned and scaled by hand here.
func TestBVHBakesOnItsOwn(t *testing.T) {
	for _, c := range []struct {
		name, hips, up string
		// the hips' frame-0 position channels, turned to +Y up and scaled
		// to metres: (x, z, -y) for +Z up; (x, -y, -z) × 0.01 for -Y up in
		// centimetres.
		want   rig.Vec3
		frames int // the file's frames less the last, which a loop does not store
	}{
		{"a_biped_walk.bvh", "hips", "+Z", rig.Vec3{0, 1, 0}, 24},
		{"soldier_walk.bvh", "mixamorig:Hips", "-Y", rig.Vec3{-0.00423645, 1.03415009, -0.022519}, 25},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Load(testfiles.Path(t, "bvh", c.name), Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Notes) == 0 || !strings.Contains(m.Notes[0], c.up+" up (found from its skeleton)") {
				t.Fatalf("notes %q: want %s up found", m.Notes, c.up)
			}
			b, err := bake.Bytes(m.Job)
			if err != nil {
				t.Fatal(err)
			}
			f, err := bpat.Parse(b, formats.KnownSpecies(m.Job.SpeciesID))
			if err != nil {
				t.Fatal(err)
			}
			if cl := f.Clips(); len(cl) != 1 || cl[0].Name != strings.TrimSuffix(c.name, ".bvh") || int(cl[0].FrameCount) != c.frames || math.Abs(float64(cl[0].FPS)-1/0.041667) > 1e-3 {
				t.Fatalf("clips %+v", cl)
			}
			// --fps replaces the file's rate.
			m60, err := Load(testfiles.Path(t, "bvh", c.name), Settings{FPS: 60})
			if err != nil {
				t.Fatal(err)
			}
			if fps := m60.Job.Clips[0].FPS; fps != 60 {
				t.Fatalf("--fps 60: the clip bakes at %g fps", fps)
			}
			j := slices.Index(m.GLTF.JointNames, c.hips)
			p := f.Palette(0, 0)
			got := rig.Vec3{float64(p[j*16+3]), float64(p[j*16+7]), float64(p[j*16+11])}
			if got.Sub(c.want).Len() > 1e-6 {
				t.Fatalf("hips at %v, want %v", got, c.want)
			}
			// Upright: every joint above the floor, the highest well above
			// the hips.
			top := 0.0
			for k := range f.BoneCount() {
				y := float64(p[k*16+7])
				if y < -0.01 {
					t.Fatalf("joint %s at height %.3f", m.GLTF.JointNames[k], y)
				}
				top = max(top, y)
			}
			if top < got[1]+0.3 {
				t.Fatalf("highest joint at %.3f, hips at %.3f", top, got[1])
			}
		})
	}
}

// TestBVHRefusals: a BVH of another skeleton is refused as a clip file, a bad
// --up is a setting error, a hostile file names its line.
func TestBVHRefusals(t *testing.T) {
	soldier := testfiles.Path(t, "gltf", "threejs/Soldier.glb")
	biped := testfiles.Path(t, "bvh", "a_biped_walk.bvh")
	_, err := Load(soldier, Settings{ClipFiles: []string{biped}})
	var ge *gltf.Error
	if !errors.As(err, &ge) || ge.Rule != gltf.RuleClipFit {
		t.Fatalf("a_biped_walk on Soldier: %v", err)
	}
	_, err = Load(biped, Settings{Up: "up"})
	if se := (*bake.SettingError)(nil); !errors.As(err, &se) || se.Setting != "Up" {
		t.Fatalf("--up up: %v", err)
	}
	// The Soldier's walk with its left arm hanging down at rest: the forearm's
	// and hand's offsets, and their position channels at every frame, turned
	// from -x to +y, the file's down. Under --retarget, a rest pose that is not
	// the character's is refused.
	walkPath := testfiles.Path(t, "bvh", "soldier_walk.bvh")
	walk, err := os.ReadFile(walkPath)
	if err != nil {
		t.Fatal(err)
	}
	wf, err := bvhfile.Open(walkPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(walk), "\n")
	motion := slices.Index(lines, "MOTION") + 3 // the first frame's line
	for _, name := range []string{"mixamorig:LeftForeArm", "mixamorig:LeftHand"} {
		j := wf.Joints[slices.IndexFunc(wf.Joints, func(j bvhfile.Joint) bool { return j.Name == name })]
		down := strconv.FormatFloat(math.Abs(j.Offset[0]), 'f', 6, 64)
		lines[j.Line+1] = "OFFSET 0 " + down + " 0" // JOINT, "{", OFFSET
		for fr := range wf.Frames {
			v := strings.Fields(lines[motion+fr])
			v[j.First], v[j.First+1], v[j.First+2] = "0", down, "0"
			lines[motion+fr] = strings.Join(v, " ")
		}
	}
	hanging := strings.Join(lines, "\n")
	hangs := filepath.Join(t.TempDir(), "hanging.bvh")
	os.WriteFile(hangs, []byte(hanging), 0o644)
	_, err = Load(soldier, Settings{ClipFiles: []string{hangs}, Retarget: true})
	if !errors.As(err, &ge) || ge.Rule != gltf.RuleClipFit || !strings.Contains(err.Error(), "rest pose is not Soldier.glb's") || !strings.Contains(err.Error(), "mixamorig:LeftArm's bone to mixamorig:LeftForeArm by 90°") {
		t.Fatalf("a rest pose with the arm down: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.bvh")
	os.WriteFile(bad, []byte("HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n1\n2 3\n"), 0o644)
	for _, load := range []func() error{
		func() error { _, err := Load(bad, Settings{}); return err },
		func() error { _, err := Load(soldier, Settings{ClipFiles: []string{bad}}); return err },
	} {
		var fe *formats.FormatError
		if err := load(); !errors.As(err, &fe) || fe.Rule != bvhfile.RuleFrameValues || fe.Line != 11 {
			t.Fatalf("%v: want frame-values on line 11", err)
		}
	}
}

// TestBVHFacesAsTheCharacter puts soldier_walk.bvh (the Soldier faces -Z) on
// Y Bot (which faces +Z) with --retarget: the file is turned 180° about the
// vertical, so that at every frame Y Bot's feet point forward for it (+Z, as
// at its rest), and the planted foot slides back (-Z) as a walk forward's does.
// Unturned, every bone points elsewhere and --retarget refuses the file.
func TestBVHFacesAsTheCharacter(t *testing.T) {
	ybot := sharedModel(t, "mixamo-clips/ybot.glb")
	m, err := Load(ybot, Settings{ClipFiles: []string{testfiles.Path(t, "bvh", "soldier_walk.bvh")}, Retarget: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "turned by 180°") }) {
		t.Fatalf("notes %q", m.Notes)
	}
	g := m.GLTF
	c := clipIndex(t, g, "soldier_walk")
	foot, toe := slices.Index(g.JointNames, "mixamorig:LeftFoot"), slices.Index(g.JointNames, "mixamorig:LeftToeBase")
	var ys, zs []float64
	forward := 0
	for f := range 25 {
		js := jointsAt(g, c, float64(f)*0.041667)
		d := js[toe].Translation().Sub(js[foot].Translation())
		if d[2] > 0 {
			forward++
		}
		ys, zs = append(ys, js[foot].Translation()[1]), append(zs, js[foot].Translation()[2])
	}
	if forward < 20 {
		t.Fatalf("the left foot points forward (+z) at %d of 25 frames", forward)
	}
	// Planted: within 1 cm of its lowest. While planted it slides back.
	low := slices.Min(ys)
	planted := 0
	for f := 1; f < len(ys); f++ {
		if ys[f] < low+0.01 && ys[f-1] < low+0.01 {
			planted++
			if zs[f] >= zs[f-1] {
				t.Fatalf("frame %d: the planted foot moves from z %.3f to %.3f, not back", f, zs[f-1], zs[f])
			}
		}
	}
	if planted < 5 {
		t.Fatalf("the foot is planted for %d frames: heights %.3f", planted, ys)
	}
}
