// Sampling a bake's frames on several goroutines, and the palettes' finiteness.

package bake

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/bonebake/bonebake/formats"
	"github.com/bonebake/bonebake/rig"
)

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
