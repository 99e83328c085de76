package viewer

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/unit"
)

// Step advances the crowd by dt seconds with the runtime and writes every unit's
// record: a battle runs battle.Step (in steps of at most 50 ms; none while dt
// is 0) and reads Crowd.Out, World and Heading; the parade, and the units of an
// asset whose clip is overridden, play crowd.Batch, or in the GPU clock mode
// rewrite the time records of the units whose clip, rate or phase is set. It
// returns the focus unit's clip and phase.
func (c *Scene) Step(dt float32, in StepInput) (Focus, error) {
	focus, err := c.prepare(dt, in)
	if err != nil {
		return Focus{}, err
	}
	c.focus = focus // before advance: the parade's lane ends spare it (travel.go)
	if err := c.advance(dt); err != nil {
		return Focus{}, err
	}
	c.putLevels() // level of detail (lod.go): each unit's level into its record
	c.Steps++
	f := Focus{Clip: -1}
	if focus >= 0 {
		if c.playsBack(focus) {
			f = Focus{Clip: int(c.play.Clip[focus]), Phase: c.play.PhaseNow(focus), Rate: c.play.Rate[focus]}
		} else if u, bc := c.battleOf[focus], c.battle.Crowd; bc.Clip[u] != unit.NoClip { // none before the battle's first step
			f = Focus{Clip: int(bc.Clip[u]), Phase: bc.Phase[u], Rate: bc.Rate[u]}
		}
	}
	return f, nil
}

// prepare checks a step's input and sets the playback units' clips, rates and
// phases for it (the override, the seek, one-shots replayed); it returns the
// focus unit, or −1.
func (c *Scene) prepare(dt float32, in StepInput) (int, error) {
	if !(dt >= 0 && dt <= 1) {
		return -1, fmt.Errorf("dt %v: want 0 to 1 seconds", dt)
	}
	if in.Override != nil && len(in.Override) != len(c.assets) {
		return -1, fmt.Errorf("override: %d clips for %d assets", len(in.Override), len(c.assets))
	}
	for a, o := range in.Override {
		if o < -1 || o >= len(c.assets[a].file.Clips()) {
			return -1, fmt.Errorf("override: asset %d has no clip %d", a, o)
		}
	}
	if in.Focus < -1 || in.Focus >= len(c.assets) {
		return -1, fmt.Errorf("focus %d: want an asset index or -1", in.Focus)
	}
	override := func(a int) int {
		if in.Override == nil {
			return -1
		}
		return in.Override[a]
	}
	focus := -1
	if in.Focus >= 0 && c.Count[in.Focus] > 0 {
		focus = c.First[in.Focus]
	}
	// The playback units' clips and rates for this step. A change fades, except
	// with fades off and in a step of no time (a paused crowd shows a clip
	// chosen at once; fades happen in crowd time).
	c.overridden = false
	if c.cur == nil {
		c.cur = make([]int, len(c.assets))
		for a := range c.cur {
			c.cur[a] = -1
		}
	}
	fades := !in.NoFade && dt > 0
	if c.battle != nil {
		c.battle.Crowd.NoFade = in.NoFade
	}
	for i, a16 := range c.unitAsset {
		a := int(a16)
		cl := -1
		if c.battle == nil {
			cl = int(c.base[i])
		} else if override(a) >= 0 && c.cur[a] < 0 {
			c.takeOver(i) // an override starts: the unit's playback takes over the battle's pose
		} else if override(a) < 0 && c.cur[a] >= 0 {
			c.handBack(i, fades) // it ends: the battle's clip fades in from the override's
		}
		if o := override(a); o >= 0 {
			cl = o
			c.overridden = true
		}
		if cl < 0 {
			continue
		}
		fade := float32(0)
		if fades && int(c.play.Clip[i]) != cl { // the same clip does not fade
			fade = c.fadeTime(a, int(c.play.Clip[i]), cl)
		}
		c.play.Change(i, unit.ClipID(cl), c.vary[i], fade) // a parade's rider changes (and fades) with its horse
	}
	for a := range c.cur {
		c.cur[a] = override(a)
	}
	if c.march != nil {
		c.steer() // the parade's units travel at their clips' speeds from now (travel.go)
	}
	if focus >= 0 && !math.IsNaN(in.Seek) && !math.IsInf(in.Seek, 0) && c.playsBack(focus) {
		from := c.play.PhaseNow(focus)
		c.play.Seek(focus, float32(in.Seek))
		if c.march != nil {
			c.seekMarch(focus, from, c.play.PhaseNow(focus))
		}
	}
	if c.battle == nil || c.overridden {
		c.play.Replay(dt) // the parade's one-shots repeat
	}
	return focus, nil
}

// fadeTime is how long a playback unit of asset a fades from clip from to clip
// to: registry.Registry.ClipFade of its slot (0 from unit.NoClip: a battle unit
// shows no clip before its first step).
func (c *Scene) fadeTime(a, from, to int) float32 {
	return c.regs.reg.ClipFade(c.regs.species(a), unit.ClipID(from), unit.ClipID(to))
}

// takeOver starts playing battle unit i's clip, phase and rate on its playback
// unit: what the override then fades from (a fade the battle unit was in is
// dropped).
func (c *Scene) takeOver(i int) {
	bc, u := c.battle.Crowd, c.battleOf[i]
	c.play.Batch.Play(i, bc.Clip[u], bc.Phase[u], bc.Rate[u], 0)
}

// handBack fades battle unit i from the overridden clip its playback unit shows
// back to the clip the battle plays (the battle's own fade, if any, is lost).
func (c *Scene) handBack(i int, fades bool) {
	bc, u := c.battle.Crowd, c.battleOf[i]
	cl, ph, rt := bc.Clip[u], bc.Phase[u], bc.Rate[u]
	fade := float32(0)
	if fades {
		fade = c.fadeTime(int(c.unitAsset[i]), int(c.play.Clip[i]), int(cl))
	}
	bc.Play(int(u), c.play.Clip[i], c.play.Phase[i], c.play.Rate[i], 0)
	bc.Play(int(u), cl, ph, rt, fade)
}

// advance runs the runtime for dt seconds on the units' clips and rates as set,
// and writes the records.
func (c *Scene) advance(dt float32) error {
	if c.battle == nil || c.overridden {
		if err := c.play.Advance(dt); err != nil { // in the clock mode the records hold: the page resolves them at the new time
			return err
		}
	}
	if c.march != nil {
		c.now += dt // as the clock mode's Player.Now
		c.placeMarchers()
	}
	if c.play.Clocked() {
		return nil
	}
	if c.battle != nil {
		for rest := dt; rest > 0; {
			d := min(rest, maxStepDt)
			if err := c.battle.Step(d); err != nil {
				return err
			}
			rest -= d
		}
		c.battleRecords()
	}
	if c.battle == nil {
		c.paradeRecords()
	} else if c.overridden {
		for i := range c.unitAsset {
			if c.playsBack(i) {
				rec := c.Records[i*RecordFloats : (i+1)*RecordFloats]
				putFrames(rec[recFrame:], &c.play.Out[i])
				putFade(rec[recFade:], &c.play.Blend[i])
			}
		}
	}
	return nil
}

// playsBack reports whether unit i's frames come from the playback batch in the
// step being taken.
func (c *Scene) playsBack(i int) bool {
	return c.battle == nil || c.cur[c.unitAsset[i]] >= 0
}

func putFrames(rec []float32, o *crowd.Instance) {
	rec[0], rec[1], rec[2], rec[3] = float32(o.Frame), float32(o.Next), o.Lerp, 0
}

// putFade writes a unit's fade (crowd.Blend) as the record's eight floats.
func putFade(rec []float32, b *crowd.Blend) {
	rec[0], rec[1], rec[2], rec[3] = float32(b.Frame), float32(b.Next), b.Lerp, b.Weight
	rec[4], rec[5], rec[6], rec[7] = float32(b.PriorFrame), float32(b.PriorNext), b.PriorLerp, b.PriorWeight
}

func (c *Scene) paradeRecords() {
	out, blend := c.play.Out, c.play.Blend
	for i := range c.unitAsset {
		rec := c.Records[i*RecordFloats : (i+1)*RecordFloats]
		putFrames(rec[recFrame:], &out[i])
		putFade(rec[recFade:], &blend[i])
		if r := c.riderUnit[i]; r >= 0 {
			putFrames(rec[recRider:], &out[r])
			putFade(rec[recRiderFade:], &blend[r])
		}
	}
}

func (c *Scene) battleRecords() {
	b := c.battle
	out, blend, w := b.Crowd.Out, b.Crowd.Blend, b.World
	for i, u := range c.battleOf {
		rec := c.Records[i*RecordFloats : (i+1)*RecordFloats]
		putFrames(rec[recFrame:], &out[u])
		putFade(rec[recFade:], &blend[u])
		rec[recPlace], rec[recPlace+1], rec[recPlace+2] = w.X[u], w.Z[u], b.Heading[u]
		if r := c.riderUnit[i]; r >= 0 {
			putFrames(rec[recRider:], &out[r])
			putFade(rec[recRiderFade:], &blend[r])
		}
	}
}

// Alive counts each army's living units in a battle (0, 0 in the parade).
func (c *Scene) Alive() [2]int {
	if c.battle == nil {
		return [2]int{}
	}
	return [2]int{c.battle.Alive(0), c.battle.Alive(1)}
}
