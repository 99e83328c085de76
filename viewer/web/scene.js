// The scene: the crowd for the current settings, its extent on the ground, the
// ground grid under it, and the instance in focus.
import { state } from './state.js';
import { gl, lineMesh, reserveRecords, unitBuf } from './gl.js';
import { buildCrowd, focusClip } from './crowd.js';

export let grid = null; // the ground grid's line mesh

// rebuildCrowd places the crowd anew for state's count, layout and species, and
// sizes every species' records for it.
export function rebuildCrowd() {
  const all = state.assets;
  const shown = state.only ? [all[state.selected]] : all;
  const crowd = buildCrowd(all, shown, state.count, state.layout);
  for (const A of all) reserveRecords(A, A.count);
  state.crowd = crowd;
  // Extent, for the camera and the ground grid.
  let x0 = Infinity, x1 = -Infinity, z0 = Infinity, z1 = -Infinity;
  for (let i = 0; i < crowd.n; i++) {
    x0 = Math.min(x0, crowd.x[i]); x1 = Math.max(x1, crowd.x[i]);
    z0 = Math.min(z0, crowd.z[i]); z1 = Math.max(z1, crowd.z[i]);
  }
  const pad = Math.max(...shown.map((A) => A.radius)) * 1.5;
  state.extent = { cx: (x0 + x1) / 2, cz: (z0 + z1) / 2, r: Math.max(Math.hypot(x1 - x0, z1 - z0) / 2 + pad, 1),
    h: Math.max(...shown.map((A) => A.height)) };
  buildGrid();
}

// focus describes what the selected species' first instance plays now (see
// crowd.js focusClip): the instance the overlays and the timeline follow.
export function focus() {
  return focusClip(state.assets[state.selected], state.time, state.override);
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
