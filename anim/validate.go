package anim

import (
	"fmt"
	"math"
)

// String returns "translation", "rotation" or "scale" (glTF's path names).
func (p Path) String() string {
	switch p {
	case Translation:
		return "translation"
	case Rotation:
		return "rotation"
	case Scale:
		return "scale"
	}
	return fmt.Sprintf("Path(%d)", uint8(p))
}

// Width returns the number of floats in one value of the path: 3, or 4 for a
// rotation; 0 for an unknown path.
func (p Path) Width() int {
	switch p {
	case Translation, Scale:
		return 3
	case Rotation:
		return 4
	}
	return 0
}

// String returns glTF's name: "STEP", "LINEAR" or "CUBICSPLINE".
func (i Interpolation) String() string {
	switch i {
	case Step:
		return "STEP"
	case Linear:
		return "LINEAR"
	case CubicSpline:
		return "CUBICSPLINE"
	}
	return fmt.Sprintf("Interpolation(%d)", uint8(i))
}

// elements returns how many values each key holds: 3 (in-tangent, value,
// out-tangent) for CubicSpline, 1 otherwise.
func (i Interpolation) elements() int {
	if i == CubicSpline {
		return 3
	}
	return 1
}

// TrackError reports a clip that breaks a rule; Validate returns it.
type TrackError struct {
	Clip  string // the clip's name
	Track int    // index into Clip.Tracks; -1 when the problem is the clip's own
	Key   int    // the offending key; -1 when the rule is not about one key
	Rule  string // the rule broken, in plain words
}

func (e *TrackError) Error() string {
	switch {
	case e.Track < 0:
		return fmt.Sprintf("anim: clip %q: %s", e.Clip, e.Rule)
	case e.Key < 0:
		return fmt.Sprintf("anim: clip %q, track %d: %s", e.Clip, e.Track, e.Rule)
	}
	return fmt.Sprintf("anim: clip %q, track %d, key %d: %s", e.Clip, e.Track, e.Key, e.Rule)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Validate checks that c can be sampled for a skeleton of boneCount bones: a finite,
// non-negative duration, and for every track a bone in range, a known path and
// interpolation, at least one key, finite non-negative strictly increasing times,
// exactly keys × width × (3 for CubicSpline, else 1) finite values (width 3, or 4
// for rotations), and no rotation key of zero length. The first problem found is
// returned as a *TrackError.
func (c *Animation) Validate(boneCount int) error { return c.ValidateShared(boneCount, nil) }

// ValidCache remembers the key times and values found valid, by the slices
// that hold them, so that clips sharing them (a glTF file may point the
// channels of many animations at one accessor) scan them once. The zero value
// is ready; not safe for concurrent use.
type ValidCache struct {
	times  map[*float32]int
	values map[valuesKey]bool
}

type valuesKey struct {
	values   *float32
	n, per   int
	rotation bool
}

// ValidateShared is Validate, skipping the times and values vc holds as valid
// and adding those it checks (nil: a cache for this clip alone).
func (c *Animation) ValidateShared(boneCount int, vc *ValidCache) error {
	clipErr := func(track, key int, format string, args ...any) error {
		return &TrackError{Clip: c.Name, Track: track, Key: key, Rule: fmt.Sprintf(format, args...)}
	}
	if !finite(c.Duration) || c.Duration < 0 {
		return clipErr(-1, -1, "duration %v is not a finite number of seconds ≥ 0", c.Duration)
	}
	if !finite(c.Start) || c.Start < 0 || c.Start > c.Duration {
		return clipErr(-1, -1, "start %v is not a time in [0, duration %v]", c.Start, c.Duration)
	}
	// Tracks may share their times and values (a glTF file can point many
	// channels at one sampler): each shared slice is scanned once, so that
	// validating costs the keys once, not tracks × keys.
	if vc == nil {
		vc = new(ValidCache)
	}
	if vc.times == nil {
		vc.times, vc.values = map[*float32]int{}, map[valuesKey]bool{}
	}
	timesOK, valuesOK := vc.times, vc.values
	for ti := range c.Tracks {
		tr := &c.Tracks[ti]
		if tr.Bone < 0 || tr.Bone >= boneCount {
			return clipErr(ti, -1, "bone %d is outside the skeleton's %d bones", tr.Bone, boneCount)
		}
		width := tr.Path.Width()
		if width == 0 {
			return clipErr(ti, -1, "unknown path %d (want translation, rotation or scale)", uint8(tr.Path))
		}
		if tr.Interpolation > CubicSpline {
			return clipErr(ti, -1, "unknown interpolation %d (want STEP, LINEAR or CUBICSPLINE)", uint8(tr.Interpolation))
		}
		keys := len(tr.Times)
		if keys == 0 {
			return clipErr(ti, -1, "the track has no keys")
		}
		per := width * tr.Interpolation.elements()
		if want := keys * per; len(tr.Values) != want {
			return clipErr(ti, -1, "%d values, want %d (%d keys × %d floats per %s %s key)",
				len(tr.Values), want, keys, per, tr.Interpolation, tr.Path)
		}
		if n, ok := timesOK[&tr.Times[0]]; !ok || n != keys {
			if err := checkTimes(tr.Times, func(k int, format string, args ...any) error { return clipErr(ti, k, format, args...) }); err != nil {
				return err
			}
			timesOK[&tr.Times[0]] = keys
		}
		vk := valuesKey{&tr.Values[0], len(tr.Values), per, tr.Path == Rotation}
		if valuesOK[vk] {
			continue
		}
		for j, v := range tr.Values {
			if !finite(float64(v)) {
				return clipErr(ti, j/per, "value %v (float %d of the key) is not finite", v, j%per)
			}
		}
		if tr.Path == Rotation {
			off := 0
			if tr.Interpolation == CubicSpline {
				off = width // skip the in-tangent
			}
			for k := range keys {
				q := tr.Values[k*per+off : k*per+off+width]
				if q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0 {
					return clipErr(ti, k, "the rotation is the zero quaternion, which is no rotation")
				}
			}
		}
		valuesOK[vk] = true
	}
	return nil
}

// checkTimes checks key times: finite, ≥ 0, strictly increasing.
func checkTimes(times []float32, fail func(k int, format string, args ...any) error) error {
	for k, tk := range times {
		t := float64(tk)
		switch {
		case !finite(t):
			return fail(k, "time %v is not finite", t)
		case t < 0:
			return fail(k, "time %v is negative", t)
		case k > 0 && !(tk > times[k-1]):
			return fail(k, "time %v is not after the previous key's %v (times must strictly increase)", t, float64(times[k-1]))
		}
	}
	return nil
}
