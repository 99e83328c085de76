package crowd

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
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
	d := registry.DefaultLOD(unit.SpeciesHumanoid)
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
	if err := r.AttachSnapshot(unit.SpeciesHumanoid, "humanoid_minimal.bpsm", halfSnapshot(t, spec)); err != nil {
		t.Fatal(err)
	}
	h := r.Species(unit.SpeciesHumanoid)
	if h.Snapshot == nil {
		t.Fatal("no snapshot after AttachSnapshot")
	}
	snap := h.Snapshot.Clips()
	walk, die := clipID(h, "walk"), clipID(h, "die_infantry")
	near, far := NewBatch(4), NewBatch(4)
	far.EnableLOD()
	d := registry.DefaultLOD(unit.SpeciesHumanoid)
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
	h := r.Species(unit.SpeciesHumanoid)
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
	r, err := registry.Open(registry.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if h := r.Species(unit.SpeciesHumanoid); h.Snapshot == nil || filepath.Base(h.SnapshotPath) != "humanoid_minimal.bpsm" {
		t.Fatalf("humanoid snapshot %v from %q", h.Snapshot, h.SnapshotPath)
	}
	if r.Species(unit.SpeciesHorse).Snapshot != nil {
		t.Fatal("the horse got a snapshot it has not")
	}
	err = r.AttachSnapshot(unit.SpeciesHorse, "wrong.bpsm", halfSnapshot(t, builtinSpecs[0]))
	if err == nil || !strings.Contains(err.Error(), "wrong.bpsm") || !strings.Contains(err.Error(), "species_id 0") {
		t.Fatalf("a humanoid snapshot for the horse: %v", err)
	}
}

// A unit in the snapshot band that is fading shows LevelReduced, its palette
// rows blended (floored), until its fade ends; then its snapshot. Its band does
// not change meanwhile, so it does not count as a switch.
func TestLODFadingStaysReduced(t *testing.T) {
	r := testRegistry(t)
	if err := r.AttachSnapshot(unit.SpeciesHumanoid, "humanoid_minimal.bpsm", halfSnapshot(t, builtinSpecs[0])); err != nil {
		t.Fatal(err)
	}
	h := r.Species(unit.SpeciesHumanoid)
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

// lodTestRegistry is the test registry with half-frame snapshot meshes for every
// built-in species, so that the snapshot band shows snapshot frames (and deaths
// reduced ones).
func lodTestRegistry(t testing.TB) *registry.Registry {
	r := testRegistry(t)
	for _, sp := range builtinSpecs {
		if err := r.AttachSnapshot(unit.SpeciesID(sp.id), sp.name+"_minimal.bpsm", halfSnapshot(t, sp)); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// lodDistance draws distances that test the level choice: random ones, and every
// species' boundaries widened and narrowed by the hysteresis, exactly and one
// float32 step either side, and hostile ones (NaN, infinities, signed zeros,
// negatives).
func lodDistance(rng *rand.Rand) float32 {
	switch rng.IntN(4) {
	case 0:
		return float32(rng.Float64() * 250)
	case 1:
		odd := []float32{0, float32(math.Copysign(0, -1)), -1, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e38, 1e-38}
		return odd[rng.IntN(len(odd))]
	}
	d := registry.DefaultLOD(unit.SpeciesID(rng.IntN(3)))
	t := []float32{d.Reduced, d.Snapshot}[rng.IntN(2)] * []float32{1 + registry.LODHysteresis, 1 - registry.LODHysteresis, 1}[rng.IntN(3)]
	return []float32{t, math.Nextafter32(t, 0), math.Nextafter32(t, 1e9)}[rng.IntN(3)]
}

// The kernel with the level pass folded in (assembly on amd64) gives the Go
// reference's bits: phases, Instances, bands, levels and the count of band
// changes, for distances at and about every boundary, bands that were anything,
// clips with and without snapshot frames, species not loaded, lengths that are
// not whole groups, and many steps (so that bands move both ways).
func TestLODKernelMatchesGo(t *testing.T) {
	defer setWideKernel(true)
	r := lodTestRegistry(t)
	cat := tables(r)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{0, 1, 3, 4, 5, 8, 63, 1000} {
		a, b := NewBatch(n), NewBatch(n)
		a.EnableLOD()
		b.EnableLOD()
		for i := range n {
			a.Species[i] = unit.SpeciesID([]int{0, 1, 2, 3, 4, 5, 6, 200, 255}[rng.IntN(9)])
			a.Clip[i] = unit.ClipID([]int{0, 1, 5, 22, 24, 25, 255, 256, 300, 65535}[rng.IntN(10)])
			if rng.IntN(2) == 0 {
				a.Clip[i] = unit.ClipID(rng.IntN(25))
			}
			a.Phase[i] = float32(rng.Float64()*3 - 1)
			a.Rate[i] = float32(rng.NormFloat64())
			a.lodBand[i] = Level(rng.IntN(3))
		}
		copy(b.Species, a.Species)
		copy(b.Clip, a.Clip)
		copy(b.Phase, a.Phase)
		copy(b.Rate, a.Rate)
		copy(b.lodBand, a.lodBand)
		seen := [NumLevels]int{}
		for k := range 40 {
			for i := range n {
				d := lodDistance(rng)
				a.Distance[i], b.Distance[i] = d, d
			}
			dt := []float32{1.0 / 60, 0, .3}[k%3]
			setWideKernel(k%2 == 0) // the widest kernel the machine has, and the next one down
			sa := stepLOD(cat.entries, cat.snapRows, &cat.lod, a.Species, a.Clip, a.Phase, a.Rate, a.Out, a.Distance, a.lodBand, a.Level, dt)
			sb := stepUnitsLOD(cat.entries, cat.snapRows, &cat.lod, b.Species, b.Clip, b.Phase, b.Rate, b.Out, b.Distance, b.lodBand, b.Level, dt)
			if sa != sb {
				t.Fatalf("n=%d step %d: %d band changes, Go kernel %d", n, k, sa, sb)
			}
			for i := range n {
				if math.Float32bits(a.Phase[i]) != math.Float32bits(b.Phase[i]) || a.Out[i] != b.Out[i] ||
					math.Float32bits(a.Out[i].Lerp) != math.Float32bits(b.Out[i].Lerp) || a.lodBand[i] != b.lodBand[i] || a.Level[i] != b.Level[i] {
					t.Fatalf("n=%d step %d unit %d (species %d clip %d at %v m): %v %+v band %v level %v, Go kernel %v %+v band %v level %v",
						n, k, i, a.Species[i], a.Clip[i], a.Distance[i], a.Phase[i], a.Out[i], a.lodBand[i], a.Level[i],
						b.Phase[i], b.Out[i], b.lodBand[i], b.Level[i])
				}
				seen[a.Level[i]]++
			}
		}
		if n >= 63 && (seen[LevelFull] == 0 || seen[LevelReduced] == 0 || seen[LevelSnapshot] == 0) {
			t.Fatalf("n=%d: levels seen %v: the test does not reach every level", n, seen)
		}
	}
}

// Step, choosing levels in the kernel's pass, gives what the level pass after the
// kernel and the fade pass (chooseLevels, which Animate and LODEvery > 1 use) gives:
// the same Instances, Blends, levels, bands and switches, with units fading into
// and out of far bands (a fading unit in the snapshot band shows reduced).
func TestLODInKernelMatchesPass(t *testing.T) {
	r := lodTestRegistry(t)
	cat := tables(r)
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 1001
	a, b := NewBatch(n), NewBatch(n)
	a.EnableLOD()
	b.EnableLOD()
	for i := range n {
		s := unit.SpeciesID(rng.IntN(6))
		cl, ph, rt := unit.ClipID(rng.IntN(len(r.Species(s).Clips))), float32(rng.Float64()), float32(rng.Float64()*2)
		for _, x := range []*Batch{a, b} {
			x.Species[i] = s
			x.Play(i, cl, ph, rt, 0)
		}
	}
	var levels [NumLevels]int
	fading := 0
	for k := range 120 {
		for i := range n {
			d := lodDistance(rng)
			a.Distance[i], b.Distance[i] = d, d
			if rng.IntN(20) == 0 { // a new clip, faded in for 0.05 to 0.5 s
				cl, ph, rt := unit.ClipID(rng.IntN(len(r.Species(a.Species[i]).Clips))), float32(rng.Float64()), float32(rng.Float64()*2)
				fade := float32(rng.Float64()*.45 + .05)
				a.Play(i, cl, ph, rt, fade)
				b.Play(i, cl, ph, rt, fade)
			}
		}
		const dt = 1.0 / 60
		if err := a.Step(r, dt); err != nil {
			t.Fatal(err)
		}
		step(cat.entries, b.Species, b.Clip, b.Phase, b.Rate, b.Out, dt)
		b.fades.step(cat.entries, b.Species, b.Phase, b.Blend, 0, n, dt)
		b.LODSwitches += b.chooseLevels(cat, 0, n, dt)
		if a.LODSwitches != b.LODSwitches {
			t.Fatalf("step %d: %d band changes, %d by the level pass", k, a.LODSwitches, b.LODSwitches)
		}
		for i := range n {
			if a.Out[i] != b.Out[i] || a.Blend[i] != b.Blend[i] || a.Level[i] != b.Level[i] || a.lodBand[i] != b.lodBand[i] {
				t.Fatalf("step %d unit %d (at %v m, fading %v): %+v %+v %v, by the level pass %+v %+v %v",
					k, i, a.Distance[i], a.Fading(i), a.Out[i], a.Blend[i], a.Level[i], b.Out[i], b.Blend[i], b.Level[i])
			}
			levels[a.Level[i]]++
			if a.Fading(i) && a.lodBand[i] == LevelSnapshot {
				fading++
			}
		}
	}
	if levels[LevelFull] == 0 || levels[LevelReduced] == 0 || levels[LevelSnapshot] == 0 || fading == 0 {
		t.Fatalf("levels %v, %d fading in the snapshot band: the test does not reach every case", levels, fading)
	}
}
