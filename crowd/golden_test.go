package crowd

import (
	"fmt"
	"math"
	"testing"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/internal/testfiles"
)

// The shared golden cases of the playback rule (testdata/playback/golden.json,
// which formats/bpat and the JavaScript package run too), through the
// runtime's own copies of the rule.

// TestGoldenBatchRows: the Batch's rows (clipEntry.rows) for every settled
// phase of the golden cases (the Batch wraps or clamps a phase before it
// resolves it: a phase in [0, 1) here).
func TestGoldenBatchRows(t *testing.T) {
	g := testfiles.LoadPlayback(t)
	n := 0
	for _, c := range g.Resolve {
		ph := float64(c.Phase)
		if !(ph >= 0 && ph < 1) {
			continue
		}
		n++
		e := makeEntry(&registry.Clip{Clip: bpat.Clip{FrameCount: c.Frames, FrameOffset: 100, Loops: c.Loops}})
		f, nx, l := e.rows(float32(ph))
		if f != 100+uint32(c.Want[0]) || nx != 100+uint32(c.Want[1]) || math.Abs(float64(l)-c.Want[2]) > g.Tolerance {
			t.Errorf("rows(%v) of %d frames (loops %v) from row 100 = %d, %d, %v; want 100 + %v (%s)", ph, c.Frames, c.Loops, f, nx, l, c.Want, c.Why)
		}
	}
	if n < 10 {
		t.Fatalf("only %d golden phases in [0, 1)", n)
	}
}

// showsGolden reports whether rows frame, next and lerp (counted from the
// clip's first) show golden case want of a clip of frames frames at phase. A
// phase in [0, 1) must give want's rows; one outside it, settled before it is
// resolved, may name the same pose differently (a phase just under 0 wraps to
// 1 − ε, which float32 rounds to 1 and settles at 0: frame 0, where want says
// frame N−1 at lerp 1) and compares by where in the clip it stands, frame +
// lerp (mod N when the clip loops).
func showsGolden(phase float64, frames int, loops bool, want [3]float64, tol, frame, next, lerp float64) bool {
	if phase >= 0 && phase < 1 || frame == want[0] && next == want[1] {
		return frame == want[0] && next == want[1] && math.Abs(lerp-want[2]) <= tol
	}
	at := func(f, l float64) float64 {
		if loops {
			return math.Mod(f+l, float64(frames))
		}
		return f + l
	}
	return math.Abs(at(frame, lerp)-at(want[0], want[2])) <= tol
}

// TestGoldenKernels: the playback kernels themselves (step: the AVX2 kernel,
// eight units at a time, and the SSE2 one, four at a time, on amd64, the Go one
// elsewhere; and putRows, which writes Animate's rows) give the golden rows for
// every golden phase (showsGolden). Each case is one unit on a clip of its
// own, the cases repeated to fill whole groups of eight; a step of no time
// leaves the phase as given, settled when outside [0, 1).
func TestGoldenKernels(t *testing.T) {
	g := testfiles.LoadPlayback(t)
	defer setWideKernel(true)
	entries := make([]clipEntry, 1<<clipShift+1) // species 0's clips, then the empty entry
	for k, c := range g.Resolve {
		entries[k] = makeEntry(&registry.Clip{Clip: bpat.Clip{FrameCount: c.Frames, FrameOffset: 100, Loops: c.Loops}})
	}
	n := (3*len(g.Resolve) + 7) / 8 * 8
	species, clips := make([]unit.SpeciesID, n), make([]unit.ClipID, n)
	for i := range n {
		clips[i] = unit.ClipID(i % len(g.Resolve))
	}
	check := func(kernel string, out []Instance) {
		for i, o := range out {
			c := g.Resolve[clips[i]]
			if !showsGolden(float64(c.Phase), c.Frames, c.Loops, c.Want, g.Tolerance, float64(o.Frame)-100, float64(o.Next)-100, float64(o.Lerp)) {
				t.Errorf("%s, unit %d: phase %v of %d frames (loops %v) from row 100 = %d, %d, %v; want 100 + %v (%s)", kernel, i, c.Phase, c.Frames, c.Loops, o.Frame, o.Next, o.Lerp, c.Want, c.Why)
			}
		}
	}
	phases := func() []float32 {
		p := make([]float32, n)
		for i := range p {
			p[i] = float32(g.Resolve[clips[i]].Phase)
		}
		return p
	}
	for _, wide := range []bool{true, false} {
		setWideKernel(wide)
		out := make([]Instance, n)
		step(entries, species, clips, phases(), make([]float32, n), out, 0)
		check(fmt.Sprintf("step (wide kernel %v)", wide), out)
		// putRows takes settled phases, as Animate has them.
		ph := phases()
		for i, q := range ph {
			if math.Float32bits(q) >= one {
				ph[i] = settle(q, g.Resolve[clips[i]].Loops)
			}
		}
		out = make([]Instance, n)
		putRows(entries, species, clips, ph, out)
		check(fmt.Sprintf("putRows (wide kernel %v)", wide), out)
	}
}

// TestGoldenPlayhead: the GPU clock's own phase → frame (Playhead.phase, then
// rows, in float32 as the shader) for every golden phase, a playhead of no rate
// read at its start (showsGolden: a phase outside [0, 1) is settled first).
func TestGoldenPlayhead(t *testing.T) {
	g := testfiles.LoadPlayback(t)
	for _, c := range g.Resolve {
		shape := uint32(c.Frames - 1)
		if c.Loops {
			shape |= ShapeLoops | ShapeWraps
		}
		p := Playhead{Phase: float32(c.Phase), Row: 100, Shape: shape}
		f32, nx32, l32 := p.rows(p.phase(0))
		if !showsGolden(float64(c.Phase), c.Frames, c.Loops, c.Want, g.Tolerance, float64(f32)-100, float64(nx32)-100, float64(l32)) {
			t.Errorf("Playhead at phase %v, %d frames (loops %v), from row 100: %d, %d, %v; want 100 + %v (%s)", c.Phase, c.Frames, c.Loops, f32, nx32, l32, c.Want, c.Why)
		}
	}
}

// TestGoldenTimeRecord: the GPU clock's record (Switch, At) shows the golden
// fades' rows and weights.
func TestGoldenTimeRecord(t *testing.T) {
	g := testfiles.LoadPlayback(t)
	for _, c := range g.Fades {
		var r TimeRecord
		k := 0
		for _, p := range c.Probes {
			for k < len(c.Switches) && c.Switches[k].T <= p.T {
				s := c.Switches[k]
				name := s.To
				if s.Gait != "" {
					name = s.Gait
				}
				h, ok := g.Clips[name]
				if !ok {
					t.Fatalf("%s: no clip %q", c.Name, name)
				}
				shape := h.Frames - 1
				if h.Loops {
					shape |= ShapeLoops
				}
				if h.Wraps {
					shape |= ShapeWraps
				}
				ph := Playhead{Phase: float32(h.Phase), Rate: float32(h.Rate), Row: h.Row, Shape: shape}
				if s.Gait != "" {
					// A speed blend as GPUClock.commit sets one: the other gait
					// takes the prior's place (of an interrupted fade's two
					// sides the one with the larger share stays).
					r.Rebase(float32(s.T))
					if r.PriorShare > .5 {
						r.From = r.Prior
					}
					ph.Shape |= ShapeGait
					r.Prior, r.PriorShare = ph, float32(s.Share)
				} else {
					r.Switch(float32(s.T), ph, float32(s.Fade))
				}
				k++
			}
			o, b := r.At(float32(p.T))
			got := [3][4]float64{
				{float64(o.Frame), float64(o.Next), float64(o.Lerp), float64(1 - b.Weight - b.PriorWeight)},
				{float64(b.Frame), float64(b.Next), float64(b.Lerp), float64(b.Weight)},
				{float64(b.PriorFrame), float64(b.PriorNext), float64(b.PriorLerp), float64(b.PriorWeight)},
			}
			want := [3][4]float64{p.Own, p.From, p.Prior}
			for i := range got {
				for j := range got[i] {
					if math.Abs(got[i][j]-want[i][j]) > g.Tolerance {
						t.Errorf("%s at t=%v: own, from, prior = %v; want %v (%s)", c.Name, p.T, got, want, p.Why)
						i = len(got)
						break
					}
				}
			}
		}
	}
}

// TestGoldenSpeedBlend: the gait pair's blend (docs/runtime.md §6.3) gives
// the golden run weights and phase rates.
func TestGoldenSpeedBlend(t *testing.T) {
	g := testfiles.LoadPlayback(t)
	w, r := g.SpeedBlend.Walk, g.SpeedBlend.Run
	p := gaitPair{walk: 0, run: 1, walkSpeed: float32(w.Speed),
		stride: float32(w.Cycle * w.Speed), strideDiff: float32(r.Cycle*r.Speed - w.Cycle*w.Speed),
		perRunDiff: float32(1 / (r.Speed - w.Speed)),
		walkPer:    float32(1 / (w.Cycle * w.Speed)), runPer: float32(1 / (r.Cycle * r.Speed))}
	for _, c := range g.SpeedBlend.Cases {
		rate, other, b := p.blend(0, float32(c.V))
		if other != 1 || math.Abs(float64(b)-c.Run) > g.Tolerance || math.Abs(float64(rate)-c.Rate) > g.Tolerance*c.Rate {
			t.Errorf("walking at %v m/s: rate %v, run weight %v; want %v, %v (%s)", c.V, rate, b, c.Rate, c.Run, c.Why)
		}
		rate, other, b = p.blend(1, float32(c.V)) // running: the other gait is walk, weighing 1 − b
		if other != 0 || math.Abs(float64(1-b)-c.Run) > g.Tolerance || math.Abs(float64(rate)-c.Rate) > g.Tolerance*c.Rate {
			t.Errorf("running at %v m/s: rate %v, walk weight %v; want %v, %v (%s)", c.V, rate, b, c.Rate, 1-c.Run, c.Why)
		}
	}
}
