package viewer

// clock is what the server keeps of a parade in the GPU clock mode
// (docs/runtime.md §6.2) besides its crowd.Player, which keeps each playback
// unit's crowd.TimeRecord and rewrites it only when the unit's clip, rate or
// phase is set (a clip chosen, a one-shot replayed, a seek); the page resolves
// the records at the player's time on the GPU (web/clock.vert.glsl), as
// TimeRecord.At does. The clock says which units' entries the next answer
// carries: those whose records, or whose riders' records, changed.
type clock struct {
	owner []int32 // per playback unit: the crowd unit whose entry carries it
	dirty []bool  // per crowd unit: its entry changed since the last answer
	sent  []int32 // the crowd units whose entries changed, in order
	// levels is what the page was last told of each crowd unit's levels of
	// detail (levelPair); none while lod is false.
	levels []uint16
	lod    bool
}

// levelPair is a crowd unit's level and its rider's (LevelFull without one),
// as a clock answer's level entry carries them: the level in the low byte.
func (c *Scene) levelPair(i int) uint16 {
	p := c.play
	l := uint16(p.Level[i])
	if r := c.riderUnit[i]; r >= 0 {
		l |= uint16(p.Level[r]) << 8
	}
	return l
}

func newClock(c *Scene, units int) *clock {
	k := &clock{owner: make([]int32, units)}
	for u := range k.owner {
		k.owner[u] = -1 // a rider until its horse claims it
		if u < c.Len() {
			k.owner[u] = int32(u)
		}
	}
	k.dirty = make([]bool, c.Len())
	for i := range k.dirty {
		k.dirty[i] = true // the page has none yet
		k.sent = append(k.sent, int32(i))
	}
	return k
}

// collect marks the entries of the playback units whose records changed.
func (k *clock) collect(changed []int32) {
	for _, u := range changed {
		if i := k.owner[u]; i >= 0 && !k.dirty[i] {
			k.dirty[i] = true
			k.sent = append(k.sent, i)
		}
	}
}

// focusRecord writes the 32-float record crowd unit i shows now (the page's
// skeleton overlay and focus read it) into rec.
func (c *Scene) focusRecord(i int, rec []float32) {
	copy(rec, c.Records[i*RecordFloats:(i+1)*RecordFloats])
	p := c.play
	o, b := p.Records[i].At(p.Now)
	putFrames(rec[recFrame:], &o)
	putFade(rec[recFade:], &b)
	if r := c.riderUnit[i]; r >= 0 {
		o, b = p.Records[r].At(p.Now)
		putFrames(rec[recRider:], &o)
		putFade(rec[recRiderFade:], &b)
	}
}
