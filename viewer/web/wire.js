// The step answers' wire format (docs/viewer-wire.md), generated from
// viewer/wire.go by go generate: do not edit. Record offsets are in floats,
// header offsets and sizes in bytes unless named words.
export const WIRE_VERSION = 2; // the layout's version (docs/viewer-wire.md)
export const STEP_MAGIC = 0x53434242; // "BBCS", read as a little-endian uint32: a per-frame answer
export const CLOCK_MAGIC = 0x4b434242; // "BBCK": a GPU clock mode answer
export const HDR_STEP = 4; // uint32: the crowd's step count
export const HDR_ASSETS = 8; // uint32: the asset count A
export const HDR_FOCUS_CLIP = 12; // int32: the focus unit's clip, -1 for none
export const HDR_FOCUS_PHASE = 16; // float32: its phase
export const HDR_FOCUS_RATE = 20; // float32: its phase per second
export const HDR_ALIVE = 24; // uint32 x2: each army's living units
export const HEADER = 32; // the header's bytes; A unit counts (uint32) follow
export const RECORD = 32; // a unit's record, in floats
export const REC_FRAME = 0; // frame row, next row, lerp, level
export const REC_LEVEL = 3; // the unit's level of detail
export const REC_TINT = 4; // tint r, g, b, share of the tint non-cloth parts take
export const REC_PLACE = 8; // x, z (metres), yaw (radians), scale
export const REC_RIDER = 12; // the rider's frame row, next row, lerp, level (horses)
export const REC_RIDER_LEVEL = 15; // the rider's level of detail
export const REC_FADE = 16; // the unit's fade: the clip faded from's frame row, next row, lerp, weight
export const REC_PRIOR = 20; // the prior clip of an interrupted fade, the same
export const REC_RIDER_FADE = 24; // the rider's fade (horses)
export const REC_RIDER_PRIOR = 28; // the rider's prior (horses)
export const CLOCK = 44; // a clock entry's words after its index: tint and place, two time records, travel
export const CLOCK_TRAVEL = 40; // the entry's word where its travel begins: lane start x, lane length, speed, start time
export const TIME_RECORD = 16; // a crowd.TimeRecord's words
export const LEVEL_ENTRY = 8; // a level entry's bytes: index, level, rider's level, 2 zero bytes
