package crowd

import (
	"encoding/binary"
	"fmt"
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"io"
	"math"
	"unsafe"
)

// Instance is what the GPU needs to draw one unit: which species' palette texture,
// which two of its rows to blend and how much of the second. Frame and Next are
// palette rows (the clip's frame offset plus the frame within the clip), so a
// shader reads bone b of the pose at texel row Frame, columns 4b..4b+3. It is
// InstanceSize (16) bytes: Batch.InstanceBytes views Out as an instance buffer, and
// Batch.WriteTo writes it.
type Instance struct {
	Frame   uint32         // palette row of the first frame
	Next    uint32         // palette row of the second frame
	Lerp    float32        // weight of Next: pose = lerp(Frame, Next, Lerp)
	Clip    unit.ClipID    // clip index within the species
	Species unit.SpeciesID // species id
	_       uint8
}

// Batch is the playback kernel over N units as a structure of arrays: every Step
// advances each unit's phase by Rate·dt and writes its Instance. Phases of looping
// clips wrap into [0,1); one-shot phases clamp to [0,1]; a single-frame clip keeps
// phase 0. Frames follow docs/formats/bpat.md §5 exactly, as bpat.Resolve computes them from the
// stored phase. Every slice must hold Len() elements. On amd64 Step runs as
// assembly, eight units at a time with AVX2 (four with SSE2 on machines without
// it), with the same results as the Go loop.
type Batch struct {
	Species []unit.SpeciesID
	Clip    []unit.ClipID
	Phase   []float32 // normalized clip phase
	Rate    []float32 // phase per second (0 for a phase set from outside)
	Out     []Instance
	// Blend is each unit's cross-fade for the GPU, beside Out: zero while the unit
	// is not fading. Play starts a fade (Crowd.Animate does when a clip changes),
	// and every Step advances it. Nil in a Batch not made by NewBatch or New: no
	// unit of it fades.
	Blend []Blend
	// Distance is each unit's distance from the camera in metres, for level of
	// detail (EnableLOD allocates it; nil: every unit at full detail), and Level
	// the level Step and Animate chose for it in the same pass (docs/runtime.md
	// §6.4). LODEvery k > 1 gives far units new rows only every k-th frame
	// (LODFrame counts the frames; Step and Animate advance it). LODSwitches
	// counts the changes of distance band.
	Distance    []float32
	Level       []Level
	LODEvery    int
	LODFrame    uint32
	LODSwitches uint64

	fades fades
	// lodBand is each unit's distance band, the level-of-detail memory: it may be
	// farther than the level shown (a snapshot band shows reduced where the clip
	// has no snapshot).
	lodBand []Level
}

// NewBatch returns a batch of n units, all at species 0, clip 0, phase 0.
func NewBatch(n int) *Batch {
	return &Batch{Species: make([]unit.SpeciesID, n), Clip: make([]unit.ClipID, n), Phase: make([]float32, n),
		Rate: make([]float32, n), Out: make([]Instance, n), Blend: make([]Blend, n), fades: newFades(n)}
}

// Len is the number of units.
func (b *Batch) Len() int { return len(b.Species) }

func (b *Batch) check() error {
	n := len(b.Species)
	if len(b.Clip) != n || len(b.Phase) != n || len(b.Rate) != n || len(b.Out) != n {
		return fmt.Errorf("crowd: batch slices of lengths %d %d %d %d %d differ", n, len(b.Clip), len(b.Phase), len(b.Rate), len(b.Out))
	}
	if b.fades.unit != nil && (len(b.Blend) != n || len(b.fades.unit) != n) {
		return fmt.Errorf("crowd: batch Blend of length %d for %d units (a batch keeps the length NewBatch gave it)", len(b.Blend), n)
	}
	if b.lodOn() {
		return b.checkLOD()
	}
	return nil
}

// Step advances every unit by dt seconds and writes its Instance. A unit whose
// species is not loaded, or whose clip its species lacks, gets row 0. It does not
// allocate.
func (b *Batch) Step(r *registry.Registry, dt float32) error {
	err := b.StepRange(r, dt, 0, len(b.Species))
	if err == nil && b.lodOn() {
		b.LODFrame++
	}
	return err
}

// StepRange is Step for units [lo, hi): ranges run in parallel on separate
// goroutines when they do not overlap.
func (b *Batch) StepRange(r *registry.Registry, dt float32, lo, hi int) error {
	c := tables(r)
	if c.closed {
		return registry.ErrClosed
	}
	if err := b.check(); err != nil {
		return err
	}
	if lo < 0 || hi > len(b.Species) || lo > hi {
		return fmt.Errorf("crowd: range [%d,%d) outside the %d units", lo, hi, len(b.Species))
	}
	if b.levelsInKernel() {
		b.countSwitches(stepLOD(c.entries, c.snapRows, &c.lod, b.Species[lo:hi], b.Clip[lo:hi], b.Phase[lo:hi], b.Rate[lo:hi],
			b.Out[lo:hi], b.Distance[lo:hi], b.lodBand[lo:hi], b.Level[lo:hi], dt))
	} else {
		step(c.entries, b.Species[lo:hi], b.Clip[lo:hi], b.Phase[lo:hi], b.Rate[lo:hi], b.Out[lo:hi], dt)
	}
	if b.fades.unit != nil {
		b.fades.step(c.entries, b.Species, b.Phase, b.Blend, lo, hi, dt)
	}
	switch {
	case hi == lo:
	case b.levelsInKernel():
		if b.Blend != nil {
			b.unblendLevels(c, lo, hi)
		}
	case b.lodOn():
		b.countSwitches(b.chooseLevels(c, lo, hi, dt))
	}
	return nil
}

// stepUnits is the playback kernel in Go: the whole kernel on machines without an
// assembly one, and the reference that the assembly matches bit for bit. All slices
// have len(species) elements; entries ends with the empty entry that units whose
// species is not loaded or whose clip number is too large play.
func stepUnits(entries []clipEntry, species []unit.SpeciesID, clips []unit.ClipID, phase, rate []float32, out []Instance, dt float32) {
	n := len(species)
	clips, phase, rate, out = clips[:n], phase[:n], rate[:n], out[:n]
	for i := range species {
		s, cl := species[i], clips[i]
		e := &entries[entryKey(len(entries), s, cl)]
		ph := phase[i] + float32(rate[i]*dt) // the conversion forbids a fused multiply-add, which would round differently
		if math.Float32bits(ph) >= one {
			ph = settle(ph, e.loops())
		}
		ph *= e.keep
		phase[i] = ph
		o := &out[i]
		e.put(o, ph)
		o.Clip, o.Species = cl, s
	}
}

// putRowsGo writes each unit's Instance at its clip and phase, as stepUnits does
// after advancing: a unit whose species is not loaded or whose clip number is too
// large gets the empty entry at the end of entries. It is putRows in Go: the
// whole of it on machines without an assembly kernel, and the reference the
// assembly matches bit for bit.
func putRowsGo(entries []clipEntry, species []unit.SpeciesID, clips []unit.ClipID, phase []float32, out []Instance) {
	n := len(species)
	clips, phase, out = clips[:n], phase[:n], out[:n]
	for i := range species {
		s, cl := species[i], clips[i]
		o := &out[i]
		entries[entryKey(len(entries), s, cl)].put(o, phase[i])
		o.Clip, o.Species = cl, s
	}
}

// settle brings a phase that left [0,1) back: wrapped into [0,1) when wrap is set,
// clamped to [0,1] otherwise; NaN becomes 0. Callers test for the rare case first
// (math.Float32bits(q) >= one) so that the hot loops take no branch into it; it
// makes no calls, so that those loops keep their registers.
func settle(q float32, wrap bool) float32 {
	if wrap {
		t := float32(int32(q)) // floor(q) for |q| < 2³¹ ...
		if t > q {
			t--
		}
		q -= t
		if !(q >= 0 && q < 1) { // ... else garbage; and −tiny wraps to 1−tiny, which rounds to 1
			q = 0
		}
		return q
	}
	if !(q >= 0) {
		return 0
	}
	return min(q, 1)
}

// one is the bit pattern of float32 1: a float32 q is in [0,1) exactly when
// math.Float32bits(q) < one (negatives and NaNs compare above it).
const one = 0x3f800000

// put resolves phase ph into frames by docs/formats/bpat.md §5 and writes them to o as palette
// rows: exactly bpat.Resolve(float64(ph), N, loops), offset by the clip's first row.
func (e *clipEntry) put(o *Instance, ph float32) {
	o.Frame, o.Next, o.Lerp = e.rows(ph)
}

// rows is what put writes: the palette rows phase ph falls between and the
// weight of the second.
func (e *clipEntry) rows(ph float32) (frame, next uint32, lerp float32) {
	pos := float64(ph) * float64(e.scale)
	last, wrapTo := e.last, e.wrapTo // loaded up front, the choice below is a conditional move
	f := min(int32(pos), last)
	nx := f + 1
	if nx > last {
		nx = wrapTo
	}
	return e.offset + uint32(f), e.offset + uint32(nx), float32(pos - float64(f))
}

// InstanceSize is the size of an Instance in bytes: the stride of an instance
// buffer that Batch.InstanceBytes fills.
const InstanceSize = 16

var _ [InstanceSize - unsafe.Sizeof(Instance{})]byte // Instance is 16 bytes ...
var _ [unsafe.Sizeof(Instance{}) - InstanceSize]byte // ... no more, no less

// InstanceBytes returns Out as bytes, without copying, for an instance buffer:
// InstanceSize bytes per unit, in unit order, each laid out as
//
//	offset 0   uint32   Frame (palette row of the first frame)
//	offset 4   uint32   Next (palette row of the second frame)
//	offset 8   float32  Lerp (weight of Next)
//	offset 12  uint16   Clip
//	offset 14  uint8    Species
//	offset 15  uint8    0
//
// in the host's byte order: little-endian on amd64 and arm64, as GPUs read it
// (WriteTo writes little-endian on any host). The slice shares Out's memory:
// every Step or Animate changes it, and it must not be written to.
func (b *Batch) InstanceBytes() []byte {
	if len(b.Out) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&b.Out[0])), len(b.Out)*InstanceSize)
}

// WriteTo writes Out to w as InstanceBytes lays it out, little-endian: it
// implements io.WriterTo.
func (b *Batch) WriteTo(w io.Writer) (int64, error) {
	if littleEndian {
		n, err := w.Write(b.InstanceBytes())
		return int64(n), err
	}
	buf := make([]byte, 0, len(b.Out)*InstanceSize)
	for _, o := range b.Out {
		buf = binary.LittleEndian.AppendUint32(buf, o.Frame)
		buf = binary.LittleEndian.AppendUint32(buf, o.Next)
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(o.Lerp))
		buf = binary.LittleEndian.AppendUint16(buf, uint16(o.Clip))
		buf = append(buf, uint8(o.Species), 0)
	}
	n, err := w.Write(buf)
	return int64(n), err
}

var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()
