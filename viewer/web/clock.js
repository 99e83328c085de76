// The GPU clock mode on the page (docs/runtime.md §6.2): the page keeps every
// unit's time records, the server sends only those that changed, and a resolve
// pass (clock.vert.glsl, captured by transform feedback) turns them into the
// instance records the draws read, at the crowd's time. Everything drawn from
// the instance records (the palette and BAT skinning, riders, the sword, socket
// gizmos) is then the same in both modes.
//
// A unit's clock entry is CLOCK words: tint and place (8 floats), then its
// crowd.TimeRecord and its rider's (16 words each: Own, From and Prior as phase,
// rate, row, shape; Start, FadeStart, FadeInv, PriorShare), as the server sends it.
import { gl, fetchOK, compileShader } from './gl.js';
import { RECORD, RECORD_BYTES } from './state.js';

export const CLOCK = 40;
const CLOCK_BYTES = CLOCK * 4;
// Outputs in the record's order (gl.js).
const VARYINGS = ['o_play', 'o_tint', 'o_place', 'o_riderPlay', 'o_fade', 'o_prior', 'o_riderFade', 'o_riderPrior'];
const FRAG = '#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { c = vec4(0.0); }\n';

let prog = null, uNow = null;

export async function setupClock() {
  const vs = await fetchOK('clock.vert.glsl').then((r) => r.text());
  prog = gl.createProgram();
  gl.attachShader(prog, compileShader(gl.VERTEX_SHADER, vs, 'clock.vert.glsl'));
  gl.attachShader(prog, compileShader(gl.FRAGMENT_SHADER, FRAG, 'the resolve pass'));
  gl.transformFeedbackVaryings(prog, VARYINGS, gl.INTERLEAVED_ATTRIBS);
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('link clock.vert.glsl: ' + gl.getProgramInfoLog(prog));
  uNow = gl.getUniformLocation(prog, 'u_now');
}

// clockVAO reads one clock entry per vertex from buf: tint and place as floats,
// the time records as unsigned integers (their float fields are decoded from
// the bits: rows and shapes do not fit a float).
function clockVAO(buf) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  gl.bindBuffer(gl.ARRAY_BUFFER, buf);
  for (let loc = 0; loc < 10; loc++) {
    gl.enableVertexAttribArray(loc);
    if (loc < 2) gl.vertexAttribPointer(loc, 4, gl.FLOAT, false, CLOCK_BYTES, loc * 16);
    else gl.vertexAttribIPointer(loc, 4, gl.UNSIGNED_INT, CLOCK_BYTES, loc * 16);
  }
  gl.bindVertexArray(null);
  gl.bindBuffer(gl.ARRAY_BUFFER, null);
  return vao;
}

// reserveClock readies A for a clocked crowd of n units: its clock entries (a
// CPU copy and a buffer) and A.instData, the CPU copy of its records (tint and
// place of every unit; the frames of the focus unit only).
export function reserveClock(A, n) {
  if (!A.clockBuf) { A.clockBuf = gl.createBuffer(); A.clockVao = clockVAO(A.clockBuf); A.clockCap = 0; }
  if (A.clockCap < n) {
    A.clockCap = Math.max(n, 16);
    gl.bindBuffer(gl.ARRAY_BUFFER, A.clockBuf);
    gl.bufferData(gl.ARRAY_BUFFER, A.clockCap * CLOCK_BYTES, gl.DYNAMIC_DRAW);
    A.clockData = new Uint8Array(A.clockCap * CLOCK_BYTES);
  }
  A.instData = new Float32Array(n * RECORD);
  A.clockChanged = [];
}

// putClock takes unit k's entry from the answer's bytes at o.
export function putClock(A, k, bytes, o) {
  A.clockData.set(bytes.subarray(o, o + CLOCK_BYTES), k * CLOCK_BYTES);
  A.instData.set(new Float32Array(A.clockData.buffer, k * CLOCK_BYTES, 8), k * RECORD + 4);
  A.clockChanged.push(k);
}

// uploadClock sends A's changed entries to its buffer: one by one when few,
// else the span they cover at once.
export function uploadClock(A) {
  const ch = A.clockChanged;
  if (ch.length === 0) return;
  gl.bindBuffer(gl.ARRAY_BUFFER, A.clockBuf);
  if (ch.length <= 64) {
    for (const k of ch) gl.bufferSubData(gl.ARRAY_BUFFER, k * CLOCK_BYTES, A.clockData, k * CLOCK_BYTES, CLOCK_BYTES);
  } else {
    const lo = Math.min(...ch), hi = Math.max(...ch) + 1;
    gl.bufferSubData(gl.ARRAY_BUFFER, lo * CLOCK_BYTES, A.clockData, lo * CLOCK_BYTES, (hi - lo) * CLOCK_BYTES);
  }
  gl.bindBuffer(gl.ARRAY_BUFFER, null);
  A.clockChanged = [];
}

// resolve runs the resolve pass over n entries of vao at time now, writing n
// records to out.
function resolve(vao, n, out, now) {
  gl.useProgram(prog);
  gl.uniform1f(uNow, now);
  gl.bindVertexArray(vao);
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

// resolveClock writes A's A.count instance records for the crowd's time now.
export function resolveClock(A, now) {
  if (A.count > 0) resolve(A.clockVao, A.count, A.instBuf, now);
}

// evaluate is the test hook's window on the resolve pass: each record (16
// uint32 words of a crowd.TimeRecord) is resolved as a unit's own record and as
// its rider's at each of times; it resolves to, per time, the 32-float records
// read back.
export async function evaluate(records, times) {
  const n = records.length;
  const data = new Uint32Array(n * CLOCK);
  records.forEach((r, k) => { data.set(r, k * CLOCK + 8); data.set(r, k * CLOCK + 24); });
  const src = gl.createBuffer(), out = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, src);
  gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
  gl.bindBuffer(gl.ARRAY_BUFFER, out);
  gl.bufferData(gl.ARRAY_BUFFER, n * RECORD_BYTES, gl.STREAM_READ);
  const vao = clockVAO(src);
  const results = [];
  try {
    for (const t of times) {
      resolve(vao, n, out, t);
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
    gl.deleteVertexArray(vao);
    gl.deleteBuffer(src);
    gl.deleteBuffer(out);
  }
  return results;
}
