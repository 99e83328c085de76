// The GPU clock's record (docs/runtime.md §8): a unit's playheads, the rows and
// weights a shader reads from them at any time (TimeRecord.At), and the record
// moved on or switched to another clip without a pop (Rebase, Switch).

package crowd

import (
	"math"
	"unsafe"

	"github.com/bonebake/bonebake/crowd/combat"
	"github.com/bonebake/bonebake/crowd/registry"
)

// Playhead is one clip playing as the GPU clock mode describes it: the phase it
// had at its record's Start and its rate, so that at any later time t the phase is
// Phase + Rate·(t − Start), wrapped or clamped; or, for a swing, the combat
// timeline's seconds and tempo, the phase then being AttackPhase of the timeline
// (docs/runtime.md §8). Row and Shape say which palette rows the phase maps to, by
// the rules of docs/formats/bpat.md §5.
type Playhead struct {
	Phase float32 // at Start: the clip's phase, or a swing's timeline seconds
	Rate  float32 // per second: phase, or timeline seconds (the swing's tempo)
	Row   uint32  // palette row of the clip's first frame
	Shape uint32  // N−1 (bits 0–23), ShapeLoops, ShapeWraps, ShapeSwing
}

// Playhead.Shape bits above the frame count.
const (
	ShapeLoops = 1 << 24 // the clip loops: the frame after the last is the first (bpat.md §5)
	ShapeWraps = 1 << 25 // the phase wraps into [0,1); else it clamps to [0,1]
	ShapeSwing = 1 << 26 // Phase and Rate are a swing's timeline seconds and tempo
	ShapeGait  = 1 << 27 // (Prior only) the other gait of a speed blend, weighing PriorShare of the own side
)

// TimeRecord is one unit's record in the GPU clock mode: 64 bytes that change only
// when the unit's clip, rate or fade does. The pose at time t is that of Own, or,
// while t is within a fade (FadeInv > 0 and (t − FadeStart)·FadeInv < 1), Own
// weighted by w = smoothstep((t − FadeStart)·FadeInv), From by (1−w)(1−PriorShare)
// and Prior by (1−w)·PriorShare. When Prior is a speed blend's other gait
// (ShapeGait), it weighs w·PriorShare, Own w·(1−PriorShare) and From 1−w (w = 1
// outside a fade). That is exactly what Animate's Instance and Blend show. At is
// the reference a shader follows.
type TimeRecord struct {
	Own, From, Prior Playhead
	Start            float32 // the clock time at which the playheads' phases hold
	FadeStart        float32 // when the fade began
	FadeInv          float32 // 1 / the fade time; 0 when the unit is not fading
	PriorShare       float32 // of the faded-from side, the prior's share
}

// TimeRecordSize is the size of a TimeRecord in bytes.
const TimeRecordSize = 64

var _ [TimeRecordSize - unsafe.Sizeof(TimeRecord{})]byte

var _ [unsafe.Sizeof(TimeRecord{}) - TimeRecordSize]byte

// phase is the playhead's phase dt seconds after its record's Start.
func (p Playhead) phase(dt float32) float32 {
	q := p.Phase + float32(p.Rate*dt) // no fused multiply-add: a shader computes the product first too
	if p.Shape&ShapeSwing != 0 {
		return combat.AttackPhase(q)
	}
	if math.Float32bits(q) >= one {
		q = settle(q, p.Shape&ShapeWraps != 0)
	}
	if p.Shape&(1<<24-1) == 0 { // one frame: phase 0
		return 0
	}
	return q
}

// rows resolves phase ph to palette rows by docs/formats/bpat.md §5, in float32 as
// a shader does.
func (p Playhead) rows(ph float32) (frame, next uint32, lerp float32) {
	last := p.Shape & (1<<24 - 1)
	scale := float32(last)
	wrapTo := last
	if p.Shape&ShapeLoops != 0 {
		scale, wrapTo = float32(last+1), 0
	}
	pos := ph * scale
	f := min(uint32(pos), last)
	nx := f + 1
	if nx > last {
		nx = wrapTo
	}
	return p.Row + f, p.Row + nx, pos - float32(f)
}

// At returns the rows and weights the record shows at clock time t: what a shader
// in the GPU clock mode computes from it. The Instance's Clip and Species are left
// 0 (the record does not carry them).
func (r *TimeRecord) At(t float32) (Instance, Blend) {
	dt := t - r.Start
	var o Instance
	o.Frame, o.Next, o.Lerp = r.Own.rows(r.Own.phase(dt))
	var b Blend
	own := float32(1)
	if r.FadeInv > 0 {
		if x := (t - r.FadeStart) * r.FadeInv; x < 1 {
			own = smoothstep(max(x, 0))
			b.Frame, b.Next, b.Lerp = r.From.rows(r.From.phase(dt))
			b.Weight = 1 - own
		}
	}
	switch {
	case r.PriorShare == 0:
	case r.Prior.Shape&ShapeGait != 0:
		b.PriorFrame, b.PriorNext, b.PriorLerp = r.Prior.rows(r.Prior.phase(dt))
		b.PriorWeight = own * r.PriorShare
	case own < 1:
		b.PriorFrame, b.PriorNext, b.PriorLerp = r.Prior.rows(r.Prior.phase(dt))
		b.PriorWeight = (1 - own) * r.PriorShare
		b.Weight = (1 - own) * (1 - r.PriorShare)
	}
	if b.Weight == 0 && b.PriorWeight > 0 { // a speed blend alone: the other gait in Blend's first place, as Animate has it
		b.Frame, b.Next, b.Lerp, b.Weight = b.PriorFrame, b.PriorNext, b.PriorLerp, b.PriorWeight
		b.PriorFrame, b.PriorNext, b.PriorLerp, b.PriorWeight = 0, 0, 0, 0
	}
	return o, b
}

// Rebase moves the record's Start to now without changing what it shows: each
// playhead's Phase becomes its phase (or timeline seconds) at now. A fade that
// has ended by now is dropped.
func (r *TimeRecord) Rebase(now float32) {
	if r.FadeInv > 0 && !((now-r.FadeStart)*r.FadeInv < 1) {
		r.From, r.FadeStart, r.FadeInv = Playhead{}, 0, 0
		if r.Prior.Shape&ShapeGait == 0 {
			r.Prior, r.PriorShare = Playhead{}, 0
		}
	}
	dt := now - r.Start
	r.Own, r.Start = r.Own.advanced(dt), now
	if r.FadeInv > 0 {
		r.From = r.From.advanced(dt)
	}
	if r.PriorShare > 0 {
		r.Prior = r.Prior.advanced(dt)
	}
}

// Switch makes to the record's own playhead from now on (its Phase that at now),
// fading over fade seconds from the pose shown, or switching at once when fade is
// no fade time (0, negative, NaN, infinite), by docs/runtime.md §6.1: a fade that
// interrupts another keeps the pose shown (the clip that was fading in becomes
// the one faded from, the older one with the larger share the prior), a speed
// blend fades out as both its gaits, and a swing faded out holds its pose. It is what GPUClock.Commit does on a
// change of clip, for a game that plays clips itself.
func (r *TimeRecord) Switch(now float32, to Playhead, fade float32) {
	r.Rebase(now)
	r.switchRebased(now, to, fade)
}

// rebasedAgain is what a second Rebase at the same time would change in a record
// just rebased: a playhead's phase moves by Rate·0, which is 0 unless the rate is
// not finite (the product is then NaN, and the phase settles to 0).
func (r *TimeRecord) rebasedAgain() {
	if r.Own.Rate*0 != 0 {
		r.Own = r.Own.advanced(0)
	}
	if r.FadeInv > 0 && r.From.Rate*0 != 0 {
		r.From = r.From.advanced(0)
	}
	if r.PriorShare > 0 && r.Prior.Rate*0 != 0 {
		r.Prior = r.Prior.advanced(0)
	}
}

// switchRebased is Switch for a record rebased at now.
func (r *TimeRecord) switchRebased(now float32, to Playhead, fade float32) {
	cur := r.Own
	if cur.Shape&ShapeSwing != 0 {
		cur = Playhead{Phase: combat.AttackPhase(cur.Phase), Row: cur.Row, Shape: cur.Shape &^ ShapeSwing}
	}
	var gait Playhead
	var gaitW float32
	if r.Prior.Shape&ShapeGait != 0 {
		gait, gaitW = r.Prior, r.PriorShare
		gait.Shape &^= ShapeGait
		r.Prior, r.PriorShare = Playhead{}, 0
	}
	switch {
	case !registry.IsFade(fade):
		r.From, r.Prior, r.FadeStart, r.FadeInv, r.PriorShare = Playhead{}, Playhead{}, 0, 0, 0
	case r.FadeInv > 0: // a fade into a speed blend loses the gait
		w := smoothstep((now - r.FadeStart) * r.FadeInv)
		r.From, r.Prior, r.PriorShare = interrupted(cur, r.From, r.Prior, w, r.PriorShare)
	case gaitW > 0:
		r.From, r.Prior, r.PriorShare = interrupted(cur, gait, Playhead{}, 1-gaitW, 0)
	default:
		r.From, r.Prior, r.PriorShare = cur, Playhead{}, 0
	}
	if registry.IsFade(fade) {
		r.FadeStart, r.FadeInv = now, 1/fade
	}
	r.Own = to
}

// PhaseAt is the clip phase the playhead shows dt seconds after its record's
// Start (a swing's attack phase), by TimeRecord.At's rules.
func (p Playhead) PhaseAt(dt float32) float32 { return p.phase(dt) }

// advanced is the playhead moved dt seconds on, so that it holds at a new Start.
func (p Playhead) advanced(dt float32) Playhead {
	if p.Shape&ShapeSwing != 0 {
		p.Phase += float32(p.Rate * dt)
		return p
	}
	p.Phase = p.phase(dt)
	return p
}

// interrupted returns the sides of a fade that interrupts another: cur, the clip
// that was fading in with weight w, becomes the side faded from, and of the
// interrupted fade's sides (from, and prior with its share) the one with the larger
// share becomes the prior, with the share 1 − w. The pose shown does not change
// when the interrupted fade had no prior.
func interrupted[S any](cur, from, prior S, w, share float32) (S, S, float32) {
	if share > .5 {
		from = prior
	}
	return cur, from, 1 - w
}
