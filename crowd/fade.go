package crowd

import (
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
)

// Blend is the rest of a unit's pose, for the GPU, while it fades or blends walk
// and run: the clip it fades from, or the other gait of its speed blend (rows
// Frame, Next and Lerp, as in Instance) with weight Weight, and, when a fade
// interrupted another (or fades into a speed blend), the clip the interrupted
// fade came from (or the other gait) with weight PriorWeight
// (docs/runtime.md §6.1, §6.3). The unit's own clip (its Instance) weighs
// 1 − Weight − PriorWeight:
//
//	pose = (1−Weight−PriorWeight)·pose(Instance) + Weight·pose(Frame, Next, Lerp)
//	       + PriorWeight·pose(PriorFrame, PriorNext, PriorLerp)
//
// each pose the usual two-row blend. A unit that shows its own clip alone has a
// zero Blend.
// Skinning is linear, so a shader may blend the palette rows or the skinned
// positions alike. It is BlendSize (32) bytes: Batch.BlendBytes views Batch.Blend
// as a second instance buffer.
type Blend struct {
	Frame, Next           uint32  // palette rows of the clip faded from
	Lerp                  float32 // weight of Next
	Weight                float32 // weight of the clip faded from
	PriorFrame, PriorNext uint32  // palette rows of the clip an interrupted fade came from
	PriorLerp             float32
	PriorWeight           float32 // its weight; 0 when the fade interrupted none
}

// BlendSize is the size of a Blend in bytes.
const BlendSize = 32

var _ [BlendSize - unsafe.Sizeof(Blend{})]byte
var _ [unsafe.Sizeof(Blend{}) - BlendSize]byte

// fading is the CPU side of a unit's fade: the clips faded from, which keep
// advancing at the rate they had, and the fade's clock.
type fading struct {
	from, prior clipSide
	priorShare  float32 // of the faded-from side, the prior clip's share
	t           float32 // seconds into the fade
	inv         float32 // 1 / the fade time; 0 when not fading
}

// clipSide is a clip faded from: where it stands, how fast it advances, and
// whether a one-shot clip repeats (as a Crowd plays every one-shot but a death).
type clipSide struct {
	clip   unit.ClipID
	phase  float32
	rate   float32
	repeat bool
}

// fades is a batch's fade state: per unit, and a bit per unit set while it fades
// or blends two gaits, so that the blend pass skips 64 units that do neither with
// one load. Bits are set and cleared atomically: ranges stepped in parallel share
// the words at their edges.
type fades struct {
	unit []fading
	bits []uint64 // fading or blending gaits: the units the blend pass visits
	live []uint64 // fading: the units whose unit entry is in use
	// The speed blend of each walking or running unit (docs/runtime.md §6.3): the
	// other gait's clip, played at the unit's phase, and its weight (0: none).
	// Compact, apart from unit, as Animate writes them for every blending unit.
	gaitClip []unit.ClipID
	gaitW    []float32
}

func newFades(n int) fades {
	return fades{unit: make([]fading, n), bits: make([]uint64, (n+63)/64), live: make([]uint64, (n+63)/64), gaitClip: make([]unit.ClipID, n), gaitW: make([]float32, n)}
}

func (f *fades) on(i int) bool     { return atomic.LoadUint64(&f.bits[i>>6])&(1<<(i&63)) != 0 }
func (f *fades) set(i int)         { atomic.OrUint64(&f.bits[i>>6], 1<<(i&63)) }
func (f *fades) clear(i int)       { atomic.AndUint64(&f.bits[i>>6], ^uint64(1<<(i&63))) }
func (f *fades) fading(i int) bool { return atomic.LoadUint64(&f.live[i>>6])&(1<<(i&63)) != 0 }
func (f *fades) setFading(i int)   { atomic.OrUint64(&f.live[i>>6], 1<<(i&63)) }
func (f *fades) clearFading(i int) { atomic.AndUint64(&f.live[i>>6], ^uint64(1<<(i&63))) }

// smoothstep eases x in [0,1]: 3x² − 2x³.
func smoothstep(x float32) float32 { return x * x * (3 - 2*x) }

// begin starts unit i's fade over d seconds from the clip it showed, cur, to the
// clip it plays from now on. A fade that interrupts another starts from
// the pose being shown: the clip that was fading in becomes the one faded from, and
// the one it was fading from becomes the prior, with the weights they had. Only a
// third change within one fade loses a pose: the smaller share of the two older
// clips is dropped (docs/runtime.md §6.1).
func (f *fades) begin(i int, cur clipSide, d float32) {
	u := &f.unit[i]
	switch {
	case f.fading(i):
		w := smoothstep(u.t * u.inv) // the weight the interrupted fade gave its new clip
		u.from, u.prior, u.priorShare = interrupted(cur, u.from, u.prior, w, u.priorShare)
	case f.on(i) && f.gaitW[i] > 0:
		// Out of a speed blend: both gaits fade out, at the phase and rate they share.
		other := clipSide{f.gaitClip[i], cur.phase, cur.rate, cur.repeat}
		u.from, u.prior, u.priorShare = interrupted(cur, other, clipSide{}, 1-f.gaitW[i], 0)
	default:
		u.from, u.priorShare = cur, 0
	}
	u.t, u.inv, f.gaitW[i] = 0, 1/d, 0
	f.set(i)
	f.setFading(i)
}

// gait sets unit i's speed blend: the other gait's clip and its weight w, 0 < w < 1.
func (f *fades) gait(i int, other unit.ClipID, w float32) {
	f.gaitClip[i], f.gaitW[i] = other, w
	if !f.on(i) {
		f.set(i)
		return
	}
	if u := &f.unit[i]; f.fading(i) && u.priorShare > 0 {
		// Three clips fading out and two gaits are one too many: the gait keeps
		// its place, and of the clips faded from the one with the larger share
		// stays.
		if u.priorShare > .5 {
			u.from = u.prior
		}
		u.priorShare = 0
	}
}

// cancel ends unit i's fade and speed blend: it shows its own clip alone.
func (f *fades) cancel(i int, blend []Blend) {
	if f.on(i) {
		f.unit[i].inv, f.gaitW[i] = 0, 0
		f.clear(i)
		f.clearFading(i)
		blend[i] = Blend{}
	}
}

// step advances the fades of units [lo, hi) by dt and writes their Blends, speed
// blends included (the other gait at the unit's phase); a unit that neither fades
// nor blends any more gets a zero Blend. phase holds the units' phases, already
// advanced.
func (f *fades) step(entries []clipEntry, species []unit.SpeciesID, phase []float32, blend []Blend, lo, hi int, dt float32) {
	if hi <= lo || len(entries) == 0 {
		return
	}
	// The slices in locals: the stores below to units and Blends would otherwise
	// make the compiler load f's fields again for every unit.
	units, gaitW, gaitClip, fbits, flive := f.unit, f.gaitW, f.gaitClip, f.bits, f.live
	_, _, _ = units[hi-1], gaitW[hi-1], gaitClip[hi-1]
	_, _, _ = species[hi-1], phase[hi-1], blend[hi-1]
	entry := func(s unit.SpeciesID, cl unit.ClipID) *clipEntry {
		return &entries[entryKey(len(entries), s, cl)]
	}
	// No software prefetch of the units' fade state and Blends: measured no
	// faster in a battle, and slower where the fading units lie at a stride,
	// which the hardware's prefetch follows (BENCHMARKS.md, issue 46, GameLoop
	// round 5).
	for w := lo >> 6; w<<6 < hi; w++ {
		word := atomic.LoadUint64(&fbits[w])
		live := atomic.LoadUint64(&flive[w])
		if w<<6 < lo { // the range's first word: only its units from lo
			word &= ^uint64(0) << (lo & 63)
		}
		if (w+1)<<6 > hi { // its last: only those below hi
			word &= 1<<(hi&63) - 1
		}
		for word != 0 {
			k := bits.TrailingZeros64(word)
			i := w<<6 | k
			word &= word - 1
			if uint(i) >= uint(hi) { // never (the word is masked to [lo, hi)); it lets the compiler drop the index checks below
				break
			}
			gw := gaitW[i]
			bl := &blend[i]
			// A unit whose fade bit is not live blends speeds alone: its fade
			// state is not touched.
			var u *fading
			own := float32(1) // the share of the unit's own clip and its speed blend
			if live&(1<<k) != 0 {
				u = &units[i]
				u.t += dt
				if x := u.t * u.inv; x < 1 {
					own = smoothstep(x)
				} else {
					u.inv = 0
					f.clearFading(i)
					u = nil
				}
			}
			// The Blend is written in place, field by field, rather than built
			// and copied.
			switch {
			case u != nil:
				out := 1 - own
				e := entry(species[i], u.from.clip)
				u.from.phase = e.advance(u.from.phase, u.from.rate, dt, u.from.repeat)
				bl.Frame, bl.Next, bl.Lerp = e.rows(u.from.phase)
				bl.Weight = out * (1 - u.priorShare)
				switch {
				case u.priorShare > 0:
					e = entry(species[i], u.prior.clip)
					u.prior.phase = e.advance(u.prior.phase, u.prior.rate, dt, u.prior.repeat)
					bl.PriorFrame, bl.PriorNext, bl.PriorLerp = e.rows(u.prior.phase)
					bl.PriorWeight = out * u.priorShare
				case gw > 0: // fading into a speed blend: the other gait takes the prior's rows
					bl.PriorFrame, bl.PriorNext, bl.PriorLerp = entry(species[i], gaitClip[i]).rows(phase[i])
					bl.PriorWeight = own * gw
				default:
					bl.PriorFrame, bl.PriorNext, bl.PriorLerp, bl.PriorWeight = 0, 0, 0, 0
				}
			case gw == 0: // neither fades nor blends any more
				f.clear(i)
				*bl = Blend{}
			default: // a speed blend alone
				bl.Frame, bl.Next, bl.Lerp = entry(species[i], gaitClip[i]).rows(phase[i])
				bl.Weight, bl.PriorFrame, bl.PriorNext, bl.PriorLerp, bl.PriorWeight = gw, 0, 0, 0, 0
			}
		}
	}
}

// advance is a phase dt seconds on at rate, by the batch kernel's rules (a
// one-shot clip repeating when repeat is set).
func (e *clipEntry) advance(ph, rate, dt float32, repeat bool) float32 {
	ph += float32(rate * dt)
	if math.Float32bits(ph) >= one {
		ph = settle(ph, e.loops() || repeat)
	}
	return ph * e.keep
}

// BlendBytes returns Blend as bytes, without copying, for a second instance
// buffer: BlendSize bytes per unit, laid out as the Blend struct (uint32 and
// float32 fields in order), in the host's byte order. Nil when the batch has no
// Blend.
func (b *Batch) BlendBytes() []byte {
	if len(b.Blend) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&b.Blend[0])), len(b.Blend)*BlendSize)
}

// Fading reports whether unit i is fading between clips.
func (b *Batch) Fading(i int) bool {
	return b.fades.unit != nil && b.fades.fading(i)
}

// Blending reports whether unit i shows more than its own clip (Sides gives
// more than one): it fades, or it blends walk and run.
func (b *Batch) Blending(i int) bool { return b.blending(i) }

// blending reports whether unit i shows more than its own clip: it fades, or it
// blends walk and run.
func (b *Batch) blending(i int) bool {
	return b.fades.unit != nil && b.fades.on(i)
}

// Play switches unit i to clip at phase, advancing at rate phases per second,
// fading from what it shows over fade seconds (none when fade is no fade time, as
// isFade says, or the batch has no Blend). It is how a game that drives Batch
// itself changes a unit's clip; a Crowd changes clips in Animate.
func (b *Batch) Play(i int, clip unit.ClipID, phase, rate, fade float32) {
	if b.fades.unit != nil {
		if registry.IsFade(fade) && b.Clip[i] != unit.NoClip {
			b.fades.begin(i, clipSide{b.Clip[i], b.Phase[i], b.Rate[i], false}, fade)
		} else {
			b.fades.cancel(i, b.Blend)
		}
	}
	b.Clip[i], b.Phase[i], b.Rate[i] = clip, phase, rate
}

// blendSides blends unit i's other sides into dst, which holds what sample gave
// for its own clip: dst = w₀·dst + w₁·(from or gait) + w₂·prior, each side sampled
// into tmp (of dst's length) by sample.
func (b *Batch) blendSides(i int, dst, tmp []float32, sample func(clip unit.ClipID, phase float32, tmp []float32) error) error {
	sides := b.Sides(i)
	for k := range dst {
		dst[k] *= sides[0].Weight
	}
	for _, sd := range sides[1:] {
		if sd.Weight == 0 {
			continue
		}
		if err := sample(sd.Clip, sd.Phase, tmp); err != nil {
			return err
		}
		for k := range dst {
			dst[k] += sd.Weight * tmp[k]
		}
	}
	return nil
}

// Sides returns the clips unit i shows: its own, then, while it fades or blends
// two gaits, the others, with the weights its Blend gives them.
func (b *Batch) Sides(i int) [3]registry.Side {
	var s [3]registry.Side
	b.SidesTo(i, &s)
	return s
}

// SpeedBlend reports whether unit i shows a speed blend alone (two gaits, no
// fade) and, if it does, the two sides Sides gives: its clip at weight w0 and
// other at w1, both at its phase. It is for bonebake simulate's meter, which
// reads most blending units so, without their sides' copies.
func (b *Batch) SpeedBlend(i int) (other unit.ClipID, w0, w1 float32, ok bool) {
	if !b.blending(i) || b.fades.fading(i) {
		return 0, 0, 0, false
	}
	// Its Blend's weight, read where the blend pass took it from: a column of
	// a few words a line, not a Blend of 32 bytes (whose PriorWeight is 0).
	w := b.fades.gaitW[i]
	return b.fades.gaitClip[i], 1 - w, w, true
}

// GaitColumns returns the columns SpeedBlend reads, per unit: the other
// gait's clip and its weight, for the units BlendWord says blend without
// fading. It is for bonebake simulate's meter, which reads them as it reads
// Clip and Phase, without a call per unit; they are the batch's own, not to
// be written.
func (b *Batch) GaitColumns() (other []unit.ClipID, weight []float32) {
	return b.fades.gaitClip, b.fades.gaitW
}

// BlendWord is Blending for units 64w to 64w+63 at once, unit i at bit i&63 of
// word i>>6, and which of them fade (the others blend gaits alone, as
// SpeedBlend reads them); 0, 0 for a batch without Blend. It is for bonebake
// simulate's meter, which looks at every unit: a word's load for 64 of them.
func (b *Batch) BlendWord(w int) (blending, fading uint64) {
	if b.fades.unit == nil {
		return 0, 0
	}
	return atomic.LoadUint64(&b.fades.bits[w]), atomic.LoadUint64(&b.fades.live[w])
}

// PrefetchSides asks for the cache lines SidesTo reads of blending unit i
// (its fade entry, Blend and gait clip) without waiting for them: for a
// caller that reads the sides of blending units spread over the batch
// (bonebake simulate's meter, a word of units ahead).
func (b *Batch) PrefetchSides(i int) {
	u := unsafe.Pointer(&b.fades.unit[i])
	lines := [4]unsafe.Pointer{u, unsafe.Add(u, unsafe.Sizeof(b.fades.unit[i])-1), unsafe.Pointer(&b.Blend[i]), unsafe.Pointer(&b.fades.gaitClip[i])}
	prefetchLines(&lines)
}

// SidesTo writes Sides(i) into s, all of it: for a caller that looks at every
// unit, without the copies of a returned array (bonebake simulate's meter).
func (b *Batch) SidesTo(i int, s *[3]registry.Side) {
	s[0] = registry.Side{Clip: b.Clip[i], Phase: b.Phase[i], Weight: 1}
	s[1], s[2] = registry.Side{}, registry.Side{}
	if !b.blending(i) {
		return
	}
	bl, u := &b.Blend[i], &b.fades.unit[i]
	s[0].Weight = 1 - bl.Weight - bl.PriorWeight
	gait := registry.Side{Clip: b.fades.gaitClip[i], Phase: b.Phase[i], Weight: 0}
	switch {
	case !b.fades.fading(i): // a speed blend alone
		gait.Weight = bl.Weight
		s[1] = gait
	case u.priorShare > 0:
		s[1] = registry.Side{Clip: u.from.clip, Phase: u.from.phase, Weight: bl.Weight}
		s[2] = registry.Side{Clip: u.prior.clip, Phase: u.prior.phase, Weight: bl.PriorWeight}
	default:
		gait.Weight = bl.PriorWeight
		s[1] = registry.Side{Clip: u.from.clip, Phase: u.from.phase, Weight: bl.Weight}
		s[2] = gait
	}
}

// Origins writes the model-space origin (x, y, z, metres) of every bone of the pose
// unit i shows into dst (BoneCount·3 floats): its clip at its phase and, while it
// fades, the clips it fades from, weighted as its Blend weighs them. It is for
// measuring how far bones move from one frame to the next (bonebake simulate's
// max_bone_jump_m), not for drawing.
func (b *Batch) Origins(r *registry.Registry, i int, dst []float32) error {
	s, err := b.species(r, i)
	if err != nil {
		return err
	}
	return s.OriginsOf(b.Sides(i), dst)
}
