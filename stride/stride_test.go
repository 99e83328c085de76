package stride

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// walker is a synthetic biped written for these tests from first principles, not
// from bonebake's creatures: each foot is planted for stance of the cycle and
// slides back at speed metres per second of the clip (in model space when the
// clip is in place), then swings forward along a smooth arc. With root motion the
// root (or, when onHips, the pelvis) travels forward at that speed instead, so
// planted feet stand still in the world.
type walker struct {
	speed, dur   float64 // m/s and the clip's duration (one pass)
	stance       float64 // fraction of the cycle a foot is planted
	rootMotion   bool
	onHips       bool       // root motion on the pelvis, not the root
	dir          [2]float64 // travel direction (x, z); zero: +z
	rightSpeed   float64    // when > 0: the right foot slides at this speed instead
	scale        float64    // body units per metre (100: centimetres)
	rootRot      rig.Quat   // the root's rest rotation (a Mixamo armature's turn)
	rootScale    float64    // the root's rest scale (a Mixamo armature's 0.01)
	still, lunge bool       // feet never move; the pelvis lunges forward and stays
}

// Bones: 0 Root, 1 Pelvis, 2 Spine, 3 Head, 4 ThighL, 5 FootL, 6 ThighR, 7 FootR.
var walkerNames = []string{"Root", "Pelvis", "Spine", "Head", "ThighL", "FootL", "ThighR", "FootR"}

func (w *walker) skeleton(t testing.TB, names []string) *rig.Skeleton {
	if names == nil {
		names = walkerNames
	}
	parents := []int{-1, 0, 1, 2, 1, 4, 1, 6}
	rest := make([]rig.Transform, len(names))
	for i := range rest {
		rest[i] = rig.IdentityTransform()
	}
	rs := w.rootScaleOr1()
	rest[0].Rotation = w.rootRotOrI()
	rest[0].Scale = rig.Vec3{rs, rs, rs}
	sk, err := rig.New(names, parents, rest)
	if err != nil {
		t.Fatal(err)
	}
	// Put the rest pose where sample 0 puts it (feet low, head high).
	w.Sample(0, sk.Rest)
	return sk
}

func (w *walker) rootScaleOr1() float64 {
	if w.rootScale == 0 {
		return 1
	}
	return w.rootScale
}

func (w *walker) rootRotOrI() rig.Quat {
	if w.rootRot == (rig.Quat{}) {
		return rig.IdentityQuat()
	}
	return w.rootRot
}

func (w *walker) unit() float64 {
	if w.scale == 0 {
		return 1
	}
	return w.scale
}

// footPos is a foot's model-space position relative to the point under the
// pelvis (in metres), at its own phase q, sliding at speed v.
func (w *walker) footPos(q, v float64) (fwd, up float64) {
	S := v * w.dur // stride per pass
	q -= math.Floor(q)
	if w.still {
		return 0, 0.08
	}
	if q < w.stance {
		return S*w.stance/2 - S*q, 0.08 // planted, sliding back at v
	}
	u := (q - w.stance) / (1 - w.stance)
	e := u * u * (3 - 2*u)
	return -S*w.stance/2 + S*w.stance*e, 0.08 + 0.12*math.Sin(math.Pi*u)
}

func (w *walker) Sample(t float64, pose []rig.Transform) {
	k := w.unit()
	p := t / w.dur
	dx, dz := w.dir[0], w.dir[1]
	if dx == 0 && dz == 0 {
		dz = 1
	}
	ground := 0.0 // distance the body has travelled
	if w.rootMotion {
		ground = w.speed * t
	}
	if w.lunge {
		ground = 0.4 * math.Min(1, 3*t/w.dur)
	}
	at := func(fwd, side, up float64) rig.Vec3 { // model space, body units
		return rig.Vec3{(fwd*dx + side*dz) * k, up * k, (fwd*dz - side*dx) * k}
	}
	// Desired model-space positions.
	var model [8]rig.Vec3
	rootTravel := ground
	if w.onHips {
		rootTravel = 0
	}
	model[0] = at(rootTravel, 0, 0)
	pelvis := at(ground, 0.02*math.Sin(2*math.Pi*p), 1.0+0.02*math.Cos(4*math.Pi*p))
	if w.lunge {
		pelvis = at(ground, 0, 1.0)
	}
	model[1] = pelvis
	model[2] = pelvis.Add(at(0, 0, 0.3))
	model[3] = pelvis.Add(at(0, 0, 0.7))
	vr := w.speed
	if w.rightSpeed > 0 {
		vr = w.rightSpeed
	}
	for s, side := range []float64{0.1, -0.1} {
		v, q := w.speed, p
		if s == 1 {
			v, q = vr, p+0.5
		}
		f, u := w.footPos(q, v)
		model[4+2*s] = pelvis.Add(at(0, side, -0.5))
		model[5+2*s] = at(ground+f, side, u)
	}
	// Turn them into local translations (every rotation but the root's is the
	// identity, so a child's local translation is its parent's inverse applied).
	root := rig.Transform{Translation: model[0], Rotation: w.rootRotOrI(), Scale: rig.Vec3{w.rootScaleOr1(), w.rootScaleOr1(), w.rootScaleOr1()}}
	pose[0] = root
	rootInv, _ := root.Matrix().Inverse()
	parents := []int{-1, 0, 1, 2, 1, 4, 1, 6}
	for b := 1; b < 8; b++ {
		rel := model[b].Sub(model[parents[b]])
		pose[b] = rig.IdentityTransform()
		pose[b].Translation = rootInv.TransformVector(rel)
	}
}

func measure(t *testing.T, w *walker, cycle float64, loops bool, o Options) (*Rig, Result) {
	t.Helper()
	sk := w.skeleton(t, nil)
	r, err := NewRig(sk, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	return r, r.Measure(w, 0, w.dur, cycle, loops)
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s = %.4f, want %.4f within %.0f%%", what, got, want, 100*tol)
	}
}

func TestInPlaceWalk(t *testing.T) {
	r, res := measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6}, 0, true, Options{})
	if got := strings.Join(r.FootNames(), ","); got != "FootL,FootR" || r.FeetFrom != "name" {
		t.Errorf("feet %s from %s, want FootL,FootR by name", got, r.FeetFrom)
	}
	if r.Skeleton.Names[r.Root] != "Pelvis" {
		t.Errorf("root %s, want Pelvis (the feet's common ancestor)", r.Skeleton.Names[r.Root])
	}
	if res.Status != StatusMeasured || res.Method != MethodFeet {
		t.Fatalf("%+v: want measured from the feet", res)
	}
	within(t, "speed", res.Speed, 1.4, 0.02)
	within(t, "stride", res.Stride, 1.4, 0.02)
	if res.Confidence < 0.95 || res.Carrier != -1 {
		t.Errorf("confidence %.3f carrier %d: want ≥ 0.95 and no carrier", res.Confidence, res.Carrier)
	}
}

func TestRootMotionWalk(t *testing.T) {
	for _, w := range []*walker{
		{speed: 1.4, dur: 1, stance: 0.6, rootMotion: true},
		{speed: 1.4, dur: 0.8, stance: 0.65, rootMotion: true, dir: [2]float64{0.6, 0.8}},
		{speed: 1.4, dur: 1, stance: 0.6, rootMotion: true, onHips: true},
		// A Mixamo-style armature: turned, scaled 0.01, the pelvis in centimetres.
		{speed: 1.4, dur: 1, stance: 0.6, rootMotion: true, onHips: true, rootScale: 0.01, rootRot: rig.QuatFromAxisAngle(rig.Vec3{0, 1, 0}, 1)},
	} {
		r, res := measure(t, w, 0, true, Options{})
		if res.Status != StatusMeasured || res.Method != MethodRootMotion {
			t.Fatalf("%+v: %+v: want measured from root motion", w, res)
		}
		within(t, "speed", res.Speed, 1.4, 0.02)
		within(t, "feet cross-check", res.FeetSpeed, 1.4, 0.02)
		want := "Root"
		if w.onHips {
			want = "Pelvis"
		}
		if got := r.Skeleton.Names[res.Carrier]; got != want {
			t.Errorf("carrier %s, want %s", got, want)
		}
		// In place: the travel goes, the speed stays (now read from the feet).
		ip := r.RemoveTravel(w, res, 0)
		again := r.Measure(ip, 0, w.dur, 0, true)
		if again.Status != StatusMeasured || again.Method != MethodFeet {
			t.Fatalf("in place: %+v: want measured from the feet", again)
		}
		within(t, "in-place speed", again.Speed, 1.4, 0.02)
		pose := r.Skeleton.RestPose()
		g := make([]rig.Mat4, r.Skeleton.Len())
		ip.Sample(w.dur, pose)
		r.Skeleton.ModelSpace(pose, g)
		end := g[1].Translation()
		ip.Sample(0, pose)
		r.Skeleton.ModelSpace(pose, g)
		if d := end.Sub(g[1].Translation()); math.Hypot(d[0], d[2]) > 1e-9 {
			t.Errorf("in place: the pelvis still travels %v over a pass", d)
		}
	}
}

// TestDirection: a walk along any direction is measured to travel along it,
// from its root's travel or from its planted feet (the way they move back,
// reversed); a clip that does not travel has none.
func TestDirection(t *testing.T) {
	for _, d := range [][2]float64{{0, 1}, {0, -1}, {1, 0}, {-0.6, 0.8}} {
		for _, rm := range []bool{false, true} {
			_, res := measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6, rootMotion: rm, dir: d}, 0, true, Options{})
			got := res.Direction
			if res.Status != StatusMeasured || math.Abs(got[0]-d[0]) > 0.01 || got[1] != 0 || math.Abs(got[2]-d[1]) > 0.01 {
				t.Errorf("walk along %v (root motion %v): %s, direction %v", d, rm, res.Status, got)
			}
		}
	}
	if _, res := measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6, still: true}, 0, true, Options{}); res.Direction != (rig.Vec3{}) {
		t.Errorf("feet standing still: %s, direction %v, want none", res.Status, res.Direction)
	}
}

func TestCycleAndUnits(t *testing.T) {
	// A 1 s clip the game plays in 0.92 s: the stride is the same, the speed is
	// stride / cycle.
	_, res := measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6}, 0.92, true, Options{})
	within(t, "speed at cycle .92", res.Speed, 1.4/0.92, 0.02)
	within(t, "stride", res.Stride, 1.4, 0.02)
	// The same walk in centimetres measures in centimetres.
	_, res = measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6, scale: 100}, 0, true, Options{})
	within(t, "speed in cm", res.Speed, 140, 0.02)
}

func TestNoTravel(t *testing.T) {
	for name, w := range map[string]*walker{
		"idle":  {speed: 1.4, dur: 2, stance: 0.6, still: true},
		"lunge": {speed: 1.4, dur: 1, stance: 0.6, still: true, lunge: true},
	} {
		for _, loops := range []bool{true, false} {
			_, res := measure(t, w, 0, loops, Options{})
			if res.Status != StatusNoTravel || res.Speed != 0 || res.Reason == "" || res.Carrier != -1 {
				t.Errorf("%s (loops %v): %+v: want no travel, a reason and no speed", name, loops, res)
			}
		}
	}
}

func TestUntrusted(t *testing.T) {
	// The right foot slides at half the left's speed: no speed fits both.
	_, res := measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6, rightSpeed: 0.7}, 0, true, Options{})
	if res.Status != StatusUntrusted || res.Speed != 0 || !strings.Contains(res.Reason, "Foot") {
		t.Errorf("%+v: want untrusted, naming a foot, with no speed", res)
	}
	if res.Confidence >= Trusted {
		t.Errorf("confidence %.3f, want below %v", res.Confidence, Trusted)
	}
	// Root motion whose feet skate along with the root: planted, they do not
	// move relative to it.
	w := &walker{speed: 1.4, dur: 1, stance: 0.6, rootMotion: true, still: true}
	if _, res = measure(t, w, 0, true, Options{}); res.Status != StatusUntrusted || !strings.Contains(res.Reason, "feet") {
		t.Errorf("skating: %+v: want untrusted for the feet", res)
	}
	// Root motion whose feet slide in the world: the cross-check fails.
	_, res = measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6, rootMotion: true, rightSpeed: 3, dir: [2]float64{1, 0}}, 0, true, Options{})
	if res.Status != StatusUntrusted {
		t.Errorf("%+v: want untrusted", res)
	}
}

func TestFeetByHierarchyAndByName(t *testing.T) {
	w := &walker{speed: 1.4, dur: 1, stance: 0.6}
	// Names that say nothing: the low leaves are the feet.
	sk := w.skeleton(t, []string{"a", "b", "c", "d", "e", "f", "g", "h"})
	r, err := NewRig(sk, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.FootNames(), ","); got != "f,h" || r.FeetFrom != "hierarchy" {
		t.Errorf("feet %s from %s, want f,h by hierarchy", got, r.FeetFrom)
	}
	within(t, "speed", r.Measure(w, 0, 1, 0, true).Speed, 1.4, 0.02)
	// Named ones, and a name that is not a bone.
	r, err = NewRig(sk, nil, Options{Feet: []string{"h"}})
	if err != nil || r.FeetFrom != "given" || len(r.Feet) != 1 {
		t.Fatalf("%v %+v", err, r)
	}
	within(t, "speed from one foot", r.Measure(w, 0, 1, 0, true).Speed, 1.4, 0.02)
	if _, err := NewRig(sk, nil, Options{Feet: []string{"FootL"}}); err == nil || !strings.Contains(err.Error(), `"FootL"`) {
		t.Errorf("unknown foot: %v", err)
	}
	if _, err := NewRig(sk, nil, Options{RootBone: "nope"}); err == nil {
		t.Error("unknown root bone accepted")
	}
	// The palette decides what counts: without the feet's bones no leaf is low
	// enough, and the measurement says to name the feet.
	r, err = NewRig(sk, []int{0, 1, 2, 3, 4, 6}, Options{})
	if err != nil || len(r.Feet) != 0 {
		t.Fatalf("%v %v: want no feet", err, r.FootNames())
	}
	// The reason is written into the gait sidecar, read by people who set the
	// feet with a manifest's feet or the command line: it names the setting so,
	// not by a Go name (Options.Feet).
	if res := r.Measure(w, 0, 1, 0, true); res.Status != StatusNoTravel || !strings.Contains(res.Reason, "the feet setting") || strings.Contains(res.Reason, "Options.") {
		t.Errorf("%+v: want no travel, pointing at the feet setting", res)
	}
}

// FootName says what the regular expression it stands for matches: on bone
// names from rigs of every kind, in every case, with the words inside longer
// names and broken across them, with Unicode folding (the KELVIN SIGN folds to
// k, the long s to s) and with bytes that are not UTF-8.
func TestFootName(t *testing.T) {
	re := regexp.MustCompile(`(?i)foot|feet|toe|hoof|paw|ankle|heel`)
	names := []string{"", "foot", "FOOT", "LeftFoot", "b_LeftFoot02_018", "mixamorig:RightToeBase", "toe_end", "Toes",
		"hoof_L", "HOOF", "paw.R", "PAW", "ankle", "AN\u212aLE", "an\u212ale_l", "Heel", "heelR", "feet", "FeEt",
		"fo ot", "fot", "foo", "to", "an", "ankl", "hee", "pa w", "shin", "thigh", "Hips", "root", "node6", "Spine1",
		"fo\xffot", "\xff", "f\u00f6ot", "foöt", "ﬀoot", "ſoot", "heeL\u0301", "toe\u0000", "\u212a", "Tоe" /* Cyrillic о */}
	for _, w := range []string{"foot", "feet", "toe", "hoof", "paw", "ankle", "heel"} {
		for k := range w {
			names = append(names, w[:k]+strings.ToUpper(w[k:k+1])+w[k+1:], "x"+w[:k], w[k:]+"y", "pre_"+w+"_post")
		}
	}
	for _, n := range names {
		if got, want := FootName(n), re.MatchString(n); got != want {
			t.Errorf("FootName(%q) = %v, the regexp says %v", n, got, want)
		}
	}
}

// TestConfidenceIsSlip: the confidence says how far the planted feet slip at
// the measured speed (docs/formats/gait.md §2): feet that stand still at
// speeds 15 % apart slip about 7 % each at any one speed, over the 5 % a
// trusted speed allows, so the speed given is the one between them at which
// they slide least, with a confidence under Trusted and a reason naming the
// foot and its slip; 4 % apart, they slip 2 % and the speed is trusted.
func TestConfidenceIsSlip(t *testing.T) {
	_, res := measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6, rightSpeed: 1.4 * 0.85}, 0, true, Options{})
	if res.Status != StatusMeasured || res.Speed < 1.4*0.85 || res.Speed > 1.4 || !strings.Contains(res.Reason, "Foot") || !strings.Contains(res.Reason, "%") {
		t.Errorf("15%% apart: %+v: want measured between the feet's speeds, the reason naming a foot and its slip", res)
	}
	if want := 1 - 0.075/SlipPerConfidence; math.Abs(res.Confidence-want) > 0.05 {
		t.Errorf("15%% apart: confidence %.3f, want about %.2f (a slip of 7.5%%)", res.Confidence, want)
	}
	// The same feet covering a fifth of a body height per pass (under
	// MinStride): feet shifting, not a stride, and no speed.
	_, res = measure(t, &walker{speed: 0.3, dur: 1, stance: 0.6, rightSpeed: 0.3 * 0.85}, 0, true, Options{})
	if res.Status != StatusUntrusted || res.Speed != 0 || !strings.Contains(res.Reason, "Foot") {
		t.Errorf("15%% apart, a short stride: %+v: want untrusted, naming a foot", res)
	}
	_, res = measure(t, &walker{speed: 1.4, dur: 1, stance: 0.6, rightSpeed: 1.4 * 0.96}, 0, true, Options{})
	if res.Status != StatusMeasured || res.Speed < 1.4*0.96 || res.Speed > 1.4 || res.Confidence < Trusted || res.Reason != "" {
		t.Errorf("4%% apart: %+v: want trusted between the feet's speeds, without a remark", res)
	}
}

// TestDensestSpeed: a foot that rolls off its toe, moving back twice as fast
// as the ground for the last quarter of each stance, still measures the
// ground's speed: the speed at which the feet stand longest.
func TestDensestSpeed(t *testing.T) {
	w := &rollWalker{walker{speed: 1.4, dur: 1, stance: 0.6}}
	sk := w.skeleton(t, nil)
	w.Sample(0, sk.Rest)
	r, err := NewRig(sk, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Measure(w, 0, 1, 0, true)
	if res.Status != StatusMeasured {
		t.Fatalf("%+v: want measured", res)
	}
	within(t, "speed", res.Speed, 1.4, 0.02)
}

// rollWalker is walker whose feet speed up to twice the ground's speed for the
// last quarter of each stance (the foot rolling off its toe), still low.
type rollWalker struct{ walker }

func (w *rollWalker) Sample(t float64, pose []rig.Transform) {
	w.walker.Sample(t, pose)
	for s, b := range []int{5, 7} {
		q := t/w.dur + 0.5*float64(s)
		q -= math.Floor(q)
		if on := q / w.stance; on > 0.75 && on < 1 {
			// 1.4 m/s more for the time past three quarters of the stance,
			// back along z (the walker travels +z), through the thigh's
			// frame, which is the identity.
			pose[b].Translation[2] -= w.speed * (on - 0.75) * w.stance * w.dur
		}
	}
}

// TestPose: a clip too short to hold a stride (a pose held for one frame, as
// Mixamo's and three.js's poses are) has no travel and says it is a pose,
// whatever its feet do in that instant.
func TestPose(t *testing.T) {
	for _, rootMotion := range []bool{false, true} {
		w := &walker{speed: 1.4, dur: 1.0 / 30, stance: 0.6, rootMotion: rootMotion}
		_, res := measure(t, w, 0, false, Options{})
		if res.Status != StatusNoTravel || res.Speed != 0 || !strings.Contains(res.Reason, "a pose") {
			t.Errorf("root motion %v: %+v: want no travel, saying it is a pose", rootMotion, res)
		}
	}
	// A tenth of a second is enough for a stride.
	_, res := measure(t, &walker{speed: 1.4, dur: MinDuration, stance: 0.6}, 0, true, Options{})
	if res.Status != StatusMeasured {
		t.Errorf("%v s: %+v: want measured", MinDuration, res)
	}
}

// TestMeasureReusesMemory: a bake measures clip after clip, and each page of
// fresh memory costs a fault (BENCHMARKS.md, issue 46), so a measurement
// keeps its samples and working slices from one clip to the next instead of
// allocating them per sample, per foot and per speed judged (before: 1,094
// allocations a measurement of this clip); and what it leaves behind
// does not leak into the next clip: measurements of clips of other lengths
// and other feet in between change nothing.
func TestMeasureReusesMemory(t *testing.T) {
	w := &walker{speed: 1.4, dur: 1, stance: 0.6}
	r, first := measure(t, w, 0, true, Options{})
	allocs := testing.AllocsPerRun(10, func() { r.Measure(w, 0, w.dur, 0, true) })
	if allocs > 30 {
		t.Errorf("%v allocations a measurement, want at most 30 (9 today)", allocs)
	}
	long := &walker{speed: 0.9, dur: 3, stance: 0.7, rightSpeed: 0.5}
	if _, res := measure(t, long, 0, false, Options{}); res == first {
		t.Fatalf("the longer clip measured as the first: %+v", res)
	}
	if again := r.Measure(w, 0, w.dur, 0, true); again != first {
		t.Errorf("after another clip: %+v, want %+v", again, first)
	}
}

// TestSamplesMeasure checks that a clip posed once (Rig.Samples) measures as
// Rig.Measure and Rig.MeasureAt measure it, posing it each time: the same
// Result, field for field, for walks in place and with root motion, looping
// or not, with and without a cycle, at the speed they slide least and at
// others, and a clip too short to pose.
func TestSamplesMeasure(t *testing.T) {
	for _, w := range []*walker{
		{speed: 1.4, dur: 1, stance: 0.6},
		{speed: 1.4, dur: 0.8, stance: 0.65, rootMotion: true, dir: [2]float64{0.6, 0.8}},
		{speed: 1.4, dur: 1, stance: 0.6, rightSpeed: 1.2},
		{speed: 1.4, dur: MinDuration / 2, stance: 0.6},
	} {
		r, err := NewRig(w.skeleton(t, nil), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		posed := r.Samples(w, 0, w.dur)
		for _, loops := range []bool{true, false} {
			for _, cycle := range []float64{0, w.dur / 2} {
				if got, want := posed.Measure(cycle, loops), r.Measure(w, 0, w.dur, cycle, loops); got != want {
					t.Errorf("%+v, cycle %v, loops %v: Samples.Measure = %+v, want %+v", w, cycle, loops, got, want)
				}
				for _, v := range []float64{0.7, 1.3, 1.4, 2} {
					if got, want := posed.MeasureAt(cycle, loops, v), r.MeasureAt(w, 0, w.dur, cycle, loops, v); got != want {
						t.Errorf("%+v, cycle %v, loops %v, at %v: Samples.MeasureAt = %+v, want %+v", w, cycle, loops, v, got, want)
					}
				}
			}
		}
	}
}

// skidWalker is walker whose feet skid as they land: for the first 15 % of
// each stance a foot slides back in the world at a tenth of the walking
// speed, and keeps that offset until it lifts (gone again by mid-swing).
// A whole stance so slips 1.5 % of the ground it covers; its touch-down
// alone, 10 %.
type skidWalker struct{ walker }

func (w *skidWalker) Sample(t float64, pose []rig.Transform) {
	w.walker.Sample(t, pose)
	for s, b := range []int{5, 7} {
		q := t/w.dur + 0.5*float64(s)
		q -= math.Floor(q)
		skid := 0.15 * w.stance * w.dur // seconds
		var back float64
		switch on := q * w.dur; {
		case q < w.stance:
			back = 0.1 * w.speed * math.Min(on, skid)
		default: // fades over the first half of the swing
			u := math.Min(1, 2*(q-w.stance)/(1-w.stance))
			back = 0.1 * w.speed * skid * (1 - u*u*(3-2*u))
		}
		// Back along z (the walker travels +z), through the thigh's frame,
		// which is the identity.
		pose[b].Translation[2] -= back
	}
}

// TestTakeCutMidStance: a motion-capture take travels and is cut where it
// was cut, not on a cycle: its last stance is only a touch-down. Judged as
// a stance, that skid (10 % of the little ground it covers) made the walk
// untrusted; measured as the one pass it is (not looping), a stance its
// ends cut is not judged where whole ones are: the whole stances' 1.5 %.
func TestTakeCutMidStance(t *testing.T) {
	w := &skidWalker{walker{speed: 1.4, dur: 1, stance: 0.6, rootMotion: true}}
	sk := w.skeleton(t, nil)
	r, err := NewRig(sk, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// From mid-swing of the left foot to just after it lands, 2.4 passes
	// later: its last stance is the touch-down alone.
	res := r.Measure(w, 0.7, 2.4, 0, false)
	if res.Status != StatusMeasured || res.Method != MethodRootMotion || res.Confidence < Trusted {
		t.Errorf("%s %s %.2f (%s): want measured from root motion, trusted", res.Status, res.Method, res.Confidence, res.Reason)
	}
	within(t, "speed", res.Speed, 1.4, 0.02)
	// Its seam: the left foot begins 0.25 into its swing (footPos: 0.289 m
	// behind the root, 0.165 m up) and ends 0.1 into its stance (0.28 m
	// ahead, 0.08 m up): 0.575 m apart, 0.33·H (H: the head at rest, 1.02 +
	// 0.7 above the root), far past Reopened. Looping, it measures low
	// (0.72, its last touch-down judged as a stance), where bake hints that
	// it is a take (gltfbake's gait line).
	if math.Abs(res.Seam-0.575/1.72) > 0.01 {
		t.Errorf("cut take: seam %.3g·H, want %.3g·H", res.Seam, 0.575/1.72)
	}
	if looped := r.Measure(w, 0.7, 2.4, 0, true); looped.Confidence >= Trusted || looped.Seam != res.Seam {
		t.Errorf("cut take, looping: confidence %.2f, seam %.3g·H: want under %.2f, seam %.3g·H", looped.Confidence, looped.Seam, Trusted, res.Seam)
	}
	// The foot crosses the seam at about 1.9 m/s against the root: the mean
	// of 1.4 back in its stance at the end and 2.4 forward a quarter into
	// its swing at the start (0.84 m swept at smoothstep's slope 1.125 over
	// 0.4 s): 0.3 s.
	if math.Abs(res.SeamTime-0.575/1.9) > 0.05 {
		t.Errorf("cut take: seam time %.3g s, want about 0.575/1.9 s", res.SeamTime)
	}
	// A run's cycle ended a frame short (1/30 s), as Blender's FBX exporter
	// ends one: a frame's motion past Reopened, whose time, a frame's, is
	// not a take's.
	run := &walker{speed: 8, dur: 0.7, stance: 0.4, rootMotion: true}
	rr, err := NewRig(run.skeleton(t, nil), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res := rr.Measure(run, 0, run.dur-1.0/30, 0, true); res.Seam <= Reopened || res.SeamTime < 0.5/30 || res.SeamTime > 1.5/30 {
		t.Errorf("run a frame short: seam %.3g·H in %.3g s: want over %.3g·H, in about 1/30 s", res.Seam, res.SeamTime, Reopened)
	}
	// A whole number of passes, looping, as before: trusted too, and it ends
	// as it began.
	if res := r.Measure(w, 0, 2, 0, true); res.Status != StatusMeasured || res.Confidence < Trusted || res.Seam > 0.01*Reopened {
		t.Errorf("two passes: %s %.2f (%s), seam %.3g·H: want trusted, closed", res.Status, res.Confidence, res.Reason, res.Seam)
	}
}
