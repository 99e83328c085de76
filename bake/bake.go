// Package bake turns a rig and its clips into BPAT bone palettes: it samples every
// clip at the frame times of docs/formats/bpat.md §5, computes each bone's model-space matrix and
// packs them row-major. Frames are sampled in parallel; every frame is written to its
// own place, so the output is byte-identical for any number of workers.
//
// It is the engine every source bakes through, and it imports none: each
// source's adapter makes the Job, beside the source it reads (glTF models:
// source/gltf/gltfbake; motion files: source/mot; the built-in creatures:
// species.Creature's methods).
package bake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/bonebake/bonebake/anim"
	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/atomicfile"
	"github.com/bonebake/bonebake/rig"
)

// Sampler poses a skeleton at a time: it writes the local transform of every bone it
// animates into pose and leaves the others as they are. anim.Sampler is one.
type Sampler interface {
	Sample(t float64, pose []rig.Transform)
}

// Motion is one source animation. NewSampler gives each worker its own sampler, so
// samplers may keep state (such as key cursors) without locking. Start and
// Duration are the times (seconds) of the motion's first and last keys: a clip runs
// from Start unless it says otherwise (docs/formats/gltf.md §3).
type Motion struct {
	Name       string
	Start      float64
	Duration   float64
	NewSampler func() Sampler
}

// FromClip wraps a keyframe clip as a Motion. The clip is prepared once and its
// samplers share that preparation; clips given the same keys (nil: none) share
// the preparation of tracks whose keys are the same slices.
func FromClip(c *anim.Animation, keys *anim.KeyCache) Motion {
	var (
		once sync.Once
		prep *anim.Prepared
	)
	return Motion{Name: c.Name, Start: c.Start, Duration: c.Duration, NewSampler: func() Sampler {
		once.Do(func() { prep = anim.PrepareShared(c, keys) })
		return prep.NewSampler()
	}}
}

// Rig is what the baker needs to know about a skeleton.
type Rig struct {
	Skeleton *rig.Skeleton
	// Bones maps palette index → skeleton bone. Nil means every skeleton bone in order.
	// A palette entry is the bone's global transform in the skeleton's root space.
	Bones []int
}

// PaletteBones returns the skeleton bone of each palette index: Bones, or every
// skeleton bone in order.
func (r *Rig) PaletteBones() []int {
	if r.Bones != nil {
		return r.Bones
	}
	b := make([]int, r.Skeleton.Len())
	for i := range b {
		b[i] = i
	}
	return b
}

// Clip is one clip to bake: what to call it, where its motion comes from, and how
// to sample it. The file's table entry (bpat.Clip) is what it becomes; a built-in
// creature's clips (species.Clip) are pose functions that species turns into these.
type Clip struct {
	Name    string
	Motion  int     // index into the motions
	FPS     float64 // frames per second, > 0
	Loops   bool
	Markers bpat.Markers
	// Start and End select a time range of the motion in seconds; End = 0 means the
	// motion's end.
	Start, End float64
	// InPlace removes the root's horizontal travel from the clip (the glTF adapter's in_place does,
	// docs/formats/gait.md §4). Cycle is the seconds one pass lasts in the game
	// (0: the clip's duration); GroundSpeed, when > 0, is the clip's ground speed
	// in m/s as given, not measured. None of them changes the BPAT file's bytes
	// but InPlace; they go into the gait sidecar.
	InPlace     bool
	Cycle       float64
	GroundSpeed float64
}

// Socket is a named attachment point on a bone: Anchor is its palette index.
// It is the file's own socket (one type from the job to the file).
type Socket = bpat.Socket

// Job is everything one bake needs.
type Job struct {
	SpeciesID uint32
	Rig       Rig
	Motions   []Motion
	Clips     []Clip
	Sockets   []Socket
	Version   uint32 // 0: v1 without markers, v2 with
	// MaxBytes bounds the BPAT file (or the palettes in memory) a bake may make,
	// checked before anything is sampled: 0 means DefaultMaxBytes, < 0 no limit.
	// Every caller that turns a model into frames (bake, view, bat, bake --mot)
	// shares it, so an absurd fps or key time is refused up front everywhere.
	MaxBytes int64
	// Workers is the number of goroutines sampling frames; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called with (frames done, frames total) from the
	// sampling goroutines after every run of 32 frames; it must be safe for
	// concurrent use.
	Progress func(done, total int)
}

// FrameCount is the number of baked frames for a clip of duration d seconds at fps
// frames per second (docs/formats/bpat.md §5): looping N = max(1, round(d·fps)), one-shot N + 1.
func FrameCount(d, fps float64, loops bool) int {
	n := max(1, int(math.Floor(d*fps+0.5)))
	if !loops {
		n++
	}
	return n
}

// FrameTime is the time of frame f of n for a clip of duration d: f·d/n when
// looping (the end equals the start and is not stored), f·d/(n−1) for a one-shot.
func FrameTime(f, n int, d float64, loops bool) float64 {
	if loops {
		return float64(f) * d / float64(n)
	}
	if n == 1 {
		return 0
	}
	if f == n-1 {
		return d // exactly the end, whatever the rounding of f·d/(n−1)
	}
	return float64(f) * d / float64(n-1)
}

// PlaybackFPS is the rate a clip's fps field stores: the one at which its n baked
// frames play the source's duration d exactly (n/d looping, (n−1)/d one-shot, the
// durations of docs/formats/bpat.md §5), so that a one-shot lasts as long as it
// did in the source even when d is not a whole number of frames at the bake's
// fps. A clip without duration keeps the bake's fps, and so does one whose exact
// rate is within 1e-5 of it: key times are float32, so a 1 s source keyed from
// 1/24 to 25/24 s measures 1.0000001 s, and 24 reads better than 23.999998.
func PlaybackFPS(n int, d, fps float64, loops bool) float64 {
	if !loops {
		n--
	}
	if d <= 0 || n <= 0 {
		return fps
	}
	if exact := float64(n) / d; math.Abs(exact-fps) > 1e-5*fps {
		return exact
	}
	return fps
}

// Span is clip c's time range in its motion, after defaults: its start and its
// duration (End = 0 is the motion's end).
func (j *Job) Span(c *Clip) (start, dur float64) {
	end := c.End
	if end == 0 {
		end = j.Motions[c.Motion].Duration
	}
	return c.Start, end - c.Start
}

func (j *Job) check() error {
	if j.Rig.Skeleton == nil || j.Rig.Skeleton.Len() == 0 {
		return fmt.Errorf("bake: no skeleton")
	}
	nb := j.Rig.Skeleton.Len()
	for i, b := range j.Rig.PaletteBones() {
		if b < 0 || b >= nb {
			return fmt.Errorf("bake: palette bone %d maps to skeleton bone %d of %d", i, b, nb)
		}
	}
	if len(j.Clips) == 0 {
		return fmt.Errorf("bake: nothing to bake: no clips")
	}
	if j.Version != 0 {
		if err := CheckVersion(j.Version); err != nil {
			return fmt.Errorf("bake: BPAT version %w", err)
		}
	}
	total := 0.0
	for i := range j.Clips {
		c := &j.Clips[i]
		if c.Motion < 0 || c.Motion >= len(j.Motions) {
			return fmt.Errorf("bake: clip %q: no motion %d", c.Name, c.Motion)
		}
		if err := CheckFPS(c.FPS); err != nil {
			return fmt.Errorf("bake: clip %q: fps %w", c.Name, err)
		}
		start, dur := j.Span(c)
		if !(start >= 0) || !(dur >= 0) || math.IsInf(dur, 0) {
			return fmt.Errorf("bake: clip %q: time range [%v, %v] of motion %q (%.4g s) is empty or reversed", c.Name, c.Start, c.End, j.Motions[c.Motion].Name, j.Motions[c.Motion].Duration)
		}
		total += dur * c.FPS
	}
	if total > MaxFrames {
		return fmt.Errorf("bake: %.0f frames in all is more than the %d a bake may have (a bound --force does not lift): lower the fps or shorten the clips", total, MaxFrames)
	}
	// A reader finds clips and sockets by name, and the first of two equal names
	// wins: the second could never be found.
	clipSeen := map[string]int{}
	for i, c := range j.Clips {
		if k, dup := clipSeen[c.Name]; dup {
			return fmt.Errorf("bake: clip %d %q (from %q) has the same name as clip %d (from %q): a reader could never find the second; name them apart in a manifest (a clip's source may be an animation's index, source: \"#%d\")",
				i, c.Name, j.Motions[c.Motion].Name, k, j.Motions[j.Clips[k].Motion].Name, c.Motion)
		}
		clipSeen[c.Name] = i
	}
	sockSeen := map[string]int{}
	for i, so := range j.Sockets {
		if k, dup := sockSeen[so.Name]; dup {
			return fmt.Errorf("bake: socket %d %q has the same name as socket %d: a reader could never find the second", i, so.Name, k)
		}
		sockSeen[so.Name] = i
	}
	return nil
}

// Output is what a job will write: the BPAT file's size in bytes, its frames and
// palette bones.
type Output struct {
	Bytes         int64
	Frames, Bones int
}

// Output says what the job will write, without sampling anything: a caller can
// refuse or announce a large bake up front.
func (j *Job) Output() (Output, error) {
	out, err := j.contents()
	if err != nil {
		return Output{}, err
	}
	frames := 0
	for _, c := range out.Clips {
		frames += c.FrameCount
	}
	size, err := out.Size() // the format knows its layout
	if err != nil {
		return Output{}, fmt.Errorf("bake: %w", err)
	}
	return Output{Bytes: size, Frames: frames, Bones: out.BoneCount}, nil
}

// The frame rates a clip may be baked at: below MinFPS a clip of any length is
// one frame (and a float32 fps field would round toward 0), above MaxFPS no
// game needs.
const (
	MinFPS = 1e-3
	MaxFPS = 1e6
)

// CheckFPS says whether a clip may be baked at fps frames per second. It is the
// one rule every layer that takes a frame rate applies (the engine to each clip,
// the adapters to their settings and manifests, the command line to its flags),
// so that each says alike what is wrong; the caller names the setting.
func CheckFPS(fps float64) error {
	if !(fps >= MinFPS) || fps > MaxFPS {
		return fmt.Errorf("%v is outside [%v, %v]", fps, MinFPS, MaxFPS)
	}
	return nil
}

// CheckVersion says whether v is a BPAT version a job may ask for: 1 or 2
// (docs/formats/bpat.md §2). A Job's 0 asks for none (v1 without markers, v2
// with) and is not checked; the adapters and the command line apply this rule
// to the version their settings or manifests ask for, and name the setting.
func CheckVersion(v uint32) error {
	if v != 1 && v != 2 {
		return fmt.Errorf("%d: only 1 and 2 exist", v)
	}
	return nil
}

// DefaultMaxBytes is the largest bake allowed unless Job.MaxBytes says otherwise:
// 256 MB, far past any crowd creature (a 60-bone character with a minute of
// clips at 60 fps is 14 MB) and well below what exhausts a machine.
const DefaultMaxBytes = 256_000_000

// planSized checks the job, refuses a bake past its MaxBytes, and plans every
// output frame in file order with the contents without palettes.
func (j *Job) planSized() (*framePlan, *bpat.Contents, error) {
	out, err := j.sized()
	if err != nil {
		return nil, nil, err
	}
	return j.plan(out), out, nil
}

// sized checks the job and refuses a bake past its MaxBytes, and returns the
// contents without palettes.
func (j *Job) sized() (*bpat.Contents, error) {
	o, err := j.Output()
	if err != nil {
		return nil, err
	}
	limit := j.MaxBytes
	if limit == 0 {
		limit = DefaultMaxBytes
	}
	if limit > 0 && o.Bytes > limit {
		return nil, fmt.Errorf("bake: the bake would make %s (%d frames of %d bones), more than the %s limit: lower the fps, shorten the clips, or lift the limit (bake --force)",
			MB(o.Bytes), o.Frames, o.Bones, MB(limit))
	}
	return j.contents()
}

// MaxFrames bounds a bake's frame count (4,194,304: 6 GB of palettes at 24
// bones), so that an absurd fps is refused up front instead of exhausting memory
// or disk; a GPU texture could not hold a tenth of it anyway. Unlike MaxBytes it
// is not lifted (bake --force): past it no reader, runtime or texture can use
// the file, whatever the machine could write.
const MaxFrames = 1 << 22

// MB writes a size in decimal megabytes, the one unit of sizes in limit
// messages and summaries ("256 MB", "162.3 MB"; bytes below 1 MB as KB).
func MB(n int64) string {
	tenth := func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
	if n < 1_000_000 {
		return tenth(float64(n)/1e3) + " KB"
	}
	return tenth(float64(n)/1e6) + " MB"
}

// frameRef locates one output frame.
type frameRef struct {
	clip, frame int
	t           float64
}

// contents checks the job and returns what the file will hold, without palettes
// (clip frame counts set): what Output measures, with nothing allocated per frame.
func (j *Job) contents() (*bpat.Contents, error) {
	if err := j.check(); err != nil {
		return nil, err
	}
	bones := j.Rig.PaletteBones()
	out := &bpat.Contents{Version: j.Version, SpeciesID: j.SpeciesID, BoneCount: len(bones)}
	for ci := range j.Clips {
		c := &j.Clips[ci]
		_, dur := j.Span(c)
		n := FrameCount(dur, c.FPS, c.Loops)
		out.Clips = append(out.Clips, bpat.Clip{Name: c.Name, FrameCount: n, FPS: float32(PlaybackFPS(n, dur, c.FPS, c.Loops)), Loops: c.Loops, Markers: c.Markers})
	}
	for _, s := range j.Sockets {
		if s.Anchor < 0 || s.Anchor >= len(bones) {
			return nil, fmt.Errorf("bake: socket %q: anchor %d outside the %d-bone palette", s.Name, s.Anchor, len(bones))
		}
		out.Sockets = append(out.Sockets, s)
	}
	return out, nil
}

// framePlan locates every output frame of a job's clips in file order, without
// listing them (a list is 24 bytes a frame, allocated and filled before the
// first frame is sampled).
type framePlan struct {
	first  []int // first[c]: the file index of clip c's first frame; first[len(clips)]: all frames
	starts []float64
	durs   []float64
	loops  []bool
}

// plan plans the frames of out's clips (frame counts set).
func (j *Job) plan(out *bpat.Contents) *framePlan {
	p := &framePlan{first: make([]int, len(j.Clips)+1), starts: make([]float64, len(j.Clips)),
		durs: make([]float64, len(j.Clips)), loops: make([]bool, len(j.Clips))}
	for ci := range j.Clips {
		c := &j.Clips[ci]
		p.starts[ci], p.durs[ci] = j.Span(c)
		p.loops[ci] = c.Loops
		p.first[ci+1] = p.first[ci] + out.Clips[ci].FrameCount
	}
	return p
}

// len is the number of frames.
func (p *framePlan) len() int { return p.first[len(p.first)-1] }

// at is output frame i (0 ≤ i < len()): its clip, its frame in the clip, and the
// time it samples, the clip's start + FrameTime.
func (p *framePlan) at(i int) frameRef {
	ci := sort.SearchInts(p.first, i+1) - 1 // the last clip starting at or before i
	f := i - p.first[ci]
	n := p.first[ci+1] - p.first[ci]
	return frameRef{ci, f, p.starts[ci] + FrameTime(f, n, p.durs[ci], p.loops[ci])}
}

// Bake samples every clip and returns the BPAT contents, palettes in memory.
func Bake(j *Job) (*bpat.Contents, error) {
	frames, out, err := j.planSized()
	if err != nil {
		return nil, err
	}
	frameFloats := out.BoneCount * bpat.FloatsPerBone
	block := make([]float32, frames.len()*frameFloats)
	for _, c := range out.Clips {
		n := c.FrameCount * frameFloats
		out.Palettes, block = append(out.Palettes, block[:n:n]), block[n:]
	}
	s := j.newSampling(frames)
	s.dst = func(i int, fr frameRef) []float32 {
		return out.Palettes[fr.clip][fr.frame*frameFloats : (fr.frame+1)*frameFloats]
	}
	s.start(j.workers() - 1)
	s.work() // the calling goroutine samples too: its stack is already grown
	s.wait()
	if err := s.bad.err(0); err != nil {
		return nil, err
	}
	return out, nil
}

// BakeTo writes finished runs of frames in batches of about batchBytes, and
// keeps ringBatches batches of runs in memory (at least minRing runs): those
// being sampled and those waiting to be written. A batch written in one call
// costs the kernel less than its runs one at a time: ext4 takes a 16 MB file
// in 240 KiB writes in two thirds of the time it takes it in 48 KiB ones (the
// page cache's folios grow with the write).
const (
	batchBytes  = 256 << 10
	ringBatches = 3
	minRing     = 8
)

// ringOf says how many runs of runBytes bytes a batch holds and the ring keeps.
func ringOf(runBytes int) (batch, ring int) {
	batch = max(1, batchBytes/runBytes)
	return batch, max(minRing, ringBatches*batch)
}

// BakeTo bakes j and streams the BPAT file to w. Workers sample runs of frames into
// a small ring of buffers; whichever worker finishes a run that completes a batch
// of runs next in file order writes the batch, and any finished after it. Writing
// overlaps sampling, no goroutine sits waiting to write, and memory stays bounded
// whatever the bake's size.
//
// A palette float that is NaN or infinite fails the bake with the error strict
// validation of the file would give (a *formats.ValidationError, rule
// formats.RuleFloat): the workers check every frame as they pose it, so the file
// is never read back.
func BakeTo(w io.Writer, j *Job) error {
	_, err := bakeTo(w, j)
	return err
}

func bakeTo(w io.Writer, j *Job) (bpat.Header, error) {
	frames, out, err := j.planSized()
	if err != nil {
		return bpat.Header{}, err
	}
	sw, err := bpat.NewStreamWriter(w, out)
	if err != nil {
		return bpat.Header{}, err
	}
	h := sw.Header()
	frameFloats := out.BoneCount * bpat.FloatsPerBone
	batch, ring := ringOf(run * frameFloats * 4)
	buf := getBuffer(ring * run * frameFloats)
	defer putBuffer(buf)
	runs := (frames.len() + run - 1) / run
	// slots is the ring's memory of runs r to r+k−1, which must not wrap.
	slots := func(r, k int) []float32 { return buf[(r%ring)*run*frameFloats : (r%ring+k)*run*frameFloats] }

	var (
		mu       sync.Mutex
		moved    = sync.NewCond(&mu) // written advanced, or the bake failed
		waiting  int                 // workers waiting for a free slot
		written  int                 // runs written so far
		writing  bool                // a worker is writing
		finished = make([]bool, runs)
		werr     error
	)
	s := j.newSampling(frames)
	s.claim = func(r int) bool {
		mu.Lock()
		defer mu.Unlock()
		for r >= written+ring && werr == nil { // its slot still holds run r−ring
			waiting++
			moved.Wait()
			waiting--
		}
		return werr == nil
	}
	s.dst = func(i int, _ frameRef) []float32 {
		return slots(i/run, 1)[(i%run)*frameFloats : (i%run+1)*frameFloats]
	}
	ready := written // the runs before ready are finished
	s.done = func(r int) {
		mu.Lock()
		defer mu.Unlock()
		finished[r] = true
		if writing {
			return // the writer will find this run when it gets to it
		}
		writing = true
		for werr == nil {
			for ready < runs && finished[ready] {
				ready++
			}
			// A whole batch, or the last runs; at most up to the ring's end.
			k := ready - written
			if k == 0 || k < batch && ready < runs {
				break
			}
			k = min(k, ring-written%ring)
			n := min(k*run, frames.len()-written*run)
			mu.Unlock()
			err := sw.WriteFrames(slots(written, k)[:n*frameFloats])
			mu.Lock()
			werr = err
			written += k
			if waiting > 0 {
				moved.Broadcast()
			}
		}
		writing = false
	}
	s.start(j.workers() - 1)
	s.work() // the calling goroutine samples (and writes) too
	s.wait()
	if werr != nil {
		return h, werr
	}
	if err := s.bad.err(int64(h.PaletteOffset)); err != nil {
		return h, err
	}
	return h, sw.Close()
}

// Bytes bakes j into the bytes of a BPAT file, for use in memory (bpat.Parse).
func Bytes(j *Job) ([]byte, error) {
	c, err := j.sized()
	if err != nil {
		return nil, err
	}
	n, err := c.Size()
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, n)) // sized once, not grown by doubling
	if err := BakeTo(buf, j); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// BakeFile bakes j into a BPAT file at path, atomically: on an error, including a
// palette float that is not finite (see BakeTo), the file is not written.
func BakeFile(path string, j *Job) error {
	_, err := BakeFileHeader(path, j)
	return err
}

// BakeFileHeader is BakeFile, returning the header of the file it wrote. An error
// about the file's contents (a *formats.ValidationError) names path, as opening the
// file would.
func BakeFileHeader(path string, j *Job) (bpat.Header, error) {
	return BakeFileHeaderWith(atomicfile.Write, path, j)
}

// BakeFileHeaderWith is BakeFileHeader writing path with write: an
// atomicfile.Set's Write, for a BPAT that is one of a set of files.
func BakeFileHeaderWith(write atomicfile.WriteFunc, path string, j *Job) (bpat.Header, error) {
	if _, err := j.sized(); err != nil {
		return bpat.Header{}, err
	}
	var (
		h   bpat.Header
		bad *formats.ValidationError
	)
	err := write(path, func(w io.Writer) (err error) {
		h, err = bakeTo(w, j)
		errors.As(err, &bad)
		return err
	})
	if bad != nil {
		bad.File = path
		for _, p := range bad.Problems {
			p.File = path
		}
		return h, bad // as opening the file would say it
	}
	return h, err
}

// bufferPool keeps BakeTo's ring buffers between bakes, so that baking many files
// (a species set, a viewer baking on the fly) does not allocate them anew.
var bufferPool sync.Pool

func getBuffer(n int) []float32 {
	if p, ok := bufferPool.Get().(*[]float32); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]float32, n)
}

func putBuffer(b []float32) { bufferPool.Put(&b) }

func (j *Job) workers() int {
	if j.Workers > 0 {
		return j.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// run is how many consecutive frames a worker samples at a time, so that key
// cursors advance instead of searching.
const run = 32

// sampling poses a bake's frames on several goroutines. Workers claim runs of
// frames in order; each frame lands where dst says, so the result does not depend
// on which worker posed it.
type sampling struct {
	job    *Job
	frames *framePlan
	next   atomic.Int64 // the next run to claim
	done   func(r int)  // optional: called when run r is sampled
	claim  func(r int) bool
	dst    func(i int, fr frameRef) []float32
	count  atomic.Int64 // frames sampled, for progress
	wg     sync.WaitGroup
	bad    nonFinite
}

func (j *Job) newSampling(frames *framePlan) *sampling {
	return &sampling{job: j, frames: frames}
}

// start runs n workers in the background.
func (s *sampling) start(n int) {
	for range n {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.work()
		}()
	}
}

func (s *sampling) wait() { s.wg.Wait() }

// work claims and samples runs until none are left.
func (s *sampling) work() {
	p := newPoser(s.job, s.job.Rig.PaletteBones())
	for {
		r := int(s.next.Add(1)) - 1
		lo := r * run
		if lo >= s.frames.len() || (s.claim != nil && !s.claim(r)) {
			return
		}
		hi := min(lo+run, s.frames.len())
		for i := lo; i < hi; i++ {
			fr := s.frames.at(i)
			d := s.dst(i, fr)
			if finite := p.pose(s.job.Clips[fr.clip].Motion, fr.t, d); !finite && !skipFiniteCheck {
				s.bad.add(i, d)
			}
		}
		if s.done != nil {
			s.done(r)
		}
		d := s.count.Add(int64(hi - lo))
		if s.job.Progress != nil {
			s.job.Progress(int(d), s.frames.len())
		}
	}
}

// poser holds one worker's scratch space and samplers.
type poser struct {
	job      *Job
	bones    []int
	samplers []Sampler // per motion, made on first use
	motion   int       // the motion local was last sampled from, -1 for none
	local    []rig.Transform
	global   []rig.Mat4
}

func newPoser(j *Job, bones []int) *poser {
	n := j.Rig.Skeleton.Len()
	return &poser{job: j, bones: bones, samplers: make([]Sampler, len(j.Motions)), motion: -1,
		local: make([]rig.Transform, n), global: make([]rig.Mat4, n)}
}

// pose samples motion m at time t and writes the palette into dst: G(bone), the
// global transform of each palette bone (docs/formats/gltf.md §1). It reports
// whether every float of the palette is finite.
func (p *poser) pose(m int, t float64, dst []float32) (finite bool) {
	s := p.samplers[m]
	if s == nil {
		s = p.job.Motions[m].NewSampler()
		p.samplers[m] = s
	}
	sk := p.job.Rig.Skeleton
	if m != p.motion {
		// A sampler rewrites the same properties on every call, so the rest of the
		// pose only needs resetting when the motion changes.
		copy(p.local, sk.Rest)
		p.motion = m
	}
	s.Sample(t, p.local)
	sk.ModelSpace(p.local, p.global)
	return rig.PutPalette(dst, p.global, p.bones)
}

// skipFiniteCheck turns the workers' check off: tests write the file a bake
// without it would write, to compare the error strict validation gives.
var skipFiniteCheck = false

// nonFinite collects the palette floats the workers found NaN or infinite: the
// first in file order and how many.
type nonFinite struct {
	mu    sync.Mutex
	n     int64
	first int64 // float index in the palette block
	value float32
}

// add records the non-finite floats of frame i, whose palette is p.
func (b *nonFinite) add(i int, p []float32) {
	first, n := int64(-1), int64(0)
	for k, v := range p {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			if first < 0 {
				first = int64(i)*int64(len(p)) + int64(k)
			}
			n++
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == 0 || first < b.first {
		b.first, b.value = first, p[first-int64(i)*int64(len(p))]
	}
	b.n += n
}

// err is the error strict validation gives a file with these floats, its palette
// at byte paletteOffset (bpat's check: formats.RuleFloat at the first one), or nil.
func (b *nonFinite) err(paletteOffset int64) error {
	if b.n == 0 {
		return nil
	}
	at := 4 * b.first
	return &formats.ValidationError{Format: "bpat", Problems: []*formats.FormatError{{Rule: formats.RuleFloat, Offset: paletteOffset + at, Index: -1,
		Detail: fmt.Sprintf("palette float at byte %d is %v; %d of its floats are NaN or infinite", at, b.value, b.n)}}}
}
