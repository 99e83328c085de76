// The rules a job must meet (frame rates, versions, names, sizes) and what it
// will write, all checked before anything is sampled.

package bake

import (
	"fmt"
	"math"
	"strconv"

	"github.com/bonebake/bonebake/formats/bpat"
)

// check says whether the job may be baked: a skeleton, palette bones in it,
// clips with motions, frame rates and time ranges, the frame bound, and names
// a reader can tell apart.
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
		return fmt.Errorf("bake: %.0f frames in all is more than the %d a bake may have (a bound Job.MaxBytes does not lift): lower the fps or shorten the clips", total, MaxFrames)
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
	if limit := j.ByteLimit(); limit > 0 && o.Bytes > limit {
		return nil, fmt.Errorf("bake: the bake would make %s (%d frames of %d bones), more than the %s limit: lower the fps, shorten the clips, or lift the limit (Job.MaxBytes)",
			MB(o.Bytes), o.Frames, o.Bones, MB(limit))
	}
	return j.contents()
}

// ByteLimit is the size no file or buffer of the bake may pass: MaxBytes,
// DefaultMaxBytes for its 0, and < 0 for none. The engine holds the BPAT to it,
// and an adapter every other output of the same bake (a snapshot, the frames
// it poses to choose merges), so that one setting lifts them all.
func (j *Job) ByteLimit() int64 {
	if j.MaxBytes == 0 {
		return DefaultMaxBytes
	}
	return j.MaxBytes
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
