package bake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
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

func sharedModel(t testing.TB, name string) string { return testfiles.Path(t, "gltf", name) }

// foxJob bakes every animation of Fox.glb at fps, looping, from its first key:
// the job the glTF adapter (source/gltf/gltfbake) makes of the model with no
// settings, built here from the reader alone (24 bones; 634 frames at 120 fps,
// 10,567 at 2000).
func foxJob(t testing.TB, fps float64) *Job {
	m, err := gltf.Load(sharedModel(t, "Fox.glb"), gltf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	j := &Job{Rig: Rig{Skeleton: m.Skeleton, Bones: m.Joints}}
	keys := new(anim.KeyCache)
	for i := range m.Clips {
		mo := FromClip(&m.Clips[i], keys)
		j.Motions = append(j.Motions, mo)
		j.Clips = append(j.Clips, Clip{Name: mo.Name, Motion: i, FPS: fps, Loops: true, Start: mo.Start, Markers: bpat.NoMarkers()})
	}
	return j
}

// foxSocketJob is foxJob with a socket on the head (b_Head_05, joint 6).
func foxSocketJob(t testing.TB, fps float64) *Job {
	j := foxJob(t, fps)
	j.Sockets = []Socket{{Name: "head", Anchor: 6, Offset: [3]float32{0, 10, 0}}}
	return j
}

// TestCheckFPS: the rule every layer applies to a frame rate, edges included.
func TestCheckFPS(t *testing.T) {
	for _, fps := range []float64{1e-3, 1, 30, 1e6} {
		if err := CheckFPS(fps); err != nil {
			t.Errorf("%v fps refused: %v", fps, err)
		}
	}
	for _, fps := range []float64{0, -30, 9e-4, 1.000001e6, math.Inf(1), math.NaN()} {
		if err := CheckFPS(fps); err == nil || !strings.Contains(err.Error(), "is outside [0.001, 1e+06]") {
			t.Errorf("%v fps: %v", fps, err)
		}
	}
}

// TestCheckVersion: 1 and 2 are the versions a job may ask for; a job asking for
// another is refused before anything is sampled.
func TestCheckVersion(t *testing.T) {
	for v, ok := range map[uint32]bool{0: false, 1: true, 2: true, 3: false, 1 << 31: false} {
		if err := CheckVersion(v); (err == nil) != ok {
			t.Errorf("version %d: %v", v, err)
		}
	}
	job := foxJob(t, 30)
	job.Version = 3
	if _, err := job.Output(); err == nil || err.Error() != "bake: BPAT version 3: only 1 and 2 exist" {
		t.Errorf("a job asking for v3: %v", err)
	}
}

func bakeFox(t testing.TB, workers int, fps float64) []byte {
	job := foxSocketJob(t, fps)
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

// TestBakeToMatchesBake: streaming in batches gives the bytes of an in-memory bake
// followed by Write, for any number of workers (Fox at 120 fps is 634 frames, three
// batches), with sockets computed on the way.
func TestBakeToMatchesBake(t *testing.T) {
	want := bakeFox(t, 1, 120)
	for _, workers := range []int{1, 2, 5} {
		job := foxSocketJob(t, 120)
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

// rampSampler poses bone 0 at a translation and scale that change with t, so
// that every frame's palette differs.
type rampSampler struct{}

func (rampSampler) Sample(t float64, pose []rig.Transform) {
	pose[0].Translation = rig.Vec3{t, 2 * t, -t}
	pose[0].Scale = rig.Vec3{1 + t, 1, 1}
}

// TestBakeToBatches: streaming writes batches of runs that wrap around the ring
// at every point, clips of any length and a last run that is not whole; the bytes
// are those of Bake + Write for any number of workers. One bone makes runs of 2
// KiB: batches of 128 runs, a ring of 256.
func TestBakeToBatches(t *testing.T) {
	sk, err := rig.New([]string{"a"}, []int{-1}, []rig.Transform{rig.IdentityTransform()})
	if err != nil {
		t.Fatal(err)
	}
	if batch, ring := ringOf(run * bpat.FloatsPerBone * 4); batch != 128 || ring != 256 {
		t.Fatalf("one bone: batches of %d runs, a ring of %d", batch, ring)
	}
	motion := Motion{Name: "ramp", Duration: 40, NewSampler: func() Sampler { return rampSampler{} }}
	job := &Job{Rig: Rig{Skeleton: sk}, Motions: []Motion{motion}}
	for i, fps := range []float64{2999.9, 7, 1000, 33.3} { // 119,996 + 281 + 40,000 + 1,332 frames
		job.Clips = append(job.Clips, Clip{Name: fmt.Sprint("c", i), FPS: fps, Loops: i%2 == 0, Markers: bpat.NoMarkers()})
	}
	job.MaxBytes = -1
	mem, err := Bake(job)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := bpat.Write(&want, mem); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 3, 7} {
		job.Workers = workers
		var got bytes.Buffer
		if err := BakeTo(&got, job); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%d workers: the streamed bake differs from Bake + Write", workers)
		}
	}
}

// TestAbsurdFPS: a bake that would need millions of frames is refused before any
// memory is spent on it.
func TestAbsurdFPS(t *testing.T) {
	job := foxJob(t, 1e6)
	if _, err := Bake(job); err == nil || !strings.Contains(err.Error(), "lower the fps") {
		t.Fatalf("1e6 fps: %v", err)
	}
	if err := BakeTo(io.Discard, job); err == nil {
		t.Fatal("BakeTo accepted 1e6 fps")
	}
}

// TestMaxBytes: a job past DefaultMaxBytes is refused when it is planned, before
// anything is sampled, and plans once its MaxBytes lifts the limit. Three bones
// for a day at 30 fps are 2,592,000 frames of 192 bytes: 498 MB.
func TestMaxBytes(t *testing.T) {
	sk, err := rig.New([]string{"a", "b", "c"}, []int{-1, 0, 1}, []rig.Transform{rig.IdentityTransform(), rig.IdentityTransform(), rig.IdentityTransform()})
	if err != nil {
		t.Fatal(err)
	}
	still := Motion{Name: "day", Duration: 86400, NewSampler: func() Sampler { return stillSampler{} }}
	job := &Job{Rig: Rig{Skeleton: sk}, Motions: []Motion{still}, Clips: []Clip{{Name: "day", FPS: 30, Loops: true, Markers: bpat.NoMarkers()}}}
	if _, _, err := job.planSized(); err == nil || !strings.Contains(err.Error(), "256 MB limit") {
		t.Fatalf("a 498 MB job planned: %v", err)
	}
	// The limit an adapter holds its other outputs to is the same (Job.MaxBytes'
	// doc: 0 means DefaultMaxBytes, < 0 none).
	for mb, want := range map[int64]int64{0: DefaultMaxBytes, -1: -1, 5: 5} {
		if got := (&Job{MaxBytes: mb}).ByteLimit(); got != want {
			t.Errorf("MaxBytes %d: ByteLimit %d, want %d", mb, got, want)
		}
	}
	job.MaxBytes = -1
	if frames, out, err := job.planSized(); err != nil || frames.len() != 2_592_000 || out.BoneCount != 3 {
		t.Fatalf("with the limit lifted: %v, %v", frames, err)
	}
	job.MaxBytes = 1 << 40
	if _, _, err := job.planSized(); err != nil {
		t.Fatalf("with a limit of 1 TB: %v", err)
	}
	// Two days at 30 fps are 5,184,000 frames, past MaxFrames (4,194,304): the
	// frame bound is not lifted with the byte limit, and its message says so.
	job.Motions[0].Duration = 2 * 86400
	if _, _, err := job.planSized(); err == nil || !strings.Contains(err.Error(), "4194304") || !strings.Contains(err.Error(), "Job.MaxBytes does not lift") {
		t.Fatalf("5,184,000 frames with no byte limit: %v", err)
	}
}

func TestMB(t *testing.T) {
	for n, want := range map[int64]string{256_000_000: "256 MB", 162_304_688: "162.3 MB", 2_500: "2.5 KB"} {
		if got := MB(n); got != want {
			t.Errorf("MB(%d) = %q, want %q", n, got, want)
		}
	}
}

// The frame plan gives every output frame of every clip, in file order, with
// the time a listing from the definitions gives it: looping and one-shot clips,
// one-frame clips, time ranges and clips sharing a motion.
func TestFramePlan(t *testing.T) {
	sk, err := rig.New([]string{"a"}, []int{-1}, []rig.Transform{rig.IdentityTransform()})
	if err != nil {
		t.Fatal(err)
	}
	still := func(name string, d float64) Motion {
		return Motion{Name: name, Start: 0.25, Duration: d, NewSampler: func() Sampler { return stillSampler{} }}
	}
	job := &Job{Rig: Rig{Skeleton: sk}, Motions: []Motion{still("m0", 1.7), still("m1", 0.01), still("m2", 3)},
		Clips: []Clip{
			{Name: "loop", Motion: 0, FPS: 30, Loops: true},
			{Name: "once", Motion: 0, FPS: 24},
			{Name: "tiny", Motion: 1, FPS: 30, Loops: true},
			{Name: "tinyOnce", Motion: 1, FPS: 30},
			{Name: "range", Motion: 2, FPS: 60, Start: 0.5, End: 2.25},
			{Name: "rangeLoop", Motion: 2, FPS: 7, Loops: true, Start: 1},
		}}
	for i := range job.Clips {
		job.Clips[i].Markers = bpat.NoMarkers()
	}
	p, out, err := job.planSized()
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for ci, c := range job.Clips {
		start, end := c.Start, c.End
		if end == 0 {
			end = job.Motions[c.Motion].Duration
		}
		n := FrameCount(end-start, c.FPS, c.Loops)
		if out.Clips[ci].FrameCount != n {
			t.Fatalf("clip %s: %d frames, want %d", c.Name, out.Clips[ci].FrameCount, n)
		}
		for f := range n {
			want := frameRef{ci, f, start + FrameTime(f, n, end-start, c.Loops)}
			if got := p.at(i); got != want {
				t.Fatalf("frame %d: %+v, want %+v", i, got, want)
			}
			i++
		}
	}
	if p.len() != i {
		t.Fatalf("the plan has %d frames, the clips %d", p.len(), i)
	}
}

// stillSampler leaves the rest pose as it is.
type stillSampler struct{}

func (stillSampler) Sample(float64, []rig.Transform) {}

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
	job := foxJob(t, 120)
	next := job.Motions[1].NewSampler
	job.Motions[1].NewSampler = func() Sampler { return nanSampler{next(), 0.5, 0.7} }
	dir := t.TempDir()
	path := filepath.Join(dir, "nan.bpat")

	// What strict validation says of the file written without the check.
	skipFiniteCheck = true
	var buf bytes.Buffer
	err := BakeTo(&buf, job)
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
