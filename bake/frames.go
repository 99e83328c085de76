// The frames of a bake: how many a clip has, the times they sample, and where
// each lands in the file (docs/formats/bpat.md §5).

package bake

import (
	"math"
	"sort"

	"github.com/bonebake/bonebake/formats/bpat"
)

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

// frameRef locates one output frame.
type frameRef struct {
	clip, frame int
	t           float64
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
