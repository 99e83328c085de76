package crowd

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/formats/bpsm"
)

// halfSnapshot is a snapshot mesh of a synthetic species with half its clips'
// frames (at least one): frame f of clip c carries (c, f) in its one vertex's
// position, so a test can tell which frame a row names.
func halfSnapshot(t testing.TB, s speciesSpec) []byte {
	t.Helper()
	c := &bpsm.Contents{SpeciesID: s.id, LOD: bpsm.LODMinimal, VertexCount: 3, Indices: []uint32{0, 1, 2}}
	for ci, cs := range s.clips {
		c.Clips = append(c.Clips, bpsm.Clip{Name: cs.name})
		n := max(cs.frames/2, 1)
		var fr []bpsm.Vertex
		for f := range n {
			for v := range 3 {
				fr = append(fr, bpsm.Vertex{Position: [3]float32{float32(ci), float32(f), float32(v)}, Normal: [3]float32{0, 1, 0}, Weights: [4]float32{1}})
			}
		}
		c.Frames = append(c.Frames, fr)
	}
	var buf bytes.Buffer
	if err := bpsm.Write(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Levels follow the distance with hysteresis: going out, a unit drops a level 10 %
// past each boundary; coming back, it rises 10 % within it; a camera swaying ±5 %
// about a boundary switches nobody after the first frame.
func TestLODHysteresis(t *testing.T) {
	r := testRegistry(t)
	b := NewBatch(1)
	b.EnableLOD()
	b.Play(0, 5, 0, 1, 0) // the humanoid's walk: no snapshot mesh loaded, so far is reduced
	d := DefaultLOD(SpeciesHumanoid)
	level := func(dist float32) Level {
		b.Distance[0] = dist
		if err := b.Step(r, .01); err != nil {
			t.Fatal(err)
		}
		return b.Level[0]
	}
	for _, c := range []struct {
		dist float32
		want Level
	}{
		{0, LevelFull}, {d.Reduced * 1.05, LevelFull}, {d.Reduced * 1.11, LevelReduced}, {d.Reduced * .95, LevelReduced},
		{d.Reduced * .89, LevelFull}, {d.Snapshot * 1.2, LevelReduced}, // no snapshot mesh: reduced
	} {
		if got := level(c.dist); got != c.want {
			t.Fatalf("at %v m: %v, want %v", c.dist, got, c.want)
		}
	}
	level(d.Reduced)
	before := b.LODSwitches
	for k := range 200 {
		level(d.Reduced * float32(1+.05*math.Sin(float64(k)/3)))
	}
	if b.LODSwitches != before {
		t.Errorf("a camera swaying ±5 %% about the boundary switched the unit %d times", b.LODSwitches-before)
	}
}

// A far unit shows its floor frame: reduced, of its palette; snapshot, of its
// species' snapshot mesh (whose clips hold half the frames), except in a death,
// which stays reduced. Its phase is the phase it has at full detail, so combat,
// which reads phases, does not see levels.
func TestLODRows(t *testing.T) {
	r := testRegistry(t)
	spec := builtinSpecs[0]
	if err := r.LoadSnapshot(SpeciesHumanoid, "humanoid_minimal.bpsm", halfSnapshot(t, spec)); err != nil {
		t.Fatal(err)
	}
	h := r.Species(SpeciesHumanoid)
	if h.Snapshot == nil {
		t.Fatal("no snapshot after LoadSnapshot")
	}
	snap := h.Snapshot.Clips()
	walk, die := clipID(h, "walk"), clipID(h, "die_infantry")
	near, far := NewBatch(4), NewBatch(4)
	far.EnableLOD()
	d := DefaultLOD(SpeciesHumanoid)
	for _, b := range []*Batch{near, far} {
		b.Play(0, walk, .37, .9, 0)
		b.Play(1, walk, .37, .9, 0)
		b.Play(2, die, .2, .5, 0)
		b.Play(3, walk, .61, 1.3, 0)
	}
	far.Distance[0], far.Distance[1], far.Distance[2], far.Distance[3] = 0, d.Reduced*2, d.Snapshot*2, d.Snapshot*2
	for step := range 30 {
		near.Step(r, 1.0/60)
		far.Step(r, 1.0/60)
		for i := range 4 {
			if near.Phase[i] != far.Phase[i] {
				t.Fatalf("step %d unit %d: phase %v at its level, %v at full detail", step, i, far.Phase[i], near.Phase[i])
			}
		}
		if far.Out[0] != near.Out[0] || far.Level[0] != LevelFull {
			t.Fatalf("a near unit: %+v at %v, want %+v", far.Out[0], far.Level[0], near.Out[0])
		}
		c := h.Clips[walk]
		want := uint32(c.FrameOffset) + uint32(math.Floor(float64(far.Phase[1])*float64(c.FrameCount)))
		if o := far.Out[1]; far.Level[1] != LevelReduced || o.Frame != want || o.Next != want || o.Lerp != 0 {
			t.Fatalf("step %d: reduced %+v at %v, want row %d", step, o, far.Level[1], want)
		}
		cd := h.Clips[die]
		want = uint32(cd.FrameOffset) + uint32(math.Floor(float64(far.Phase[2])*float64(cd.FrameCount-1)))
		if o := far.Out[2]; far.Level[2] != LevelReduced || o.Frame != want || o.Lerp != 0 {
			t.Fatalf("step %d: a death far away %+v at %v, want reduced row %d", step, o, far.Level[2], want)
		}
		sw := snap[walk]
		want = uint32(sw.FrameOffset) + uint32(math.Floor(float64(far.Phase[3])*float64(sw.FrameCount)))
		if o := far.Out[3]; far.Level[3] != LevelSnapshot || o.Frame != want || o.Next != want || o.Lerp != 0 {
			t.Fatalf("step %d: snapshot %+v at %v, want snapshot frame %d (of %d)", step, o, far.Level[3], want, sw.FrameCount)
		}
		// The frame named is the walk's in the snapshot file: its vertex says so.
		f := int(far.Out[3].Frame) - sw.FrameOffset
		v := bpsm.DecodeVertex(h.Snapshot.FrameBytes(int(walk), f))
		if int(v.Position[0]) != int(walk) || int(v.Position[1]) != f {
			t.Fatalf("snapshot row %d holds clip %v frame %v", far.Out[3].Frame, v.Position[0], v.Position[1])
		}
	}
}

// With LODEvery k, a far unit's rows change only every k-th frame (those of the
// phase it had then), while its phase follows time.
func TestLODEvery(t *testing.T) {
	r := testRegistry(t)
	h := r.Species(SpeciesHumanoid)
	walk := clipID(h, "walk")
	c := h.Clips[walk]
	b := NewBatch(8)
	b.EnableLOD()
	b.LODEvery = 4
	const rate = .93 // no whole number of frames per step: no row boundary falls on a step
	for i := range 8 {
		b.Play(i, walk, 0, rate, 0)
		b.Distance[i] = 1000
	}
	const dt = 1.0 / 60
	for step := 1; step <= 40; step++ {
		frame := b.LODFrame
		b.Step(r, dt)
		for i := range 8 {
			back := float64((frame + uint32(i)) % 4) // steps since the unit's last turn
			given := float64(step)*dt*rate - back*dt*rate
			want := uint32(c.FrameOffset) + uint32(math.Floor((given-math.Floor(given))*float64(c.FrameCount)))
			if b.Out[i].Frame != want {
				t.Fatalf("step %d unit %d, %v steps after its turn: row %d, want %d", step, i, back, b.Out[i].Frame, want)
			}
		}
	}
	if p, want := float64(b.Phase[0]), 40*dt*rate; math.Abs(p-(want-math.Floor(want))) > 1e-5 {
		t.Errorf("phase %v after 40 steps, want %v", p, want)
	}
}

// Open loads the snapshot mesh beside a species file; one of another species, or
// with other clips, is refused with both files named.
func TestLoadSnapshotBeside(t *testing.T) {
	dir := t.TempDir()
	writeSpecies(t, dir, builtinSpecs[:2]...)
	if err := os.WriteFile(filepath.Join(dir, "humanoid_minimal.bpsm"), halfSnapshot(t, builtinSpecs[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if h := r.Species(SpeciesHumanoid); h.Snapshot == nil || filepath.Base(h.SnapshotPath) != "humanoid_minimal.bpsm" {
		t.Fatalf("humanoid snapshot %v from %q", h.Snapshot, h.SnapshotPath)
	}
	if r.Species(SpeciesHorse).Snapshot != nil {
		t.Fatal("the horse got a snapshot it has not")
	}
	err = r.LoadSnapshot(SpeciesHorse, "wrong.bpsm", halfSnapshot(t, builtinSpecs[0]))
	if err == nil || !strings.Contains(err.Error(), "wrong.bpsm") || !strings.Contains(err.Error(), "species_id 0") {
		t.Fatalf("a humanoid snapshot for the horse: %v", err)
	}
}

// A unit in the snapshot band that is fading shows LevelReduced, its palette
// rows blended (floored), until its fade ends; then its snapshot. Its band does
// not change meanwhile, so it does not count as a switch.
func TestLODFadingStaysReduced(t *testing.T) {
	r := testRegistry(t)
	if err := r.LoadSnapshot(SpeciesHumanoid, "humanoid_minimal.bpsm", halfSnapshot(t, builtinSpecs[0])); err != nil {
		t.Fatal(err)
	}
	h := r.Species(SpeciesHumanoid)
	b := NewBatch(1)
	b.EnableLOD()
	b.Distance[0] = 1000
	b.Play(0, clipID(h, "walk"), .2, 1, 0)
	b.Step(r, .01)
	if b.Level[0] != LevelSnapshot {
		t.Fatalf("far and not fading: %v", b.Level[0])
	}
	switches := b.LODSwitches
	b.Play(0, clipID(h, "run"), .2, 1, .3)
	for k := 0; k < 20; k++ { // 0.2 s of the 0.3 s fade
		b.Step(r, .01)
		if bl := b.Blend[0]; b.Level[0] != LevelReduced || bl.Weight == 0 || bl.Lerp != 0 || bl.Next != bl.Frame {
			t.Fatalf("step %d of a fade, far away: level %v, blend %+v", k, b.Level[0], bl)
		}
	}
	for range 20 {
		b.Step(r, .01)
	}
	if b.Level[0] != LevelSnapshot || b.Blend[0] != (Blend{}) || b.LODSwitches != switches {
		t.Fatalf("after the fade: level %v, blend %+v, %d band changes", b.Level[0], b.Blend[0], b.LODSwitches-switches)
	}
}
