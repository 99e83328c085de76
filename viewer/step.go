package viewer

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/crowd"
	"github.com/bonebake/bonebake/crowd/unit"
)

// Step advances the crowd by dt seconds with the runtime and writes every unit's
// record: a battle runs battle.Step (in steps of at most 50 ms; none while dt
// is 0, when a Crowd that has shown a chosen clip is animated for no time, so
// that a choice shows at once) and reads Crowd.Out, Blend, World and Heading, a
// unit of an asset with a chosen clip showing it through Crowd.Override; the
// parade plays its crowd.Player, per
// frame, or in the GPU clock mode rewriting the time records of the units whose
// clip, rate or phase is set. It returns the focus unit's clip and phase.
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
		if p, u := c.chosen(focus); p != nil {
			f = Focus{Clip: int(p.Clip[u]), Phase: p.PhaseNow(u), Rate: p.Rate[u]}
		} else if bc := c.battle.Crowd; bc.Clip[u] != unit.NoClip { // none before the battle's first step
			f = Focus{Clip: int(bc.Clip[u]), Phase: bc.Phase[u], Rate: bc.Rate[u]}
		}
	}
	return f, nil
}

// prepare checks a step's input and sets the units' chosen clips, rates and
// phases for it (the override, the seek, the parade's one-shots replayed); it
// returns the focus unit, or −1.
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
	// The units' chosen clips and rates for this step. A change fades, except
	// with fades off and in a step of no time (a paused crowd shows a clip
	// chosen at once; fades happen in crowd time).
	fades := !in.NoFade && dt > 0
	if c.battle != nil {
		c.battle.Crowd.NoFade = in.NoFade
		for i, a := range c.unitAsset {
			c.choose(i, override(int(a)), fades)
		}
		if o := c.battle.Crowd.Overrides(); o != nil {
			o.Hold = oneShotHold
		}
	} else {
		for i, a16 := range c.unitAsset {
			a := int(a16)
			cl := int(c.base[i])
			if o := override(a); o >= 0 {
				cl = o
			}
			fade := float32(0)
			if fades && int(c.play.Clip[i]) != cl { // the same clip does not fade
				fade = c.fadeTime(a, int(c.play.Clip[i]), cl)
			}
			c.play.Change(i, unit.ClipID(cl), c.vary[i], fade) // its rider changes (and fades) with it
		}
	}
	if c.march != nil {
		c.steer() // the parade's units travel at their clips' speeds from now (travel.go)
	}
	if focus >= 0 && !math.IsNaN(in.Seek) && !math.IsInf(in.Seek, 0) {
		if p, u := c.chosen(focus); p != nil {
			from := p.PhaseNow(u)
			p.Seek(u, float32(in.Seek))
			if c.march != nil {
				c.seekMarch(focus, from, p.PhaseNow(u))
			}
		}
	}
	if c.battle == nil {
		c.play.Replay(dt) // the parade's one-shots repeat (a battle's chosen ones in Animate)
	}
	return focus, nil
}

// fadeTime is how long a unit of asset a fades from clip from to clip
// to: registry.Registry.ClipFade of its slot (0 from unit.NoClip: a battle unit
// shows no clip before its first step).
func (c *Scene) fadeTime(a, from, to int) float32 {
	return c.regs.reg.ClipFade(c.regs.species(a), unit.ClipID(from), unit.ClipID(to))
}

// choose puts battle unit i on clip cl, or gives it back to the battle (cl
// −1), through its Crowd's Override: it fades from the clip it shows (the
// battle's, or the one chosen before; a fade the unit was in is dropped) over
// the time ClipFade gives, none without fades.
func (c *Scene) choose(i, cl int, fades bool) {
	bc, a := c.battle.Crowd, int(c.unitAsset[i])
	p, u := c.chosen(i)
	switch {
	case cl >= 0:
		from := bc.Clip[u]
		if p != nil {
			from = p.Clip[u]
		}
		fade := float32(0)
		if fades && int(from) != cl { // the same clip does not fade
			fade = c.fadeTime(a, int(from), cl)
		}
		bc.Override(c.regs.reg, u, unit.ClipID(cl), c.vary[i], fade)
	case p != nil: // the battle's clip fades in from the chosen one
		fade := float32(0)
		if fades {
			fade = c.fadeTime(a, int(p.Clip[u]), int(bc.Clip[u]))
		}
		bc.Override(c.regs.reg, u, unit.NoClip, 0, fade)
	}
}

// chosen is the Player that plays unit i's clip chosen by number, and i's unit
// in it: the parade's, or a battle unit's overrides (crowd.Crowd.Overrides)
// while it shows a chosen clip; nil and its battle unit while the battle
// plays it.
func (c *Scene) chosen(i int) (*crowd.Player, int) {
	if c.battle == nil {
		return c.play, i
	}
	u := int(c.battleOf[i])
	if p := c.battle.Crowd.Overrides(); p != nil && p.Clip[u] != unit.NoClip {
		return p, u
	}
	return nil, u
}

// advance runs the runtime for dt seconds on the units' clips and rates as set,
// and writes the records.
func (c *Scene) advance(dt float32) error {
	if b := c.battle; b != nil {
		for rest := dt; rest > 0; {
			d := min(rest, maxStepDt)
			if err := b.Step(d); err != nil {
				return err
			}
			rest -= d
		}
		if dt == 0 && b.Crowd.Overrides() != nil {
			// Paused: a clip chosen, dropped or sought shows at once, the
			// battle standing still.
			if err := b.Crowd.Animate(c.regs.reg, 0); err != nil {
				return err
			}
		}
		c.battleRecords()
		return nil
	}
	if err := c.play.Advance(dt); err != nil { // in the clock mode the records hold: the page resolves them at the new time
		return err
	}
	if c.march != nil {
		c.now += dt // as the clock mode's Player.Now
		c.placeMarchers()
	}
	if !c.play.Clocked() {
		c.paradeRecords()
	}
	return nil
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
