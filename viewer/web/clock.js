// The GPU clock mode on the page (docs/runtime.md §6.2): the page keeps every
// unit's time records, the server sends only those that changed, and a resolve
// pass (clock.vert.glsl, captured by transform feedback) turns them into the
// instance records the draws read, at the crowd's time. Everything drawn from
// the instance records (the palette and BAT skinning, riders, the sword, socket
// gizmos) is then the same in both modes.
//
// A unit's clock entry is CLOCK words: tint and place (8 floats), then its
// crowd.TimeRecord and its rider's (16 words each: Own, From and Prior as phase,
// rate, row, shape; Start, FadeStart, FadeInv, PriorShare), then its travel
// along its lane (from CLOCK_TRAVEL: 4 floats), as the server sends it.
// The entries live in an integer texture, so that a pass can resolve any list of
// units: all of them into the asset's instance buffer, and with level of detail
// on (lod.js) the units at each level into that level's buffer, each unit's
// rows as its level shows them (clock.vert.glsl).
import { gl, fetchOK, compileShader, including } from './gl.js';
import { RECORD, RECORD_BYTES, state } from './state.js';
import { CLOCK, TIME_RECORD, REC_TINT } from './wire.js';
import { PLAYBACK } from './core/glsl.js';

const CLOCK_BYTES = CLOCK * 4;
const TEXELS = CLOCK / 4; // an entry's texels in the entries texture
const PER_ROW = 180; // entries per row of the entries texture (1,980 texels: within every WebGL 2's limit)
// Outputs in the record's order (gl.js).
const VARYINGS = ['o_play', 'o_tint', 'o_place', 'o_riderPlay', 'o_fade', 'o_prior', 'o_riderFade', 'o_riderPrior'];
const FRAG = '#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { c = vec4(0.0); }\n';
// Texture units of the resolve pass: the entries, then the snapshot maps of the
// unit's species and of its rider's (lookup, below).
const ENTRIES_UNIT = 8, SNAP_UNIT = 9;

let prog = null, U = null, itemsVao = null, empty = null;

export async function setupClock() {
  const vs = including(await fetchOK('clock.vert.glsl').then((r) => r.text()), 'clock.vert.glsl', '#include <bonebake_playback>', PLAYBACK);
  prog = gl.createProgram();
  gl.attachShader(prog, compileShader(gl.VERTEX_SHADER, vs, 'clock.vert.glsl'));
  gl.attachShader(prog, compileShader(gl.FRAGMENT_SHADER, FRAG, 'the resolve pass'));
  gl.transformFeedbackVaryings(prog, VARYINGS, gl.INTERLEAVED_ATTRIBS);
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('link clock.vert.glsl: ' + gl.getProgramInfoLog(prog));
  U = {};
  for (const n of ['u_now', 'u_entries', 'u_snapMap', 'u_snapPalette', 'u_riderSnapMap', 'u_riderSnapPalette', 'u_tintLevel', 'u_levelTint', 'u_keep']) U[n] = gl.getUniformLocation(prog, n);
  gl.useProgram(prog);
  gl.uniform1i(U.u_entries, ENTRIES_UNIT);
  ['u_snapMap', 'u_snapPalette', 'u_riderSnapMap', 'u_riderSnapPalette'].forEach((n, k) => gl.uniform1i(U[n], SNAP_UNIT + k));
  itemsVao = gl.createVertexArray();
  empty = uintTexture(new Uint32Array(4), 1, 1);
}

// bindEntries binds tex to the resolve pass's own texture unit (ENTRIES_UNIT),
// so that no other program's texture is displaced.
function bindEntries(tex) {
  gl.activeTexture(gl.TEXTURE0 + ENTRIES_UNIT);
  gl.bindTexture(gl.TEXTURE_2D, tex);
}

// uintTexture makes an RGBA32UI texture of w×h texels from words.
function uintTexture(words, w, h) {
  const tex = gl.createTexture();
  bindEntries(tex);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32UI, w, h);
  if (words) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, w, h, gl.RGBA_INTEGER, gl.UNSIGNED_INT, words);
  gl.activeTexture(gl.TEXTURE0);
  return tex;
}

// reserveClock readies A for a clocked crowd of n units: its clock entries (a
// CPU copy and a texture, PER_ROW entries a row) and A.instData, the CPU copy of
// its records (tint and place of every unit, a travelling unit's x where its
// travel started; the frames and place of the focus unit only, as it is now).
export function reserveClock(A, n) {
  const cap = Math.max(PER_ROW, Math.ceil(n / PER_ROW) * PER_ROW);
  if ((A.clockCap || 0) < cap) {
    if (A.clockTex) gl.deleteTexture(A.clockTex);
    A.clockCap = cap;
    A.clockData = new Uint8Array(cap * CLOCK_BYTES);
    A.clockTex = uintTexture(null, PER_ROW * TEXELS, cap / PER_ROW);
  }
  A.instData = new Float32Array(n * RECORD);
  A.clockChanged = [];
}

// putClock takes unit k's entry from the answer's bytes at o.
export function putClock(A, k, bytes, o) {
  A.clockData.set(bytes.subarray(o, o + CLOCK_BYTES), k * CLOCK_BYTES);
  A.instData.set(new Float32Array(A.clockData.buffer, k * CLOCK_BYTES, 8), k * RECORD + REC_TINT);
  A.clockChanged.push(k);
}

// uploadClock sends A's changed entries to its texture: one by one when few,
// else the rows they cover at once.
export function uploadClock(A) {
  const ch = A.clockChanged;
  if (ch.length === 0) return;
  bindEntries(A.clockTex);
  const words = new Uint32Array(A.clockData.buffer);
  if (ch.length <= 64) {
    for (const k of ch) {
      gl.texSubImage2D(gl.TEXTURE_2D, 0, (k % PER_ROW) * TEXELS, Math.floor(k / PER_ROW), TEXELS, 1, gl.RGBA_INTEGER, gl.UNSIGNED_INT, words, k * CLOCK);
    }
  } else {
    const lo = Math.floor(Math.min(...ch) / PER_ROW), hi = Math.floor(Math.max(...ch) / PER_ROW) + 1;
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, lo, PER_ROW * TEXELS, hi - lo, gl.RGBA_INTEGER, gl.UNSIGNED_INT, words, lo * PER_ROW * CLOCK);
  }
  gl.activeTexture(gl.TEXTURE0);
  A.clockChanged = [];
}

// snapshotMaps gives the resolve pass A's snapshot frames (docs/runtime.md
// §6.4), two textures made once: by palette row, the snapshot frames of the
// clip that starts there (crowd.SnapshotMap's offset, scale as float bits, last);
// by snapshot frame, the palette frame at the same time (toPalette, as
// splitLevels puts it beside a snapshot frame). Without a snapshot mesh, none.
function snapshotMaps(A, toPalette) {
  if (A.snapMaps !== undefined) return A.snapMaps;
  const s = A.info.snapshot;
  if (!s) return (A.snapMaps = null);
  const rows = A.clips.reduce((m, c) => Math.max(m, c.frame_offset + c.frame_count), 1);
  const map = new Uint32Array(rows * 4), f32 = new Float32Array(1), bits = new Uint32Array(f32.buffer);
  let offset = 0;
  A.clips.forEach((c, k) => {
    const n = s.clip_frames[k];
    f32[0] = c.loops ? n : n - 1;
    for (let r = c.frame_offset; r < c.frame_offset + c.frame_count; r++) map.set([offset, bits[0], n - 1, 0], r * 4);
    offset += n;
  });
  const pal = toPalette(A), palWords = new Uint32Array(pal.length * 4);
  pal.forEach((f, k) => { palWords[k * 4] = f; });
  const wrap = (words, texels) => {
    const w = Math.min(texels, 1024), h = Math.ceil(texels / w), padded = new Uint32Array(w * h * 4);
    padded.set(words);
    return uintTexture(padded, w, h);
  };
  return (A.snapMaps = { map: wrap(map, rows), palette: wrap(palWords, pal.length) });
}

// resolveItems runs the resolve pass over n items of buffer items (each a unit's
// index in A's entries, its level at bit 24 and its rider's at bit 26), at the
// crowd's time now, writing n records to out; tintLevel ≥ 0 tints them as that
// level's; toPalette (lod.js) is given when levels of detail apply. The focus
// unit (the selected species' first) keeps its size at the lanes' ends.
export function resolveItems(A, items, n, out, now, tintLevel = -1, toPalette = null) {
  if (n === 0) return;
  gl.useProgram(prog);
  gl.uniform1f(U.u_now, now);
  gl.uniform1i(U.u_keep, A === state.assets[state.selected] ? 0 : -1);
  gl.uniform1i(U.u_tintLevel, tintLevel);
  bindEntries(A.clockTex);
  const maps = [toPalette ? snapshotMaps(A, toPalette) : null, toPalette && A.rider ? snapshotMaps(A.rider.asset, toPalette) : null];
  maps.forEach((m, k) => {
    gl.activeTexture(gl.TEXTURE0 + SNAP_UNIT + 2 * k);
    gl.bindTexture(gl.TEXTURE_2D, m ? m.map : empty);
    gl.activeTexture(gl.TEXTURE0 + SNAP_UNIT + 2 * k + 1);
    gl.bindTexture(gl.TEXTURE_2D, m ? m.palette : empty);
  });
  gl.activeTexture(gl.TEXTURE0);
  gl.bindVertexArray(itemsVao);
  gl.bindBuffer(gl.ARRAY_BUFFER, items);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribIPointer(0, 1, gl.UNSIGNED_INT, 0, 0);
  gl.bindBuffer(gl.ARRAY_BUFFER, null); // a buffer written by transform feedback may be bound nowhere else
  gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, out);
  gl.enable(gl.RASTERIZER_DISCARD);
  gl.beginTransformFeedback(gl.POINTS);
  gl.drawArrays(gl.POINTS, 0, n);
  gl.endTransformFeedback();
  gl.disable(gl.RASTERIZER_DISCARD);
  gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, null);
  gl.bindVertexArray(null);
}

// evaluate is the test hook's window on the resolve pass: each record (16
// uint32 words of a crowd.TimeRecord) is resolved as a unit's own record and as
// its rider's at each of times; it resolves to, per time, the 32-float records
// read back.
export async function evaluate(records, times) {
  const n = records.length;
  const A = { info: {} };
  reserveClock(A, n);
  const words = new Uint32Array(A.clockData.buffer);
  records.forEach((r, k) => { words.set(r, k * CLOCK + 8); words.set(r, k * CLOCK + 8 + TIME_RECORD); A.clockChanged.push(k); });
  uploadClock(A);
  const items = gl.createBuffer(), out = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, items);
  gl.bufferData(gl.ARRAY_BUFFER, Uint32Array.from(records, (_, k) => k), gl.STATIC_DRAW);
  gl.bindBuffer(gl.ARRAY_BUFFER, out);
  gl.bufferData(gl.ARRAY_BUFFER, n * RECORD_BYTES, gl.STREAM_READ);
  gl.bindBuffer(gl.ARRAY_BUFFER, null);
  const results = [];
  try {
    for (const t of times) {
      resolveItems(A, items, n, out, t);
      const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
      gl.flush();
      while (gl.clientWaitSync(sync, 0, 0) === gl.TIMEOUT_EXPIRED) await new Promise((r) => setTimeout(r, 2));
      gl.deleteSync(sync);
      const f = new Float32Array(n * RECORD);
      gl.bindBuffer(gl.COPY_READ_BUFFER, out);
      gl.getBufferSubData(gl.COPY_READ_BUFFER, 0, f);
      gl.bindBuffer(gl.COPY_READ_BUFFER, null);
      results.push(Array.from(f));
    }
  } finally {
    gl.deleteTexture(A.clockTex);
    gl.deleteBuffer(items);
    gl.deleteBuffer(out);
  }
  return results;
}
