package bpat

import (
	"math"
	"testing"

	"github.com/bonebake/bonebake/internal/testfiles"
)

// TestGoldenResolve runs the shared golden cases of the playback rule
// (testdata/playback/golden.json, which the crowd runtime and the JavaScript
// package run too) through Resolve.
func TestGoldenResolve(t *testing.T) {
	g := testfiles.LoadPlayback(t)
	for _, c := range g.Resolve {
		p := Resolve(float64(c.Phase), c.Frames, c.Loops)
		if p.Frame != int(c.Want[0]) || p.Next != int(c.Want[1]) || math.Abs(float64(p.Lerp)-c.Want[2]) > g.Tolerance {
			t.Errorf("Resolve(%v, %d, loops %v) = %d, %d, %v; want %v (%s)", c.Phase, c.Frames, c.Loops, p.Frame, p.Next, p.Lerp, c.Want, c.Why)
		}
	}
}
