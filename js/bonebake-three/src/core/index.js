// bonebake's core for the web: readers of its files, the playback rule and the
// runtime's fades, the skinning pass and its GLSL chunks. It imports nothing:
// a renderer (src/three for three.js) wires it in.
export { FormatError, ValidationError } from './errors.js';
export { parseBPAT, BPAT, MAX_BONES, MARKERS } from './bpat.js';
export { parseBPSM, BPSM } from './bpsm.js';
export { parseGait, GaitError } from './gait.js';
export { resolve, smoothstep, isFade, playhead, Clock, speedBlend, clipRate, GAIT_SNAP } from './playback.js';
export { SkinPalette, FLOATS_PER_POSED, socketAt } from './pose.js';
export { PLAYBACK, SKIN_READ, SKIN_PARS, SKIN_BASE, SKIN_NORMAL, SKIN_VERTEX, POSE_PASS_VERTEX, POSE_PASS_FRAGMENT, POSE_PASS_POSES_FRAGMENT, RECORD_FLOATS, writeRecord } from './glsl.js';
export { loadBPAT, loadBPSM, loadGait, gaitURL } from './load.js';
export { LEVEL_FULL, LEVEL_REDUCED, LEVEL_SNAPSHOT, LOD_HYSTERESIS, DEFAULT_LOD, nextLevel, lodBands, nextBand, reduceInfluences, SNAPSHOT_TEXELS, snapshotTexels, snapshotUVs, SNAPSHOT_PARS, SNAPSHOT_BASE, SNAPSHOT_POSITION, SNAPSHOT_NORMAL } from './lod.js';
export { UNIT_PARS, UNIT_SKIN_BASE, SOCKET_PARS, SOCKET_BASE, socketBind } from './units.js';
