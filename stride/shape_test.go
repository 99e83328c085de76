package stride

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/rig"
)

// resizedWalker poses walker's walk with its Root scaled by k (its rest
// unscaled): Blender's FBX takes of per-bone actions pose a body 100 times
// its rest's size.
type resizedWalker struct {
	walker
	k float64
}

func (w *resizedWalker) Sample(t float64, pose []rig.Transform) {
	w.walker.Sample(t, pose)
	pose[0].Scale = pose[0].Scale.Scale(w.k)
	pose[0].Translation = pose[0].Translation.Scale(w.k)
}

// TestResizedBodyNotMeasured: a clip posing the body at another size than
// its rest pose's is measured in no lengths of the rest's (H), gets no
// speed, confidence 0, a reason saying so, and no plan. Before the check, the
// walk 100 times its size measured 140 m/s at full confidence.
func TestResizedBodyNotMeasured(t *testing.T) {
	for _, k := range []float64{100, 0.01} {
		w := &resizedWalker{walker{speed: 1.4, dur: 1, stance: 0.6}, k}
		r, err := NewRig(w.skeleton(t, nil), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := r.Measure(w, 0, w.dur, 0, true)
		if res.Status != StatusUntrusted || res.Method != "" || res.Confidence != 0 || res.Speed != 0 {
			t.Errorf("×%g: %+v: want untrusted, no method, confidence 0", k, res)
		}
		if !strings.Contains(res.Reason, "at another size than its rest pose") {
			t.Errorf("×%g: reason %q: want the body's size named", k, res.Reason)
		}
		// Every length in its unit, as the foot's distance is: the rig here
		// names none, so "units".
		if !regexp.MustCompile(`reach [0-9.e+-]+ units at rest and the body is [0-9.e+-]+ units tall`).MatchString(res.Reason) {
			t.Errorf("×%g: reason %q: want the reach and the height in units", k, res.Reason)
		}
		if p := r.Plan(w, 0, w.dur, true, res, 1.4); p != nil {
			t.Errorf("×%g: a plan at %g: want none", k, p.Speed)
		}
	}
	// The same walk at its rest's size still measures.
	w := &resizedWalker{walker{speed: 1.4, dur: 1, stance: 0.6}, 1}
	r, _ := NewRig(w.skeleton(t, nil), nil, Options{})
	if res := r.Measure(w, 0, w.dur, 0, true); res.Status != StatusMeasured || res.Confidence < 0.95 {
		t.Errorf("×1: %+v: want measured", res)
	}
}
