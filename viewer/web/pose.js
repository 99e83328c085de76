// The skinning pass, the npm package's core's (js/bonebake-three/src/core,
// served under /core/): before a draw skins or attaches units, a pass writes
// each unit's posed matrices into a texture (the palette rows its record names,
// lerped, weighted with its fades, times the inverse bind), and the vertex
// shader reads three texels per influence (skin.vert.glsl, SKIN_READ). The pass
// reads the units' records where they are, in the instance buffer the draw
// uses (copied to a texture on the GPU), so unit k of the pass is instance k of
// the draw, per frame and in the GPU clock mode alike.
//
// What it poses: a species' skin palette (palette · inverse bind, for its
// mesh), its socket data (the sword's hand, a rider's saddle, the socket
// gizmos) and its model palette (palette rows alone: a rider on a bone when
// the horse has no saddle socket), each a texture of three texels a matrix and
// frame laid out as the core's SkinPalette writes it.
import { gl, compileShader, floatTexture } from './gl.js';
import { RECORD, RECORD_BYTES } from './state.js';
import { REC_FRAME, REC_FADE, REC_PRIOR, REC_RIDER, REC_RIDER_FADE, REC_RIDER_PRIOR } from './wire.js';
import { SkinPalette } from './core/pose.js';
import { POSE_PASS_VERTEX, POSE_PASS_POSES_FRAGMENT } from './core/glsl.js';

// Where a pose's three sides (own, faded from, prior) lie in a record, in
// texels: the unit's, and a horse's rider's.
export const UNIT = [REC_FRAME / 4, REC_FADE / 4, REC_PRIOR / 4];
export const RIDER = [REC_RIDER / 4, REC_RIDER_FADE / 4, REC_RIDER_PRIOR / 4];

const RECORD_TEXELS = RECORD / 4;
const UNITS_PER_ROW = 64; // of a posed texture, at most (fewer when a row of them would be too wide)
const RECORDS_PER_ROW = 256; // 2,048 texels a row of the records texture
// Texture units of the pass, apart from every program's (gl.js).
const PALETTE_UNIT = 13, RECORDS_UNIT = 14;

let prog = null, U = null, tri = null, fbo = null, records = { tex: null, rows: 0 }, maxTex = 0;

export function setupPose() {
  if (!gl.getExtension('EXT_color_buffer_float')) throw new Error('WebGL2 without EXT_color_buffer_float: the skinning pass cannot write its float texture');
  maxTex = gl.getParameter(gl.MAX_TEXTURE_SIZE);
  prog = gl.createProgram();
  gl.attachShader(prog, compileShader(gl.VERTEX_SHADER, '#version 300 es\n' + POSE_PASS_VERTEX, 'the core\'s POSE_PASS_VERTEX'));
  gl.attachShader(prog, compileShader(gl.FRAGMENT_SHADER, '#version 300 es\n' + POSE_PASS_POSES_FRAGMENT, 'the core\'s POSE_PASS_POSES_FRAGMENT'));
  gl.bindAttribLocation(prog, 0, 'position');
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('link the skinning pass: ' + gl.getProgramInfoLog(prog));
  U = {};
  for (const n of ['bonebakeSkinPalette', 'bonebakeFramesPerRow', 'bonebakeBones', 'bonebakePerRow', 'bonebakeCount',
    'bonebakePoses', 'bonebakePoseTexels', 'bonebakePosesPerRow', 'bonebakePoseAt']) U[n] = gl.getUniformLocation(prog, n);
  gl.useProgram(prog);
  gl.uniform1i(U.bonebakeSkinPalette, PALETTE_UNIT);
  gl.uniform1i(U.bonebakePoses, RECORDS_UNIT);
  gl.uniform1i(U.bonebakePoseTexels, RECORD_TEXELS);
  gl.uniform1i(U.bonebakePosesPerRow, RECORDS_PER_ROW);
  // One triangle that covers the target.
  tri = gl.createVertexArray();
  gl.bindVertexArray(tri);
  const b = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, b);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 0, 3, -1, 0, -1, 3, 0]), gl.STATIC_DRAW);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
  gl.bindVertexArray(null);
  fbo = gl.createFramebuffer();
}

// matrices gives what the pass poses from three texels a matrix and frame:
// count matrices a unit, the texture laid out as floatTexture lays it.
function matrices(floats, count, frames) {
  return { ...floatTexture(floats, count * 3, frames), count };
}

// bpatOf is the part of a BPAT file the core's SkinPalette reads.
const bpatOf = (A) => ({ boneCount: A.info.bone_count, frameTotal: A.info.frame_total, palette: A.palette, name: A.name });

// skinPalette is A's palette times its mesh's inverse binds (row-major in the
// mesh the server sends; the core takes them column-major), made once.
export function skinPalette(A) {
  if (!A.skinPalette) {
    const n = A.info.bone_count, ib = A.mesh.inverseBind, cm = new Float32Array(n * 16);
    for (let b = 0; b < n; b++) for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) cm[b * 16 + c * 4 + r] = ib[b * 16 + r * 4 + c];
    A.skinPalette = matrices(new SkinPalette(bpatOf(A), cm).skin, n, A.info.frame_total);
  }
  return A.skinPalette;
}

// modelPalette is A's palette rows alone (SkinPalette with identity inverse
// binds): on the CPU for the skeleton overlay, as a texture for a rider on a
// bone. Made the first time either asks.
export function modelPalette(A) {
  if (!A.modelPalette) {
    const n = A.info.bone_count, id = new Float32Array(n * 16);
    for (let b = 0; b < n; b++) id[b * 16] = id[b * 16 + 5] = id[b * 16 + 10] = id[b * 16 + 15] = 1;
    A.modelPalette = new SkinPalette(bpatOf(A), id);
  }
  return A.modelPalette;
}

export function modelPaletteTex(A) {
  return (A.modelPaletteTex ||= matrices(modelPalette(A).skin, A.info.bone_count, A.info.frame_total));
}

// socketMatrices is A's socket data block (three texels a socket and frame,
// docs/formats/bpat.md §1), as the pass reads it.
export function socketMatrices(A) {
  return (A.socketMatrices ||= matrices(A.socketData, A.sockets.length, A.info.frame_total));
}

// pose runs the pass: for n units whose records are in buffer buf (their
// sides at texels at), the matrices of src posed into target (an object the
// caller keeps: its texture is made and grown here). It leaves the default
// framebuffer bound, with the viewport and scissor test as they were; the
// caller binds its program again.
export function pose(target, src, buf, n, at) {
  if (n === 0) return target;
  copyRecords(buf, n);
  const texels = src.count * 3, perRow = Math.max(1, Math.min(UNITS_PER_ROW, Math.floor(maxTex / texels)));
  const w = perRow * texels, h = Math.ceil(n / perRow);
  if (h > maxTex) throw new Error(`${n} units of ${src.count} matrices do not fit a ${maxTex}-texel texture`);
  if (target.w !== w || !(target.h >= h)) {
    // Twice the rows asked for when it grows, so that a growing crowd does not make one every step.
    const rows = target.w === w ? Math.min(maxTex, Math.max(h, 2 * target.h)) : h;
    if (target.tex) gl.deleteTexture(target.tex);
    target.tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, target.tex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, w, rows);
    target.w = w;
    target.h = rows;
  }
  target.count = src.count;
  target.perRow = perRow;
  const viewport = gl.getParameter(gl.VIEWPORT), scissor = gl.isEnabled(gl.SCISSOR_TEST);
  gl.disable(gl.SCISSOR_TEST);
  gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, target.tex, 0);
  gl.viewport(0, 0, w, h);
  gl.useProgram(prog);
  gl.activeTexture(gl.TEXTURE0 + PALETTE_UNIT);
  gl.bindTexture(gl.TEXTURE_2D, src.tex);
  gl.activeTexture(gl.TEXTURE0 + RECORDS_UNIT);
  gl.bindTexture(gl.TEXTURE_2D, records.tex);
  gl.activeTexture(gl.TEXTURE0);
  gl.uniform1i(U.bonebakeFramesPerRow, src.perRow);
  gl.uniform1i(U.bonebakeBones, src.count);
  gl.uniform1i(U.bonebakePerRow, perRow);
  gl.uniform1i(U.bonebakeCount, n);
  gl.uniform3i(U.bonebakePoseAt, at[0], at[1], at[2]);
  gl.bindVertexArray(tri);
  gl.drawArrays(gl.TRIANGLES, 0, 3);
  gl.bindVertexArray(null);
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  gl.viewport(viewport[0], viewport[1], viewport[2], viewport[3]);
  if (scissor) gl.enable(gl.SCISSOR_TEST);
  return target;
}

// copyRecords copies n records of buffer buf into the records texture, on the
// GPU (RECORDS_PER_ROW records a row).
function copyRecords(buf, n) {
  const rows = Math.ceil(n / RECORDS_PER_ROW);
  gl.activeTexture(gl.TEXTURE0 + RECORDS_UNIT);
  if (records.rows < rows) {
    if (records.tex) gl.deleteTexture(records.tex);
    records.rows = Math.max(rows, 2 * records.rows);
    records.tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, records.tex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, RECORDS_PER_ROW * RECORD_TEXELS, records.rows);
  } else {
    gl.bindTexture(gl.TEXTURE_2D, records.tex);
  }
  gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, buf);
  const full = Math.floor(n / RECORDS_PER_ROW), rest = n - full * RECORDS_PER_ROW;
  if (full > 0) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, RECORDS_PER_ROW * RECORD_TEXELS, full, gl.RGBA, gl.FLOAT, 0);
  if (rest > 0) gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, full, rest * RECORD_TEXELS, 1, gl.RGBA, gl.FLOAT, full * RECORDS_PER_ROW * RECORD_BYTES);
  gl.bindBuffer(gl.PIXEL_UNPACK_BUFFER, null);
  gl.activeTexture(gl.TEXTURE0);
}
