// BPAT reader: docs/formats/bpat.md. It checks every rule of §4 (strict by
// default; { lenient: true } lets through, as warnings, what the game's own
// reader accepts) and refuses a bad file with a ValidationError listing each
// broken rule with its offset.

import { Checker, bytesOf } from './errors.js';
import { resolve } from './playback.js';

export const HEADER_SIZE = 64;
export const MAX_BONES = 64;
export const FLOATS_PER_BONE = 16;
export const FLOATS_PER_SOCKET = 12;
export const MARKERS = ['anticipation_start', 'weapon_release', 'contact', 'recover_unlocked', 'exit_safe'];

const align16 = (n) => Math.ceil(n / 16) * 16;

/**
 * parseBPAT validates a BPAT file's bytes and returns its tables and float views.
 * @param {ArrayBuffer|ArrayBufferView} data
 * @param {{name?: string, lenient?: boolean, knownSpecies?: Iterable<number>}} [opts]
 */
export function parseBPAT(data, opts = {}) {
  const b = bytesOf(data);
  const c = new Checker('bpat', opts.name ?? '', b, opts);
  if (b.length < HEADER_SIZE) {
    c.fail('truncated', b.length, -1, `${b.length} bytes is shorter than the ${HEADER_SIZE}-byte header`);
    c.done();
  }
  if (b[0] !== 0x42 || b[1] !== 0x50 || b[2] !== 0x41 || b[3] !== 0x54) {
    c.fail('magic', 0, -1, 'the file does not start with BPAT');
    c.done();
  }
  const h = {
    version: c.u32(4), speciesId: c.u32(8), boneCount: c.u32(12), socketCount: c.u32(16),
    clipCount: c.u32(20), frameTotal: c.u32(24), stringTableSize: c.u32(28),
    clipTableOffset: c.u64(32), socketTableOffset: c.u64(40), stringTableOffset: c.u64(48), paletteOffset: c.u64(56),
  };
  if (h.version !== 1 && h.version !== 2) {
    c.fail('version', 4, -1, `version ${h.version} is not one this reader knows (1, 2)`);
    c.done();
  }
  if (opts.knownSpecies && !new Set(opts.knownSpecies).has(h.speciesId)) {
    c.strict('species', 8, -1, `species id ${h.speciesId} is not among the known ids [${[...opts.knownSpecies].join(' ')}]`);
  }
  if (h.boneCount < 1 || h.boneCount > MAX_BONES) {
    c.fail('bone-count', 12, -1, `bone count ${h.boneCount} outside [1, ${MAX_BONES}]`);
  }
  if (h.clipCount < 1) c.fail('clip-count', 20, -1, 'the file has no clips');
  if ((h.socketTableOffset === 0) !== (h.socketCount === 0)) {
    c.fail('socket-table', 40, -1, `socket_table_offset is ${h.socketTableOffset} with ${h.socketCount} sockets: it must be 0 exactly when there are none`);
  }
  const entry = h.version === 1 ? 32 : 44;

  // Sections in the order they must come, and where the canonical layout (§3.5) puts each.
  const cClips = HEADER_SIZE, cSockets = cClips + h.clipCount * entry;
  const cStrings = cSockets + h.socketCount * 32, cPalette = align16(cStrings + h.stringTableSize);
  const spans = [{ name: 'header', start: 0, end: HEADER_SIZE, ok: true }];
  const canonical = [0];
  const clipTable = { ...c.section('clip table', 32, h.clipTableOffset, h.clipCount, entry), field: 32 };
  spans.push(clipTable); canonical.push(cClips);
  let socketTable = { ok: false };
  if (h.socketCount > 0 && h.socketTableOffset !== 0) {
    socketTable = { ...c.section('socket table', 40, h.socketTableOffset, h.socketCount, 32), field: 40 };
    spans.push(socketTable); canonical.push(cSockets);
  }
  const strTable = { ...c.section('string table', 48, h.stringTableOffset, h.stringTableSize, 1), field: 48 };
  const palette = { ...c.section('palette', 56, h.paletteOffset, h.frameTotal * h.boneCount, FLOATS_PER_BONE * 4), field: 56 };
  spans.push(strTable, palette); canonical.push(cStrings, cPalette);
  let sockData = { ok: false, start: 0, end: 0 };
  if (palette.ok) {
    sockData = { ...c.section('socket data', 56, palette.end, h.frameTotal * h.socketCount, FLOATS_PER_SOCKET * 4), field: 56 };
    spans.push(sockData); canonical.push(palette.end);
  }
  c.align(palette, 16);
  if (h.version === 1) { // every v1 record is a multiple of 16 bytes
    c.align(clipTable, 16); c.align(socketTable, 16); c.align(strTable, 16);
  } else {
    c.align(clipTable, 4); c.align(socketTable, 4);
  }
  c.order(spans, canonical, 'header, clips, sockets, strings, palette, socket data');

  const clips = clipTable.ok ? readClips(c, h, entry, clipTable.start, strTable) : [];
  const sockets = socketTable.ok ? readSockets(c, h, socketTable.start, strTable) : [];
  if (!opts.skipFloatScan) {
    c.finite('float', palette);
    c.finite('float', sockData);
  }
  c.done();
  return new BPAT(c, h, clips, sockets, b, palette, sockData);
}

function readClips(c, h, entry, table, strTable) {
  const clips = [];
  let sum = 0;
  for (let i = 0; i < h.clipCount; i++) {
    const e = table + i * entry;
    const name = c.name('clip', i, e, strTable);
    const frameCount = c.u32(e + 8), frameOffset = c.u32(e + 12);
    if (frameCount === 0) c.fail('frame-count', e + 8, i, `clip ${i} ${JSON.stringify(name)} has no frames`);
    if (frameOffset !== sum) c.fail('frame-offset', e + 12, i, `clip ${i} ${JSON.stringify(name)} starts at frame ${frameOffset}; the earlier clips end at ${sum}`);
    sum += frameCount;
    const fps = c.f32(e + 16);
    if (!(Number.isFinite(fps) && fps > 0)) c.strict('fps', e + 16, i, `clip ${i} ${JSON.stringify(name)} has fps ${fps}; it must be finite and > 0`);
    const loops = c.u8(e + 20);
    if (loops > 1) c.fail('loops', e + 20, i, `clip ${i} ${JSON.stringify(name)} has loops = ${loops}; it must be 0 or 1`);
    c.zeros(e + 21, e + 24, `clip ${i} pad`, i);
    const markers = [-1, -1, -1, -1, -1];
    if (h.version === 1) {
      c.zeros(e + 24, e + 32, `clip ${i} reserved`, i);
    } else {
      for (let k = 0; k < 5; k++) {
        const m = c.f32(e + 24 + 4 * k);
        markers[k] = m;
        if (!(m === -1 || (m >= 0 && m <= 1))) {
          c.strict('marker', e + 24 + 4 * k, i, `clip ${i} ${JSON.stringify(name)} marker ${MARKERS[k]} = ${m} is neither -1 nor in [0,1]`);
        }
      }
    }
    clips.push({ name, frameCount, frameOffset, fps, loops: loops === 1, markers });
  }
  if (sum !== h.frameTotal) c.fail('frame-total', 24, -1, `frame_total is ${h.frameTotal}; the clips hold ${sum} frames`);
  return clips;
}

function readSockets(c, h, table, strTable) {
  const sockets = [];
  for (let i = 0; i < h.socketCount; i++) {
    const e = table + i * 32;
    const name = c.name('socket', i, e, strTable);
    const anchor = c.u32(e + 8);
    if (anchor >= h.boneCount) c.fail('anchor-bone', e + 8, i, `socket ${i} ${JSON.stringify(name)} anchors to bone ${anchor}; the file has ${h.boneCount} bones`);
    const offset = [c.f32(e + 12), c.f32(e + 16), c.f32(e + 20)];
    offset.forEach((v, k) => {
      if (!Number.isFinite(v)) c.strict('float', e + 12 + 4 * k, i, `socket ${i} ${JSON.stringify(name)} local offset[${k}] is ${v}; it must be finite`);
    });
    c.zeros(e + 24, e + 32, `socket ${i} reserved`, i);
    sockets.push({ name, anchor, offset });
  }
  return sockets;
}

// floats views a span of little-endian floats, copying when the bytes are not
// 4-aligned in their buffer or the host is big-endian.
function floats(b, span) {
  if (!span.ok || span.end === span.start) return new Float32Array(0);
  const n = (span.end - span.start) / 4;
  const at = b.byteOffset + span.start;
  if (at % 4 === 0 && littleEndian) return new Float32Array(b.buffer, at, n);
  const v = new DataView(b.buffer, at, span.end - span.start);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = v.getFloat32(4 * i, true);
  return out;
}
const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** An open, validated BPAT file. */
export class BPAT {
  constructor(c, h, clips, sockets, bytes, palette, sockData) {
    this.name = c.file;
    this.version = h.version;
    this.speciesId = h.speciesId;
    this.boneCount = h.boneCount;
    this.frameTotal = h.frameTotal;
    this.clips = clips;
    this.sockets = sockets;
    this.warnings = c.warnings;
    /** The palette block: frameTotal · boneCount · 16 floats, row-major matrices. */
    this.palette = floats(bytes, palette);
    /** The socket data block: frameTotal · socketCount · 12 floats. */
    this.socketData = floats(bytes, sockData);
    this._index = new Map();
    clips.forEach((cl, i) => { if (!this._index.has(cl.name)) this._index.set(cl.name, i); }); // the first wins
  }

  /** Index of the first clip named name, or −1. */
  clipIndex(name) { return this._index.get(name) ?? -1; }

  /** Index of the first socket named name, or −1. */
  socketIndex(name) { return this.sockets.findIndex((s) => s.name === name); }

  /** Frame `frame` of clip `clip`: boneCount·16 floats viewing the palette. */
  paletteFrame(clip, frame) {
    const c = this.clips[clip];
    if (!(frame >= 0 && frame < c.frameCount)) throw new RangeError(`bpat: frame ${frame} out of range [0,${c.frameCount}) of clip ${clip}`);
    const n = this.boneCount * 16, at = (c.frameOffset + frame) * n;
    return this.palette.subarray(at, at + n);
  }

  /** [frame, next, lerp] of clip `clip` at phase (docs/formats/bpat.md §5.2). */
  resolve(clip, phase, out) {
    const c = this.clips[clip];
    return resolve(phase, c.frameCount, c.loops, out);
  }

  /** Blends the palette at clip phase into out (boneCount·16 floats) as bpat.File.Sample does. */
  sample(clip, phase, out = new Float32Array(this.boneCount * 16)) {
    const [f, n, t] = this.resolve(clip, phase);
    const a = this.paletteFrame(clip, f), b = this.paletteFrame(clip, n);
    const tf = Math.fround(t);
    // a + (b−a)·t with float32 rounding of each step, as bpat.Lerp.
    for (let i = 0; i < a.length; i++) out[i] = Math.fround(a[i] + Math.fround(Math.fround(b[i] - a[i]) * tf));
    return out;
  }
}
