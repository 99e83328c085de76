package mot

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/bake"
	"github.com/bonebake/bonebake/formats/mot"
	"github.com/bonebake/bonebake/internal/testfiles"
	"github.com/bonebake/bonebake/rig"
)

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// A two-bone skeleton ("bone0" at the origin, "bone1" its child one unit along x)
// and a two-frame one-shot motion: bone 0 turns about y from 0 to π/2 (track 4,
// per-frame floats), bone 1 moves to x = 2 (track 0) and scales x by 3 (track 7).
// The palettes are worked out by hand below.
func TestBakeMotOntoSkeletonByHand(t *testing.T) {
	id := rig.IdentityTransform()
	child := id
	child.Translation = rig.Vec3{1, 0, 0}
	sk, err := rig.New([]string{"bone0", "bone1"}, []int{-1, 0}, []rig.Transform{id, child})
	if err != nil {
		t.Fatal(err)
	}
	half := float32(math.Pi / 2)
	m := &mot.Motion{Family: mot.Bayo2, Order: binary.LittleEndian, Frames: 2, Name: "turn", Records: []mot.Record{
		{Bone: 0, Track: 4, Type: 1, Count: 2, Data: f32s(0, half)},
		{Bone: 1, Track: 0, Type: 0, Value: 2},
		{Bone: 1, Track: 7, Type: 0, Value: 3},
		{Bone: 0x7000, Track: 14, Type: 0, Value: 5}, // a camera: ignored
	}}
	job, err := Job(bake.Rig{Skeleton: sk}, []*mot.Motion{m}, []string{"turn"}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := bake.Bake(job)
	if err != nil {
		t.Fatal(err)
	}
	// A motion carries no combat markers: none set, so the file is v1.
	if len(out.Clips) != 1 || out.Clips[0].Name != "turn" || out.Clips[0].FrameCount != 2 || out.Clips[0].Loops || out.Clips[0].Markers.Any() {
		t.Fatalf("clips %+v", out.Clips)
	}
	c, s := math.Cos(float64(half)), math.Sin(float64(half))
	want := [][]float64{
		// frame 0: bone 0 identity; bone 1 = T(2,0,0)·S(3,1,1) (its rest y, z = 0).
		{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
			3, 0, 0, 2, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
		// frame 1: bone 0 = Ry(π/2) = [c 0 s; 0 1 0; −s 0 c]; bone 1 = Ry·T(2,0,0)·S(3,1,1).
		{c, 0, s, 0, 0, 1, 0, 0, -s, 0, c, 0, 0, 0, 0, 1,
			3 * c, 0, s, 2 * c, 0, 1, 0, 0, -3 * s, 0, c, -2 * s, 0, 0, 0, 1},
	}
	for f, w := range want {
		got := out.Palettes[0][f*32 : f*32+32]
		for i := range w {
			if math.Abs(float64(got[i])-w[i]) > 1e-6 {
				t.Fatalf("frame %d float %d: %v, want %v (palette %v)", f, i, got[i], w[i], got)
			}
		}
	}
}

// xyz applies X first: (0,1,0) turned a quarter about x is (0,0,1), which z keeps;
// zyx applies Z first: (0,1,0) becomes (−1,0,0), which x keeps.
func TestEulerOrder(t *testing.T) {
	q := math.Pi / 2
	for _, c := range []struct {
		order string
		want  rig.Vec3
	}{{"xyz", rig.Vec3{0, 0, 1}}, {"zyx", rig.Vec3{-1, 0, 0}}} {
		got := EulerQuat(c.order, q, 0, q).Rotate(rig.Vec3{0, 1, 0})
		for i := range 3 {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", c.order, got, c.want)
			}
		}
	}
}

func TestMotionIDsFromNames(t *testing.T) {
	id := rig.IdentityTransform()
	sk, _ := rig.New([]string{"Armature", "pl0010_12", "7", "hand"}, []int{-1, 0, 1, 2}, []rig.Transform{id, id, id, id})
	ids, err := motionIDs(bake.Rig{Skeleton: sk, Bones: []int{1, 2, 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[1] != 12 || ids[2] != 7 {
		t.Fatalf("ids %v", ids)
	}
	ids, _ = motionIDs(bake.Rig{Skeleton: sk, Bones: []int{1, 2, 3}}, map[string]int{"hand": 3, "Armature": -1})
	if ids[3] != 3 || ids[0] != -1 || len(ids) != 2 {
		t.Fatalf("mapped ids %v", ids)
	}
	if _, err := motionIDs(bake.Rig{Skeleton: sk}, map[string]int{"nope": 1}); err == nil {
		t.Error("a map naming a missing bone was accepted")
	}
}

// A looping motion of N frames lasts N/60 s (its last frame runs back into its
// first) and bakes N frames at 60 fps; a one-shot lasts (N−1)/60 s and bakes N.
// Getting the looping duration wrong adds or drops a frame here.
func TestMotDurations(t *testing.T) {
	sk, err := rig.New([]string{"bone0"}, []int{-1}, []rig.Transform{rig.IdentityTransform()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags  uint16
		frames int
	}{{0, 96}, {mot.FlagLoop, 96}, {0, 2}, {mot.FlagLoop, 7}} {
		m := &mot.Motion{Family: mot.Bayo2, Order: binary.LittleEndian, Frames: c.frames, Flags: c.flags,
			Records: []mot.Record{{Bone: 0, Track: 0, Type: 0, Value: 1}}}
		job, err := Job(bake.Rig{Skeleton: sk}, []*mot.Motion{m}, []string{"m"}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := bake.Bake(job)
		if err != nil {
			t.Fatal(err)
		}
		loops := c.flags&mot.FlagLoop != 0
		want := float64(c.frames-1) / 60
		if loops {
			want = float64(c.frames) / 60
		}
		if got := job.Motions[0].Duration; math.Abs(got-want) > 1e-12 || out.Clips[0].FrameCount != c.frames || out.Clips[0].Loops != loops || out.Clips[0].FPS != 60 {
			t.Errorf("%d frames, loops %v: duration %v (want %v), baked %+v", c.frames, loops, got, want, out.Clips[0])
		}
	}
}

// TestJobFPS: the bake rate is the motions' own (60) unless asked, and a rate
// the engine would refuse is a setting error naming fps, before anything is
// evaluated.
func TestJobFPS(t *testing.T) {
	sk, err := rig.New([]string{"bone0"}, []int{-1}, []rig.Transform{rig.IdentityTransform()})
	if err != nil {
		t.Fatal(err)
	}
	m := &mot.Motion{Family: mot.Bayo2, Order: binary.LittleEndian, Frames: 4, Records: []mot.Record{{Bone: 0, Track: 0, Type: 0, Value: 1}}}
	for _, c := range []struct{ fps, want float64 }{{0, 60}, {24, 24}} {
		job, err := Job(bake.Rig{Skeleton: sk}, []*mot.Motion{m}, []string{"m"}, Settings{FPS: c.fps})
		if err != nil || job.Clips[0].FPS != c.want {
			t.Fatalf("FPS %v: %v, %v", c.fps, job, err)
		}
	}
	for _, fps := range []float64{-1, 1e7, math.NaN()} {
		_, err := Job(bake.Rig{Skeleton: sk}, []*mot.Motion{m}, []string{"m"}, Settings{FPS: fps})
		var se *bake.SettingError
		if !errors.As(err, &se) || se.Setting != "FPS" || !strings.Contains(err.Error(), "is outside") {
			t.Errorf("FPS %v: %v", fps, err)
		}
	}
}

// TestFit: a motion whose bones the skeleton mostly lacks is refused with the
// counts and the ids it misses (issue 41: a Bayonetta motion on Fox took 22 of
// its 91 bones by the numbers ending Fox's joint names and baked a ball);
// NoLimits (--force) bakes it all the same, but never one that finds none.
func TestFit(t *testing.T) {
	id := rig.IdentityTransform()
	sk, err := rig.New([]string{"root", "bone1", "bone2"}, []int{-1, 0, 1}, []rig.Transform{id, id, id})
	if err != nil {
		t.Fatal(err)
	}
	motion := func(bones ...int16) *mot.Motion {
		m := &mot.Motion{Family: mot.Bayo2, Order: binary.LittleEndian, Frames: 2}
		for _, b := range bones {
			m.Records = append(m.Records, mot.Record{Bone: b, Track: 3, Type: 0, Value: 0.5})
		}
		// A camera and a track that is no bone transform count for nothing.
		m.Records = append(m.Records, mot.Record{Bone: 0x7000, Track: 3}, mot.Record{Bone: 9, Track: 6})
		return m
	}
	r := bake.Rig{Skeleton: sk}
	// "root" is bone −1 (§13), bone1 and bone2 ids 1 and 2.
	for _, c := range []struct {
		bones   []int16
		matched int
		ok      bool // bakes without NoLimits
		forced  bool // bakes with it
	}{
		{[]int16{-1, 1, 2}, 3, true, true},
		{[]int16{-1, 1, 7, 8}, 2, true, true}, // half: enough
		{[]int16{1, 7, 8, 9}, 1, false, true},
		{[]int16{7, 8}, 0, false, false},
	} {
		m := motion(c.bones...)
		fits, err := Fits(r, []*mot.Motion{m}, []string{"m"}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if f := fits[0]; f.Bones != len(c.bones) || f.Matched != c.matched || len(f.Missing) != len(c.bones)-c.matched {
			t.Errorf("bones %v: fit %+v, want %d of %d", c.bones, f, c.matched, len(c.bones))
		}
		for _, force := range []bool{false, true} {
			_, err := Job(r, []*mot.Motion{m}, []string{"m"}, Settings{NoLimits: force})
			var fe *FitError
			want := c.ok || force && c.forced
			switch {
			case want && err != nil:
				t.Errorf("bones %v force %v: %v", c.bones, force, err)
			case !want && (!errors.As(err, &fe) || !strings.Contains(err.Error(), RuleBoneFit)):
				t.Errorf("bones %v force %v: got %v, want a %s error", c.bones, force, err, RuleBoneFit)
			case !want && c.matched > 0 && !strings.Contains(err.Error(), "missing bone ids 7, 8"):
				t.Errorf("bones %v: %v does not list the missing ids", c.bones, err)
			}
		}
	}
}

// TestRigOverBoneLimit: motions baked onto a rig of more joints than a BPAT
// file holds (Xbot: 67) go through the joint reduction a glTF model's own bake
// does, with its notes, instead of stopping at the bone count.
func TestRigOverBoneLimit(t *testing.T) {
	path := testfiles.Path(t, "gltf", "threejs/Xbot.glb")
	m := &mot.Motion{Family: mot.Bayo2, Order: binary.LittleEndian, Frames: 3, Name: "nod", Records: []mot.Record{
		{Bone: 0, Track: 3, Type: 1, Count: 3, Data: f32s(0, 0.3, 0)},
		{Bone: 1, Track: 4, Type: 0, Value: 0.2},
	}}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	motPath := filepath.Join(t.TempDir(), "nod.mot")
	if err := os.WriteFile(motPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	model, err := Load(path, []string{motPath}, Settings{BoneMap: map[string]int{"mixamorig:Hips": 0, "mixamorig:Spine": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(model.Job.Rig.PaletteBones()); n != 52 || model.Reduction == nil || len(model.Reduction.Dropped) != 15 {
		t.Fatalf("%d bones, reduction %+v: want the 15 unweighted joints dropped, 52 left", n, model.Reduction)
	}
	if !strings.Contains(strings.Join(model.Notes, "\n"), "dropped 15 joints") {
		t.Errorf("notes %q do not say what was dropped", model.Notes)
	}
	if _, err := bake.Bytes(model.Job); err != nil {
		t.Fatal(err)
	}
}

// TestFitErrorHintsByHowIDsCame: a motion that fits too few bones through the
// bone map the user gave is not told to "give a" bone map, which it did, but to
// map more of its bones in it; one whose ids came from joint names still is.
func TestFitErrorHintsByHowIDsCame(t *testing.T) {
	byMap := (&FitError{Fit: Fit{Motion: "m", Bones: 4, Matched: 1, ByMap: true}}).Error()
	if strings.Contains(byMap, "give a Settings.BoneMap") || !strings.Contains(byMap, "map more of its bones in the Settings.BoneMap given") {
		t.Errorf("by the bone map: %s", byMap)
	}
	byName := (&FitError{Fit: Fit{Motion: "m", Bones: 4, Matched: 1}}).Error()
	if !strings.Contains(byName, "give a Settings.BoneMap") {
		t.Errorf("by joint names: %s", byName)
	}
}
