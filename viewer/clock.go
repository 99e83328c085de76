package viewer

import (
	"encoding/binary"
	"math"

	"github.com/bonebake/bonebake/crowd"
)

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

// appendClock appends the clock mode's step answer to b, little-endian: the
// header of AppendStep with ClockMagic, the A unit counts, the time now
// (float32), the focus unit's 32-float record as it shows now (zeros without
// one), the number K of entries (uint32), then K entries of the units whose
// records changed since the last answer: the unit's index in asset order
// (uint32), its tint and place (8 floats; x where the unit stood at its
// travel's start time, and its look's scale, unshrunk by the lane's ends), its crowd.TimeRecord and its rider's (16 words each,
// laid out as the Go struct; zero without a rider), then its travel (travel.go:
// its lanes' start x and length, its speed in m/s and the time it started at
// that speed, 4 floats), which the page plays on as the records.
// Then the number L of level entries (uint32) and L entries of the units whose
// levels of detail changed since the last answer (every unit in the first
// answer with level of detail on; none with it off): the unit's index
// (uint32), its crowd.Level and its rider's (a byte each), two zero bytes.
func (c *Scene) appendClock(b []byte, f Focus) []byte {
	k, p := c.clock, c.play
	k.collect(p.Changed())
	le := binary.LittleEndian
	b = c.appendHeader(b, ClockMagic, f)
	b = le.AppendUint32(b, math.Float32bits(p.Now))
	var rec [RecordFloats]float32
	if c.focus >= 0 {
		c.focusRecord(c.focus, rec[:])
	}
	for _, v := range rec {
		b = le.AppendUint32(b, math.Float32bits(v))
	}
	b = le.AppendUint32(b, uint32(len(k.sent)))
	o := len(b)
	b = growBytes(b, len(k.sent)*clockEntry)
	for _, i := range k.sent {
		le.PutUint32(b[o:], uint32(i))
		o += 4
		tintPlace := c.Records[int(i)*RecordFloats+recTint : int(i)*RecordFloats+recPlace+4]
		m := c.march[i]
		for k, v := range tintPlace {
			switch k {
			case recPlace - recTint:
				v = m.x0
			case recPlace + 3 - recTint: // its look's: the page shrinks it at the lane's ends
				v = c.scale[c.unitAsset[i]]
			}
			le.PutUint32(b[o:], math.Float32bits(v))
			o += 4
		}
		o = putRecord(b, o, &p.Records[i])
		if r := c.riderUnit[i]; r >= 0 {
			o = putRecord(b, o, &p.Records[r])
		} else {
			clear(b[o : o+crowd.TimeRecordSize])
			o += crowd.TimeRecordSize
		}
		for _, v := range [4]float32{c.lane.x0, c.lane.length, m.v, m.t0} {
			le.PutUint32(b[o:], math.Float32bits(v))
			o += 4
		}
		k.dirty[i] = false
	}
	k.sent = k.sent[:0]
	return c.appendLevels(b)
}

// appendLevels appends the level entries of a clock answer (see appendClock):
// the player chose the levels at its new time (crowd.Player.Advance).
func (c *Scene) appendLevels(b []byte) []byte {
	k := c.clock
	at := len(b)
	b = binary.LittleEndian.AppendUint32(b, 0)
	if c.play.Level == nil {
		k.lod = false
		return b
	}
	if k.levels == nil {
		k.levels = make([]uint16, len(k.dirty))
	}
	n := 0
	for i := range k.levels {
		l := c.levelPair(i)
		if k.lod && l == k.levels[i] {
			continue
		}
		k.levels[i] = l
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
		b = append(b, byte(l), byte(l>>8), 0, 0)
		n++
	}
	k.lod = true
	binary.LittleEndian.PutUint32(b[at:], uint32(n))
	return b
}

// putRecord writes r at b[o:] as the Go struct lays it out, little-endian.
func putRecord(b []byte, o int, r *crowd.TimeRecord) int {
	le := binary.LittleEndian
	for _, p := range [3]*crowd.Playhead{&r.Own, &r.From, &r.Prior} {
		le.PutUint32(b[o:], math.Float32bits(p.Phase))
		le.PutUint32(b[o+4:], math.Float32bits(p.Rate))
		le.PutUint32(b[o+8:], p.Row)
		le.PutUint32(b[o+12:], p.Shape)
		o += 16
	}
	for _, v := range [4]float32{r.Start, r.FadeStart, r.FadeInv, r.PriorShare} {
		le.PutUint32(b[o:], math.Float32bits(v))
		o += 4
	}
	return o
}
