package bake

import (
	"fmt"

	"bonebake/format/bpat"
	"bonebake/rig"
	"bonebake/species"
)

// FromSpecies returns the job that bakes a creature: every clip at its own frame
// count, fps, loop flag and markers, the sockets, every skeleton bone in order.
func FromSpecies(s *species.Species) (*Job, error) {
	j := &Job{SpeciesID: s.ID, Rig: Rig{Skeleton: s.Skeleton, ModelBone: -1}}
	for i := range s.Clips {
		c := &s.Clips[i]
		d := c.Duration()
		if c.Frames < 1 || !(c.FPS > 0) || FrameCount(d, c.FPS, c.Loops) != c.Frames {
			return nil, fmt.Errorf("bake: species %s clip %q: %d frames at %v fps do not round-trip through FACTS §1.5", s.Name, c.Name, c.Frames, c.FPS)
		}
		j.Motions = append(j.Motions, Motion{Name: c.Name, Duration: d, NewSampler: func() Sampler { return phaseSampler{c.Pose, d} }})
		j.Clips = append(j.Clips, Clip{Name: c.Name, Motion: i, FPS: c.FPS, Loops: c.Loops, Markers: c.Markers})
	}
	for _, so := range s.Sockets {
		j.Sockets = append(j.Sockets, Socket{Name: so.Name, Bone: so.Bone, Offset: so.Offset})
	}
	return j, nil
}

// Species bakes a creature into BPAT contents.
func Species(s *species.Species) (*bpat.Contents, error) {
	j, err := FromSpecies(s)
	if err != nil {
		return nil, err
	}
	return Bake(j)
}

// phaseSampler turns a procedural pose function of phase into a Sampler of time.
type phaseSampler struct {
	pose     func(phase float64, pose []rig.Transform)
	duration float64
}

func (p phaseSampler) Sample(t float64, pose []rig.Transform) {
	phase := 0.0
	if p.duration > 0 {
		phase = t / p.duration
	}
	p.pose(phase, pose)
}
