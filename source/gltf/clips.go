package gltf

import (
	"fmt"
	"math"

	qgltf "github.com/qmuntal/gltf"

	"github.com/bonebake/bonebake/anim"
)

// clips converts every animation, keeping channels on nodes that have a bone.
func (d *document) clips(bone []int, boneCount int) ([]anim.Animation, error) {
	var clips []anim.Animation
	// Channels on one sampler, or samplers on one accessor, share its decoded
	// keys (cachedDecode); each accessor's times and values are also scanned
	// once, so that what many channels on one sampler cost is that sampler's
	// keys once, not channels × keys (docs/formats/gltf.md §6).
	type keyTimes struct {
		times      []float32
		start, end float64
	}
	inputs := map[int]keyTimes{} // by accessor
	finiteValues := map[int]bool{}
	valid := new(anim.ValidCache)
	for ai, a := range d.doc.Animations {
		c := anim.Animation{Name: a.Name, Start: math.Inf(1)}
		// glTF allows one channel per node and path in an animation; of
		// several, the last is kept, in the first's place, so that sampling
		// costs a track per bone and path however many channels repeat one.
		type target struct {
			bone int
			path anim.Path
		}
		tracks := map[target]int{}
		if c.Name == "" {
			c.Name = fmt.Sprintf("animation_%d", ai)
		}
		for ci, ch := range a.Channels {
			what := label("animation", ai, a.Name) + fmt.Sprintf(" channel %d", ci)
			if ch.Target.Node == nil {
				continue // an extension's target (KHR_animation_pointer): not a node
			}
			node := *ch.Target.Node
			if node < 0 || node >= len(d.doc.Nodes) {
				return nil, d.fail(RuleChannelTarget, "%s targets node %d, but there are %d nodes", what, node, len(d.doc.Nodes))
			}
			var path anim.Path
			switch ch.Target.Path {
			case qgltf.TRSTranslation:
				path = anim.Translation
			case qgltf.TRSRotation:
				path = anim.Rotation
			case qgltf.TRSScale:
				path = anim.Scale
			case qgltf.TRSWeights:
				path = 255
			default:
				return nil, d.fail(RuleChannelTarget, "%s targets unknown path %q of node %d", what, ch.Target.Path, node)
			}
			s, err := d.sampler(ai, ci, path == 255)
			if err != nil {
				return nil, err
			}
			in, ok := inputs[s.Input]
			if !ok {
				if in.times, err = d.times(s.Input, what); err != nil {
					return nil, err
				}
				in.start = math.Inf(1)
				for _, t := range in.times {
					in.start, in.end = min(in.start, float64(t)), max(in.end, float64(t))
				}
				inputs[s.Input] = in
			}
			times := in.times
			c.Start, c.Duration = min(c.Start, in.start), max(c.Duration, in.end)
			if path == 255 || bone[node] < 0 {
				continue
			}
			tr := anim.Track{Bone: bone[node], Path: path, Times: times}
			switch s.Interpolation {
			case qgltf.InterpolationStep:
				tr.Interpolation = anim.Step
			case qgltf.InterpolationCubicSpline:
				tr.Interpolation = anim.CubicSpline
			default:
				tr.Interpolation = anim.Linear
			}
			spec, width := specVec3, 3
			if path == anim.Rotation {
				spec, width = specRotation, 4
			}
			if tr.Values, err = d.floats(s.Output, what+" output", spec); err != nil {
				return nil, err
			}
			per := width
			if tr.Interpolation == anim.CubicSpline {
				per *= 3
			}
			if len(tr.Values) != per*len(times) {
				return nil, d.fail(RuleSampler, "%s: output accessor %d has %d values for %d keys (want %d per key)", what, s.Output, len(tr.Values), len(times), per)
			}
			if !finiteValues[s.Output] {
				for k, v := range tr.Values {
					if !finite(float64(v)) {
						return nil, d.fail(RuleKeys, "%s: value %d of key %d is %v", what, k%per, k/per, v)
					}
				}
				finiteValues[s.Output] = true
			}
			if k, ok := tracks[target{tr.Bone, tr.Path}]; ok {
				c.Tracks[k] = tr
				continue
			}
			tracks[target{tr.Bone, tr.Path}] = len(c.Tracks)
			c.Tracks = append(c.Tracks, tr)
		}
		if math.IsInf(c.Start, 1) {
			c.Start = 0 // no channels
		}
		if err := c.ValidateShared(boneCount, valid); err != nil {
			return nil, d.wrap(RuleKeys, err, "%s is not a valid clip", label("animation", ai, a.Name))
		}
		clips = append(clips, c)
	}
	return clips, nil
}

// sampler returns the sampler channel ci of animation ai uses, after checking that
// its input and output accessors exist and agree on the number of keys (a weights
// output has one element per morph target per key).
func (d *document) sampler(ai, ci int, weights bool) (*qgltf.AnimationSampler, error) {
	a := d.doc.Animations[ai]
	ch := a.Channels[ci]
	if ch.Sampler < 0 || ch.Sampler >= len(a.Samplers) {
		return nil, d.fail(RuleSampler, "animation %d channel %d uses sampler %d, but the animation has %d", ai, ci, ch.Sampler, len(a.Samplers))
	}
	s := a.Samplers[ch.Sampler]
	what := fmt.Sprintf("animation %d sampler %d", ai, ch.Sampler)
	for _, acc := range []int{s.Input, s.Output} {
		if acc < 0 || acc >= len(d.doc.Accessors) {
			return nil, d.fail(RuleSampler, "%s: accessor %d does not exist (there are %d)", what, acc, len(d.doc.Accessors))
		}
	}
	in, out := d.doc.Accessors[s.Input].Count, d.doc.Accessors[s.Output].Count
	per := 1
	if s.Interpolation == qgltf.InterpolationCubicSpline {
		per = 3
	}
	if weights {
		if in < 1 || out%(per*in) != 0 {
			return nil, d.fail(RuleSampler, "%s: input accessor %d has %d keys but output accessor %d has %d elements, not a multiple of %d",
				what, s.Input, in, s.Output, out, per*in)
		}
	} else if out != per*in {
		return nil, d.fail(RuleSampler, "%s: input accessor %d has %d keys but output accessor %d has %d elements (want %d for %s)",
			what, s.Input, in, s.Output, out, per*in, s.Interpolation)
	}
	return s, nil
}

// times reads a sampler's input accessor: key times in seconds, all finite.
func (d *document) times(acc int, what string) ([]float32, error) {
	t, err := d.floats(acc, what+" input", specTime)
	if err != nil {
		return nil, err
	}
	for k, v := range t {
		if !finite(float64(v)) {
			return nil, d.fail(RuleKeys, "%s: key %d time is %v", what, k, v)
		}
	}
	return t, nil
}
