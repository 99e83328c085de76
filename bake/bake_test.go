package bake

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/gltfref"
	"github.com/bonebake/bonebake/rig"
	"github.com/bonebake/bonebake/source/gltf"
)

func TestFrameCountAndTimes(t *testing.T) {
	cases := []struct {
		d, fps float64
		loops  bool
		n      int
		last   float64
	}{
		{1, 30, true, 30, 29.0 / 30},
		{1, 30, false, 31, 1},
		{0.71, 30, true, 21, 20 * 0.71 / 21}, // round(21.3) = 21
		{0.71, 30, false, 22, 0.71},
		{0.75, 2, true, 2, 0.375}, // round(1.5) = 2
		{0, 30, true, 1, 0},
		{0, 30, false, 2, 0},
		{0.01, 30, true, 1, 0}, // round(.3) = 0 → at least one frame
	}
	for _, c := range cases {
		n := FrameCount(c.d, c.fps, c.loops)
		if n != c.n {
			t.Errorf("FrameCount(%v, %v, %v) = %d, want %d", c.d, c.fps, c.loops, n, c.n)
			continue
		}
		if got := FrameTime(n-1, n, c.d, c.loops); math.Abs(got-c.last) > 1e-15 {
			t.Errorf("last time of (%v, %v, %v) = %v, want %v", c.d, c.fps, c.loops, got, c.last)
		}
		if FrameTime(0, n, c.d, c.loops) != 0 {
			t.Errorf("first frame not at 0")
		}
	}
}

func bakeFox(t testing.TB, workers int, fps float64) []byte {
	m, err := gltf.Load(sharedModel(t, "Fox.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, names, motions := FromGLTF(m)
	mf := Manifest{FPS: fps, Sockets: []ManifestSocket{{Name: "head", Bone: "b_Head_05", Offset: [3]float32{0, 10, 0}}}}
	job, err := mf.Job(r, names, motions)
	if err != nil {
		t.Fatal(err)
	}
	job.Workers = workers
	out, err := Bake(job)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := bpat.Write(&buf, out); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestDeterministic: the bytes do not depend on how many workers sample.
func TestDeterministic(t *testing.T) {
	one := bakeFox(t, 1, 120)
	for _, w := range []int{2, 3, 8} {
		if !bytes.Equal(one, bakeFox(t, w, 120)) {
			t.Fatalf("%d workers give different bytes than 1", w)
		}
	}
	if _, err := bpat.Parse(one); err != nil {
		t.Fatal(err)
	}
}

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
	r, names, motions := FromGLTF(m)
	job, err := mf.Job(r, names, motions)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Bake(job)
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
	r, names, motions := FromGLTF(m)
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
	if _, err := Bake(job); err == nil || !strings.Contains(err.Error(), "reversed") {
		t.Errorf("reversed range: %v", err)
	}
	path := filepath.Join(t.TempDir(), "typo.yaml")
	writeFile(t, path, "fsp: 30\n")
	if _, err := ReadManifest(path); err == nil || !strings.Contains(err.Error(), "fsp") {
		t.Errorf("typo in manifest: %v", err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBakeToMatchesBake: streaming in batches gives the bytes of an in-memory bake
// followed by Write, for any number of workers (Fox at 120 fps is 634 frames, three
// batches), with sockets computed on the way.
func TestBakeToMatchesBake(t *testing.T) {
	want := bakeFox(t, 1, 120)
	m, err := gltf.Load(sharedModel(t, "Fox.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, names, motions := FromGLTF(m)
	mf := Manifest{FPS: 120, Sockets: []ManifestSocket{{Name: "head", Bone: "b_Head_05", Offset: [3]float32{0, 10, 0}}}}
	for _, workers := range []int{1, 2, 5} {
		job, err := mf.Job(r, names, motions)
		if err != nil {
			t.Fatal(err)
		}
		job.Workers = workers
		var buf bytes.Buffer
		if err := BakeTo(&buf, job); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("%d workers: streamed bake differs from Bake + Write", workers)
		}
	}
}

// TestAbsurdFPS: a bake that would need millions of frames is refused before any
// memory is spent on it.
func TestAbsurdFPS(t *testing.T) {
	m, err := gltf.Load(sharedModel(t, "Fox.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, names, motions := FromGLTF(m)
	job, err := (&Manifest{FPS: 1e6}).Job(r, names, motions)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Bake(job); err == nil || !strings.Contains(err.Error(), "lower the fps") {
		t.Fatalf("1e6 fps: %v", err)
	}
	if err := BakeTo(io.Discard, job); err == nil {
		t.Fatal("BakeTo accepted 1e6 fps")
	}
}

// nanSampler poses as its sampler does, then spoils a bone's translation (NaN)
// and another's scale (+Inf) for times in [from, to).
type nanSampler struct {
	Sampler
	from, to float64
}

func (s nanSampler) Sample(t float64, pose []rig.Transform) {
	s.Sampler.Sample(t, pose)
	if t >= s.from && t < s.to {
		pose[3].Translation[1] = math.NaN()
		pose[7].Scale[0] = math.Inf(1)
	}
}

// TestNonFiniteFails: a palette float that is NaN or infinite fails the bake with
// the error strict validation gives the file the bake would have written (the
// same rule, offset, first value and count), for any number of workers, and
// BakeFile writes no file. The workers check the frames they pose: nothing is
// read back.
func TestNonFiniteFails(t *testing.T) {
	m, err := gltf.Load(sharedModel(t, "Fox.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, names, motions := FromGLTF(m)
	for i := range motions {
		if i == 1 {
			next := motions[i].NewSampler
			motions[i].NewSampler = func() Sampler { return nanSampler{next(), 0.5, 0.7} }
		}
	}
	job, err := (&Manifest{FPS: 120}).Job(r, names, motions)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "nan.bpat")

	// What strict validation says of the file written without the check.
	skipFiniteCheck = true
	var buf bytes.Buffer
	err = BakeTo(&buf, job)
	skipFiniteCheck = false
	if err != nil {
		t.Fatal(err)
	}
	_, want := bpat.Parse(buf.Bytes(), formats.Name(path))
	if want == nil || !strings.Contains(want.Error(), "NaN or infinite") {
		t.Fatalf("strict validation of the spoilt file: %v", want)
	}
	for _, workers := range []int{1, 2, 5} {
		job.Workers = workers
		_, err := BakeFileHeader(path, job)
		var ve *formats.ValidationError
		if !errors.As(err, &ve) || !ve.HasRule(formats.RuleFloat) || err.Error() != want.Error() {
			t.Fatalf("%d workers: BakeFile: %v\nwant %v", workers, err, want)
		}
		if _, serr := os.Stat(path); !os.IsNotExist(serr) {
			t.Fatalf("%d workers: the bake wrote %s (%v)", workers, path, serr)
		}
		if err := BakeTo(io.Discard, job); err == nil || !strings.Contains(err.Error(), "NaN or infinite") {
			t.Fatalf("%d workers: BakeTo: %v", workers, err)
		}
		if _, err := Bake(job); err == nil || !strings.Contains(err.Error(), "NaN or infinite") {
			t.Fatalf("%d workers: Bake: %v", workers, err)
		}
	}
}

// TestAnyNonFinite checks the branch-free test against math.IsNaN/IsInf on every
// exponent and the values around the edges.
func TestAnyNonFinite(t *testing.T) {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0x7fffffff), math.Float32frombits(0xff800001)}
	for e := range uint32(256) {
		vals = append(vals, math.Float32frombits(e<<23|0x12345), math.Float32frombits(1<<31|e<<23))
	}
	// Every position in slices of 1 to 40 floats, aligned and not (the word path,
	// its unrolled steps, the tail and the odd float).
	buf := make([]float32, 48)
	for _, v := range vals {
		want := math.IsNaN(float64(v)) || math.IsInf(float64(v), 0)
		for _, off := range []int{0, 1} {
			for n := 1; n <= 40; n++ {
				p := buf[off : off+n]
				for k := range p {
					clear(buf)
					p[k] = v
					if got := anyNonFinite(p); got != want {
						t.Fatalf("%v (%#08x) at %d of %d (offset %d): anyNonFinite %v, want %v", v, math.Float32bits(v), k, n, off, got, want)
					}
				}
			}
		}
	}
}
