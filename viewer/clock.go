package viewer

import (
	"encoding/binary"
	"math"

	"github.com/bonebake/bonebake/crowd"
)

// ClockMagic starts a step answer in the GPU clock mode.
const ClockMagic = "BBCK"

// Sizes in a clock answer: an entry is a unit's index (uint32) then clockFloats
// words: its tint and place (8 floats), its crowd.TimeRecord (16 words) and its
// rider's (16 words, zero without a rider).
const (
	clockFloats = 8 + 2*crowd.TimeRecordSize/4
	clockEntry  = 4 + clockFloats*4
)

// ClockUnits is the crowd size from which the page plays the GPU clock mode
// unless told otherwise.
const ClockUnits = 5000

// clock plays the parade's units in the GPU clock mode (docs/runtime.md §6.2):
// instead of stepping every unit's phase it keeps each playback unit's
// crowd.TimeRecord and rewrites it only when the unit's clip, rate or phase is
// set (a clip chosen, a one-shot replayed, a seek); the page resolves the
// records at time now on the GPU (web/clock.vert.glsl), as TimeRecord.At does.
// The parade plays clips by number, for which crowd.GPUClock (whose Commit picks
// clips by the intent rules) has no call, so the viewer writes the records
// itself, by the rules crowd.Batch plays them: Batch.Play's fades, one-shots
// clamped at their end.
type clock struct {
	rec   []crowd.TimeRecord // per playback unit
	now   float32
	row   [][]uint32 // per asset, per clip: the palette row of its first frame
	shape [][]uint32 // per asset, per clip: its Playhead.Shape
	owner []int32    // per playback unit: the crowd unit whose entry carries it
	dirty []bool     // per crowd unit: its entry changed since the last answer
	sent  []int32    // the crowd units whose entries changed, in order
}

func newClock(c *Crowd, units int) *clock {
	k := &clock{rec: make([]crowd.TimeRecord, units), owner: make([]int32, units)}
	for _, a := range c.assets {
		var rows, shapes []uint32
		for _, cl := range a.file.Clips() {
			s := uint32(max(cl.FrameCount-1, 0))
			if cl.Loops {
				s |= crowd.ShapeLoops | crowd.ShapeWraps
			}
			rows, shapes = append(rows, uint32(cl.FrameOffset)), append(shapes, s)
		}
		k.row, k.shape = append(k.row, rows), append(k.shape, shapes)
	}
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

// set starts playback unit u on clip cl of asset a at phase, with no fade.
func (k *clock) set(u, a int, cl uint16, phase float32) {
	k.rec[u] = crowd.TimeRecord{Own: crowd.Playhead{Phase: phase, Row: k.row[a][cl], Shape: k.shape[a][cl]}, Start: k.now}
	k.touch(u)
}

func (k *clock) touch(u int) {
	if i := k.owner[u]; i >= 0 && !k.dirty[i] {
		k.dirty[i] = true
		k.sent = append(k.sent, i)
	}
}

// phase is the phase unit u's own clip shows now.
func (k *clock) phase(u int) float32 {
	r := &k.rec[u]
	return r.Own.PhaseAt(k.now - r.Start)
}

// play puts unit u, showing clip from, on clip to of asset a at rate, keeping
// its phase, and fades over fade seconds as Batch.Play does
// (crowd.TimeRecord.Switch: a fade that interrupts another keeps the pose shown).
func (k *clock) play(u, a int, from, to crowd.ClipID, rate, fade float32) {
	r := &k.rec[u]
	r.Rebase(k.now)
	if from == crowd.NoClip {
		fade = 0
	}
	r.Switch(k.now, crowd.Playhead{Phase: r.Own.Phase, Rate: rate, Row: k.row[a][to], Shape: k.shape[a][to]}, fade)
	k.touch(u)
}

// setRate changes unit u's rate from now on.
func (k *clock) setRate(u int, rate float32) {
	k.rec[u].Rebase(k.now)
	k.rec[u].Own.Rate = rate
	k.touch(u)
}

// setPhase puts unit u's own clip at phase now (its fade goes on).
func (k *clock) setPhase(u int, phase float32) {
	k.rec[u].Rebase(k.now)
	k.rec[u].Own.Phase = phase
	k.touch(u)
}

// focusRecord writes the 32-float record crowd unit i shows now (the page's
// skeleton overlay and focus read it) into rec.
func (c *Crowd) focusRecord(i int, rec []float32) {
	copy(rec, c.Records[i*RecordFloats:(i+1)*RecordFloats])
	o, b := c.clock.rec[i].At(c.clock.now)
	putFrames(rec[recFrame:], &o)
	putFade(rec[recFade:], &b)
	if r := c.riderUnit[i]; r >= 0 {
		o, b = c.clock.rec[r].At(c.clock.now)
		putFrames(rec[recRider:], &o)
		putFade(rec[recRiderFade:], &b)
	}
}

// appendClock appends the clock mode's step answer to b, little-endian: the
// header of AppendStep with ClockMagic, the A unit counts, the time now
// (float32), the focus unit's 32-float record as it shows now (zeros without
// one), the number K of entries (uint32), then K entries of the units whose
// records changed since the last answer: the unit's index in asset order
// (uint32), its tint and place (8 floats), its crowd.TimeRecord and its
// rider's (16 words each, laid out as the Go struct; zero without a rider).
func (c *Crowd) appendClock(b []byte, f Focus) []byte {
	k := c.clock
	le := binary.LittleEndian
	b = c.appendHeader(b, ClockMagic, f)
	b = le.AppendUint32(b, math.Float32bits(k.now))
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
		for _, v := range c.Records[int(i)*RecordFloats+recTint : int(i)*RecordFloats+recPlace+4] {
			le.PutUint32(b[o:], math.Float32bits(v))
			o += 4
		}
		o = putRecord(b, o, &k.rec[i])
		if r := c.riderUnit[i]; r >= 0 {
			o = putRecord(b, o, &k.rec[r])
		} else {
			clear(b[o : o+crowd.TimeRecordSize])
			o += crowd.TimeRecordSize
		}
		k.dirty[i] = false
	}
	k.sent = k.sent[:0]
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
