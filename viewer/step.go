package viewer

import (
	"fmt"
	"math"

	"github.com/bonebake/bonebake/crowd"
)

// Step advances the crowd by dt seconds with the runtime and writes every unit's
// record: a battle runs battle.Step (in steps of at most 50 ms; none while dt
// is 0) and reads Crowd.Out, World and Heading; the parade, and the units of an
// asset whose clip is overridden, play crowd.Batch. It returns the focus unit's
// clip and phase.
func (c *Crowd) Step(dt float32, in StepInput) (Focus, error) {
	focus, err := c.prepare(dt, in)
	if err != nil {
		return Focus{}, err
	}
	if err := c.advance(dt); err != nil {
		return Focus{}, err
	}
	c.Steps++
	f := Focus{Clip: -1}
	if focus >= 0 {
		if c.playsBack(focus) {
			f = Focus{Clip: int(c.play.Clip[focus]), Phase: c.play.Phase[focus], Rate: c.play.Rate[focus]}
		} else {
			u := c.battleOf[focus]
			bc := c.battle.Crowd
			f = Focus{Clip: int(bc.Clip[u]), Phase: bc.Phase[u], Rate: bc.Rate[u]}
		}
	}
	return f, nil
}

// prepare checks a step's input and sets the playback units' clips, rates and
// phases for it (the override, the seek, one-shots replayed); it returns the
// focus unit, or −1.
func (c *Crowd) prepare(dt float32, in StepInput) (int, error) {
	if !(dt >= 0 && dt <= 1) {
		return -1, fmt.Errorf("dt %v: want 0 to 1 seconds", dt)
	}
	if in.Override != nil && len(in.Override) != len(c.assets) {
		return -1, fmt.Errorf("override: %d clips for %d assets", len(in.Override), len(c.assets))
	}
	for a, o := range in.Override {
		if o < -1 || o >= len(c.perSecond[a]) {
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
	// The playback units' clips and rates for this step.
	c.overridden = false
	if c.cur == nil {
		c.cur = make([]int, len(c.assets))
	}
	for a := range c.cur {
		c.cur[a] = override(a)
	}
	for i, a16 := range c.unitAsset {
		a := int(a16)
		cl := -1
		if c.battle == nil {
			cl = int(c.base[i])
		}
		if o := override(a); o >= 0 {
			cl = o
			c.overridden = true
		}
		if cl < 0 {
			continue
		}
		c.play.Clip[i] = crowd.ClipID(cl)
		c.play.Rate[i] = c.vary[i] * c.perSecond[a][cl]
		if r := c.riderUnit[i]; r >= 0 && c.battle == nil {
			rc := c.riderMap[a][cl]
			ra := c.Rider[a]
			c.play.Clip[r] = rc
			c.play.Rate[r] = c.vary[r] * c.perSecond[ra][rc]
		}
	}
	if focus >= 0 && !math.IsNaN(in.Seek) && !math.IsInf(in.Seek, 0) && c.playsBack(focus) {
		c.play.Phase[focus], c.hold[focus] = float32(in.Seek), 0
	}
	if c.battle == nil || c.overridden {
		c.replayOneShots(dt)
	}
	return focus, nil
}

// advance runs the runtime for dt seconds on the units' clips and rates as set,
// and writes the records.
func (c *Crowd) advance(dt float32) error {
	if c.battle == nil || c.overridden {
		if err := c.play.Step(c.regs.play, dt); err != nil {
			return err
		}
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
				putFrames(c.Records[i*RecordFloats+recFrame:], &c.play.Out[i])
			}
		}
	}
	return nil
}

// playsBack reports whether unit i's frames come from the playback batch in the
// step being taken.
func (c *Crowd) playsBack(i int) bool {
	return c.battle == nil || c.cur[c.unitAsset[i]] >= 0
}

// replayOneShots restarts the playback units whose one-shot clip has held its end
// pose for oneShotHold clip lengths: the parade's one-shots repeat.
func (c *Crowd) replayOneShots(dt float32) {
	p := c.play
	for u := range p.Len() {
		if p.Phase[u] < 1 || c.loops[p.Species[u]][p.Clip[u]] {
			continue
		}
		c.hold[u] += p.Rate[u] * dt
		if c.hold[u] >= oneShotHold {
			p.Phase[u], c.hold[u] = 0, 0
		}
	}
}

func putFrames(rec []float32, o *crowd.Instance) {
	rec[0], rec[1], rec[2], rec[3] = float32(o.Frame), float32(o.Next), o.Lerp, 0
}

func (c *Crowd) paradeRecords() {
	out := c.play.Out
	for i := range c.unitAsset {
		rec := c.Records[i*RecordFloats : (i+1)*RecordFloats]
		putFrames(rec[recFrame:], &out[i])
		if r := c.riderUnit[i]; r >= 0 {
			putFrames(rec[recRider:], &out[r])
		}
	}
}

func (c *Crowd) battleRecords() {
	b := c.battle
	out, w := b.Crowd.Out, b.World
	for i, u := range c.battleOf {
		rec := c.Records[i*RecordFloats : (i+1)*RecordFloats]
		putFrames(rec[recFrame:], &out[u])
		rec[recPlace], rec[recPlace+1], rec[recPlace+2] = w.X[u], w.Z[u], b.Heading[u]
		if r := c.riderUnit[i]; r >= 0 {
			putFrames(rec[recRider:], &out[r])
		}
	}
}

// Alive counts each army's living units in a battle (0, 0 in the parade).
func (c *Crowd) Alive() [2]int {
	if c.battle == nil {
		return [2]int{}
	}
	return [2]int{c.battle.Alive(0), c.battle.Alive(1)}
}
