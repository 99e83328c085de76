package registry

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
)

// FadeTable gives the cross-fade time in seconds of every state change, indexed
// [from][to]: a unit whose clip changes fades from its old clip to its new one over
// that time (0: it switches at once). A game overrides a species' table with
// WithFades. docs/runtime.md §6.1 lists the defaults and the rules.
type FadeTable [unit.NumStates][unit.NumStates]float32

// Default fade times in seconds (docs/runtime.md §6.1).
const (
	FadeLocomotion = 0.3 // between idles, walk, run, hold and the riding loops; also within a state (a new variant)
	FadeFromAttack = 0.2 // out of an attack or a cast into anything but a death
	// Into an attack or a death a fade is short, but at least 0.15 s: a 0.1 s
	// smoothstep spans three frames at 30 Hz and moves half the pose in the
	// middle one (a swing's timing does not depend on it: its phase starts at 0).
	FadeIntoAttack = 0.15 // into an attack or a cast
	FadeIntoDeath  = 0.15 // into Die or Dead
)

// DefaultFades returns the table a game ships unless it says otherwise: FadeIntoDeath
// into Die and Dead, FadeIntoAttack into an attack, FadeFromAttack out of one,
// FadeLocomotion between everything else, and none out of Dead (a corpse that
// rises, say, is a new unit).
func DefaultFades() FadeTable {
	var t FadeTable
	for from := range unit.NumStates {
		for to := range unit.NumStates {
			var d float32
			switch {
			case from == unit.StateDead:
				d = 0
			case to == unit.StateDie || to == unit.StateDead:
				d = FadeIntoDeath
			case to.Swung(): // the attack states: a swing, a shot, a cast
				d = FadeIntoAttack
			case from.Swung():
				d = FadeFromAttack
			default:
				d = FadeLocomotion
			}
			t[from][to] = d
		}
	}
	return t
}

var defaultFades = DefaultFades()

// IsFade reports whether a fade time of d seconds fades: d is positive and
// finite, and so is its inverse (a fade is timed by it). Any other time (0,
// negative, NaN, infinite, or too short for its inverse) switches at once, in
// every mode alike.
func IsFade(d float32) bool { return d > 0 && 1/d > 0 && 1/d <= math.MaxFloat32 }

// Side is one clip of the pose a unit shows (Batch.Sides): the clip, its phase
// and its weight in the blend.
type Side struct {
	Clip   unit.ClipID
	Phase  float32
	Weight float32
}

// OriginsOf writes into dst (BoneCount·3 floats) the origin of every bone of the
// pose sides make (Batch.Sides): what Origins writes for a unit of this species
// showing them. Sides of weight 0 are left out.
func (s *Species) OriginsOf(sides [3]Side, dst []float32) error {
	n := s.File.BoneCount()
	if len(dst) < 3*n {
		return fmt.Errorf("crowd: origin buffer of %d floats; species %s needs %d", len(dst), s.Name, 3*n)
	}
	if err := s.read(); err != nil {
		return err
	}
	defer s.live.RUnlock()
	dst = dst[:3*n]
	clear(dst)
	for _, sd := range sides {
		if sd.Weight == 0 {
			continue
		}
		if int(sd.Clip) >= len(s.Clips) {
			return fmt.Errorf("crowd: species %s has no clip %d", s.Name, sd.Clip)
		}
		c := &s.Clips[sd.Clip]
		p := bpat.Resolve(float64(sd.Phase), c.FrameCount, c.Loops)
		f0, f1 := s.File.Palette(int(sd.Clip), p.Frame), s.File.Palette(int(sd.Clip), p.Next)
		for k := range n {
			for a := range 3 {
				e := k*bpat.FloatsPerBone + 4*a + 3 // the translation column
				dst[3*k+a] += sd.Weight * (f0[e] + (f1[e]-f0[e])*p.Lerp)
			}
		}
	}
	return nil
}
