package crowd

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/unit"
	"github.com/bonebake/bonebake/formats/bpat"
	"github.com/bonebake/bonebake/roster"
)

// The kernel's frames are bpat.Resolve's for the phase it stores, on every clip of
// the humanoid file (looping, one-shot, single-frame), for phases and steps of every
// kind.
func TestBatchMatchesResolve(t *testing.T) {
	r := testRegistry(t)
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 4096
	b := NewBatch(n)
	for i := range n {
		b.Species[i] = unit.SpeciesID([]int{0, 1, 2, 5}[i%4])
		b.Clip[i] = unit.ClipID(rng.IntN(len(r.Species(b.Species[i]).Clips)))
		b.Phase[i] = []float32{0, 1, .5, -.25, 3.75, 1e-8, .99999994, float32(rng.Float64())}[rng.IntN(8)]
		b.Rate[i] = []float32{0, 1, -2.5, 40, float32(rng.NormFloat64()), float32(math.NaN())}[rng.IntN(6)]
	}
	for step := range 50 {
		dt := []float32{1.0 / 60, .1, 0, 2.7}[step%4]
		before := append([]float32(nil), b.Phase...)
		if err := b.Step(r, dt); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			s := r.Species(b.Species[i])
			c := s.Clips[b.Clip[i]]
			p := b.Phase[i]
			if !(p >= 0 && p <= 1) || (c.Loops && p >= 1) || (c.FrameCount == 1 && p != 0) {
				t.Fatalf("unit %d clip %s: stored phase %v", i, c.Name, p)
			}
			want := bpat.Resolve(float64(p), c.FrameCount, c.Loops)
			o := b.Out[i]
			if o.Frame != uint32(c.FrameOffset+want.Frame) || o.Next != uint32(c.FrameOffset+want.Next) || o.Lerp != want.Lerp ||
				o.Clip != b.Clip[i] || o.Species != b.Species[i] {
				t.Fatalf("unit %d clip %s phase %v: %+v, want %+v at offset %d", i, c.Name, p, o, want, c.FrameOffset)
			}
			// The phase moved by rate·dt (wrapped or clamped).
			rate := b.Rate[i]
			if rate == rate && c.FrameCount > 1 {
				q := float64(before[i]) + float64(rate)*float64(dt)
				var w float64
				if c.Loops {
					w = q - math.Floor(q)
				} else {
					w = math.Min(math.Max(q, 0), 1)
				}
				tol := 1e-6 + math.Abs(q)*1e-7
				if d := math.Abs(float64(p) - w); d > tol && math.Abs(d-1) > tol {
					t.Fatalf("unit %d clip %s: phase %v → %v at rate %v, want %v", i, c.Name, before[i], p, rate, w)
				}
			}
		}
	}
}

// The kernels the machine runs (assembly on amd64: step, and putRows alone) give
// the Go kernels' bits for every unit: phases of every kind, rates that overflow, NaNs, signed zeros,
// species and clips that are not loaded, lengths that are not whole groups.
func TestKernelMatchesGo(t *testing.T) {
	defer setWideKernel(true)
	r := testRegistry(t)
	entries := tables(r).entries
	rng := rand.New(rand.NewPCG(5, 6))
	odd := []float32{0, float32(math.Copysign(0, -1)), 1, -1, .5, .99999994, 1.0000001, 1e-30, -1e-30, 3e9, -3e9, 1e38,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 2147483520, -2147483648, 16777217}
	pick := func() float32 {
		if rng.IntN(3) == 0 {
			return odd[rng.IntN(len(odd))]
		}
		return float32(rng.NormFloat64() * []float64{1, 100, 1e6}[rng.IntN(3)])
	}
	for _, n := range []int{0, 1, 3, 4, 5, 8, 63, 1000} {
		a, b := NewBatch(n), NewBatch(n)
		for i := range n {
			a.Species[i] = unit.SpeciesID([]int{0, 1, 2, 3, 4, 5, 6, 200, 255}[rng.IntN(9)])
			a.Clip[i] = unit.ClipID([]int{0, 1, 5, 22, 24, 25, 255, 256, 300, 65535}[rng.IntN(10)])
			if rng.IntN(2) == 0 {
				a.Clip[i] = unit.ClipID(rng.IntN(25))
			}
			a.Phase[i], a.Rate[i] = pick(), pick()
		}
		copy(b.Species, a.Species)
		copy(b.Clip, a.Clip)
		copy(b.Phase, a.Phase)
		copy(b.Rate, a.Rate)
		for k, dt := range []float32{1.0 / 60, 0, -.5, 1e-3, 7} {
			setWideKernel(k%2 == 0) // the widest kernel the machine has, and the next one down
			step(entries, a.Species, a.Clip, a.Phase, a.Rate, a.Out, dt)
			stepUnits(entries, b.Species, b.Clip, b.Phase, b.Rate, b.Out, dt)
			for i := range n {
				if math.Float32bits(a.Phase[i]) != math.Float32bits(b.Phase[i]) || a.Out[i] != b.Out[i] ||
					math.Float32bits(a.Out[i].Lerp) != math.Float32bits(b.Out[i].Lerp) {
					t.Fatalf("n=%d step %d unit %d (species %d clip %d rate %v): phase %v %+v, Go kernel %v %+v",
						n, k, i, a.Species[i], a.Clip[i], a.Rate[i], a.Phase[i], a.Out[i], b.Phase[i], b.Out[i])
				}
			}
			// The rows alone (Crowd.Animate's pass) at phases of every kind.
			for i := range n {
				a.Phase[i] = pick()
			}
			putRows(entries, a.Species, a.Clip, a.Phase, a.Out)
			putRowsGo(entries, a.Species, a.Clip, a.Phase, b.Out)
			for i := range n {
				if x, y := a.Out[i], b.Out[i]; x.Frame != y.Frame || x.Next != y.Next || x.Clip != y.Clip || x.Species != y.Species ||
					math.Float32bits(x.Lerp) != math.Float32bits(y.Lerp) {
					t.Fatalf("n=%d rows %d unit %d (species %d clip %d phase %v): %+v, Go kernel %+v",
						n, k, i, a.Species[i], a.Clip[i], a.Phase[i], a.Out[i], b.Out[i])
				}
			}
			copy(b.Phase, a.Phase)
		}
	}
}

// The assembly kernel reads entries at a 32-byte stride and their first four
// fields as one vector.
func TestClipEntryLayout(t *testing.T) {
	var e clipEntry
	if unsafe.Sizeof(e) != 32 || unsafe.Offsetof(e.offset) != 4 || unsafe.Offsetof(e.last) != 8 || unsafe.Offsetof(e.wrapTo) != 12 {
		t.Errorf("clipEntry is %d bytes with offset, last, wrapTo at %d, %d, %d", unsafe.Sizeof(e),
			unsafe.Offsetof(e.offset), unsafe.Offsetof(e.last), unsafe.Offsetof(e.wrapTo))
	}
	if unsafe.Sizeof(Instance{}) != 16 || unsafe.Offsetof(Instance{}.Clip) != 12 || unsafe.Offsetof(Instance{}.Species) != 14 {
		t.Error("Instance is not frame, next, lerp, clip, species in 16 bytes")
	}
}

func TestBatchEdges(t *testing.T) {
	r := testRegistry(t)
	b := NewBatch(3)
	b.Species[0], b.Clip[0] = 9, 0                  // species not loaded
	b.Species[1], b.Clip[1] = 1, 60                 // clip the horse lacks
	b.Species[2], b.Clip[2], b.Phase[2] = 0, 22, .7 // dead_infantry, one frame
	if err := b.Step(r, .1); err != nil {
		t.Fatal(err)
	}
	for i, o := range b.Out {
		if i < 2 && (o.Frame != 0 || o.Next != 0 || o.Lerp != 0) {
			t.Errorf("unit %d: %+v, want row 0", i, o)
		}
	}
	if o := b.Out[2]; o.Frame != 708 || o.Next != 708 || o.Lerp != 0 || b.Phase[2] != 0 {
		t.Errorf("dead: %+v phase %v, want row 708 at phase 0", o, b.Phase[2])
	}
	if err := New(0).Animate(r, .1); err != nil || NewBatch(0).Step(r, .1) != nil {
		t.Errorf("empty crowd or batch: %v", err)
	}
	if err := New(5).AnimateRange(r, .1, 3, 3); err != nil {
		t.Errorf("empty range: %v", err)
	}
	b.Rate = b.Rate[:2]
	if err := b.Step(r, .1); err == nil {
		t.Error("stepped slices of different lengths")
	}
	b.Rate = make([]float32, 3)
	if err := b.StepRange(r, .1, 2, 4); err == nil {
		t.Error("stepped a range past the end")
	}
}

func TestBatchNoAllocation(t *testing.T) {
	r := testRegistry(t)
	b := NewBatch(1000)
	c := New(1000)
	m := combat.NewMelee(1000)
	c.Swing = m.Phase
	for i := range 1000 {
		b.Species[i], b.Clip[i], b.Rate[i] = unit.SpeciesID(i%6), unit.ClipID(i%6), 1
		c.Species[i], c.Speed[i], c.Flags[i] = unit.SpeciesID(i%6), float32(i%5), unit.Flags(i)&(unit.Attacking|unit.Running|unit.Dying)
		c.Archetype[i] = map[unit.SpeciesID]roster.Archetype{unit.SpeciesHorse: unit.ArchHorse, unit.SpeciesElephant: unit.ArchElephant}[c.Species[i]]
	}
	if err := c.Check(r); err != nil {
		t.Fatal(err)
	}
	w := &combat.World{HP: make([]float32, 1000)}
	hits := make([]combat.Hit, 0, 1000)
	if a := testing.AllocsPerRun(100, func() {
		b.Step(r, 1.0/60)
		if err := c.Animate(r, 1.0/60); err != nil {
			t.Fatal(err)
		}
		hits = m.Step(w, 1.0/60, hits[:0])
	}); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
}

// putRows gives putRowsGo's bits for the phases Animate leaves (settled: in
// [0, 1], or −0), which the kernel resolves in float32 with fused
// multiply-adds where the machine has them: every clip of every species (and
// of one not loaded), at each frame's boundary and the float32s either side
// of it, 0, −0, 1, the float32 below 1, the smallest, and phases at random.
func TestRowsSettledPhases(t *testing.T) {
	defer setFMAKernel(true)
	r := testRegistry(t)
	entries := tables(r).entries
	rng := rand.New(rand.NewPCG(7, 8))
	phases := []float32{0, float32(math.Copysign(0, -1)), 1, math.Nextafter32(1, 0), 1e-45, 1e-30, .5}
	for n := 1; n <= 80; n++ {
		for k := 0; k <= n; k++ {
			for _, scale := range []float32{float32(n), float32(n - 1)} {
				if scale == 0 {
					continue
				}
				p := float32(k) / scale
				lo, hi := math.Nextafter32(p, 0), math.Nextafter32(p, 2)
				for _, q := range []float32{p, lo, hi, math.Nextafter32(lo, 0), math.Nextafter32(hi, 2)} {
					if q >= 0 && q <= 1 {
						phases = append(phases, q)
					}
				}
			}
		}
	}
	for range 20000 {
		phases = append(phases, rng.Float32())
	}
	for len(phases)%8 != 0 {
		phases = append(phases, rng.Float32())
	}
	m := len(phases)
	species, clips := make([]unit.SpeciesID, m), make([]unit.ClipID, m)
	got, want := make([]Instance, m), make([]Instance, m)
	for _, fma := range []bool{true, false} {
		setFMAKernel(fma)
		for s := range 7 {
			for cl := range 26 {
				for i := range species {
					species[i], clips[i] = unit.SpeciesID(s), unit.ClipID(cl)
				}
				putRows(entries, species, clips, phases, got)
				putRowsGo(entries, species, clips, phases, want)
				for i := range got {
					if x, y := got[i], want[i]; x.Frame != y.Frame || x.Next != y.Next || x.Clip != y.Clip || x.Species != y.Species ||
						math.Float32bits(x.Lerp) != math.Float32bits(y.Lerp) {
						t.Fatalf("fma %v species %d clip %d phase %v (%#x): %+v, Go %+v", fma, s, cl, phases[i], math.Float32bits(phases[i]), x, y)
					}
				}
			}
		}
	}
}
