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
	"io"
	"sync"

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
// creature's clip (species.Clip) is one whose motion is a pose function.
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
	// but InPlace and PlantFeet; they go into the gait sidecar. PlantFeet locks
	// the feet to the ground while they stand (the glTF adapter's plant_feet,
	// docs/formats/gait.md §7).
	InPlace     bool
	PlantFeet   bool
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

// Bake samples every clip and returns the BPAT contents, palettes in memory.
func Bake(j *Job) (*bpat.Contents, error) {
	c, _, err := BakeBlock(j)
	return c, err
}

// BakeBlock is Bake that also returns the palettes as the one block they are
// parts of: every clip's frames, clip after clip (bone animation textures stack
// them so, and take the block without copying it).
func BakeBlock(j *Job) (*bpat.Contents, []float32, error) {
	frames, out, err := j.planSized()
	if err != nil {
		return nil, nil, err
	}
	frameFloats := out.BoneCount * bpat.FloatsPerBone
	all := make([]float32, frames.len()*frameFloats)
	block := all
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
		return nil, nil, err
	}
	return out, all, nil
}

// BakeTo writes finished runs of frames in batches of about batchBytes, and
// keeps ringBatches batches of runs in memory (at least minRing runs): those
// being sampled and those waiting to be written. A batch written in one call
// costs the kernel less than its runs one at a time: ext4 takes a 16 MB file
// in 240 KiB writes in two thirds of the time it takes it in 48 KiB ones (the
// page cache's folios grow with the write). Two batches suffice: the kernel
// takes a batch more slowly than the workers sample the next, so a third only
// waited, and its memory was 64 more pages each process must fault in (see
// BENCHMARKS.md, issue 46 round 3).
const (
	batchBytes  = 256 << 10
	ringBatches = 2
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
