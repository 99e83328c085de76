package crowd

import (
	"github.com/bonebake/bonebake/crowd/registry"
	"github.com/bonebake/bonebake/crowd/unit"
)

// Override plays unit i on clip cl of its species, picked by number as a
// Player picks it (pace 1: one pass per the clip's Duration), instead of the
// clip its inputs pick: a cutscene's clip, or a viewer's choice. It fades from
// the pose the unit shows (a fade it is in is dropped) over fade seconds (none
// when fade is no fade time; Registry.ClipFade gives the time a game's change
// of state would take). A later Override changes the clip or pace as
// Player.Change does, and cl NoClip gives the unit back to its inputs, fading
// from the overriding clip to theirs over fade.
//
// Animate goes on resolving the unit's inputs meanwhile: its State, Clip, Phase
// and Rate stay theirs, and with them what a fight reads (a death plays to its
// end underneath); only its Out, Blend and Level show the override. r is the
// registry Animate is given. The first Override allocates a Player of the
// crowd's length (Overrides); Set ends a unit's override.
func (c *Crowd) Override(r *registry.Registry, i int, cl unit.ClipID, pace, fade float32) {
	if cl == unit.NoClip {
		c.release(i, fade)
		return
	}
	o := c.over
	if o == nil {
		o = NewPlayer(r, c.Len(), false)
		c.over = o
		c.syncOverrides()
	}
	if o.Clip[i] == unit.NoClip {
		o.Species[i], o.held[i] = c.Species[i], 0
		o.Batch.Play(i, c.Clip[i], c.Phase[i], c.Rate[i], 0) // what it fades from
		c.overridden++
	}
	o.Change(i, cl, pace, fade)
}

// Overrides is the Player that plays the units Override put on a clip,
// indexed as the Crowd (NoClip: a unit not overridden), or nil before the
// first Override: their clip, phase and rate are its, Seek and PhaseNow apply
// to them, and its Hold (−1 at first) has their one-shots replay. Their clips
// change through Override; Animate advances them (Replay and a step of each
// range it animates), so Advance is not called.
func (c *Crowd) Overrides() *Player { return c.over }

// release gives unit i back to its inputs, fading from the overriding clip
// over fade seconds, as Batch.Play fades: the clip its inputs play fades in
// from where the override stood.
func (c *Crowd) release(i int, fade float32) {
	o := c.over
	if o == nil || o.Clip[i] == unit.NoClip {
		return
	}
	own, ph, rt := c.Clip[i], c.Phase[i], c.Rate[i]
	if own == unit.NoClip { // not animated yet: nothing to fade to
		fade = 0
	}
	c.Play(i, o.Clip[i], o.Phase[i], o.Rate[i], 0)
	c.Play(i, own, ph, rt, fade)
	if len(c.Blend) > 0 && !c.blending(i) {
		c.Blend[i] = Blend{} // the override's, which the fade pass no longer rewrites
	}
	o.Play(i, unit.NoClip, 0, 0, 0)
	c.overridden--
}

// syncOverrides gives the override Player the Crowd's level-of-detail
// settings, its distances shared, before Animate's ranges run.
func (c *Crowd) syncOverrides() {
	o := c.over
	if o == nil {
		return
	}
	if !c.lodOn() {
		o.Distance, o.Level = nil, nil
		return
	}
	o.Distance, o.LODEvery, o.LODFrame = c.Distance, c.LODEvery, c.LODFrame
	if n := len(o.Species); len(o.Level) != n {
		o.Level, o.lodBand = make([]Level, n), make([]Level, n)
	}
}

// showOverrides plays the overridden units of [lo, hi) on their clips (their
// one-shots replayed, then a step of dt) and writes what they show over what
// their inputs gave: Out, Blend and, with level of detail, Level.
func (c *Crowd) showOverrides(r *registry.Registry, lo, hi int, dt float32) error {
	o := c.over
	o.replay(dt, lo, hi)
	if err := o.StepRange(r, dt, lo, hi); err != nil {
		return err
	}
	blend, level := len(c.Blend) > 0, o.lodOn()
	for i := lo; i < hi; i++ {
		if o.Clip[i] == unit.NoClip {
			continue
		}
		c.Out[i] = o.Out[i]
		if blend {
			c.Blend[i] = o.Blend[i]
		}
		if level {
			c.Level[i] = o.Level[i]
		}
	}
	return nil
}
