package registry

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/formats/gait"
	"github.com/bonebake/bonebake/roster"
)

// TestResolveGaitNumbers: whichever source a gait comes from, a cycle that is
// not a positive finite number of seconds plays one pass per the clip's
// duration, and a speed that is not positive and finite is none; sound numbers
// pass as given, and the first source that names the clip wins.
func TestResolveGaitNumbers(t *testing.T) {
	const dur = 1.25
	inf, nan := math.Inf(1), math.NaN()
	side := &gait.File{Clips: []gait.Clip{
		{Name: "walk", Cycle: 0.8, GroundSpeed: 1.4, GroundSpeedSource: gait.SourceMeasured},
		{Name: "idle", Cycle: 2},
	}}
	table := map[string]roster.Gait{"run": {Cycle: 0.6, Speed: 4}, "walk": {Cycle: 9, Speed: 9}}
	for _, c := range []struct {
		clip string
		game map[string]roster.Gait
		want roster.Gait
		src  string
	}{
		{"walk", nil, roster.Gait{Cycle: 0.8, Speed: 1.4}, GaitMeasured},
		{"idle", nil, roster.Gait{Cycle: 2}, GaitSidecar},
		{"run", nil, roster.Gait{Cycle: 0.6, Speed: 4}, GaitTable},
		{"jump", nil, roster.Gait{Cycle: dur}, GaitNone},
		{"walk", map[string]roster.Gait{"walk": {Cycle: 0, Speed: -1}}, roster.Gait{Cycle: dur}, GaitGame},
		{"walk", map[string]roster.Gait{"walk": {Cycle: inf, Speed: inf}}, roster.Gait{Cycle: dur}, GaitGame},
		{"walk", map[string]roster.Gait{"walk": {Cycle: nan, Speed: nan}}, roster.Gait{Cycle: dur}, GaitGame},
		{"walk", map[string]roster.Gait{"walk": {Cycle: -2, Speed: 3}}, roster.Gait{Cycle: dur, Speed: 3}, GaitGame},
	} {
		g, src := ResolveGait(c.clip, dur, c.game, side, table)
		if g != c.want || src != c.src {
			t.Errorf("%s with game %v: got %+v from %q, want %+v from %q", c.clip, c.game, g, src, c.want, c.src)
		}
	}
}
