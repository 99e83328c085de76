package crowd

import (
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"math"
	"math/rand/v2"
	"testing"
)

func playerRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	r := registry.New()
	t.Cleanup(func() { r.Close() })
	for _, s := range builtinSpecs[:2] {
		if err := r.Load(registry.Memory(registry.File{Name: s.name + ".bpat", Data: encode(t, contents(s))})); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// A one-shot that reaches its end holds its end pose for Hold clip lengths,
// then plays again from phase 0; a looping clip never does, and with a negative
// Hold a one-shot stays at its end.
func TestPlayerReplaysOneShots(t *testing.T) {
	r := playerRegistry(t)
	h := r.Species(unit.SpeciesHumanoid)
	squat, idle := clipID(h, "idle_squat"), clipID(h, "idle") // a one-shot and a loop
	for _, clocked := range []bool{false, true} {
		p := NewPlayer(r, 3, clocked)
		p.Hold = 0.49 // rates within float32 rounding of 1: a hold of 0.5 is reached at 0.49 or 0.5
		p.Start(0, unit.SpeciesHumanoid, squat, 0.75)
		p.Start(1, unit.SpeciesHumanoid, idle, 0.75)
		p.Start(2, unit.SpeciesHumanoid, squat, 1.25) // a quarter of its hold done
		for u := range 3 {
			p.Change(u, p.Clip[u], float32(h.Clips[p.Clip[u]].Duration), 0) // one clip length per second
			if math.Abs(float64(p.Rate[u]-1)) > 1e-6 {
				t.Fatalf("unit %d at the pace of its duration: rate %v, want 1", u, p.Rate[u])
			}
		}
		if p.PhaseNow(2) != 1 {
			t.Fatalf("clocked %v: started beyond its end, a one-shot shows phase %v, want 1", clocked, p.PhaseNow(2))
		}
		phases := func(dt float32) [3]float32 {
			p.Replay(dt)
			if err := p.Advance(dt); err != nil {
				t.Fatal(err)
			}
			return [3]float32{p.PhaseNow(0), p.PhaseNow(1), p.PhaseNow(2)}
		}
		// Each step: Replay counts dt of the hold at the phase shown before it.
		steps := []struct {
			dt   float32
			want [3]float32
		}{
			{0.125, [3]float32{0.875, 0.875, 1}}, // unit 2: 0.375 held
			{0.125, [3]float32{1, 0, 0.125}},     // unit 2: held 0.5 ≥ Hold, plays again; the loop wraps
			{0.25, [3]float32{1, 0.25, 0.375}},   // unit 0: 0.25 held
			{0.25, [3]float32{0.25, 0.5, 0.625}}, // unit 0: 0.5 held ≥ Hold: replayed, then advanced
		}
		for k, s := range steps {
			if got := phases(s.dt); !near3(got, s.want) {
				t.Errorf("clocked %v step %d: phases %v, want %v", clocked, k, got, s.want)
			}
		}
		p.Hold = -1
		for range 8 {
			phases(0.25)
		}
		if got := p.PhaseNow(0); got != 1 {
			t.Errorf("clocked %v: with Hold −1 a one-shot shows %v, want 1 (its end)", clocked, got)
		}
	}
}

func near3(a, b [3]float32) bool {
	for k := range a {
		if math.Abs(float64(a[k]-b[k])) > 1e-5 {
			return false
		}
	}
	return true
}

// The clock mode shows what the per-frame mode shows: every unit's TimeRecord
// resolved at Now gives the Instance and Blend Batch.Step wrote, through clip
// changes that fade, interrupt a fade and pop, a change of rate, a seek and
// replayed one-shots. Changed names the units whose records changed.
func TestPlayerClockMatchesFrames(t *testing.T) {
	r := playerRegistry(t)
	h, horse := r.Species(unit.SpeciesHumanoid), r.Species(unit.SpeciesHorse)
	const n = 6
	frame, clock := NewPlayer(r, n, false), NewPlayer(r, n, true)
	if frame.Clocked() || !clock.Clocked() {
		t.Fatal("Clocked does not say the mode")
	}
	for _, p := range []*Player{frame, clock} {
		p.Hold = 0.3
		for u := range n {
			s, cl := unit.SpeciesHumanoid, clipID(h, "walk")
			if u%2 == 1 {
				s, cl = unit.SpeciesHorse, clipID(horse, "gallop")
			}
			if u == 4 {
				cl = clipID(h, "idle_jump") // a one-shot
			}
			p.Start(u, s, cl, float32(u)/7)
			p.Change(u, cl, 1.1, 0)
		}
	}
	if got := clock.Changed(); len(got) != n || got[0] != 0 || got[n-1] != n-1 {
		t.Errorf("after Start: Changed %v, want every unit in order", got)
	}
	if got := clock.Changed(); len(got) != 0 {
		t.Errorf("Changed again: %v, want none", got)
	}
	if got := frame.Changed(); len(got) != 0 {
		t.Errorf("per frame, Changed %v", got)
	}
	run, fight := clipID(h, "run"), clipID(horse, "fight")
	for k := range 120 {
		dt := float32(1) / 30
		for _, p := range []*Player{frame, clock} {
			switch k {
			case 10:
				p.Change(0, run, 1.2, 0.3)
				p.Change(1, fight, 1, 0.2)
			case 15:
				p.Change(0, clipID(h, "hold"), 1, 0.3) // interrupts the fade
			case 40:
				p.Change(1, clipID(horse, "walk"), 0.9, 0) // a pop
			case 50:
				p.Change(2, p.Clip[2], 2, 0) // a new rate
			case 60:
				p.Seek(3, 0.4)
			}
			p.Replay(dt)
			if err := p.Advance(dt); err != nil {
				t.Fatal(err)
			}
		}
		changed := clock.Changed()
		switch k {
		case 10:
			if len(changed) != 2 || changed[0] != 0 || changed[1] != 1 {
				t.Errorf("step 10: Changed %v, want [0 1]", changed)
			}
		case 50, 60:
			if len(changed) != 1 {
				t.Errorf("step %d: Changed %v, want one unit", k, changed)
			}
		}
		for u := range n {
			o, b := clock.Records[u].At(clock.Now)
			fo, fb := frame.Out[u], frame.Blend[u]
			// The place between two rows: a phase on a frame boundary may round to
			// either side of it (the last frame at lerp 1, or the first at 0).
			at := func(frame, next uint32, lerp float32) float64 {
				return float64(frame) + float64(lerp)*(float64(next)-float64(frame))
			}
			if math.Abs(at(o.Frame, o.Next, o.Lerp)-at(fo.Frame, fo.Next, fo.Lerp)) > 2e-2 ||
				math.Abs(float64(b.Weight-fb.Weight)) > 2e-3 || math.Abs(at(b.Frame, b.Next, b.Lerp)-at(fb.Frame, fb.Next, fb.Lerp)) > 2e-2 {
				t.Fatalf("step %d unit %d: clocked %+v %+v, per frame %+v %+v", k, u, o, b, fo, fb)
			}
			if d := math.Abs(float64(clock.PhaseNow(u) - frame.PhaseNow(u))); d > 1e-4 && d < 1-1e-4 { // 0 and 1 are one place in a loop
				t.Fatalf("step %d unit %d: phase %v clocked, %v per frame", k, u, clock.PhaseNow(u), frame.PhaseNow(u))
			}
		}
	}
}

// A rider seated with Ride starts and changes with its horse: the clip
// RiderClips gives for the horse's, at the horse's start phase, pace and fade.
func TestPlayerRide(t *testing.T) {
	r := playerRegistry(t)
	h, horse := r.Species(unit.SpeciesHumanoid), r.Species(unit.SpeciesHorse)
	clips := registry.RiderClips(horse, h)
	for _, clocked := range []bool{false, true} {
		p := NewPlayer(r, 3, clocked)
		p.Ride(1, 0, unit.SpeciesHumanoid, clips)
		p.Start(0, unit.SpeciesHorse, clipID(horse, "walk"), 0.25)
		p.Start(2, unit.SpeciesHorse, clipID(horse, "walk"), 0.5) // no rider
		if p.Clip[1] != clipID(h, "riding_idle") || p.Species[1] != unit.SpeciesHumanoid || p.PhaseNow(1) != 0.25 {
			t.Errorf("clocked %v: the rider starts on %d of species %d at %v", clocked, p.Clip[1], p.Species[1], p.PhaseNow(1))
		}
		p.Changed()
		p.Change(0, clipID(horse, "gallop"), 1.5, 0.3)
		charge := clipID(h, "riding_charge")
		if p.Clip[1] != charge {
			t.Fatalf("clocked %v: the rider of a galloping horse plays %s", clocked, h.Clips[p.Clip[1]].Name)
		}
		if want := float32(1.5 / h.Clips[charge].Duration); math.Abs(float64(p.Rate[1]-want)) > 1e-6 {
			t.Errorf("clocked %v: the rider's rate %v, want %v (the horse's pace)", clocked, p.Rate[1], want)
		}
		if clocked {
			if got := p.Changed(); len(got) != 2 || got[0] != 0 || got[1] != 1 {
				t.Errorf("Changed %v, want the horse then its rider", got)
			}
			if p.Records[1].FadeInv != 1/float32(0.3) {
				t.Errorf("the rider does not fade with its horse: %+v", p.Records[1])
			}
		} else if err := p.Advance(0.1); err != nil || p.Blend[1].Weight == 0 {
			t.Errorf("the rider does not fade with its horse: %v, %+v", err, p.Blend[1])
		}
		if p.Clip[2] != clipID(horse, "walk") {
			t.Error("a horse with no rider changed")
		}
		// Seeking the horse (the viewer's timeline does) seeks its rider.
		p.Seek(0, 0.6)
		if p.PhaseNow(0) != 0.6 || p.PhaseNow(1) != 0.6 || p.PhaseNow(2) != p.Phase[2] {
			t.Errorf("clocked %v: after Seek(horse, 0.6) the horse is at %v, its rider at %v", clocked, p.PhaseNow(0), p.PhaseNow(1))
		}
	}
}

// With level of detail on, a Player in the GPU clock mode chooses every unit's
// level as one playing per frame does, frame after frame: distance bands with
// hysteresis as units come and go, LevelReduced for a clip the snapshot may not
// show (a death) and for a unit fading in the snapshot band; and where a unit
// shows its snapshot, SnapshotMap gives the frame Step writes.
func TestPlayerClockLevels(t *testing.T) {
	r := playerRegistry(t)
	for _, s := range builtinSpecs[:2] {
		if err := r.AttachSnapshot(unit.SpeciesID(s.id), s.name+"_minimal.bpsm", halfSnapshot(t, s)); err != nil {
			t.Fatal(err)
		}
	}
	h, horse := r.Species(unit.SpeciesHumanoid), r.Species(unit.SpeciesHorse)
	const n = 40
	frame, clock := NewPlayer(r, n, false), NewPlayer(r, n, true)
	clips := [][]unit.ClipID{
		{clipID(h, "walk"), clipID(h, "run"), clipID(h, "idle"), clipID(h, "die_infantry")},
		{clipID(horse, "walk"), clipID(horse, "gallop"), clipID(horse, "fight")},
	}
	for _, p := range []*Player{frame, clock} {
		p.EnableLOD()
		for u := range n {
			s := unit.SpeciesID(u % 2)
			p.Start(u, s, clips[s][u%len(clips[s])], float32(u)/n)
			p.Change(u, p.Clip[u], 1, 0)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	seen := [NumLevels]int{}
	fadingReduced, snapshots := 0, 0
	for k := range 600 {
		dt := float32(1) / 60
		for u := range n {
			// Each unit walks out to 250 m and back on its own period, so that
			// every boundary is crossed both ways, some units lingering near one.
			d := 125 - 125*float32(math.Cos(float64(k)*(0.01+0.0007*float64(u))))
			frame.Distance[u], clock.Distance[u] = d, d
		}
		if k%7 == 0 { // a change of clip, faded, for a unit at random
			u := rng.IntN(n)
			s := frame.Species[u]
			cl := clips[s][rng.IntN(len(clips[s]))]
			for _, p := range []*Player{frame, clock} {
				p.Change(u, cl, 1, 0.4)
			}
		}
		for _, p := range []*Player{frame, clock} {
			if err := p.Advance(dt); err != nil {
				t.Fatal(err)
			}
		}
		for u := range n {
			if frame.Level[u] != clock.Level[u] {
				t.Fatalf("step %d unit %d at %.2f m: level %v per frame, %v clocked", k, u, frame.Distance[u], frame.Level[u], clock.Level[u])
			}
			seen[clock.Level[u]]++
			_, b := clock.Records[u].At(clock.Now)
			if clock.Level[u] == LevelReduced && blended(&b) && clock.Distance[u] > 130 {
				fadingReduced++
			}
			if clock.Level[u] != LevelSnapshot {
				continue
			}
			m, ok := r.Species(clock.Species[u]).SnapshotMap(clock.Clip[u])
			if !ok {
				t.Fatalf("step %d unit %d: at its snapshot with a clip that has none", k, u)
			}
			// The phase a rounding apart may fall on the next frame (or wrap).
			want, got := frame.Out[u].Frame, m.Frame(clock.PhaseNow(u))
			if got != want && got != want+1 && got+1 != want && !(got == m.Offset || want == m.Offset) {
				t.Fatalf("step %d unit %d: snapshot frame %d clocked, %d per frame", k, u, got, want)
			}
			snapshots++
		}
	}
	if seen[LevelFull] == 0 || seen[LevelReduced] == 0 || snapshots == 0 || fadingReduced == 0 {
		t.Errorf("levels seen %v, %d snapshot frames compared, %d fading units shown reduced in the snapshot band: the test does not reach every rule", seen, snapshots, fadingReduced)
	}
	if frame.LODSwitches != clock.LODSwitches || clock.LODSwitches == 0 {
		t.Errorf("band switches: %d per frame, %d clocked", frame.LODSwitches, clock.LODSwitches)
	}
	if _, ok := r.Species(unit.SpeciesHumanoid).SnapshotMap(clipID(h, "die_infantry")); ok {
		t.Error("SnapshotMap offers the death clip, which Step never shows from the snapshot")
	}
}

// Phases and fade times out of range play alike in both modes. A phase far
// outside [0,1), or NaN, given to Start or Seek is settled as a step settles
// one (the clock mode used to keep it, and add Rate·t to it for good: the unit
// stood on one frame while the per-frame mode played on); a fade time that is
// infinite, NaN or too short to invert switches at once in both (an infinite
// one made the per-frame mode fade for ever and the clock switch at once).
func TestPlayerOddTimes(t *testing.T) {
	r := playerRegistry(t)
	h := r.Species(unit.SpeciesHumanoid)
	walk, run, jump := clipID(h, "walk"), clipID(h, "run"), clipID(h, "idle_jump")
	phases := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e30, -1e30, 3e7, -0.25, 1.25}
	fades := []float32{float32(math.Inf(1)), float32(math.NaN()), 1e-40}
	n := 2 * (len(phases) + len(fades))
	frame, clock := NewPlayer(r, n, false), NewPlayer(r, n, true)
	for _, p := range []*Player{frame, clock} {
		for u := range n {
			cl := walk
			if u%2 == 1 {
				cl = jump
			}
			if k := u / 2; k < len(phases) {
				p.Start(u, unit.SpeciesHumanoid, cl, phases[k])
			} else {
				p.Start(u, unit.SpeciesHumanoid, cl, .3)
			}
			p.Change(u, cl, 1, 0)
		}
	}
	dt := float32(1) / 30
	rows := func(p *Player, u int) float64 {
		if p.Clocked() {
			o, _ := p.Records[u].At(p.Now)
			return float64(o.Frame) + float64(o.Lerp)
		}
		return float64(p.Out[u].Frame) + float64(p.Out[u].Lerp)
	}
	check := func(when string) {
		t.Helper()
		for u := range n {
			if f, c := rows(frame, u), rows(clock, u); math.Abs(f-c) > 1e-2 {
				t.Errorf("%s, unit %d: row %.3f per frame, %.3f clocked", when, u, f, c)
			}
		}
	}
	for range 3 {
		for _, p := range []*Player{frame, clock} {
			if err := p.Advance(dt); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after Start")
	for _, p := range []*Player{frame, clock} {
		for u := range n {
			if k := u / 2; k < len(phases) {
				p.Seek(u, phases[k])
			} else {
				p.Change(u, run, 1, fades[k-len(phases)])
			}
		}
	}
	for range 3 {
		for _, p := range []*Player{frame, clock} {
			if err := p.Advance(dt); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after Seek and Change")
	before := rows(clock, 0)
	if err := clock.Advance(dt); err != nil {
		t.Fatal(err)
	}
	if d := rows(clock, 0) - before; math.Abs(d-0.8) > 1e-3 { // 24 fps, 1/30 s
		t.Errorf("after Seek(NaN) the clocked walk moved %v rows in a step, want 0.8", d)
	}
	for u := 2 * len(phases); u < n; u++ {
		if rec := &clock.Records[u]; frame.Fading(u) || rec.FadeInv != 0 || rec.From != (Playhead{}) {
			t.Errorf("unit %d, fade %v: fading %v per frame; clocked record %+v", u, fades[u/2-len(phases)], frame.Fading(u), *rec)
		}
	}
}
