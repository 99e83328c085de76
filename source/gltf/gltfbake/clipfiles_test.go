package gltfbake

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/source/gltf"
)

func mixamo(t *testing.T, name string) string { return sharedModel(t, "mixamo-clips/"+name) }

// bakeAll bakes the job's clips with every palette bone, in slices of at most
// bpat.MaxBones bones when the rig has more (the file format's limit, not the
// comparison's): palettes[clip][frame][joint] row-major.
func bakeAll(t *testing.T, job *bake.Job) [][][][16]float64 {
	t.Helper()
	bones := job.Rig.PaletteBones()
	out := make([][][][16]float64, len(job.Clips))
	for lo := 0; lo < len(bones); lo += bpat.MaxBones {
		hi := min(lo+bpat.MaxBones, len(bones))
		j := *job
		j.Rig.Bones = bones[lo:hi]
		j.Sockets = nil
		c, err := bake.Bake(&j)
		if err != nil {
			t.Fatal(err)
		}
		for ci := range c.Clips {
			p := c.Palettes[ci]
			frames := len(p) / ((hi - lo) * 16)
			if out[ci] == nil {
				out[ci] = make([][][16]float64, frames)
			}
			for f := range frames {
				for b := range hi - lo {
					var m [16]float64
					for k := range 16 {
						m[k] = float64(p[(f*(hi-lo)+b)*16+k])
					}
					out[ci][f] = append(out[ci][f], m)
				}
			}
		}
	}
	return out
}

// clipTimes are the times (seconds into the animation) of a baked clip's
// frames by docs/formats/bpat.md §5, counted from its first key.
func clipTimes(c bake.Clip, mo bake.Motion) []float64 {
	times := gltfref.FrameTimes(mo.Duration-mo.Start, c.FPS, c.Loops)
	for i := range times {
		times[i] += mo.Start
	}
	return times
}

// TestClipFilesMatchReference is issue 41's check: ybot.glb (the skin, no
// animation of its own but a rest pose) with walking.glb and flair.glb (only
// the mixamorig:* nodes and one animation each) bakes one job whose clips are
// each file's animation on ybot's skeleton. The reference is the plain float64
// evaluator run on each clip file by itself: the files are exports of one rig
// whose every joint is keyed, so ybot's joint j must be where the clip file's
// node of the same name is, at every frame.
func TestClipFilesMatchReference(t *testing.T) {
	walking, flair := mixamo(t, "walking.glb"), mixamo(t, "flair.glb")
	for _, retarget := range []bool{false, true} {
		m, err := Load(mixamo(t, "ybot.glb"), Settings{ClipFiles: []string{walking, flair}, Retarget: retarget})
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, len(m.Job.Clips))
		for i, c := range m.Job.Clips {
			names[i] = c.Name
		}
		if want := []string{"ybot", "walking", "flair"}; !slices.Equal(names, want) {
			t.Fatalf("retarget %v: clips %q, want %q", retarget, names, want)
		}
		palettes := bakeAll(t, m.Job)
		worst := 0.0
		for ci, file := range map[int]string{1: walking, 2: flair} {
			ref, err := gltfref.Load(file)
			if err != nil {
				t.Fatal(err)
			}
			nodes := make([]int, len(m.GLTF.JointNames))
			for j, name := range m.GLTF.JointNames {
				if nodes[j] = ref.Node(name); nodes[j] < 0 {
					t.Fatalf("%s has no node %q", file, name)
				}
			}
			c := m.Job.Clips[ci]
			times := clipTimes(c, m.Job.Motions[c.Motion])
			if len(times) != len(palettes[ci]) {
				t.Fatalf("%s: %d frames, want %d", c.Name, len(palettes[ci]), len(times))
			}
			var rest [][16]float64
			for _, n := range nodes {
				rest = append(rest, ref.Global(n, -1, 0))
			}
			size := skeletonSize(rest)
			for f, tm := range times {
				for j, n := range nodes {
					want, got := ref.Global(n, 0, tm), palettes[ci][f][j]
					for k := range 16 {
						d := math.Abs(got[k] - want[k])
						if k == 3 || k == 7 || k == 11 {
							d /= size
						}
						worst = max(worst, d)
						if d > 1e-4 {
							t.Fatalf("retarget %v: %s frame %d (t=%v) joint %s element %d: got %v, want %v", retarget, c.Name, f, tm, m.GLTF.JointNames[j], k, got[k], want[k])
						}
					}
				}
			}
		}
		t.Logf("retarget %v: worst difference %.2g (translations relative to the skeleton's size)", retarget, worst)
	}
}

// TestClipFilesRetargetXbot puts ybot's walking.glb on three.js's X Bot, a
// Mixamo rig of other proportions under an armature that is not turned (Y Bot's
// is, by 90° about x). Taken as they are, the file's offsets would stretch X
// Bot's bones: it is refused, naming joints. With --retarget every joint turns
// as in the file, in the scene's space, and the hips travel as in the file
// scaled by the ratio of leg lengths (measured here from the rest joints).
func TestClipFilesRetargetXbot(t *testing.T) {
	xbot, walking := sharedModel(t, "threejs/Xbot.glb"), mixamo(t, "walking.glb")
	_, err := Load(xbot, Settings{ClipFiles: []string{walking}})
	var ge *gltf.Error
	if !errors.As(err, &ge) || ge.Rule != gltf.RuleClipFit || ge.File != walking || !strings.Contains(err.Error(), "mixamorig:") || !strings.Contains(err.Error(), "Settings.Retarget") {
		t.Fatalf("walking.glb on Xbot: got %v, want a %s error naming the file, joints and Settings.Retarget", err, gltf.RuleClipFit)
	}
	m, err := Load(xbot, Settings{ClipFiles: []string{walking}, Retarget: true})
	if err != nil {
		t.Fatal(err)
	}
	ci := slices.IndexFunc(m.Job.Clips, func(c bake.Clip) bool { return c.Name == "walking" })
	if ci < 0 {
		t.Fatal("no clip walking")
	}
	ref, err := gltfref.Load(walking)
	if err != nil {
		t.Fatal(err)
	}
	// The leg ratio, measured independently: hips to left toe end, bone by bone.
	xref, err := gltfref.Load(xbot)
	if err != nil {
		t.Fatal(err)
	}
	leg := func(d *gltfref.Doc) float64 {
		chain := []string{"mixamorig:Hips", "mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot", "mixamorig:LeftToeBase", "mixamorig:LeftToe_End"}
		l := 0.0
		for i := 1; i < len(chain); i++ {
			a, b := d.Global(d.Node(chain[i-1]), -1, 0), d.Global(d.Node(chain[i]), -1, 0)
			l += math.Sqrt(sq(a[3]-b[3]) + sq(a[7]-b[7]) + sq(a[11]-b[11]))
		}
		return l
	}
	ratio := leg(xref) / leg(ref)
	if math.Abs(ratio-1) < 0.005 {
		t.Fatalf("leg ratio %v: the rigs should differ", ratio)
	}
	palettes := bakeAll(t, m.Job)
	c := m.Job.Clips[ci]
	hips := slices.Index(m.GLTF.JointNames, "mixamorig:Hips")
	worst := 0.0
	for f, tm := range clipTimes(c, m.Job.Motions[c.Motion]) {
		for j, name := range m.GLTF.JointNames {
			want, got := ref.Global(ref.Node(name), 0, tm), palettes[ci][f][j]
			rw, rg := rotationOf(want), rotationOf(got)
			for k := range 9 {
				worst = max(worst, math.Abs(rw[k]-rg[k]))
				if math.Abs(rw[k]-rg[k]) > 2e-4 {
					t.Fatalf("frame %d (t=%v) joint %s: rotation %v, want the file's %v", f, tm, name, rg, rw)
				}
			}
			if j == hips {
				for _, k := range []int{3, 7, 11} {
					if math.Abs(got[k]-ratio*want[k]) > 1e-4 {
						t.Fatalf("frame %d (t=%v) hips at %v, want %v × the file's %v", f, tm, got[k], ratio, want[k])
					}
				}
			}
		}
	}
	t.Logf("leg ratio %.4f, worst rotation difference %.2g", ratio, worst)
}

func sq(x float64) float64 { return x * x }

// rotationOf is a row-major matrix's 3×3 part with its columns' scale removed.
func rotationOf(m [16]float64) [9]float64 {
	var r [9]float64
	for c := range 3 {
		l := math.Sqrt(sq(m[c]) + sq(m[4+c]) + sq(m[8+c]))
		for row := range 3 {
			r[row*3+c] = m[row*4+c] / l
		}
	}
	return r
}

// TestClipFilesNames: a generic animation name (ybot's own, Blender's
// "Armature|mixamo.com|Layer0") gives way to the file's name; a name taken
// gets a number; a file's own name is kept.
func TestClipFilesNames(t *testing.T) {
	walking, ybot := mixamo(t, "walking.glb"), mixamo(t, "ybot.glb")
	m, err := gltf.Load(ybot, gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AddClipFiles(m, []string{walking, ybot, walking, ybot}, ClipFilesSettings{}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range m.Clips {
		names = append(names, c.Name)
	}
	if want := []string{"Armature|mixamo.com|Layer0", "walking", "ybot", "walking_2", "ybot_2"}; !slices.Equal(names, want) {
		t.Fatalf("clips %q, want %q", names, want)
	}
	for _, n := range []string{"", "mixamo.com", "Take 001", "Default Take", "Armature|Walk", "animation_3"} {
		if !genericClipName(n) {
			t.Errorf("%q is not taken for generic", n)
		}
	}
	for _, n := range []string{"walk", "Take off", "mixamo.com walk", "Armature"} {
		if genericClipName(n) {
			t.Errorf("%q is taken for generic", n)
		}
	}
}

// rewriteGLB writes a copy of a GLB file into dir with its JSON passed through
// edit.
func rewriteGLB(t *testing.T, src, dir string, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint32(b[12:])
	js := []byte(edit(string(b[20 : 20+n])))
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	rest := b[20+n:]
	var out bytes.Buffer
	out.Write(b[:8])
	binary.Write(&out, binary.LittleEndian, uint32(12+8+len(js)+len(rest)))
	binary.Write(&out, binary.LittleEndian, uint32(len(js)))
	out.Write(b[16:20])
	out.Write(js)
	out.Write(rest)
	path := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestClipFilesNamespace: Mixamo names a second character's joints
// "mixamorig1:Hips": the same joints, matched by the name after the prefix,
// bake the same palettes as the file with ybot's own prefix. A node the
// character lacks is counted in a note and its channels ignored.
func TestClipFilesNamespace(t *testing.T) {
	walking, ybot := mixamo(t, "walking.glb"), mixamo(t, "ybot.glb")
	renamed := rewriteGLB(t, walking, t.TempDir(), func(js string) string {
		js = strings.ReplaceAll(js, `"mixamorig:`, `"mixamorig1:`)
		return strings.Replace(js, `"mixamorig1:LeftEye"`, `"Tail"`, 1)
	})
	plain, err := Load(ybot, Settings{ClipFiles: []string{walking}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(ybot, Settings{ClipFiles: []string{renamed}})
	if err != nil {
		t.Fatal(err)
	}
	note := strings.Join(m.Notes, "\n")
	if !strings.Contains(note, "ignored 3 channels on 1 node") || !strings.Contains(note, "Tail") {
		t.Errorf("notes %q do not count the 3 channels on Tail", m.Notes)
	}
	a, b := bakeAll(t, plain.Job), bakeAll(t, m.Job)
	eye := slices.Index(m.GLTF.JointNames, "mixamorig:LeftEye")
	for f := range a[1] {
		for j := range a[1][f] {
			if j != eye && a[1][f][j] != b[1][f][j] {
				t.Fatalf("frame %d joint %s: %v with mixamorig1:, %v with mixamorig:", f, m.GLTF.JointNames[j], b[1][f][j], a[1][f][j])
			}
		}
	}
}

// TestClipFilesRefused: a file animating another skeleton, one whose joints
// are oriented otherwise (under --retarget), and one without animations are
// refused with their file and rule.
func TestClipFilesRefused(t *testing.T) {
	ybot, walking := mixamo(t, "ybot.glb"), mixamo(t, "walking.glb")
	for _, c := range []struct {
		character, file string
		retarget        bool
		says            string
	}{
		{ybot, sharedModel(t, "Fox.glb"), false, "none of its"},
		{ybot, sharedModel(t, "threejs/Xbot.glb"), false, "differ"},
		// RobotExpressive shares a few names with Mixamo past the prefix
		// (Head, Neck): 3 of walking.glb's 67 animated nodes.
		{sharedModel(t, "threejs/RobotExpressive.glb"), walking, true, "it animates another skeleton"},
		// three.js's Soldier is a Mixamo rig whose joints were turned on
		// conversion: its arm bones point along other axes than Y Bot's.
		{sharedModel(t, "threejs/Soldier.glb"), walking, true, "oriented otherwise"},
	} {
		_, err := Load(c.character, Settings{ClipFiles: []string{c.file}, Retarget: c.retarget})
		var ge *gltf.Error
		if !errors.As(err, &ge) || ge.Rule != gltf.RuleClipFit || ge.File != c.file || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s on %s: got %v, want a %s error saying %q", c.file, c.character, err, gltf.RuleClipFit, c.says)
		}
	}
	noAnim := rewriteGLB(t, mixamo(t, "walking.glb"), t.TempDir(), func(js string) string {
		return strings.Replace(js, `"animations"`, `"unused_animations"`, 1)
	})
	_, err := Load(ybot, Settings{ClipFiles: []string{noAnim}})
	var ge *gltf.Error
	if !errors.As(err, &ge) || ge.Rule != gltf.RuleClipFile || ge.File != noAnim {
		t.Errorf("a file without animations: got %v, want a %s error", err, gltf.RuleClipFile)
	}
}

// TestManifestClipFiles: a manifest's clip_files are read from its own folder
// and its clips may take them as sources.
func TestManifestClipFiles(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(mixamo(t, "walking.glb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "anims"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "anims", "walking.glb"), string(b))
	path := filepath.Join(dir, "hero.yaml")
	writeFile(t, path, "clip_files: [anims/walking.glb]\nclips:\n  - name: walk\n    source: walking\n    fps: 24\n")
	mf, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(mixamo(t, "ybot.glb"), Settings{Manifest: mf})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Job.Clips) != 1 || m.Job.Clips[0].Name != "walk" || m.Job.Clips[0].FPS != 24 || m.Job.Motions[m.Job.Clips[0].Motion].Name != "walking" {
		t.Fatalf("clips %+v, want walk from walking at 24 fps", m.Job.Clips)
	}
}

// TestClipFilesOffsets: the offset a clip file gives a joint is its
// translation channel's where that holds still (not the node's rest, which
// an exporter may leave elsewhere), and a joint whose translation moves (a
// pelvis under a root at the floor) is not compared, as a root is not; under
// --retarget it keeps its motion. walking.glb is changed in memory: its Spine's
// rest moved 5 cm, then its translation made to rise 10 cm over the clip.
func TestClipFilesOffsets(t *testing.T) {
	m, err := gltf.Load(mixamo(t, "ybot.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cf, err := gltf.LoadClips(mixamo(t, "walking.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spine := slices.IndexFunc(cf.Nodes, func(n gltf.ClipNode) bool { return n.Name == "mixamorig:Spine" })
	ti := slices.IndexFunc(cf.Animations[0].Tracks, func(tr anim.Track) bool { return tr.Bone == spine && tr.Path == anim.Translation })
	if spine < 0 || ti < 0 || cf.Animations[0].Tracks[ti].Interpolation != anim.Linear {
		t.Fatal("walking.glb has no linear translation channel on mixamorig:Spine")
	}
	cf.Nodes[spine].Rest.Translation[1] += 5 // the armature scales by 0.01: 5 cm
	if _, err := bindClipFile(m, cf, false); err != nil {
		t.Fatalf("a rest off by 5 cm under a channel that holds the right offset: %v", err)
	}
	tr := &cf.Animations[0].Tracks[ti]
	tr.Values = slices.Clone(tr.Values)
	keys := len(tr.Times)
	for k := range keys {
		tr.Values[3*k+1] += float32(10 * k / max(1, keys-1))
	}
	for _, retarget := range []bool{false, true} {
		b, err := bindClipFile(m, cf, retarget)
		if err != nil {
			t.Fatalf("retarget %v: a moving spine: %v", retarget, err)
		}
		bone := m.Skeleton.Index("mixamorig:Spine")
		k := slices.IndexFunc(b.clips[0].Tracks, func(tr anim.Track) bool { return tr.Bone == bone && tr.Path == anim.Translation })
		if k < 0 {
			t.Fatalf("retarget %v: the spine's moving translation was dropped", retarget)
		}
		got := b.clips[0].Tracks[k].Values
		for i := range got {
			// ybot's legs and walking.glb's agree to far below 1e-4.
			if math.Abs(float64(got[i])-float64(tr.Values[i])) > 1e-4*max(1, math.Abs(float64(tr.Values[i]))) {
				t.Fatalf("retarget %v: value %d is %v, want the file's %v", retarget, i, got[i], tr.Values[i])
			}
		}
	}
}

// TestClipFilesOtherUnits: walking.glb with its armature unscaled is the same
// walk in centimetres, a body 100 m tall by glTF's metres. Taken as it is it
// would stretch ybot a hundredfold: refused, saying the bones are 100× the
// character's. --retarget scales its travel by the ratio of leg lengths, 0.01,
// and so bakes the walk of the file in metres.
func TestClipFilesOtherUnits(t *testing.T) {
	walking, ybot := mixamo(t, "walking.glb"), mixamo(t, "ybot.glb")
	cm := rewriteGLB(t, walking, t.TempDir(), func(js string) string {
		return strings.Replace(js, `"scale":[0.009999999776482582,0.009999999776482582,0.009999999776482582]}],"animations"`, `"scale":[1,1,1]}],"animations"`, 1)
	})
	_, err := Load(ybot, Settings{ClipFiles: []string{cm}})
	if err == nil || !strings.Contains(err.Error(), "100× the character's") {
		t.Fatalf("walking.glb in centimetres: %v, want a refusal saying its bones are 100× the character's", err)
	}
	plain, err := Load(ybot, Settings{ClipFiles: []string{walking}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(ybot, Settings{ClipFiles: []string{cm}, Retarget: true})
	if err != nil {
		t.Fatal(err)
	}
	a, b := bakeAll(t, plain.Job), bakeAll(t, m.Job)
	for f := range a[1] {
		for j := range a[1][f] {
			for k := range 16 {
				if math.Abs(a[1][f][j][k]-b[1][f][j][k]) > 1e-4 {
					t.Fatalf("frame %d joint %s element %d: %v retargeted from centimetres, %v from metres", f, m.GLTF.JointNames[j], k, b[1][f][j][k], a[1][f][j][k])
				}
			}
		}
	}
}

// TestClipFilesMorphOnly: an animation of a clip file that animates only
// morph target weights is said to bake as a still pose, not left silent.
func TestClipFilesMorphOnly(t *testing.T) {
	morph := rewriteGLB(t, mixamo(t, "walking.glb"), t.TempDir(), func(js string) string {
		for _, p := range []string{"translation", "rotation", "scale"} {
			js = strings.ReplaceAll(js, `"path":"`+p+`"`, `"path":"weights"`)
		}
		return js
	})
	m, err := Load(mixamo(t, "ybot.glb"), Settings{ClipFiles: []string{morph}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(m.Notes, "\n"); !strings.Contains(n, `animation "walking" animates only morph target weights`) || !strings.Contains(n, "still pose") {
		t.Errorf("notes %q do not say walking bakes as a still pose", m.Notes)
	}
}

// TestClipFilesLocalUnits: walking.glb made metres below an unscaled
// armature (its Armature's 0.01 scale taken into every offset and
// translation key) is the same walk in the scene, and binds to the same
// tracks as the file itself: the joints' translation channels are taken into
// the character's units (ybot's armature still scales by 0.01).
func TestClipFilesLocalUnits(t *testing.T) {
	m, err := gltf.Load(mixamo(t, "ybot.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	load := func() *gltf.ClipFile {
		cf, err := gltf.LoadClips(mixamo(t, "walking.glb"), gltf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return cf
	}
	plain, metres := load(), load()
	arm := slices.IndexFunc(metres.Nodes, func(n gltf.ClipNode) bool { return n.Name == "Armature" })
	s := metres.Nodes[arm].Rest.Scale[0]
	metres.Nodes[arm].Rest.Scale = [3]float64{1, 1, 1}
	for n := range metres.Nodes {
		if n != arm {
			metres.Nodes[n].Rest.Translation = metres.Nodes[n].Rest.Translation.Scale(s)
		}
	}
	for i := range metres.Animations[0].Tracks {
		if tr := &metres.Animations[0].Tracks[i]; tr.Path == anim.Translation {
			tr.Values = scaled(tr.Values, s)
		}
	}
	a, err := bindClipFile(m, plain, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bindClipFile(m, metres, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, ta := range a.clips[0].Tracks {
		tb := b.clips[0].Tracks[i]
		for k := range ta.Values {
			if d := math.Abs(float64(ta.Values[k] - tb.Values[k])); d > 1e-4*max(1, math.Abs(float64(ta.Values[k]))) {
				t.Fatalf("%s path %d value %d: %v from metres, %v from the file", m.Skeleton.Names[ta.Bone], ta.Path, k, tb.Values[k], ta.Values[k])
			}
		}
	}
}

// TestClipFileRefusalNamesItsFormat: a BVH or FBX clip file of another
// skeleton is refused as what it is, counting the nodes that could bind: a
// BVH file's unnamed space node is not one of them (a_biped_walk.bvh has 18
// joints, as its hierarchy lists).
func TestClipFileRefusalNamesItsFormat(t *testing.T) {
	biped := testfiles.Path(t, "bvh", "a_biped_walk.bvh")
	samba := testfiles.Path(t, "fbx", "Samba_Dancing.fbx")
	for _, c := range []struct{ file, prefix, says string }{
		{biped, "bvh: ", "none of its 18 named nodes"},
		{samba, "fbx: ", "none of its"},
	} {
		_, err := Load(sharedModel(t, "Fox.glb"), Settings{ClipFiles: []string{c.file}})
		var ge *gltf.Error
		if !errors.As(err, &ge) || ge.Rule != gltf.RuleClipFit || !strings.HasPrefix(err.Error(), c.prefix) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s on Fox.glb: got %v, want a %s error starting %q and saying %q", c.file, err, gltf.RuleClipFit, c.prefix, c.says)
		}
	}
}
