// Level of detail (docs/runtime.md §6.4): the page sends its camera's position
// with every step; the server's runtime chooses each unit's level from its
// distance (with hysteresis) and puts it in the unit's record (float 3, and float
// 15 for a horse's rider). The page draws each level from an instance buffer of
// its own:
//   full      the skinning program as always;
//   reduced   the same program skinning the two heaviest influences (u_reduced);
//             the server already gives the floor frame;
//   snapshot  the species' snapshot mesh (docs/formats/bpsm.md), fetched the first
//             time a unit of it is that far and uploaded once as an RGBA32F
//             texture (two texels a vertex, a frame a row): the vertex shader reads
//             the vertex of the frame the record names (u_snapshot), no skinning.
//             Until it is loaded such units are drawn reduced.
// A snapshot unit's record names a frame of the snapshot file; splitLevels moves
// it to float 3 (15 for a rider) and puts the palette frame at the same time in
// its place, so everything that follows the unit's palette rows (the sword in its
// hand socket, a rider on its saddle, the skeleton and socket overlays, the BAT
// mode) shows the pose the snapshot shows. A rider has its own level (humanoids
// drop at 30 and 90 m, horses at 40 and 120 m) and is drawn at it on its horse.
//
// The panel shows the units at each level, the skinning work (vertices ×
// influences skinned per frame, counted at the draws) and the distances in use.
import { $, params, state, stats, hook, RECORD, RECORD_BYTES, kvRows, requestDraw } from './state.js';
import { gl, U, SNAPSHOT_UNIT, fetchOK, floatTexture, meshVAO } from './gl.js';
import { eye } from './camera.js';
import { setDraw, drawMesh } from './draw.js';
import { settled } from './crowd.js';
import { resolveItems } from './clock.js';
import { REC_LEVEL, REC_RIDER_LEVEL, REC_RIDER, REC_TINT, REC_PLACE } from './wire.js';
import { RIDER, socketMatrices } from './pose.js';

export const FULL = 0, REDUCED = 1, SNAPSHOT = 2;
const LEVEL_TINT = [[0.3, 0.9, 0.35], [1, 0.75, 0.2], [0.95, 0.3, 0.85]];

// state.lod: on (URL lod=0 turns it off), colour (URL lodcolor=1: tint each unit
// by its level). stats.lod: units per level (riders apart) and the skinning work
// of the last frame, with what it would be with every unit at full detail.
state.lod = { on: params.get('lod') !== '0', colour: params.get('lodcolor') === '1' };
stats.lod = { units: [0, 0, 0], riders: [0, 0, 0], skinned: 0, skinnedFull: 0, switches: 0 };

let lastEye = null;

// lodQuery adds the level-of-detail parameters to a step's query.
export function lodQuery(q) {
  if (!state.lod.on) { q.set('lod', '0'); return; }
  lastEye = eye();
  q.set('eye', lastEye.map((v) => v.toFixed(3)).join(','));
}

// cameraMoved says a paused crowd needs a step: the camera moved since the last
// one was sent, so levels may change.
export function cameraMoved() {
  if (!state.lod.on || !lastEye) return false;
  const e = eye();
  return Math.hypot(e[0] - lastEye[0], e[1] - lastEye[1], e[2] - lastEye[2]) > 0.01;
}

// influences counts the vertex-influence pairs one unit of a mesh skins: at
// full detail every influence the shader visits (the first always, the others
// when their weight is not 0), reduced at most two.
function influences(A) {
  if (!A.influences) {
    const w = A.mesh.weights;
    let full = 0, reduced = 0;
    for (let v = 0; v < w.length; v += 4) {
      const k = 1 + (w[v + 1] > 0) + (w[v + 2] > 0) + (w[v + 3] > 0);
      full += k;
      reduced += Math.min(k, 2);
    }
    A.influences = [full, reduced, 0];
  }
  return A.influences;
}

// countSkinned adds the skinning work of n units of A drawn at level lv.
export function countSkinned(A, n, lv = FULL) {
  stats.lod.skinned += n * influences(A)[lv];
  stats.lod.skinnedFull += n * influences(A)[FULL];
}

// beginFrame starts counting a frame's skinning work.
export function beginFrame() {
  stats.lod.skinned = stats.lod.skinnedFull = 0;
}

function instanceBuffer() {
  return { buf: gl.createBuffer(), cap: 0, data: new Float32Array(0), n: 0 };
}

// levels sets up A's per-level instance buffers and their vertex arrays.
function levels(A) {
  if (A.lod) return A.lod;
  const L = { body: [0, 1, 2].map(instanceBuffer), rider: [0, 1, 2].map(instanceBuffer), level: new Uint8Array(0), switches: new Uint16Array(0) };
  // The snapshot level's buffer is drawn reduced until the snapshot mesh is in.
  L.vao = L.body.map((b) => meshVAO(A.gpu, b.buf));
  A.lod = L;
  return L;
}

function reserve(b, n) {
  if (b.cap >= n) return;
  b.cap = Math.max(16, n);
  b.data = new Float32Array(b.cap * RECORD);
  reserveGPU(b, b.cap);
}

// reserveGPU makes b's buffer hold n records (its CPU copy is not needed when
// the records are resolved on the GPU).
function reserveGPU(b, n) {
  if ((b.gpu || 0) >= n) return;
  b.gpu = Math.max(16, n);
  gl.bindBuffer(gl.ARRAY_BUFFER, b.buf);
  gl.bufferData(gl.ARRAY_BUFFER, b.gpu * RECORD_BYTES, gl.DYNAMIC_DRAW);
}

function upload(b) {
  if (b.n === 0) return;
  gl.bindBuffer(gl.ARRAY_BUFFER, b.buf);
  gl.bufferSubData(gl.ARRAY_BUFFER, 0, b.data, 0, b.n * RECORD);
}

// toPalette maps A's snapshot frames to palette frames: frame f of a clip of N
// snapshot frames is the pose at the time of bpat.md §5.1 for N frames; its
// palette frame is the floor frame at that time with the clip's own count.
function toPalette(A) {
  if (!A.snapToPalette) {
    const s = A.info.snapshot, out = new Float32Array(s.frame_total);
    let o = 0;
    A.clips.forEach((c, k) => {
      const n = s.clip_frames[k], np = c.frame_count;
      for (let f = 0; f < n; f++) {
        const t = c.loops ? f / n : n > 1 ? f / (n - 1) : 0; // fraction of the clip
        const pf = Math.floor(t * (c.loops ? np : np - 1) + 1e-4);
        out[o + f] = c.frame_offset + Math.min(pf, np - 1);
      }
      o += n;
    });
    A.snapToPalette = out;
  }
  return A.snapToPalette;
}

// splitLevels takes the records of A's units from a step: it counts each unit's
// level and level changes, moves a snapshot unit's frame to float 3 (15 for a
// rider) with the palette frame in its place (see above), and copies each
// record into the instance buffer of its level (and of its rider's). With level
// of detail off the records are drawn as they are.
export function splitLevels(A) {
  const L = levels(A), d = A.instData, n = A.count;
  if (L.level.length !== n) { L.level = new Uint8Array(n); L.switches = new Uint16Array(n); L.fresh = true; }
  for (const b of [...L.body, ...L.rider]) b.n = 0;
  if (!state.lod.on) {
    L.body[FULL].n = n;
    if (A.rider) L.rider[FULL].n = n;
    return;
  }
  const R = A.rider, riderSnap = R && R.asset.info.snapshot ? toPalette(R.asset) : null;
  const snap = A.info.snapshot ? toPalette(A) : null;
  for (const b of L.body) reserve(b, n);
  if (R) for (const b of L.rider) reserve(b, n);
  for (let i = 0, o = 0; i < n; i++, o += RECORD) {
    const lv = Math.min(d[o + REC_LEVEL], SNAPSHOT) | 0;
    if (lv === SNAPSHOT && snap) {
      const f = d[o];
      d[o] = d[o + 1] = snap[f];
      d[o + 2] = 0;
      d[o + REC_LEVEL] = f;
    }
    if (lv !== L.level[i] && !L.fresh) { L.switches[i]++; stats.lod.switches++; }
    L.level[i] = lv;
    const rl = Math.min(d[o + REC_RIDER_LEVEL], SNAPSHOT) | 0;
    if (rl === SNAPSHOT && riderSnap) {
      const f = d[o + REC_RIDER];
      d[o + REC_RIDER] = d[o + REC_RIDER + 1] = riderSnap[f];
      d[o + REC_RIDER + 2] = 0;
      d[o + REC_RIDER_LEVEL] = f;
    }
    copy(L.body[lv], d, o, lv);
    if (R) copy(L.rider[rl], d, o, rl);
  }
  L.fresh = false;
  for (const b of [...L.body, ...L.rider]) upload(b);
  if (L.body[SNAPSHOT].n > 0) loadSnapshot(A);
  if (R && L.rider[SNAPSHOT].n > 0) loadSnapshot(R.asset);
}

function copy(b, d, o, lv) {
  const at = b.n++ * RECORD;
  b.data.set(d.subarray(o, o + RECORD), at);
  if (state.lod.colour) { b.data.set(LEVEL_TINT[lv], at + REC_TINT); b.data[at + REC_TINT + 3] = 1; }
}

// loadSnapshot fetches and uploads A's snapshot mesh once (A.snapshot: null
// while it loads); it resolves once it is in.
function loadSnapshot(A) {
  if (A.snapshot !== undefined || !A.info.snapshot) return A.snapshotLoading || Promise.resolve();
  A.snapshot = null;
  A.snapshotLoading = fetchOK(`api/assets/${A.id}/snapshot`).then((r) => r.arrayBuffer()).then((buf) => {
    A.snapshot = parseSnapshot(A, buf);
    requestDraw(); // far units are drawn from it from now on
  }).catch((err) => { console.error(`bonebake viewer: ${A.name}'s snapshot mesh:`, err); });
  return A.snapshotLoading;
}

// preloadSnapshots loads every asset's snapshot mesh when level of detail is on
// (else on first need): far units are then never drawn skinned for want of one.
export function preloadSnapshots(assets) {
  return state.lod.on ? Promise.all(assets.map(loadSnapshot)) : Promise.resolve();
}

// parseSnapshot reads a BPSM file (docs/formats/bpsm.md §2-4): its triangles
// become an index buffer, every frame's positions, colour roles and normals a
// texture.
function parseSnapshot(A, buf) {
  const dv = new DataView(buf);
  if (dv.getUint32(0, true) !== 0x4d535042) throw new Error('not a BPSM file'); // "BPSM"
  const V = dv.getUint32(16, true), I = dv.getUint32(20, true), frames = dv.getUint32(28, true);
  if (V !== A.info.snapshot.vertex_count || frames !== A.info.snapshot.frame_total) throw new Error('the file is not the one described');
  const indexAt = Number(dv.getBigUint64(56, true)), vertexAt = Number(dv.getBigUint64(64, true));
  const texels = new Float32Array(frames * V * 8);
  for (let k = 0, o = vertexAt; k < frames * V; k++, o += 56) {
    const t = k * 8;
    for (let c = 0; c < 3; c++) {
      texels[t + c] = dv.getFloat32(o + 4 * c, true);
      texels[t + 4 + c] = dv.getFloat32(o + 12 + 4 * c, true);
    }
    texels[t + 3] = dv.getUint8(o + 52);
  }
  const index = gl.createBuffer();
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, index);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, new Uint32Array(buf, indexAt, I), gl.STATIC_DRAW);
  return { tex: floatTexture(texels, V * 2, frames), index, count: I, vaos: new Map() };
}

// snapshotVAO draws S's triangles with instances from buffer buf: the snapshot
// frame at float frameAt of a record (a rider follows its horse's pose, posed
// by the skinning pass from the same buffer).
function snapshotVAO(S, buf, frameAt) {
  const key = `${frameAt}`;
  let vaos = S.vaos.get(buf);
  if (!vaos) S.vaos.set(buf, vaos = {});
  if (vaos[key]) return vaos[key];
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  gl.bindBuffer(gl.ARRAY_BUFFER, buf);
  for (const [loc, off] of [[5, frameAt * 4], [6, REC_TINT * 4], [7, REC_PLACE * 4]]) {
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, 4, gl.FLOAT, false, RECORD_BYTES, off);
    gl.vertexAttribDivisor(loc, 1);
  }
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, S.index);
  gl.bindVertexArray(null);
  vaos[key] = vao;
  return vao;
}

// levelsDrawn says whether A's units are drawn by level (drawBody, drawProps).
export function levelsDrawn(A, bat) {
  return state.lod.on && !bat && A.lod && A.lod.level.length === A.count;
}

// The GPU clock mode (clock.js): the server sends a unit's level and its
// rider's only when they change (putClockLevel); the page keeps them, lists the
// units of each level (again when one changes), and resolves each list into
// that level's instance buffer on the GPU, each unit's rows as its level shows
// them (clock.vert.glsl): what splitLevels does with a per-frame answer. The
// list of all units fills the asset's own instance buffer, as uploadRecords does.

// clockArrays readies A's per-unit levels for its A.count units.
function clockArrays(A) {
  const L = levels(A), n = A.count;
  if (L.level.length !== n || !L.riderLevel || L.riderLevel.length !== n) {
    L.level = new Uint8Array(n);
    L.riderLevel = new Uint8Array(n);
    L.switches = new Uint16Array(n);
    L.fresh = true;
    L.listsDirty = true;
  }
  return L;
}

// putClockLevel takes a clock answer's levels for A's unit k: its own and its
// rider's.
export function putClockLevel(A, k, level, riderLevel) {
  const L = clockArrays(A);
  if (k >= A.count) return;
  if (level !== L.level[k] && !L.fresh) { L.switches[k]++; stats.lod.switches++; }
  L.level[k] = level;
  L.riderLevel[k] = riderLevel;
  L.listsDirty = true;
}

// clockItems lists A's units for the resolve pass (clock.js's items): all of
// them, then those at each level and those whose riders are at each level.
function clockItems(A) {
  const L = clockArrays(A), n = A.count, on = state.lod.on;
  if (!L.items) L.items = Array.from({ length: 7 }, () => ({ buf: gl.createBuffer(), n: 0 }));
  if (!L.listsDirty && L.itemsOn === on) return L.items;
  const lists = Array.from({ length: 7 }, () => new Uint32Array(n)), counts = new Array(7).fill(0);
  for (let k = 0; k < n; k++) {
    const lv = on ? Math.min(L.level[k], SNAPSHOT) : FULL, rl = on ? Math.min(L.riderLevel[k], SNAPSHOT) : FULL;
    const item = k | (lv << 24) | (rl << 26);
    lists[0][counts[0]++] = item;
    lists[1 + lv][counts[1 + lv]++] = item;
    lists[4 + rl][counts[4 + rl]++] = item;
  }
  L.items.forEach((it, j) => {
    it.n = counts[j];
    gl.bindBuffer(gl.ARRAY_BUFFER, it.buf);
    gl.bufferData(gl.ARRAY_BUFFER, lists[j].subarray(0, Math.max(1, counts[j])), gl.DYNAMIC_DRAW);
  });
  gl.bindBuffer(gl.ARRAY_BUFFER, null);
  L.listsDirty = false;
  L.itemsOn = on;
  return L.items;
}

// resolveClockLevels writes A's records at the crowd's time now: all units into
// its instance buffer, and with level of detail on each level's into that
// level's buffer (its riders' likewise).
export function resolveClockLevels(A, now) {
  if (A.count === 0) return;
  const items = clockItems(A), L = A.lod, on = state.lod.on;
  resolveItems(A, items[0].buf, items[0].n, A.instBuf, now, -1, on ? toPalette : null);
  L.fresh = false;
  for (const b of [...L.body, ...L.rider]) b.n = 0;
  if (!on) return;
  const R = A.rider;
  for (const lv of [FULL, REDUCED, SNAPSHOT]) {
    const tint = state.lod.colour ? lv : -1;
    const body = items[1 + lv];
    reserveGPU(L.body[lv], body.n);
    resolveItems(A, body.buf, body.n, L.body[lv].buf, now, tint, toPalette);
    L.body[lv].n = body.n;
    if (!R) continue;
    const rider = items[4 + lv];
    reserveGPU(L.rider[lv], rider.n);
    resolveItems(A, rider.buf, rider.n, L.rider[lv].buf, now, tint, toPalette);
    L.rider[lv].n = rider.n;
  }
  if (L.body[SNAPSHOT].n > 0) loadSnapshot(A);
  if (R && L.rider[SNAPSHOT].n > 0) loadSnapshot(R.asset);
}

function drawSnapshot(S, vao, n) {
  bindSnapshot(S);
  gl.uniform1i(U.u_snapshot, 1);
  gl.bindVertexArray(vao);
  gl.drawElementsInstanced(gl.TRIANGLES, S.count, gl.UNSIGNED_INT, 0, n);
  gl.uniform1i(U.u_snapshot, 0);
}

function bindSnapshot(S) {
  gl.activeTexture(gl.TEXTURE0 + SNAPSHOT_UNIT);
  gl.bindTexture(gl.TEXTURE_2D, S.tex.tex);
  gl.uniform1i(U.u_snapshotStride, S.tex.stride);
  gl.uniform1i(U.u_snapshotFramesPerRow, S.tex.perRow);
}

// drawBody draws A's units level by level; it returns the draw calls.
export function drawBody(A) {
  const L = A.lod;
  let calls = 0;
  for (const lv of [FULL, REDUCED, SNAPSHOT]) {
    const n = L.body[lv].n;
    if (n === 0) continue;
    if (lv === SNAPSHOT && A.snapshot) {
      setDraw({ colors: A.roleColors });
      drawSnapshot(A.snapshot, snapshotVAO(A.snapshot, L.body[lv].buf, REC_LEVEL), n);
      countSkinned(A, n, SNAPSHOT);
      calls++;
      continue;
    }
    setDraw({ buf: L.body[lv].buf, n, skinned: A, colors: A.roleColors });
    gl.uniform1i(U.u_reduced, lv === FULL ? 0 : 1);
    gl.bindVertexArray(L.vao[lv]);
    calls += drawMesh(A, n);
    countSkinned(A, n, lv === FULL ? FULL : REDUCED);
    gl.uniform1i(U.u_reduced, 0);
  }
  return calls;
}

// drawProps draws A's sword and riders level by level: the sword follows the
// hand socket at each unit's palette frame; a rider is drawn at its own level
// on its horse's saddle. It returns the draw calls.
export function drawProps(A) {
  const L = A.lod;
  let calls = 0;
  if (A.sword) {
    L.swordVao ||= L.body.map((b) => meshVAO(A.sword.mesh, b.buf));
    for (const lv of [FULL, REDUCED, SNAPSHOT]) {
      if (L.body[lv].n === 0) continue;
      setDraw({ buf: L.body[lv].buf, n: L.body[lv].n, attach: { src: socketMatrices(A), index: A.sword.socket }, colors: A.roleColors });
      gl.bindVertexArray(L.swordVao[lv]);
      gl.drawElementsInstanced(gl.TRIANGLES, A.sword.count, gl.UNSIGNED_INT, 0, L.body[lv].n);
      calls++;
    }
  }
  const R = A.rider;
  if (R) {
    if (L.riderOf !== R.asset) { // a new crowd may seat another species
      L.riderVao = L.rider.map((b) => meshVAO(R.asset.gpu, b.buf, REC_RIDER * 4));
      L.riderOf = R.asset;
    }
    for (const lv of [FULL, REDUCED, SNAPSHOT]) {
      const n = L.rider[lv].n;
      if (n === 0) continue;
      const S = lv === SNAPSHOT ? R.asset.snapshot : null;
      setDraw({ buf: L.rider[lv].buf, n, skinned: S ? null : R.asset, side: RIDER, attach: R.source, local: R.local, colors: R.asset.roleColors });
      if (S) {
        drawSnapshot(S, snapshotVAO(S, L.rider[lv].buf, REC_RIDER_LEVEL), n);
        countSkinned(R.asset, n, SNAPSHOT);
      } else {
        gl.uniform1i(U.u_reduced, lv === FULL ? 0 : 1);
        gl.bindVertexArray(L.riderVao[lv]);
        gl.drawElementsInstanced(gl.TRIANGLES, R.asset.gpu.count, gl.UNSIGNED_INT, 0, n);
        gl.uniform1i(U.u_reduced, 0);
        countSkinned(R.asset, n, lv === FULL ? FULL : REDUCED);
      }
      calls++;
    }
  }
  return calls;
}

// Tallies for the panel and the tests: units per level over the crowd.
function tally() {
  const t = { units: [0, 0, 0], riders: [0, 0, 0], assets: [] };
  for (const A of state.assets) {
    if (!A.lod || A.count === 0) continue;
    const units = A.lod.body.map((b) => b.n), riders = A.lod.rider.map((b) => b.n);
    for (let k = 0; k < 3; k++) { t.units[k] += units[k]; t.riders[k] += riders[k]; }
    t.assets.push({ name: A.name, units, riders, rider: A.rider ? A.rider.asset.name : null });
  }
  return t;
}

let shown = 0;

// showLOD fills the panel's level-of-detail table (at most 4 times a second).
export function showLOD(now = performance.now()) {
  if (now - shown < 250) return;
  shown = now;
  const t = tally(), s = stats.lod;
  stats.lod.units = t.units;
  stats.lod.riders = t.riders;
  const M = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : `${(x / 1e3).toFixed(1)} k`);
  const rows = [
    ['units', `${t.units[0]} full · ${t.units[1]} reduced · ${t.units[2]} snapshot`],
  ];
  if (t.riders.some((x) => x > 0)) rows.push(['riders', `${t.riders[0]} · ${t.riders[1]} · ${t.riders[2]}`]);
  rows.push(['skinned / frame', `${M(s.skinned)} vertex·influences` + (s.skinnedFull > 0 && state.lod.on ? ` (all full: ${M(s.skinnedFull)}, ${(s.skinnedFull / Math.max(1, s.skinned)).toFixed(1)}× more)` : '')]);
  const shownAssets = state.assets.filter((A) => A.count > 0);
  for (const A of shownAssets) {
    const [r, sn] = A.info.lod_distances;
    rows.push([A.name, `reduced > ${r} m · snapshot > ${sn} m` + (A.info.snapshot ? '' : ' (no snapshot mesh: reduced)')]);
  }
  kvRows($('lod-info'), rows);
  $('lod-info').classList.toggle('off', !state.lod.on);
}

// setLOD turns level of detail on or off; it resolves once a step with the
// choice is drawn.
export function setLOD(on) {
  state.lod.on = !!on;
  $('lod').checked = state.lod.on;
  for (const A of state.assets) if (A.lod) A.lod.fresh = true; // a switch of mode is no level change
  return settled().then(() => { shown = 0; showLOD(); });
}

// setLODColour tints each unit by its level (green full, amber reduced, magenta
// snapshot) from the next step on.
export function setLODColour(on) {
  state.lod.colour = !!on;
  $('lod-colour').checked = state.lod.colour;
  return settled();
}

export function setupLOD() {
  $('lod').checked = state.lod.on;
  $('lod-colour').checked = state.lod.colour;
  $('lod').addEventListener('change', (e) => setLOD(e.target.checked));
  $('lod-colour').addEventListener('change', (e) => setLODColour(e.target.checked));
  Object.assign(hook, {
    setLOD,
    setLODColour,
    // lodStats: units per level (the crowd's and the riders'), per asset, and the
    // last frame's skinning work.
    lodStats: () => { shown = 0; showLOD(); const t = tally(); return { ...t, skinned: stats.lod.skinned, skinnedFull: stats.lod.skinnedFull }; },
    // lodLevels(name): each unit of the asset's level and level changes, in
    // record order, with its x and z.
    lodLevels: (name) => {
      const A = state.assets.find((X) => X.name === name);
      if (!A || !A.lod) return null;
      const xz = [];
      for (let i = 0; i < A.count; i++) xz.push([A.instData[i * RECORD + REC_PLACE], A.instData[i * RECORD + REC_PLACE + 1]]);
      return { level: Array.from(A.lod.level), switches: Array.from(A.lod.switches), xz };
    },
    // lodRecords(name): the asset's records drawn at each level, its units' and
    // their riders', read back from the instance buffers.
    lodRecords: (name) => {
      const A = state.assets.find((X) => X.name === name);
      if (!A || !A.lod) return null;
      const read = (b) => {
        const f = new Float32Array(b.n * RECORD);
        gl.bindBuffer(gl.COPY_READ_BUFFER, b.buf);
        gl.getBufferSubData(gl.COPY_READ_BUFFER, 0, f);
        gl.bindBuffer(gl.COPY_READ_BUFFER, null);
        return Array.from(f);
      };
      return { body: A.lod.body.map(read), rider: A.lod.rider.map(read) };
    },
    resetLODSwitches: () => { for (const A of state.assets) if (A.lod) A.lod.switches.fill(0); stats.lod.switches = 0; },
    // snapshotsLoaded resolves once no snapshot mesh is loading.
    snapshotsLoaded: () => new Promise((res) => {
      (function wait() { if (state.assets.every((A) => A.snapshot !== null)) res(true); else setTimeout(wait, 20); })();
    }),
    eye,
  });
}
