package viewer

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/bonebake/bonebake/crowd"
)

// The wire format of the step answers (docs/viewer-wire.md): defined here
// once, its constants and the encoders that write an answer (AppendStep,
// appendClock). The page reads it through web/wire.js, which wireJS generates
// from wireConstants (go generate; TestWireJSCurrent fails when it is stale).
//
//go:generate go test -run TestWireJSCurrent -write-wire

// WireVersion is the version of the layout docs/viewer-wire.md specifies. The
// page and the server ship in one binary, so the answers carry no version:
// the magic names the kind of answer, and a change of layout bumps this number
// and the document's.
const WireVersion = 2

// The step answer's magics and its fixed header (byte offsets): every field is
// 4 bytes, little-endian.
const (
	StepMagic      = "BBCS" // a per-frame answer: every unit's record
	ClockMagic     = "BBCK" // a GPU clock mode answer: the changed entries
	hdrStep        = 4      // uint32: the crowd's step count
	hdrAssets      = 8      // uint32: the asset count A
	hdrFocusClip   = 12     // int32: the focus unit's clip, −1 for none
	hdrFocusPhase  = 16     // float32: its phase (0 to 1)
	hdrFocusRate   = 20     // float32: its phase per second
	hdrAlive       = 24     // uint32 ×2: each army's living units (0, 0 in a parade)
	stepHeader     = 32     // the header's size; A unit counts (uint32) follow
	levelEntrySize = 8      // a clock answer's level entry: index, level, rider's level, 2 zero bytes
)

// RecordFloats is the size of one unit's GPU record in floats (Scene.Records).
const RecordFloats = 32

// Record fields (float offsets within a record). A fade is the unit's
// crowd.Blend as floats: the clip faded from (frame row, next row, lerp,
// weight), then the prior clip of an interrupted fade (the same); all zero
// while the unit is not fading (docs/runtime.md §6.1).
const (
	recFrame       = 0  // frame row, next row, lerp, level
	recLevel       = 3  // the unit's crowd.Level (0 with level of detail off)
	recTint        = 4  // tint r, g, b, the share of the tint non-cloth parts take
	recPlace       = 8  // x, z (metres), yaw (radians), scale
	recRider       = 12 // the rider's frame row, next row, lerp, level (horses)
	recRiderLevel  = 15 // the rider's crowd.Level
	recFade        = 16 // the unit's fade: the clip faded from (4 floats)
	recPrior       = 20 // then the prior clip of an interrupted fade (4 floats)
	recRiderFade   = 24 // the rider's fade (horses), as at recFade
	recRiderPrior  = 28 // the rider's prior, as at recPrior
	timeRecordWord = crowd.TimeRecordSize / 4
	// A clock entry's words after its index: tint and place, two time
	// records, then the unit's travel from word clockTravel (travel.go).
	clockTravel = 8 + 2*timeRecordWord
	clockFloats = clockTravel + 4
	clockEntry  = 4 + clockFloats*4
)

// wireConstant is one constant web/wire.js exports.
type wireConstant struct {
	js    string
	value int
	doc   string
}

// wireConstants are what the page reads the answers by.
var wireConstants = []wireConstant{
	{"WIRE_VERSION", WireVersion, "the layout's version (docs/viewer-wire.md)"},
	{"STEP_MAGIC", magicWord(StepMagic), fmt.Sprintf("%q, read as a little-endian uint32: a per-frame answer", StepMagic)},
	{"CLOCK_MAGIC", magicWord(ClockMagic), fmt.Sprintf("%q: a GPU clock mode answer", ClockMagic)},
	{"HDR_STEP", hdrStep, "uint32: the crowd's step count"},
	{"HDR_ASSETS", hdrAssets, "uint32: the asset count A"},
	{"HDR_FOCUS_CLIP", hdrFocusClip, "int32: the focus unit's clip, -1 for none"},
	{"HDR_FOCUS_PHASE", hdrFocusPhase, "float32: its phase"},
	{"HDR_FOCUS_RATE", hdrFocusRate, "float32: its phase per second"},
	{"HDR_ALIVE", hdrAlive, "uint32 x2: each army's living units"},
	{"HEADER", stepHeader, "the header's bytes; A unit counts (uint32) follow"},
	{"RECORD", RecordFloats, "a unit's record, in floats"},
	{"REC_FRAME", recFrame, "frame row, next row, lerp, level"},
	{"REC_LEVEL", recLevel, "the unit's level of detail"},
	{"REC_TINT", recTint, "tint r, g, b, share of the tint non-cloth parts take"},
	{"REC_PLACE", recPlace, "x, z (metres), yaw (radians), scale"},
	{"REC_RIDER", recRider, "the rider's frame row, next row, lerp, level (horses)"},
	{"REC_RIDER_LEVEL", recRiderLevel, "the rider's level of detail"},
	{"REC_FADE", recFade, "the unit's fade: the clip faded from's frame row, next row, lerp, weight"},
	{"REC_PRIOR", recPrior, "the prior clip of an interrupted fade, the same"},
	{"REC_RIDER_FADE", recRiderFade, "the rider's fade (horses)"},
	{"REC_RIDER_PRIOR", recRiderPrior, "the rider's prior (horses)"},
	{"CLOCK", clockFloats, "a clock entry's words after its index: tint and place, two time records, travel"},
	{"CLOCK_TRAVEL", clockTravel, "the entry's word where its travel begins: lane start x, lane length, speed, start time"},
	{"TIME_RECORD", timeRecordWord, "a crowd.TimeRecord's words"},
	{"LEVEL_ENTRY", levelEntrySize, "a level entry's bytes: index, level, rider's level, 2 zero bytes"},
}

// magicWord is a magic as the page reads it: a little-endian uint32.
func magicWord(m string) int {
	return int(binary.LittleEndian.Uint32([]byte(m)))
}

// wireJS is web/wire.js.
func wireJS() []byte {
	var b strings.Builder
	b.WriteString("// The step answers' wire format (docs/viewer-wire.md), generated from\n")
	b.WriteString("// viewer/wire.go by go generate: do not edit. Record offsets are in floats,\n")
	b.WriteString("// header offsets and sizes in bytes unless named words.\n")
	for _, c := range wireConstants {
		v := fmt.Sprint(c.value)
		if strings.HasSuffix(c.js, "_MAGIC") {
			v = fmt.Sprintf("0x%08x", c.value)
		}
		fmt.Fprintf(&b, "export const %s = %s; // %s\n", c.js, v, c.doc)
	}
	return []byte(b.String())
}

// AppendStep appends the step answer to b, little-endian: "BBCS", the step
// number, the asset count A, the focus clip (int32, −1 for none), phase and rate
// (float32), each army's living units (uint32 ×2), A unit counts (uint32), then
// every unit's 32-float record in asset order (docs/viewer-wire.md). A
// crowd played in the GPU clock mode answers with only the records that changed
// instead (see appendClock).
func (c *Scene) AppendStep(b []byte, f Focus) []byte {
	if c.clock != nil {
		return c.appendClock(b, f)
	}
	b = c.appendHeader(b, StepMagic, f)
	b = growBytes(b, len(c.Records)*4)
	putFloats(b[len(b)-len(c.Records)*4:], c.Records)
	return b
}

// littleEndianHost: float32s in memory are already the answer's bytes.
var littleEndianHost = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// putFloats writes fs into b as little-endian float32s: on a little-endian host
// one copy of the bytes in memory (a 20,000-unit answer is 2.5 MB, and encoding
// it a float at a time was 40 % of a step's cost).
func putFloats(b []byte, fs []float32) {
	if littleEndianHost && len(fs) > 0 {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&fs[0])), 4*len(fs)))
		return
	}
	putFloatsEach(b, fs)
}

func putFloatsEach(b []byte, fs []float32) {
	b = b[:4*len(fs)]
	for i, v := range fs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
}

// appendHeader appends a step answer's header (magic to alive) and unit counts.
func (c *Scene) appendHeader(b []byte, magic string, f Focus) []byte {
	alive := c.Alive()
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(c.Steps))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(c.assets)))
	b = binary.LittleEndian.AppendUint32(b, uint32(int32(f.Clip)))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f.Phase))
	b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f.Rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(alive[0]))
	b = binary.LittleEndian.AppendUint32(b, uint32(alive[1]))
	for _, n := range c.Count {
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
	}
	return b
}

func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
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
