// BPSM snapshot meshes (docs/formats/bpsm.md): every frame of every clip's mesh
// already skinned. Checked by the rules of §6 (the per-vertex weight rules are
// left to Go's CheckVertices, as the Go reader leaves them to a request).

import { Checker, bytesOf } from './errors.js';
import { resolve } from './playback.js';

export const BPSM_HEADER_SIZE = 72;
export const VERTEX_SIZE = 56;

/**
 * parseBPSM validates a snapshot file and returns its tables and views.
 * @param {ArrayBuffer|ArrayBufferView} data
 * @param {{name?: string, lenient?: boolean, knownSpecies?: Iterable<number>}} [opts]
 */
export function parseBPSM(data, opts = {}) {
  const b = bytesOf(data);
  const c = new Checker('bpsm', opts.name ?? '', b, opts);
  if (b.length < BPSM_HEADER_SIZE) {
    c.fail('truncated', b.length, -1, `${b.length} bytes is shorter than the ${BPSM_HEADER_SIZE}-byte header`);
    c.done();
  }
  if (b[0] !== 0x42 || b[1] !== 0x50 || b[2] !== 0x53 || b[3] !== 0x4d) {
    c.fail('magic', 0, -1, 'the file does not start with BPSM');
    c.done();
  }
  const h = {
    version: c.u32(4), speciesId: c.u32(8), lod: c.u32(12), vertexCount: c.u32(16), indexCount: c.u32(20),
    clipCount: c.u32(24), frameTotal: c.u32(28), stringTableSize: c.u32(32),
    clipTableOffset: c.u64(40), stringTableOffset: c.u64(48), indexOffset: c.u64(56), vertexOffset: c.u64(64),
  };
  if (h.version !== 1) {
    c.fail('version', 4, -1, `version ${h.version} is not one this reader knows (1)`);
    c.done();
  }
  if (opts.knownSpecies && !new Set(opts.knownSpecies).has(h.speciesId)) {
    c.strict('species', 8, -1, `species id ${h.speciesId} is not among the known ids`);
  }
  if (h.lod > 1) c.fail('lod', 12, -1, `lod ${h.lod} is neither 0 nor 1`);
  if (h.vertexCount === 0) c.fail('vertex-count', 16, -1, 'the file has no vertices');
  if (h.indexCount % 3 !== 0) c.fail('index-count', 20, -1, `index count ${h.indexCount} is not a multiple of 3`);
  if (h.clipCount === 0) c.fail('clip-count', 24, -1, 'the file has no clips');
  c.zeros(36, 40, 'header reserved', -1);

  const clipTable = { ...c.section('clip table', 40, h.clipTableOffset, h.clipCount, 32), field: 40 };
  const strTable = { ...c.section('string table', 48, h.stringTableOffset, h.stringTableSize, 1), field: 48 };
  const indexData = { ...c.section('index data', 56, h.indexOffset, h.indexCount, 4), field: 56 };
  const vertexData = { ...c.section('vertex data', 64, h.vertexOffset, h.frameTotal * h.vertexCount, VERTEX_SIZE), field: 64 };
  for (const s of [clipTable, indexData, vertexData]) c.align(s, 4);
  const cStrings = 72 + 32 * h.clipCount, cIndex = Math.ceil((cStrings + h.stringTableSize) / 16) * 16;
  const cVertex = Math.ceil((cIndex + 4 * h.indexCount) / 16) * 16;
  c.order([{ name: 'header', start: 0, end: 72, ok: true }, clipTable, strTable, indexData, vertexData],
    [0, 72, cStrings, cIndex, cVertex], 'header, clips, strings, indices, vertices');

  const clips = [];
  if (clipTable.ok) {
    let sum = 0;
    for (let i = 0; i < h.clipCount; i++) {
      const e = clipTable.start + 32 * i;
      const name = c.name('clip', i, e, strTable);
      const frameCount = c.u32(e + 8), frameOffset = c.u32(e + 12);
      if (frameCount === 0) c.fail('frame-count', e + 8, i, `clip ${i} ${JSON.stringify(name)} has no frames`);
      if (frameOffset !== sum) c.fail('frame-offset', e + 12, i, `clip ${i} ${JSON.stringify(name)} starts at frame ${frameOffset}; the earlier clips end at ${sum}`);
      sum += frameCount;
      c.zeros(e + 16, e + 32, `clip ${i} reserved`, i);
      clips.push({ name, frameCount, frameOffset });
    }
    if (sum !== h.frameTotal) c.fail('frame-total', 28, -1, `frame_total is ${h.frameTotal}; the clips hold ${sum} frames`);
  }
  let indices = new Uint32Array(0);
  if (indexData.ok && indexData.start % 4 === 0 && h.vertexCount > 0) {
    indices = new Uint32Array(h.indexCount);
    let bad = -1, more = 0;
    for (let i = 0; i < h.indexCount; i++) {
      const v = c.u32(indexData.start + 4 * i);
      indices[i] = v;
      if (v >= h.vertexCount) { if (bad < 0) bad = i; else more++; }
    }
    if (bad >= 0) c.fail('index', indexData.start + 4 * bad, -1, `index ${bad} is ${indices[bad]}, not below the ${h.vertexCount} vertices (and ${more} more)`);
  }
  if (vertexData.ok && !opts.skipFloatScan) {
    // position, normal, uv (8 floats) and the four weights of each record.
    outer: for (let o = vertexData.start; o < vertexData.end; o += VERTEX_SIZE) {
      for (const k of [0, 4, 8, 12, 16, 20, 24, 28, 36, 40, 44, 48]) {
        if (!Number.isFinite(c.f32(o + k))) {
          c.strict('vertex-float', o + k, -1, `vertex float ${c.f32(o + k)} at ${o + k}; it must be finite`);
          break outer;
        }
      }
    }
  }
  c.done();
  return new BPSM(c, h, clips, indices, b, vertexData);
}

/** An open, validated snapshot file. */
export class BPSM {
  constructor(c, h, clips, indices, bytes, vertexData) {
    this.name = c.file;
    this.speciesId = h.speciesId;
    this.lod = h.lod;
    this.vertexCount = h.vertexCount;
    this.frameTotal = h.frameTotal;
    this.clips = clips;
    this.indices = indices;
    this.warnings = c.warnings;
    /** The vertex data: 56-byte records, frame after frame (14 floats each; joints at byte 32, role at 52). */
    this.vertexBytes = vertexData.ok ? bytes.subarray(vertexData.start, vertexData.end) : new Uint8Array(0);
    this._index = new Map();
    clips.forEach((cl, i) => { if (!this._index.has(cl.name)) this._index.set(cl.name, i); });
  }

  clipIndex(name) { return this._index.get(name) ?? -1; }

  /** The snapshot frame (an index into the file's frames) a unit at phase shows: the floor frame of §5.2 with the snapshot's own frame count. */
  frameAt(clip, phase, loops) {
    const c = this.clips[clip];
    return c.frameOffset + resolve(phase, c.frameCount, loops)[0];
  }

  /** Positions of one file frame, 3 floats a vertex. */
  positions(frame, out = new Float32Array(this.vertexCount * 3)) {
    const v = new DataView(this.vertexBytes.buffer, this.vertexBytes.byteOffset, this.vertexBytes.byteLength);
    const base = frame * this.vertexCount * VERTEX_SIZE;
    for (let i = 0; i < this.vertexCount; i++) {
      const o = base + i * VERTEX_SIZE;
      out[3 * i] = v.getFloat32(o, true); out[3 * i + 1] = v.getFloat32(o + 4, true); out[3 * i + 2] = v.getFloat32(o + 8, true);
    }
    return out;
  }
}
