// WebGL2 setup: the skinning program, textures, buffers and vertex arrays.
//
// Per species: its skin palette and socket data as RGBA32F textures for the
// skinning pass (pose.js, the npm package's core), the mesh in vertex buffers,
// and one buffer of per-instance records drawn with one instanced call. The
// server computes the records (viewer/step.go); a record is RECORD floats laid
// out as wire.js says (docs/viewer-wire.md).
import { $, params, stats, RECORD, RECORD_BYTES } from './state.js';
import { REC_FRAME, REC_TINT, REC_PLACE, REC_RIDER, REC_FADE, REC_PRIOR, REC_RIDER_FADE } from './wire.js';
import { SKIN_READ } from './core/glsl.js';

export const BACKGROUND = [0.149, 0.169, 0.2];

export const canvas = $('view');
export const gl = canvas.getContext('webgl2', { antialias: params.get('aa') !== '0', alpha: false });

// Set by setupGL.
export let prog, U, dummyTex;
// Texture units: 0–3 the skinning program's (posed skin, unused, posed
// attach, base colour), 4–6 BAT's, SNAPSHOT_UNIT the snapshot meshes' (lod.js),
// 8–12 the GPU clock's resolve pass (clock.js), 13–14 the skinning pass's
// (pose.js).
export const SNAPSHOT_UNIT = 7;
export let fragSource; // skin.frag.glsl, which the BAT program shares
export let unitBuf; // a one-record instance buffer: the unit transform (the grid)
export let focusBuf, focusData; // a one-record instance buffer: the focus instance (overlays)
export let axes, skeletonLines; // line meshes for the socket gizmos and the skeleton overlay

// including puts a chunk of the core where a shader's source includes it
// (a line `#include <name>`).
export function including(src, name, at, chunk) {
  if (!src.includes(at)) throw new Error(`${name} does not include ${at}`);
  return src.replace(at, chunk);
}

export function compileShader(type, src, name) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(`${name}: ${gl.getShaderInfoLog(s)}`);
  return s;
}

// The server's per-run token (the page's <meta name="bonebake-token">): it
// changes state or starts work (a crowd, a step, a BAT bake) only for requests
// that carry it, so no page on another site can (viewer/guard.go).
const TOKEN = document.querySelector('meta[name="bonebake-token"]')?.content ?? '';

// api fetches url from the viewer with the token and any options given.
export function api(url, opts = {}) {
  return fetch(url, { ...opts, headers: { ...opts.headers, 'X-Bonebake-Token': TOKEN } });
}

export async function fetchOK(url) {
  const r = await api(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}: ${(await r.text()).trim()}`);
  return r;
}

export async function setupGL() {
  const [vs, fs] = await Promise.all([
    fetchOK('skin.vert.glsl').then((r) => r.text()),
    fetchOK('skin.frag.glsl').then((r) => r.text()),
  ]);
  fragSource = fs;
  prog = gl.createProgram();
  gl.attachShader(prog, compileShader(gl.VERTEX_SHADER, including(vs, 'skin.vert.glsl', '#include <bonebake_skin>', SKIN_READ), 'skin.vert.glsl'));
  gl.attachShader(prog, compileShader(gl.FRAGMENT_SHADER, fs, 'skin.frag.glsl'));
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('link: ' + gl.getProgramInfoLog(prog));
  U = {};
  for (const n of ['bonebakeSkin', 'bonebakeBones', 'bonebakePerRow', 'u_skinned',
    'u_attached', 'u_attach', 'u_attachCount', 'u_attachPerRow', 'u_attachIndex',
    'u_local', 'u_viewProj', 'u_roleColors', 'u_unlit', 'u_sun', 'u_material', 'u_baseColor', 'u_textured', 'u_baseTex',
    'u_reduced', 'u_snapshot', 'u_snapshotTex', 'u_snapshotStride', 'u_snapshotFramesPerRow']) {
    U[n] = gl.getUniformLocation(prog, n);
  }
  gl.useProgram(prog);
  gl.uniform1i(U.bonebakeSkin, 0);
  gl.uniform1i(U.u_attach, 2);
  gl.uniform1i(U.u_baseTex, 3);
  gl.uniform1i(U.u_snapshotTex, SNAPSHOT_UNIT);
  const sun = [0.45, 0.8, 0.4], l = Math.hypot(...sun);
  gl.uniform3f(U.u_sun, sun[0] / l, sun[1] / l, sun[2] / l);
  // Draws without joint data read the attribute's constant: make it an integer one.
  gl.vertexAttribI4ui(2, 0, 0, 0, 0);
  dummyTex = floatTexture(new Float32Array(4), 1, 1).tex;
  for (let u = 0; u < 4; u++) {
    gl.activeTexture(gl.TEXTURE0 + u);
    gl.bindTexture(gl.TEXTURE_2D, dummyTex);
  }
  gl.clearColor(BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 1);

  unitBuf = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, unitBuf);
  const unit = new Float32Array(RECORD);
  unit.set([1, 1, 1, 0, 0, 0, 0, 1], 4);
  gl.bufferData(gl.ARRAY_BUFFER, unit, gl.STATIC_DRAW);
  focusData = new Float32Array(RECORD);
  focusBuf = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, focusBuf);
  gl.bufferData(gl.ARRAY_BUFFER, focusData, gl.DYNAMIC_DRAW);

  axes = lineMesh(new Float32Array([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]),
    new Float32Array([1, .25, .25, 1, .25, .25, .3, 1, .3, .3, 1, .3, .35, .55, 1, .35, .55, 1]), focusBuf);
  skeletonLines = lineMesh(new Float32Array(64 * 6 * 3), new Float32Array(64 * 6 * 3), focusBuf, gl.DYNAMIC_DRAW);
}

// floatTexture uploads floats (frames × texelsPerFrame RGBA texels, in order) as
// an RGBA32F texture: one frame per row, or several per row when there are more
// frames than MAX_TEXTURE_SIZE rows. The bytes go up unchanged.
export function floatTexture(floats, texelsPerFrame, frames) {
  const maxTex = gl.getParameter(gl.MAX_TEXTURE_SIZE);
  const perRow = frames > maxTex ? Math.ceil(frames / maxTex) : 1;
  const w = texelsPerFrame * perRow, h = Math.ceil(frames / perRow);
  if (w > maxTex) throw new Error(`a texture of ${w}×${h} texels does not fit MAX_TEXTURE_SIZE ${maxTex}`);
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  if (perRow === 1) {
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, w, h, 0, gl.RGBA, gl.FLOAT, floats);
  } else {
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, w, h);
    const full = Math.floor(frames / perRow);
    if (full > 0) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, w, full, gl.RGBA, gl.FLOAT, floats, 0);
    const rest = frames - full * perRow;
    if (rest > 0) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, full, rest * texelsPerFrame, 1, gl.RGBA, gl.FLOAT, floats, full * w * 4);
  }
  return { tex, perRow, stride: texelsPerFrame };
}

function arrayBuffer(target, data, usage = gl.STATIC_DRAW) {
  const b = gl.createBuffer();
  gl.bindBuffer(target, b);
  gl.bufferData(target, data, usage);
  return b;
}

// The byte offset of a pose's fade in a record: the unit's (frames at REC_FRAME)
// or its rider's (frames at REC_RIDER); the prior follows 16 bytes on.
const FADE_AT = { [REC_FRAME * 4]: REC_FADE * 4, [REC_RIDER * 4]: REC_RIDER_FADE * 4 };

// Instance attributes from a record buffer: 5 play, 6 tint, 7 xform, 10 and 11
// the play's fade and prior (which the BAT program reads; the skinning
// program's poses come from the skinning pass, pose.js, which reads the same
// buffer).
function instanceAttribs(buf, playOffset) {
  gl.bindBuffer(gl.ARRAY_BUFFER, buf);
  const attrs = [[5, playOffset], [6, REC_TINT * 4], [7, REC_PLACE * 4], [10, FADE_AT[playOffset]], [11, FADE_AT[playOffset] + (REC_PRIOR - REC_FADE) * 4]];
  for (const [loc, off] of attrs) {
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 4, gl.FLOAT, false, RECORD_BYTES, off);
    gl.vertexAttribDivisor(loc, 1);
  }
}

// A triangle mesh (positions, normals, joints, weights, roles, indices).
export function solidMesh(m) {
  const g = {
    pos: arrayBuffer(gl.ARRAY_BUFFER, m.positions),
    nrm: arrayBuffer(gl.ARRAY_BUFFER, m.normals),
    joints: m.joints ? arrayBuffer(gl.ARRAY_BUFFER, m.joints) : null,
    weights: m.weights ? arrayBuffer(gl.ARRAY_BUFFER, m.weights) : null,
    roles: arrayBuffer(gl.ARRAY_BUFFER, m.roles),
    uvs: m.uvs ? arrayBuffer(gl.ARRAY_BUFFER, m.uvs) : null,
    index: arrayBuffer(gl.ELEMENT_ARRAY_BUFFER, m.indices),
    count: m.indices.length,
  };
  return g;
}

export function meshVAO(g, instBuf, playOffset = 0) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const attr = (loc, buf, size, type, integer = false) => {
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.enableVertexAttribArray(loc);
    if (integer) gl.vertexAttribIPointer(loc, size, type, 0, 0);
    else gl.vertexAttribPointer(loc, size, type, false, 0, 0);
  };
  attr(0, g.pos, 3, gl.FLOAT);
  attr(1, g.nrm, 3, gl.FLOAT);
  if (g.joints) attr(2, g.joints, 4, gl.UNSIGNED_SHORT, true);
  if (g.weights) attr(3, g.weights, 4, gl.FLOAT);
  attr(4, g.roles, 1, gl.UNSIGNED_BYTE);
  if (g.uvs) attr(9, g.uvs, 2, gl.FLOAT);
  instanceAttribs(instBuf, playOffset);
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, g.index);
  gl.bindVertexArray(null);
  return vao;
}

// An unlit line list: positions and colours.
export function lineMesh(positions, colors, instBuf, usage = gl.STATIC_DRAW) {
  const m = { pos: arrayBuffer(gl.ARRAY_BUFFER, positions, usage), col: arrayBuffer(gl.ARRAY_BUFFER, colors, usage), count: positions.length / 3 };
  m.vao = gl.createVertexArray();
  gl.bindVertexArray(m.vao);
  gl.bindBuffer(gl.ARRAY_BUFFER, m.pos);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
  gl.bindBuffer(gl.ARRAY_BUFFER, m.col);
  gl.enableVertexAttribArray(1);
  gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 0, 0);
  instanceAttribs(instBuf, 0);
  gl.bindVertexArray(null);
  return m;
}

// reserveRecords makes a species' instance buffer hold at least n records (never
// fewer than 16); it keeps it when it already does.
export function reserveRecords(A, n) {
  if (A.instCap >= n) return;
  A.instCap = Math.max(n, 16);
  gl.bindBuffer(gl.ARRAY_BUFFER, A.instBuf);
  gl.bufferData(gl.ARRAY_BUFFER, A.instCap * RECORD_BYTES, gl.DYNAMIC_DRAW);
}

// uploadRecords sends a species' A.count records (A.instData, as the server sent
// them) to its instance buffer.
export function uploadRecords(A) {
  const o = A.count * RECORD;
  if (o > 0) {
    gl.bindBuffer(gl.ARRAY_BUFFER, A.instBuf);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, A.instData, 0, o);
  }
}

// checkGL counts and reports a WebGL error, if there is one.
export function checkGL() {
  const e = gl.getError();
  if (e !== gl.NO_ERROR) {
    stats.glErrors++;
    stats.lastGLError = e;
    console.error(`bonebake viewer: WebGL error 0x${e.toString(16)}`);
  }
  return e;
}
