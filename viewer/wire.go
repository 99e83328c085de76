package viewer

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/bonebake/bonebake/crowd"
)

// The wire format of the step answers (docs/viewer-wire.md): defined here
// once. The page reads it through web/wire.js, which wireJS generates from
// wireConstants (go generate; TestWireJSCurrent fails when it is stale).
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
