// bonebake viewer: draws crowds of baked creatures with WebGL2, skinned on the GPU
// straight from the BPAT palette bytes the server hands out.
//
// Per species: the palette block as an RGBA32F texture (unchanged bytes, FACTS
// §1.1), the inverse bind matrices as a one-row RGBA32F texture, the socket data
// block as another, the mesh in vertex buffers, and one buffer of per-instance
// records drawn with one instanced call. A record is 16 floats:
//   0 frame row, next row, lerp, 0     (the clip's frame_offset + FACTS §1.5 frames)
//   4 tint r, g, b, share of the tint non-cloth parts take
//   8 x, z, yaw, scale
//  12 a rider's frame row, next row, lerp, 0 (horses only)
import { resolve, duration } from './playback.js';
import * as M from './mat.js';

const RECORD = 16;
const RECORD_BYTES = RECORD * 4;
const MAX_INSTANCES = 20000;
const ONE_SHOT_HOLD = 0.35; // a one-shot in the crowd replays after holding its end pose this long (in clip lengths)
const BACKGROUND = [0.149, 0.169, 0.2];
const FOV = 45 * Math.PI / 180;

const ROLE_COLORS = [
  [0.86, 0.67, 0.54], // skin / hide
  [0.86, 0.86, 0.84], // cloth (takes the instance tint)
  [0.32, 0.23, 0.15], // hair, mane
  [0.74, 0.76, 0.80], // metal
  [0.46, 0.31, 0.19], // leather
  [0.90, 0.87, 0.78], // bone, hooves
  [0.56, 0.41, 0.26], // wood
  [0.08, 0.08, 0.09], // eyes
];

const $ = (id) => document.getElementById(id);
const canvas = $('view');
const params = new URLSearchParams(location.search);

const state = {
  assets: [],
  selected: 0,
  count: clampInt(params.get('n'), 1, MAX_INSTANCES, 300),
  layout: params.get('layout') === 'battle' ? 'battle' : 'parade',
  only: params.get('only') === '1', // the crowd holds the selected species alone
  playing: params.get('paused') !== '1',
  speed: 1,
  time: Number(params.get('t')) || 0,
  showSkeleton: params.get('skeleton') !== '0',
  showSockets: params.get('sockets') !== '0',
  showProps: params.get('props') !== '0',
  showCrowd: true,
  override: [], // per asset: the clip every instance of it plays, or -1 for the layout's mix
};
const stats = { frames: 0, drawCalls: 0, instances: 0, glErrors: 0, lastGLError: 0, frameMs: 0, cpuMs: 0 };
const frameWaiters = [];

const hook = { ready: false, error: null, state, stats };
window.bonebake = hook;

function clampInt(v, lo, hi, dflt) {
  const n = Math.round(Number(v));
  if (v === null || v === '' || !Number.isFinite(n)) return dflt;
  return Math.min(hi, Math.max(lo, n));
}

function fail(err) {
  const msg = (err && err.stack) ? String(err.stack) : String(err);
  hook.error = msg;
  const box = $('message');
  box.textContent = 'bonebake viewer: ' + msg;
  box.hidden = false;
  $('status').textContent = 'error';
  console.error('bonebake viewer:', msg);
}

// ---------------------------------------------------------------- WebGL setup

const gl = canvas.getContext('webgl2', { antialias: params.get('aa') !== '0', alpha: false });
let prog, U, dummyTex, grid, axes, skeletonLines, focusBuf, focusData, unitBuf, swordMesh;

function compileShader(type, src, name) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(`${name}: ${gl.getShaderInfoLog(s)}`);
  return s;
}

async function fetchOK(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r;
}

async function setupGL() {
  const [vs, fs] = await Promise.all([
    fetchOK('skin.vert.glsl').then((r) => r.text()),
    fetchOK('skin.frag.glsl').then((r) => r.text()),
  ]);
  prog = gl.createProgram();
  gl.attachShader(prog, compileShader(gl.VERTEX_SHADER, vs, 'skin.vert.glsl'));
  gl.attachShader(prog, compileShader(gl.FRAGMENT_SHADER, fs, 'skin.frag.glsl'));
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('link: ' + gl.getProgramInfoLog(prog));
  U = {};
  for (const n of ['u_palette', 'u_paletteStride', 'u_paletteFramesPerRow', 'u_inverseBind', 'u_skinned',
    'u_attached', 'u_attachTex', 'u_attachStride', 'u_attachFramesPerRow', 'u_attachBase',
    'u_local', 'u_viewProj', 'u_roleColors', 'u_unlit', 'u_sun', 'u_material', 'u_baseColor', 'u_textured', 'u_baseTex', 'u_display']) {
    U[n] = gl.getUniformLocation(prog, n);
  }
  gl.useProgram(prog);
  gl.uniform1i(U.u_palette, 0);
  gl.uniform1i(U.u_inverseBind, 1);
  gl.uniform1i(U.u_attachTex, 2);
  gl.uniform1i(U.u_baseTex, 3);
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

  // One-record instance buffers: the unit transform (grid) and the focus instance (overlays).
  unitBuf = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, unitBuf);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0]), gl.STATIC_DRAW);
  focusData = new Float32Array(RECORD);
  focusBuf = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, focusBuf);
  gl.bufferData(gl.ARRAY_BUFFER, focusData, gl.DYNAMIC_DRAW);

  axes = lineMesh(new Float32Array([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]),
    new Float32Array([1, .25, .25, 1, .25, .25, .3, 1, .3, .3, 1, .3, .35, .55, 1, .35, .55, 1]), focusBuf);
  skeletonLines = lineMesh(new Float32Array(64 * 6 * 3), new Float32Array(64 * 6 * 3), focusBuf, gl.DYNAMIC_DRAW);
  swordMesh = solidMesh(sword());
}

// floatTexture uploads floats (frames × texelsPerFrame RGBA texels, in order) as
// an RGBA32F texture: one frame per row, or several per row when there are more
// frames than MAX_TEXTURE_SIZE rows. The bytes go up unchanged.
function floatTexture(floats, texelsPerFrame, frames) {
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

// Instance attributes 5-8 from a record buffer; play and attach can point at
// different fields (a rider plays field 12 and follows its horse's field 0).
function instanceAttribs(buf, playOffset, attachOffset) {
  gl.bindBuffer(gl.ARRAY_BUFFER, buf);
  for (const [loc, off] of [[5, playOffset], [6, 16], [7, 32], [8, attachOffset]]) {
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 4, gl.FLOAT, false, RECORD_BYTES, off);
    gl.vertexAttribDivisor(loc, 1);
  }
}

// A triangle mesh (positions, normals, joints, weights, roles, indices).
function solidMesh(m) {
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

function meshVAO(g, instBuf, playOffset = 0, attachOffset = 0) {
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
  instanceAttribs(instBuf, playOffset, attachOffset);
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, g.index);
  gl.bindVertexArray(null);
  return vao;
}

// An unlit line list: positions and colours.
function lineMesh(positions, colors, instBuf, usage = gl.STATIC_DRAW) {
  const m = { pos: arrayBuffer(gl.ARRAY_BUFFER, positions, usage), col: arrayBuffer(gl.ARRAY_BUFFER, colors, usage), count: positions.length / 3 };
  m.vao = gl.createVertexArray();
  gl.bindVertexArray(m.vao);
  gl.bindBuffer(gl.ARRAY_BUFFER, m.pos);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
  gl.bindBuffer(gl.ARRAY_BUFFER, m.col);
  gl.enableVertexAttribArray(1);
  gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 0, 0);
  instanceAttribs(instBuf, 0, 0);
  gl.bindVertexArray(null);
  return m;
}

// A sword for the hand_r socket: the grip at the socket origin, the blade along +z.
function sword() {
  const P = [], N = [], R = [], I = [];
  const box = (c, h, role) => {
    const faces = [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[-1, 0, 0], [0, 0, 1], [0, 1, 0]], [[0, 1, 0], [0, 0, 1], [1, 0, 0]],
      [[0, -1, 0], [1, 0, 0], [0, 0, 1]], [[0, 0, 1], [1, 0, 0], [0, 1, 0]], [[0, 0, -1], [0, 1, 0], [1, 0, 0]]];
    for (const [n, u, v] of faces) {
      const base = P.length / 3;
      for (const [a, b] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
        for (let k = 0; k < 3; k++) P.push(c[k] + h[k] * (n[k] + a * u[k] + b * v[k]));
        N.push(...n);
        R.push(role);
      }
      I.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  };
  box([0, 0, -0.04], [0.017, 0.017, 0.075], 4); // grip
  box([0, 0, -0.125], [0.026, 0.026, 0.02], 3); // pommel
  box([0, 0, 0.045], [0.1, 0.018, 0.014], 3);   // cross-guard
  box([0, 0, 0.44], [0.026, 0.006, 0.38], 3);   // blade
  return { positions: new Float32Array(P), normals: new Float32Array(N), roles: new Uint8Array(R), indices: new Uint32Array(I) };
}

// ---------------------------------------------------------------- assets

const MESH_UVS = 2, MESH_MATERIALS = 4; // EncodeMesh's flags

function parseMesh(buf) {
  const dv = new DataView(buf);
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (magic !== 'BBVM') throw new Error('mesh: bad magic ' + JSON.stringify(magic));
  if (dv.getUint32(4, true) !== 2) throw new Error('mesh: version ' + dv.getUint32(4, true) + ', want 2');
  const V = dv.getUint32(8, true), I = dv.getUint32(12, true), B = dv.getUint32(16, true);
  const flags = dv.getUint32(20, true), P = dv.getUint32(24, true);
  let o = 32;
  const take = (Type, n, bytes) => { const a = new Type(buf, o, n); o += bytes; return a; };
  const m = {
    positions: take(Float32Array, V * 3, V * 12),
    normals: take(Float32Array, V * 3, V * 12),
    joints: take(Uint16Array, V * 4, V * 8),
    weights: take(Float32Array, V * 4, V * 16),
    roles: take(Uint8Array, V, (V + 3) & ~3),
    uvs: flags & MESH_UVS ? take(Float32Array, V * 2, V * 8) : null,
    indices: take(Uint32Array, I, I * 4),
    inverseBind: take(Float32Array, B * 16, B * 64),
    materials: (flags & MESH_MATERIALS) !== 0,
    parts: [],
  };
  for (let k = 0; k < P; k++, o += 32) {
    m.parts.push({
      first: dv.getUint32(o, true), count: dv.getUint32(o + 4, true), texture: dv.getInt32(o + 8, true),
      color: [0, 1, 2, 3].map((c) => dv.getFloat32(o + 16 + 4 * c, true)),
    });
  }
  return m;
}

// baseTexture uploads a base colour image (sRGB, so the shader samples linear
// colour) with the model's sampler modes; mipmaps unless its filters say none. An
// image the browser cannot decode leaves the part untextured (null).
async function baseTexture(url, t) {
  const blob = await fetchOK(url).then((r) => r.blob());
  let img;
  try {
    img = await createImageBitmap(blob, { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
  } catch (err) {
    console.warn(`bonebake viewer: ${url} does not decode (${err}); drawn without it`);
    return null;
  }
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false); // glTF's uv (0,0) is the image's first row
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.SRGB8_ALPHA8, gl.RGBA, gl.UNSIGNED_BYTE, img);
  const minF = t.min_filter || gl.LINEAR_MIPMAP_LINEAR;
  if (minF !== gl.NEAREST && minF !== gl.LINEAR) gl.generateMipmap(gl.TEXTURE_2D);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, minF);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, t.mag_filter || gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, t.wrap_s || gl.REPEAT);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, t.wrap_t || gl.REPEAT);
  return tex;
}

async function loadAsset(info) {
  const base = `api/assets/${info.id}/`;
  const [pal, sock, mesh] = await Promise.all(['palette', 'socketdata', 'mesh'].map((w) => fetchOK(base + w).then((r) => r.arrayBuffer())));
  const textures = await Promise.all(info.textures.map((t, k) => baseTexture(`${base}texture/${k}`, t)));
  if (pal.byteLength !== info.palette_bytes) throw new Error(`${info.name}: palette is ${pal.byteLength} bytes, want ${info.palette_bytes}`);
  const A = {
    info, id: info.id, name: info.name, clips: info.clips, sockets: info.sockets,
    paletteBytes: pal,
    palette: new Float32Array(pal), // the file's palette block as floats (little-endian host)
    socketData: new Float32Array(sock),
    mesh: parseMesh(mesh), textures,
    // The display rotation, column-major from the row-major list the server sends.
    display: new Float32Array([0, 3, 6, 1, 4, 7, 2, 5, 8].map((k) => info.display[k])),
    count: 0, members: new Int32Array(0), instData: new Float32Array(0), instCap: 0,
  };
  for (const c of A.clips) c.seconds = duration(c.frames, c.fps, c.loops);
  A.paletteTex = floatTexture(A.palette, info.bones * 4, info.frame_total);
  A.socketTex = info.sockets.length > 0 ? floatTexture(A.socketData, info.sockets.length * 3, info.frame_total) : { tex: dummyTex, perRow: 1, stride: 1 };
  A.ibmTex = floatTexture(A.mesh.inverseBind, info.bones * 4, 1).tex;
  A.gpu = solidMesh(A.mesh);
  A.instBuf = gl.createBuffer();
  A.vao = meshVAO(A.gpu, A.instBuf, 0, 0);
  measure(A);
  A.roleColors = roleColors(A);
  return A;
}

// measure finds the creature's size at its bind pose (or, for bones drawn as
// boxes, from the first frame) and a display scale for models not in metres.
function measure(A) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const r = A.display; // measured as shown
  const add = (x, y, z) => {
    const p = [r[0] * x + r[3] * y + r[6] * z, r[1] * x + r[4] * y + r[7] * z, r[2] * x + r[5] * y + r[8] * z];
    for (let k = 0; k < 3; k++) if (Number.isFinite(p[k])) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); }
  };
  if (A.info.mesh === 'boxes') {
    for (let b = 0; b < A.info.bones; b++) add(A.palette[b * 16 + 3], A.palette[b * 16 + 7], A.palette[b * 16 + 11]);
  } else {
    const p = A.mesh.positions;
    for (let i = 0; i < p.length; i += 3) add(p[i], p[i + 1], p[i + 2]);
  }
  let h = hi[1] - lo[1], w = Math.max(hi[0] - lo[0], hi[2] - lo[2]);
  if (!(h > 0)) h = 0; if (!(w > 0)) w = 0;
  const size = Math.max(h, w);
  A.scale = size > 0.2 && size < 8 ? 1 : size > 0 ? 1.7 / size : 1;
  A.height = Math.max(h, 0.25 * size, 0.05) * A.scale || 1;
  A.radius = Math.max(w * 0.5 * A.scale, 0.25 * A.height, 0.15);
  A.spacing = A.radius * 2.3;
}

function roleColors(A) {
  const c = ROLE_COLORS.map((x) => x.slice());
  const n = A.name.toLowerCase();
  if (A.info.mesh === 'gltf') c[0] = [0.84, 0.58, 0.36];
  if (/horse/.test(n) || A.info.species_id === 1) c[0] = [0.50, 0.34, 0.22];
  if (/elephant/.test(n) || A.info.species_id === 2) c[0] = [0.47, 0.46, 0.47];
  if (/skeleton/.test(n) || A.info.species_id === 5) c[0] = ROLE_COLORS[5];
  if (A.mesh.materials) c[0] = [1, 1, 1]; // the material colours it alone
  return new Float32Array(c.flat());
}

const CLIP_KINDS = {
  attack: /attack|fight|strike/i,
  walk: /^(walk|run|trot|canter|gallop)/i,
  die: /^die/i,
  idle: /^(idle|hold)/i,
};

function clipsOfKind(A, kind) {
  A.kinds ??= {};
  if (!A.kinds[kind]) {
    const re = CLIP_KINDS[kind];
    A.kinds[kind] = A.clips.map((c, i) => (re.test(c.name) ? i : -1)).filter((i) => i >= 0);
  }
  return A.kinds[kind];
}

// Props: the sword humanoid's sword in hand_r, and a rider on the horse.
function setupProps() {
  const assets = state.assets;
  const byName = (re) => assets.find((A) => re.test(A.name));
  for (const A of assets) {
    const hand = A.sockets.findIndex((s) => s.name === 'hand_r');
    if (hand >= 0 && (/sword/i.test(A.name) || A.info.species_id === 3)) {
      A.sword = { socket: hand, vao: meshVAO(swordMesh, A.instBuf, 0, 0) };
    }
  }
  const horse = assets.find((A) => /horse/i.test(A.name) || (A.info.species_id === 1 && A.info.kind !== 'gltf'));
  const rider = byName(/^humanoid$/i) || assets.find((A) => A.info.species_id === 0 && A.clips.some((c) => /^riding/.test(c.name)))
    || assets.find((A) => A.clips.some((c) => /^riding/.test(c.name)));
  if (!horse || !rider || horse === rider) return;
  const ridingClip = (name) => rider.clips.findIndex((c) => c.name === name);
  const idle = ridingClip('riding_idle') >= 0 ? ridingClip('riding_idle') : rider.clips.findIndex((c) => /^riding/.test(c.name));
  if (idle < 0) return;
  const pick = (name) => (ridingClip(name) >= 0 ? ridingClip(name) : idle);
  const clipFor = horse.clips.map((c) => {
    if (/^die/.test(c.name)) return pick('die_mounted');
    if (/^dead/.test(c.name)) return pick('dead_mounted');
    if (/gallop|canter|fight|charge/.test(c.name)) return pick('riding_charge');
    return idle;
  });
  // Where the rider sits. With a saddle socket, the riding clips are made for a
  // horse standing at its first frame on the rider's ground: the rider follows
  // the saddle's motion away from there, local = inverse(saddle at that frame).
  // Without one, the rider's pelvis goes a little above the body bone.
  let source, local;
  const sock = horse.sockets.findIndex((s) => /saddle|rider|mount|seat/i.test(s.name));
  if (sock >= 0) {
    source = { tex: horse.socketTex, base: sock * 3 };
    const S = new Float32Array(horse.socketData.buffer, horse.socketData.byteOffset + sock * 48, 12);
    local = inverseAffine(S);
  } else {
    const names = horse.info.bone_names || [];
    let body = names.findIndex((n) => /^body$/i.test(n));
    if (body < 0) body = Math.min(1, horse.info.bones - 1);
    source = { tex: horse.paletteTex, base: body * 4 };
    const rnames = rider.info.bone_names || [];
    let pelvis = rnames.findIndex((n) => /pelvis|hips/i.test(n));
    if (pelvis < 0) pelvis = Math.min(1, rider.info.bones - 1);
    const o = (rider.clips[idle].frame_offset * rider.info.bones + pelvis) * 16;
    local = M.translation(-rider.palette[o + 3], -rider.palette[o + 7] + 0.2 * horse.height / horse.scale, -rider.palette[o + 11]);
  }
  horse.rider = { asset: rider, clipFor, source, local, vao: meshVAO(rider.gpu, horse.instBuf, 48, 0) };
}

// inverseAffine inverts the affine matrix whose top three rows r (12 floats,
// row-major) holds, into a column-major 4×4.
function inverseAffine(r) {
  const [a, b, c, tx, d, e, f, ty, g, h, i, tz] = r;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!(Math.abs(det) > 1e-12)) return M.identity();
  const s = 1 / det;
  // Rows of the inverse 3×3.
  const m = [
    [A * s, -(b * i - c * h) * s, (b * f - c * e) * s],
    [B * s, (a * i - c * g) * s, -(a * f - c * d) * s],
    [C * s, -(a * h - b * g) * s, (a * e - b * d) * s],
  ];
  const out = M.identity();
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) out[col * 4 + row] = m[row][col];
    out[12 + row] = -(m[row][0] * tx + m[row][1] * ty + m[row][2] * tz);
  }
  return out;
}

// ---------------------------------------------------------------- the crowd

let inst = null;

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hueTint(h) {
  const f = (n) => { const k = (n + h * 12) % 12; return 0.7 + 0.3 * Math.max(-1, Math.min(k - 3, 9 - k, 1)); };
  return [f(0), f(8), f(4)];
}

function buildInstances() {
  const n = state.count, all = state.assets;
  const assets = state.only ? [all[state.selected]] : all, nA = assets.length;
  inst = {
    n, asset: new Uint16Array(n), clip: new Uint16Array(n), phase0: new Float32Array(n), rate: new Float32Array(n),
    x: new Float32Array(n), z: new Float32Array(n), yaw: new Float32Array(n), tint: new Float32Array(n * 4),
  };
  const rnd = rng(0x5eed + n);
  const choose = (list) => list[Math.floor(rnd() * list.length)];
  if (state.layout === 'parade') {
    // Rows by species (front to back), each species' instances cycling through
    // its clips; every species' band about as wide as the whole is deep.
    const share = (a) => Math.floor(n / nA) + (a < n % nA ? 1 : 0);
    let area = 0;
    for (let a = 0; a < nA; a++) area += share(a) * assets[a].spacing ** 2;
    const width = Math.sqrt(area) * 1.15;
    let z = 0;
    for (let a = 0; a < nA; a++) {
      const A = assets[a];
      const m = share(a);
      if (m === 0) continue;
      const sp = A.spacing, cols = Math.max(1, Math.floor(width / sp)), rows = Math.ceil(m / cols);
      for (let k = 0; k < m; k++) {
        const i = k * nA + a;
        const r = Math.floor(k / cols), c = k % cols;
        const inRow = Math.min(cols, m - r * cols);
        inst.asset[i] = A.index;
        inst.clip[i] = k % A.clips.length;
        inst.x[i] = (c - (inRow - 1) / 2) * sp;
        inst.z[i] = z - r * sp;
        inst.yaw[i] = 0;
        inst.tint.set([...hueTint((k * 0.13 + a * 0.29) % 1), 0.12], i * 4);
      }
      z -= rows * sp + sp * 0.6;
    }
    for (let i = 0; i < n; i++) inst.z[i] -= z / 2; // centre the parade on the origin
  } else {
    // Two armies facing each other across z = 0, in ranks of one species each.
    const spMin = Math.min(...assets.map((A) => A.spacing));
    for (let army = 0; army < 2; army++) {
      const m = Math.floor(n / 2) + (army === 0 ? n % 2 : 0);
      const cols = Math.max(1, Math.ceil(Math.sqrt(m * 2.5)));
      const width = cols * spMin;
      const side = army === 0 ? -1 : 1;
      const tint = army === 0 ? [0.95, 0.3, 0.26, 0.2] : [0.28, 0.46, 0.98, 0.2];
      let k = 0, depth = spMin * 0.8;
      for (let rank = 0; k < m; rank++) {
        const a = (rank + army) % nA, A = assets[a];
        const sp = A.spacing, perRank = Math.max(1, Math.floor(width / sp));
        const inRank = Math.min(perRank, m - k);
        depth += sp / 2;
        for (let c = 0; c < inRank; c++, k++) {
          const i = k * 2 + army;
          inst.asset[i] = A.index;
          const roll = rnd();
          let kind;
          if (rank < 2) kind = roll < 0.62 ? 'attack' : roll < 0.8 ? 'die' : 'idle';
          else kind = roll < 0.55 ? 'walk' : roll < 0.8 ? 'idle' : 'attack';
          const list = clipsOfKind(A, kind);
          inst.clip[i] = list.length ? choose(list) : Math.floor(rnd() * A.clips.length);
          inst.x[i] = (c - (inRank - 1) / 2) * sp + (rnd() - 0.5) * 0.15 * sp;
          inst.z[i] = side * depth;
          inst.yaw[i] = army === 0 ? 0 : Math.PI;
          inst.tint.set(tint, i * 4);
        }
        depth += sp / 2;
      }
    }
  }
  for (let i = 0; i < n; i++) {
    inst.phase0[i] = rnd() * (1 + ONE_SHOT_HOLD);
    inst.rate[i] = 0.9 + 0.2 * rnd();
  }
  // Per-species member lists and record buffers.
  const counts = new Array(all.length).fill(0);
  for (let i = 0; i < n; i++) counts[inst.asset[i]]++;
  all.forEach((A, a) => {
    A.members = new Int32Array(counts[a]);
    A.count = 0;
    if (A.instCap < counts[a]) {
      A.instCap = Math.max(counts[a], 16);
      A.instData = new Float32Array(A.instCap * RECORD);
      gl.bindBuffer(gl.ARRAY_BUFFER, A.instBuf);
      gl.bufferData(gl.ARRAY_BUFFER, A.instData.byteLength, gl.DYNAMIC_DRAW);
    }
  });
  for (let i = 0; i < n; i++) { const A = all[inst.asset[i]]; A.members[A.count++] = i; }
  // Extent, for the camera and the ground grid.
  let x0 = Infinity, x1 = -Infinity, z0 = Infinity, z1 = -Infinity;
  for (let i = 0; i < n; i++) {
    x0 = Math.min(x0, inst.x[i]); x1 = Math.max(x1, inst.x[i]);
    z0 = Math.min(z0, inst.z[i]); z1 = Math.max(z1, inst.z[i]);
  }
  const pad = Math.max(...assets.map((A) => A.radius)) * 1.5;
  state.extent = { cx: (x0 + x1) / 2, cz: (z0 + z1) / 2, r: Math.max(Math.hypot(x1 - x0, z1 - z0) / 2 + pad, 1),
    h: Math.max(...assets.map((A) => A.height)) };
  buildGrid();
}

function buildGrid() {
  const e = state.extent;
  const step = Math.pow(10, Math.floor(Math.log10(Math.max(e.r / 8, 0.1))));
  const half = Math.ceil((e.r * 1.25) / step) * step;
  const cx = Math.round(e.cx / step) * step, cz = Math.round(e.cz / step) * step;
  const P = [], C = [];
  const line = (a, b, col) => { P.push(...a, ...b); C.push(...col, ...col); };
  for (let v = -half; v <= half + 1e-9; v += step) {
    const major = Math.abs(Math.round((cx + v) / step) % 10) === 0;
    const col = major ? [0.3, 0.34, 0.4] : [0.21, 0.24, 0.29];
    line([cx + v, 0, cz - half], [cx + v, 0, cz + half], col);
    line([cx - half, 0, cz + v], [cx + half, 0, cz + v], col);
  }
  if (grid) { gl.deleteBuffer(grid.pos); gl.deleteBuffer(grid.col); gl.deleteVertexArray(grid.vao); }
  grid = lineMesh(new Float32Array(P), new Float32Array(C), unitBuf);
}

function phaseOf(c, p0, rate) {
  const d = c.seconds;
  if (!(d > 0)) return p0;
  let p = p0 + (state.time * rate) / d;
  if (!c.loops) { const cycle = 1 + ONE_SHOT_HOLD; p -= Math.floor(p / cycle) * cycle; }
  return p;
}

function clipOf(A, i) {
  const o = state.override[A.id];
  return o >= 0 ? o : inst.clip[i];
}

const fr = [0, 0, 0];

// fillRecords computes every instance's frames (FACTS §1.5) and uploads the records.
function fillRecords() {
  for (const A of state.assets) {
    const d = A.instData, R = A.rider;
    let o = 0;
    for (let k = 0; k < A.count; k++, o += RECORD) {
      const i = A.members[k];
      const ci = clipOf(A, i), c = A.clips[ci];
      resolve(phaseOf(c, inst.phase0[i], inst.rate[i]), c.frames, c.loops, fr);
      d[o] = c.frame_offset + fr[0]; d[o + 1] = c.frame_offset + fr[1]; d[o + 2] = fr[2]; d[o + 3] = 0;
      d[o + 4] = inst.tint[i * 4]; d[o + 5] = inst.tint[i * 4 + 1]; d[o + 6] = inst.tint[i * 4 + 2]; d[o + 7] = inst.tint[i * 4 + 3];
      d[o + 8] = inst.x[i]; d[o + 9] = inst.z[i]; d[o + 10] = inst.yaw[i]; d[o + 11] = A.scale;
      if (R) {
        const rc = R.asset.clips[R.clipFor[ci]];
        resolve(phaseOf(rc, inst.phase0[i], inst.rate[i]), rc.frames, rc.loops, fr);
        d[o + 12] = rc.frame_offset + fr[0]; d[o + 13] = rc.frame_offset + fr[1]; d[o + 14] = fr[2]; d[o + 15] = 0;
      }
    }
    if (o > 0) {
      gl.bindBuffer(gl.ARRAY_BUFFER, A.instBuf);
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, d, 0, o);
    }
  }
}

// ---------------------------------------------------------------- camera

const cam = { target: [0, 1, 0], yaw: 0.5, pitch: 0.42, dist: 10 };
hook.camera = cam;
let viewProj = M.identity();

function frameCrowd() {
  const e = state.extent;
  cam.target = [e.cx, e.h * 0.45, e.cz];
  cam.dist = Math.max(e.r * 2, e.h * 3);
  cam.yaw = state.layout === 'battle' ? 0.9 : 0.35;
  cam.pitch = 0.42;
}

// focusSelected brings the camera close to the selected species' first instance,
// the one the skeleton, sockets and timeline show.
function focusSelected() {
  const F = focusAsset();
  if (!F) return;
  const i = F.members[0];
  cam.target = [inst.x[i], F.height * 0.5, inst.z[i]];
  cam.dist = Math.max(F.height, F.radius * 2) * 2.2;
  cam.yaw = inst.yaw[i] + 0.6;
  cam.pitch = 0.25;
}

function eye() {
  const cp = Math.cos(cam.pitch);
  return [cam.target[0] + cam.dist * cp * Math.sin(cam.yaw), cam.target[1] + cam.dist * Math.sin(cam.pitch), cam.target[2] + cam.dist * cp * Math.cos(cam.yaw)];
}

function updateCamera() {
  const aspect = canvas.width / Math.max(1, canvas.height);
  const far = cam.dist * 4 + state.extent.r * 4;
  viewProj = M.multiply(M.perspective(FOV, aspect, Math.max(cam.dist * 0.01, 0.01), far), M.lookAt(eye(), cam.target, [0, 1, 0]));
}

function pan(dx, dy) {
  const s = (cam.dist * 2 * Math.tan(FOV / 2)) / Math.max(1, canvas.clientHeight);
  const rx = Math.cos(cam.yaw), rz = -Math.sin(cam.yaw); // the camera's right, on the ground
  const fx = -Math.sin(cam.yaw), fz = -Math.cos(cam.yaw); // forward, on the ground
  cam.target[0] += (-dx * rx + dy * fx) * s;
  cam.target[2] += (-dx * rz + dy * fz) * s;
}

function orbit(dx, dy) {
  cam.yaw -= dx * 0.006;
  cam.pitch = Math.min(1.5, Math.max(-0.2, cam.pitch + dy * 0.006));
}

function zoom(factor) {
  cam.dist = Math.min(5000, Math.max(0.2, cam.dist * factor));
}

function setupPointer() {
  const pointers = new Map();
  let pinch = null;
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('pointerdown', (e) => {
    try { canvas.setPointerCapture(e.pointerId); } catch { /* a pointer the browser no longer tracks */ }
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.button === 1 || e.shiftKey });
    pinch = null;
  });
  const end = (e) => { pointers.delete(e.pointerId); pinch = null; };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
  canvas.addEventListener('pointermove', (e) => {
    const p = pointers.get(e.pointerId);
    if (!p) return;
    const dx = e.clientX - p.x, dy = e.clientY - p.y;
    p.x = e.clientX; p.y = e.clientY;
    if (pointers.size === 1) {
      if (p.pan) pan(dx, dy); else orbit(dx, dy);
      return;
    }
    // Two fingers: pinch to zoom, move together to pan.
    const [a, b] = [...pointers.values()];
    const mid = [(a.x + b.x) / 2, (a.y + b.y) / 2], dist = Math.hypot(a.x - b.x, a.y - b.y);
    if (pinch) {
      if (dist > 0 && pinch.dist > 0) zoom(pinch.dist / dist);
      pan(mid[0] - pinch.mid[0], mid[1] - pinch.mid[1]);
    }
    pinch = { mid, dist };
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    zoom(Math.exp(e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015)));
  }, { passive: false });
}

// ---------------------------------------------------------------- drawing

function resize() {
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  const w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
}

function bindTex(unit, tex) {
  gl.activeTexture(gl.TEXTURE0 + unit);
  gl.bindTexture(gl.TEXTURE_2D, tex);
}

const IDENTITY = M.identity();
const IDENTITY3 = new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);

// setDraw sets what the next draws read: a skinned asset's palette, a socket to
// follow, a mesh transform (local, first) and a display rotation (display, last).
function setDraw({ skinned = null, attach = null, unlit = false, local = IDENTITY, display = IDENTITY3, colors = null }) {
  if (skinned) {
    bindTex(0, skinned.paletteTex.tex);
    bindTex(1, skinned.ibmTex);
    gl.uniform1i(U.u_paletteStride, skinned.paletteTex.stride);
    gl.uniform1i(U.u_paletteFramesPerRow, skinned.paletteTex.perRow);
  } else {
    bindTex(0, dummyTex);
    bindTex(1, dummyTex);
  }
  gl.uniform1i(U.u_skinned, skinned ? 1 : 0);
  if (attach) {
    bindTex(2, attach.tex.tex);
    gl.uniform1i(U.u_attachStride, attach.tex.stride);
    gl.uniform1i(U.u_attachFramesPerRow, attach.tex.perRow);
    gl.uniform1i(U.u_attachBase, attach.base);
  } else {
    bindTex(2, dummyTex);
  }
  gl.uniform1i(U.u_attached, attach ? 1 : 0);
  gl.uniform1i(U.u_unlit, unlit ? 1 : 0);
  gl.uniformMatrix4fv(U.u_local, false, local);
  gl.uniformMatrix3fv(U.u_display, false, display);
  if (colors) gl.uniform3fv(U.u_roleColors, colors);
}

// setMaterial makes the next draws take their colour from a glTF material: the
// base colour times the texture, if any. setMaterial(null) goes back to roles.
function setMaterial(color, tex = null) {
  gl.uniform1i(U.u_material, color ? 1 : 0);
  if (color) gl.uniform4fv(U.u_baseColor, color);
  gl.uniform1i(U.u_textured, tex ? 1 : 0);
  bindTex(3, tex || dummyTex);
}

function focusAsset() {
  const A = state.assets[state.selected];
  return A && A.count > 0 ? A : null;
}

function render() {
  resize();
  updateCamera();
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  gl.enable(gl.DEPTH_TEST);
  gl.useProgram(prog);
  gl.uniformMatrix4fv(U.u_viewProj, false, viewProj);
  let calls = 0, drawn = 0;

  setDraw({ unlit: true });
  gl.bindVertexArray(grid.vao);
  gl.drawArraysInstanced(gl.LINES, 0, grid.count, 1);
  calls++;

  if (state.showCrowd) {
    for (const A of state.assets) {
      if (A.count === 0) continue;
      setDraw({ skinned: A, colors: A.roleColors, display: A.display });
      gl.bindVertexArray(A.vao);
      if (A.mesh.materials) {
        for (const p of A.mesh.parts) {
          setMaterial(p.color, A.textures[p.texture] || null);
          gl.drawElementsInstanced(gl.TRIANGLES, p.count, gl.UNSIGNED_INT, p.first * 4, A.count);
          calls++;
        }
        setMaterial(null);
      } else {
        gl.drawElementsInstanced(gl.TRIANGLES, A.gpu.count, gl.UNSIGNED_INT, 0, A.count);
        calls++;
      }
      drawn += A.count;
    }
    if (state.showProps) {
      for (const A of state.assets) {
        if (A.count === 0) continue;
        if (A.sword) {
          setDraw({ attach: { tex: A.socketTex, base: A.sword.socket * 3 }, colors: A.roleColors });
          gl.bindVertexArray(A.sword.vao);
          gl.drawElementsInstanced(gl.TRIANGLES, swordMesh.count, gl.UNSIGNED_INT, 0, A.count);
          calls++;
        }
        if (A.rider) {
          const R = A.rider;
          setDraw({ skinned: R.asset, attach: R.source, local: R.local, colors: R.asset.roleColors });
          gl.bindVertexArray(R.vao);
          gl.drawElementsInstanced(gl.TRIANGLES, R.asset.gpu.count, gl.UNSIGNED_INT, 0, A.count);
          calls++;
        }
      }
    }
  }

  const F = focusAsset();
  if (F && state.showCrowd && (state.showSkeleton || state.showSockets)) {
    focusData.set(F.instData.subarray(0, RECORD));
    focusData.set([1, 1, 1, 0], 4); // overlays keep their own colours
    gl.bindBuffer(gl.ARRAY_BUFFER, focusBuf);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, focusData);
    gl.disable(gl.DEPTH_TEST);
    if (state.showSkeleton) {
      const n = skeletonVertices(F);
      setDraw({ unlit: true, display: F.display });
      gl.bindVertexArray(skeletonLines.vao);
      gl.drawArraysInstanced(gl.LINES, 0, n, 1);
      calls++;
    }
    if (state.showSockets && F.sockets.length > 0) {
      const len = (F.height * 0.09) / F.scale;
      const local = M.identity();
      local[0] = local[5] = local[10] = len;
      for (let s = 0; s < F.sockets.length; s++) {
        setDraw({ unlit: true, attach: { tex: F.socketTex, base: s * 3 }, local, display: F.display });
        gl.bindVertexArray(axes.vao);
        gl.drawArraysInstanced(gl.LINES, 0, axes.count, 1);
        calls++;
      }
    }
    gl.enable(gl.DEPTH_TEST);
  }
  gl.bindVertexArray(null);
  stats.drawCalls = calls;
  stats.instances = drawn;
}

const skelPos = new Float32Array(64 * 6 * 3), skelCol = new Float32Array(64 * 6 * 3);

// skeletonVertices writes the focus instance's bones as lines (parent origin to
// child origin, or per-bone axes when the parents are unknown), blended from the
// palette on the CPU the same way the shader does.
function skeletonVertices(A) {
  const bones = Math.min(A.info.bones, 64), P = A.palette, d = A.instData;
  const f0 = d[0], f1 = d[1], t = d[2];
  const at = (b, k) => {
    const a = P[(f0 * A.info.bones + b) * 16 + k], c = P[(f1 * A.info.bones + b) * 16 + k];
    return a + (c - a) * t;
  };
  const origin = (b) => [at(b, 3), at(b, 7), at(b, 11)];
  let v = 0;
  const put = (p, col) => { skelPos.set(p, v * 3); skelCol.set(col, v * 3); v++; };
  const parents = A.info.parents;
  if (parents) {
    for (let b = 0; b < bones; b++) {
      const p = parents[b];
      if (p >= 0 && p < bones) { put(origin(p), [1, 0.86, 0.3]); put(origin(b), [1, 0.55, 0.15]); }
    }
  }
  if (!parents || v === 0) {
    const len = (A.height * 0.05) / A.scale;
    for (let b = 0; b < bones; b++) {
      const o = origin(b);
      for (let axis = 0; axis < 3; axis++) {
        const dir = [at(b, axis), at(b, 4 + axis), at(b, 8 + axis)];
        const l = Math.hypot(...dir) || 1;
        const col = [0.35, 0.35, 0.35]; col[axis] = 1;
        put(o, col);
        put([o[0] + (dir[0] / l) * len, o[1] + (dir[1] / l) * len, o[2] + (dir[2] / l) * len], col);
      }
    }
  }
  gl.bindBuffer(gl.ARRAY_BUFFER, skeletonLines.pos);
  gl.bufferSubData(gl.ARRAY_BUFFER, 0, skelPos, 0, v * 3);
  gl.bindBuffer(gl.ARRAY_BUFFER, skeletonLines.col);
  gl.bufferSubData(gl.ARRAY_BUFFER, 0, skelCol, 0, v * 3);
  return v;
}

// ---------------------------------------------------------------- timeline

function focusClip() {
  const A = state.assets[state.selected];
  if (!A) return null;
  const i = A.count > 0 ? A.members[0] : -1;
  const ci = state.override[A.id] >= 0 ? state.override[A.id] : i >= 0 ? inst.clip[i] : 0;
  const c = A.clips[ci];
  const p = i >= 0 ? phaseOf(c, inst.phase0[i], inst.rate[i]) : 0;
  return { A, i, ci, c, p };
}

const MARKER_COLORS = {
  anticipation_start: '#7fb3ff', weapon_release: '#c28bff', contact: '#ff6464', recover_unlocked: '#7fe08a', exit_safe: '#e0e070',
};

function drawTimeline() {
  const cv = $('timeline');
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  const W = Math.round(cv.clientWidth * dpr), H = Math.round(cv.clientHeight * dpr);
  if (cv.width !== W || cv.height !== H) { cv.width = W; cv.height = H; }
  const ctx = cv.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const w = cv.clientWidth, h = cv.clientHeight;
  ctx.clearRect(0, 0, w, h);
  const f = focusClip();
  if (!f) return;
  const { c, p } = f;
  const x0 = 14, x1 = w - 14, y0 = 26, y1 = h - 10;
  const xOf = (phase) => x0 + phase * (x1 - x0);
  ctx.fillStyle = '#2a3038';
  ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
  // One tick per baked frame (thinned when they would crowd).
  const span = c.loops ? c.frames : Math.max(1, c.frames - 1);
  const every = Math.max(1, Math.ceil(c.frames / ((x1 - x0) / 4)));
  ctx.strokeStyle = '#56606c';
  ctx.beginPath();
  for (let k = 0; k < c.frames; k += every) {
    const x = Math.round(xOf(c.frames === 1 ? 0 : k / span)) + 0.5;
    ctx.moveTo(x, y1 - (k % (every * 5) === 0 ? 10 : 5));
    ctx.lineTo(x, y1);
  }
  ctx.stroke();
  // Markers.
  ctx.font = '10px system-ui, sans-serif';
  let labelY = y0 + 10;
  for (const [name, v] of Object.entries(c.markers || {})) {
    const x = Math.round(xOf(v)) + 0.5;
    ctx.strokeStyle = MARKER_COLORS[name] || '#ccc';
    ctx.fillStyle = ctx.strokeStyle;
    ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y1); ctx.stroke();
    ctx.fillText(name.replace('_', ' '), Math.min(x + 3, x1 - 70), labelY);
    labelY = labelY >= y1 - 14 ? y0 + 10 : labelY + 10;
  }
  // Playhead.
  const w01 = c.loops ? p - Math.floor(p) : Math.min(1, Math.max(0, p));
  const pb = resolve(p, c.frames, c.loops);
  const x = Math.round(xOf(w01)) + 0.5;
  ctx.strokeStyle = '#ffffff';
  ctx.lineWidth = 2;
  ctx.beginPath(); ctx.moveTo(x, y0 - 4); ctx.lineTo(x, y1); ctx.stroke();
  ctx.lineWidth = 1;
  ctx.fillStyle = '#e6e8eb';
  ctx.font = '12px system-ui, sans-serif';
  const fps = c.fps > 0 ? c.fps : '?';
  ctx.fillText(`${f.A.name} · ${c.name}   frame ${pb[0]} → ${pb[1]}  lerp ${pb[2].toFixed(2)}   ${c.frames} frames @ ${fps} fps, ${c.loops ? 'loops' : 'one-shot'}   phase ${w01.toFixed(3)}`, x0, 17);
}

function setupTimeline() {
  const cv = $('timeline');
  const scrub = (e) => {
    const f = focusClip();
    if (!f || f.i < 0 || !(f.c.seconds > 0)) return;
    const r = cv.getBoundingClientRect();
    const w = Math.min(1, Math.max(0, (e.clientX - r.left - 14) / (r.width - 28)));
    setPlaying(false);
    state.time = ((w - inst.phase0[f.i]) * f.c.seconds) / inst.rate[f.i];
  };
  cv.addEventListener('pointerdown', (e) => { cv.setPointerCapture(e.pointerId); scrub(e); });
  cv.addEventListener('pointermove', (e) => { if (e.buttons) scrub(e); });
}

// ---------------------------------------------------------------- panel

function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

function kvRows(table, rows) {
  table.replaceChildren(...rows.map(([k, v]) => {
    const tr = document.createElement('tr');
    const a = document.createElement('td'), b = document.createElement('td');
    a.textContent = k; b.textContent = v;
    tr.append(a, b);
    return tr;
  }));
}

function showInfo() {
  const A = state.assets[state.selected];
  if (!A) return;
  const i = A.info;
  const rows = [
    ['name', A.name], ['kind', i.kind + (i.source ? ` (${i.source})` : '')], ['species id', i.species_id],
    ['BPAT version', i.version], ['bones', i.bones], ['clips', i.clips.length], ['sockets', i.sockets.length],
    ['frames', i.frame_total], ['file size', fmtBytes(i.file_size)], ['palette', `${fmtBytes(i.palette_bytes)} · ${i.bones * 4}×${i.frame_total} RGBA32F` +
      (A.paletteTex.perRow > 1 ? ` (laid ${A.paletteTex.perRow} frames a row)` : '')],
    ['mesh', `${i.mesh} · ${i.vertices} verts · ${i.triangles} tris`],
  ];
  if (A.scale !== 1) rows.push(['display scale', `×${A.scale.toPrecision(3)}`]);
  if (i.warning) rows.push(['warning', i.warning]);
  kvRows($('info'), rows);
  const body = $('clips').tBodies[0];
  const row = (cells, idx) => {
    const tr = document.createElement('tr');
    for (const c of cells) { const td = document.createElement('td'); td.textContent = c; tr.append(td); }
    tr.dataset.clip = idx;
    if ((state.override[A.id] ?? -1) === idx) tr.classList.add('selected');
    tr.addEventListener('click', () => { state.override[A.id] = idx; showInfo(); });
    return tr;
  };
  const rowsEl = [row(['', '(layout mix)', '', '', '', '', ''], -1)];
  A.clips.forEach((c, k) => rowsEl.push(row([k, c.name, c.frames, c.fps || '?', c.loops ? 'L' : '', c.seconds.toFixed(2), Object.keys(c.markers || {}).length || ''], k)));
  body.replaceChildren(...rowsEl);
}

let statsShown = 0;
function showStats(now) {
  if (now - statsShown < 250) return;
  statsShown = now;
  kvRows($('stats'), [
    ['frame time', `${stats.frameMs.toFixed(1)} ms (${(1000 / Math.max(stats.frameMs, 0.001)).toFixed(0)} fps)`],
    ['CPU per frame', `${stats.cpuMs.toFixed(2)} ms`],
    ['instances drawn', stats.instances],
    ['draw calls', stats.drawCalls],
    ['time', `${state.time.toFixed(2)} s × ${state.speed.toFixed(2)}`],
    ['GL errors', stats.glErrors],
  ]);
}

function setPlaying(on) {
  state.playing = on;
  $('play').textContent = on ? 'pause' : 'play';
}

function stepFrame() {
  setPlaying(false);
  const f = focusClip();
  const fps = f && f.c.fps > 0 ? f.c.fps : 30;
  const rate = f && f.i >= 0 ? inst.rate[f.i] : 1;
  state.time += 1 / (fps * rate);
}

function setCount(n) {
  state.count = clampInt(n, 1, MAX_INSTANCES, state.count);
  $('count').value = state.count;
  $('count-n').value = state.count;
  buildInstances();
}

function setupPanel() {
  const sel = $('asset');
  sel.replaceChildren(...state.assets.map((A, k) => new Option(`${A.name} (${A.info.kind})`, k)));
  sel.value = state.selected;
  sel.addEventListener('change', () => { state.selected = Number(sel.value); if (state.only) buildInstances(); showInfo(); });
  $('only').value = state.only ? 'selected' : 'all';
  $('only').addEventListener('change', (e) => { state.only = e.target.value === 'selected'; buildInstances(); frameCrowd(); });
  $('count').value = state.count;
  $('count-n').value = state.count;
  $('count').addEventListener('input', (e) => setCount(e.target.value));
  $('count-n').addEventListener('change', (e) => setCount(e.target.value));
  $('layout').value = state.layout;
  $('layout').addEventListener('change', (e) => { state.layout = e.target.value; buildInstances(); frameCrowd(); });
  $('play').addEventListener('click', () => setPlaying(!state.playing));
  $('step').addEventListener('click', stepFrame);
  $('frame').addEventListener('click', frameCrowd);
  $('focus').addEventListener('click', focusSelected);
  $('speed').addEventListener('input', (e) => { state.speed = Number(e.target.value); $('speed-v').textContent = `${state.speed.toFixed(2)}×`; });
  for (const k of ['skeleton', 'sockets', 'props']) {
    const key = 'show' + k[0].toUpperCase() + k.slice(1);
    $(k).checked = state[key];
    $(k).addEventListener('change', (e) => { state[key] = e.target.checked; });
  }
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === ' ') { setPlaying(!state.playing); e.preventDefault(); }
    else if (e.key === '.') stepFrame();
    else if (e.key === 'f') frameCrowd();
    else if (e.key === 'c') focusSelected();
  });
  setPlaying(state.playing);
  showInfo();
}

// ---------------------------------------------------------------- main loop

let last = 0;

function frame(now) {
  try {
    const dt = last ? Math.min((now - last) / 1000, 0.25) : 0;
    if (last) stats.frameMs = stats.frameMs ? stats.frameMs * 0.9 + (now - last) * 0.1 : now - last;
    last = now;
    const t0 = performance.now();
    if (state.playing) state.time += dt * state.speed;
    fillRecords();
    render();
    drawTimeline();
    stats.frames++;
    if (stats.frames % 30 === 1) checkGL();
    stats.cpuMs = performance.now() - t0;
    showStats(now);
    while (frameWaiters.length && frameWaiters[0].until <= stats.frames) frameWaiters.shift().resolve(stats.frames);
  } catch (err) {
    fail(err);
    return;
  }
  requestAnimationFrame(frame);
}

function checkGL() {
  const e = gl.getError();
  if (e !== gl.NO_ERROR) {
    stats.glErrors++;
    stats.lastGLError = e;
    console.error(`bonebake viewer: WebGL error 0x${e.toString(16)}`);
  }
  return e;
}

Object.assign(hook, {
  resolve, duration,
  setInstances: (n) => { setCount(n); return state.count; },
  // setCrowdSpecies('selected') fills the crowd with the selected species alone;
  // 'all' with every species.
  setCrowdSpecies: (which) => { state.only = which === 'selected'; $('only').value = state.only ? 'selected' : 'all'; buildInstances(); frameCrowd(); },
  setLayout: (name) => { state.layout = name === 'battle' ? 'battle' : 'parade'; $('layout').value = state.layout; buildInstances(); frameCrowd(); },
  selectAsset: (key) => {
    const k = state.assets.findIndex((A) => A.id === key || A.name === key);
    if (k < 0) return false;
    state.selected = k; $('asset').value = k;
    if (state.only) buildInstances();
    showInfo();
    return true;
  },
  // selectClip plays the named clip on every instance of the selected species;
  // null goes back to the layout's mix.
  selectClip: (name) => {
    const A = state.assets[state.selected];
    const k = name == null ? -1 : A.clips.findIndex((c) => c.name === name);
    if (name != null && k < 0) return false;
    state.override[A.id] = k;
    showInfo();
    return true;
  },
  play: () => setPlaying(true),
  pause: () => setPlaying(false),
  step: stepFrame,
  setSpeed: (v) => { state.speed = Number(v); },
  setTime: (t) => { state.time = Number(t); },
  setCrowdVisible: (on) => { state.showCrowd = !!on; },
  setOverlays: (on) => { state.showSkeleton = state.showSockets = !!on; },
  frameCrowd,
  focusSelected,
  glError: () => gl.getError(),
  // sync waits for the GPU to finish what it was given (a one-pixel read).
  sync: () => { const px = new Uint8Array(4); gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px); return true; },
  // nextFrames resolves after k more frames have been drawn.
  nextFrames: (k = 1) => new Promise((res) => frameWaiters.push({ until: stats.frames + k, resolve: res })),
  // focusInstance describes the instance the overlays follow: its index, clip,
  // phase and its record as last uploaded (frame row, next row, lerp, tint, x, z,
  // yaw, scale, ...).
  focusInstance: () => {
    const f = focusClip();
    if (!f || f.i < 0) return null;
    return { index: f.i, asset: f.A.name, clip: f.c.name, phase: f.p, phase0: inst.phase0[f.i], rate: inst.rate[f.i], seconds: f.c.seconds,
      record: Array.from(f.A.instData.subarray(0, RECORD)) };
  },
  // project maps a world point to CSS pixels in the canvas.
  project: (p) => {
    const c = M.transform(viewProj, p);
    return [(c[0] / c[3] * 0.5 + 0.5) * canvas.clientWidth, (0.5 - c[1] / c[3] * 0.5) * canvas.clientHeight];
  },
  // crowdRect is the screen rectangle (CSS pixels) the instances stand in.
  crowdRect: () => {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    for (let i = 0; i < inst.n; i++) {
      const A = state.assets[inst.asset[i]];
      for (const y of [0.1, 0.5, 0.9]) {
        const c = M.transform(viewProj, [inst.x[i], A.height * y, inst.z[i]]);
        if (c[3] <= 0) continue;
        const sx = (c[0] / c[3] * 0.5 + 0.5) * w, sy = (0.5 - c[1] / c[3] * 0.5) * h;
        x0 = Math.min(x0, sx); x1 = Math.max(x1, sx); y0 = Math.min(y0, sy); y1 = Math.max(y1, sy);
      }
    }
    x0 = Math.max(0, x0); y0 = Math.max(0, y0); x1 = Math.min(w, x1); y1 = Math.min(h, y1);
    return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
  },
});

async function main() {
  if (!gl) throw new Error('this browser has no WebGL2');
  await setupGL();
  const list = await (await fetchOK('api/assets')).json();
  if (!list.assets.length) throw new Error('the server has no assets');
  state.assets = await Promise.all(list.assets.map(loadAsset));
  state.assets.forEach((A, k) => { A.index = k; });
  state.override = state.assets.map(() => -1);
  setupProps();
  const want = params.get('asset');
  if (want) state.selected = Math.max(0, state.assets.findIndex((A) => A.name === want));
  const clip = params.get('clip');
  if (clip) { const A = state.assets[state.selected]; state.override[A.id] = A.clips.findIndex((c) => c.name === clip); }
  buildInstances();
  frameCrowd();
  if (params.get('focus') === '1') focusSelected();
  // Camera overrides for reproducible screenshots: yaw and pitch in radians, zoom
  // multiplying the distance.
  if (params.has('yaw')) cam.yaw = Number(params.get('yaw')) || 0;
  if (params.has('pitch')) cam.pitch = Number(params.get('pitch')) || 0;
  if (params.has('zoom')) cam.dist *= Number(params.get('zoom')) || 1;
  setupPanel();
  setupPointer();
  setupTimeline();
  $('status').textContent = `${state.assets.length} asset${state.assets.length === 1 ? '' : 's'}`;
  if (checkGL() !== gl.NO_ERROR) throw new Error('WebGL error while loading');
  requestAnimationFrame((now) => { frame(now); hook.ready = true; });
}

main().catch(fail);
