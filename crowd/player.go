package crowd

import (
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
	"math"
)

// Player plays units on clips a program picks by number, not by intent: a
// preview, a parade of every clip, a tool's timeline (docs/runtime.md §10). Its
// Batch holds each unit's species, clip, phase and rate. Per frame, Advance steps
// the Batch (Out and Blend, as Batch.Step writes them); in the GPU clock mode
// (docs/runtime.md §6.2) it moves the clock on instead, and a unit's TimeRecord
// (Records) is rewritten only when its clip, rate or phase is set, by the rules
// Batch plays them (Batch.Play's fades, one-shots clamped at their end), for a
// shader to resolve (TimeRecord.At). GPUClock does the same for units played by
// intent.
//
// A one-shot clip that has reached its end holds its end pose for Hold of its
// lengths (in phase), then plays again from phase 0; negative Hold: it stays.
type Player struct {
	*Batch
	Hold float32
	// Now is the clock mode's time in seconds, and Records each unit's
	// TimeRecord; nil Records: the Player plays per frame.
	Now     float32
	Records []TimeRecord

	reg     *registry.Registry
	held    []float32 // per unit: its end pose held so far, in phase
	rides   []riding  // per unit: the rider it carries (Ride); nil: none does
	clips   [registry.MaxSpeciesID + 1][]playerClip
	touched []bool
	changed []int32
	spare   []int32 // Changed's other buffer
}

// NewPlayer returns a Player of n units, all at species 0 and NoClip, for the
// species of r, per frame or in the GPU clock mode. Hold is −1: one-shots stay
// at their end.
func NewPlayer(r *registry.Registry, n int, clocked bool) *Player {
	p := &Player{Batch: NewBatch(n), Hold: -1, reg: r, held: make([]float32, n)}
	for u := range n {
		p.Clip[u] = unit.NoClip
	}
	if clocked {
		p.Records, p.touched = make([]TimeRecord, n), make([]bool, n)
	}
	return p
}

// riding is a rider a unit carries: its unit (−1: none), species, and its clip
// for each of the carrier's.
type riding struct {
	unit    int32
	species unit.SpeciesID
	clips   []unit.ClipID
}

// Ride seats unit rider on unit horse: from now on Start and Change of the horse
// put the rider on clip clips[c] of species s when the horse goes to its clip c
// (RiderClips gives them), at the same phase, pace and fade, and Seek of the
// horse seeks the rider to the same phase.
func (p *Player) Ride(rider, horse int, s unit.SpeciesID, clips []unit.ClipID) {
	if p.rides == nil {
		p.rides = make([]riding, p.Len())
		for u := range p.rides {
			p.rides[u].unit = -1
		}
	}
	p.rides[horse] = riding{unit: int32(rider), species: s, clips: clips}
}

// Clocked reports whether the Player plays in the GPU clock mode.
func (p *Player) Clocked() bool { return p.Records != nil }

// clip is what the Player needs of clip cl of species s: its first palette
// row, frame count, looping and rate at pace 1 (one pass per its duration; 0
// for a clip of no duration). A clip the species lacks (or a species not
// loaded) plays row 0, loops and stands still.
func (p *Player) clip(s unit.SpeciesID, cl unit.ClipID) *playerClip {
	if cs := p.clips[s]; int(cl) < len(cs) {
		return &cs[cl]
	}
	return p.clipSlow(s, cl)
}

var noClip = playerClip{loops: true}

func (p *Player) clipSlow(s unit.SpeciesID, cl unit.ClipID) *playerClip {
	cs := p.clips[s]
	if cs == nil {
		sp := p.reg.Species(s)
		if sp == nil {
			return &noClip
		}
		// A slot's clips never change once it is loaded: keep them.
		cs = make([]playerClip, len(sp.Clips))
		for k := range sp.Clips {
			c := &sp.Clips[k]
			cs[k] = playerClip{row: uint32(c.FrameOffset), last: uint32(max(c.FrameCount-1, 0)), loops: c.Loops}
			if d := c.Duration; d > 0 && !math.IsInf(d, 0) {
				cs[k].perSecond = float32(1 / d)
			}
		}
		p.clips[s] = cs
	}
	if int(cl) >= len(cs) {
		return &noClip
	}
	return &cs[cl]
}

type playerClip struct {
	row, last uint32
	perSecond float32
	loops     bool
}

// playhead is clip cl of species s at phase and rate, in a TimeRecord: its first
// palette row, and its frame count and looping (a looping clip's phase wraps, a
// one-shot's clamps).
func (p *Player) playhead(s unit.SpeciesID, cl unit.ClipID, phase, rate float32) Playhead {
	c := p.clip(s, cl)
	ph := Playhead{Phase: phase, Rate: rate, Row: c.row, Shape: c.last}
	if c.loops {
		ph.Shape |= ShapeLoops | ShapeWraps
	}
	// Settled as a Batch step settles a unit's phase. A record keeps its phase
	// and adds Rate·t to it, so one far outside [0,1) (or NaN) would stay there:
	// the unit would stand on one frame for good.
	if math.Float32bits(phase) >= one {
		ph.Phase = settle(phase, c.loops)
	}
	return ph
}

// Start puts unit u on clip cl of species s at once, with no fade and rate 0
// until Change sets one: at phase start, in clip lengths into its cycle; beyond
// 1 a one-shot holds its end pose for start − 1 of them.
func (p *Player) Start(u int, s unit.SpeciesID, cl unit.ClipID, start float32) {
	own := p.playhead(s, cl, start, 0) // a one-shot's phase past 1 clamps to its end
	p.Species[u], p.Clip[u], p.Phase[u], p.held[u] = s, cl, own.Phase, 0
	if !p.clip(s, cl).loops && start > 1 {
		p.held[u] = start - 1
	}
	if p.Records != nil {
		p.Records[u] = TimeRecord{Own: own, Start: p.Now}
		p.touch(u)
	}
	if r := p.rider(u, cl); r != nil {
		p.Start(int(r.unit), r.species, r.clips[cl], start)
	}
}

// rider is the rider unit u carries when it plays clip cl, or nil.
func (p *Player) rider(u int, cl unit.ClipID) *riding {
	if p.rides == nil {
		return nil
	}
	if r := &p.rides[u]; r.unit >= 0 && int(cl) < len(r.clips) {
		return r
	}
	return nil
}

// Change puts unit u on clip cl at pace (1: one pass per the clip's Duration;
// Rate holds the phase per second), keeping its phase; when cl is not the clip
// it shows it fades from that one over fade seconds (none when fade is no fade
// time, as Batch.Play says, or it shows NoClip). Registry.ClipFade gives the
// fade a game's state changes would take. The rider it carries (Ride) changes
// with it.
func (p *Player) Change(u int, cl unit.ClipID, pace, fade float32) {
	p.change(u, cl, pace*p.clip(p.Species[u], cl).perSecond, fade)
	if r := p.rider(u, cl); r != nil {
		rc := r.clips[cl]
		p.change(int(r.unit), rc, pace*p.clip(r.species, rc).perSecond, fade)
	}
}

func (p *Player) change(u int, cl unit.ClipID, rate, fade float32) {
	from := p.Clip[u]
	if p.Records != nil {
		r := &p.Records[u]
		switch {
		case from != cl:
			r.Rebase(p.Now)
			if from == unit.NoClip {
				fade = 0
			}
			r.rebasedAgain() // r.Switch without rebasing r a second time
			r.switchRebased(p.Now, p.playhead(p.Species[u], cl, r.Own.Phase, rate), fade)
			p.Clip[u] = cl
			p.touch(u)
		case p.Rate[u] != rate:
			r.Rebase(p.Now)
			r.Own.Rate = rate
			p.touch(u)
		}
		p.Rate[u] = rate
		return
	}
	if from != cl {
		p.Batch.Play(u, cl, p.Phase[u], rate, fade)
	}
	p.Rate[u] = rate
}

// Seek sets unit u's phase now (a fade it is in goes on), and a one-shot's end
// pose holds anew; the rider it carries (Ride) goes with it. A phase outside
// [0,1) wraps (a looping clip) or clamps, and NaN is 0, as a step would make it.
func (p *Player) Seek(u int, phase float32) {
	given := phase
	phase = p.playhead(p.Species[u], p.Clip[u], phase, 0).Phase
	p.Phase[u], p.held[u] = phase, 0
	if p.Records != nil {
		p.Records[u].Rebase(p.Now)
		p.Records[u].Own.Phase = phase
		p.touch(u)
	}
	if r := p.rider(u, p.Clip[u]); r != nil {
		p.Seek(int(r.unit), given)
	}
}

// PhaseNow is the phase unit u's own clip shows: its Phase, or in the clock mode
// its record's phase at Now.
func (p *Player) PhaseNow(u int) float32 {
	if p.Records != nil {
		r := &p.Records[u]
		return r.Own.PhaseAt(p.Now - r.Start)
	}
	return p.Phase[u]
}

// Replay restarts the one-shots that have held their end pose for Hold, dt
// seconds of their rate counted now, from phase 0. A frame of a Player is
// Change, Seek and Start as the program wants, Replay, then Advance.
func (p *Player) Replay(dt float32) { p.replay(dt, 0, p.Len()) }

// replay is Replay for units [lo, hi).
func (p *Player) replay(dt float32, lo, hi int) {
	if p.Hold < 0 {
		return
	}
	for u := lo; u < hi; u++ {
		// NoClip first: a unit on none (a Crowd's unit not overridden) leaves
		// the clip cache alone, which ranges replayed at once share.
		if p.Clip[u] == unit.NoClip || p.clip(p.Species[u], p.Clip[u]).loops || p.PhaseNow(u) < 1 {
			continue
		}
		p.held[u] += p.Rate[u] * dt
		if p.held[u] >= p.Hold {
			p.Seek(u, 0)
		}
	}
}

// Advance plays dt seconds: the Batch steps (per frame), or the clock moves on
// (the records hold; a shader resolves them at the new Now). With level of
// detail on (EnableLOD), the clock mode chooses each unit's Level at the new Now
// by Step's rules (docs/runtime.md §6.4): its distance band with hysteresis, and
// LevelReduced instead of LevelSnapshot where its clip may not be drawn from its
// species' snapshot mesh or its record blends two clips then. Out is not
// written: a shader resolves the rows (at LevelSnapshot, Registry.SnapshotMap's).
func (p *Player) Advance(dt float32) error {
	if p.Records == nil {
		return p.Step(p.reg, dt)
	}
	p.Now += dt
	if !p.lodOn() {
		return nil
	}
	cat := tables(p.reg)
	if cat.closed {
		return registry.ErrClosed
	}
	if err := p.checkLOD(); err != nil {
		return err
	}
	var switches uint64
	for u, s := range p.Species {
		bd := cat.lod[s].next(p.lodBand[u], p.Distance[u])
		if bd != p.lodBand[u] {
			switches++
		}
		p.lodBand[u] = bd
		lv := bd
		if bd == LevelSnapshot {
			if _, b := p.Records[u].At(p.Now); cat.snapRows[entryKey(len(cat.snapRows), s, p.Clip[u])].ok == 0 || blended(&b) {
				lv = LevelReduced
			}
		}
		p.Level[u] = lv
	}
	p.countSwitches(switches)
	p.LODFrame++
	return nil
}

func (p *Player) touch(u int) {
	if !p.touched[u] {
		p.touched[u] = true
		p.changed = append(p.changed, int32(u))
	}
}

// Changed returns the units whose records changed since the last call, in the
// order they first changed, and forgets them: what a clock-mode renderer uploads
// again. The slice stays valid until the next call. Empty per frame.
func (p *Player) Changed() []int32 {
	out := p.changed
	for _, u := range out {
		p.touched[u] = false
	}
	p.changed, p.spare = p.spare[:0], out
	return out
}
