// The scene: the crowd for the current settings (asked of the server), its
// extent on the ground, the ground grid under it, and the unit in focus.
import { state, wantsClock } from './state.js';
import { gl, lineMesh, unitBuf } from './gl.js';
import { newCrowd, focusClip } from './crowd.js';
import { placeRiders } from './props.js';

export let grid = null; // the ground grid's line mesh

// rebuildCrowd asks the server for the crowd of state's count, layout and
// species; it resolves once its first step is drawn.
export async function rebuildCrowd() {
  const all = state.assets;
  const only = state.only ? state.selected : null;
  const c = await newCrowd(all, { layout: state.layout, count: state.count, only, clock: wantsClock() });
  if (!c) return; // superseded: the newer crowd's own rebuild sets the scene
  state.crowd = c;
  placeRiders(all, c);
  const shown = all.filter((A) => c.assets[A.index].unit_count > 0);
  const [x0, z0, x1, z1] = c.extent;
  const pad = Math.max(...shown.map((A) => A.radius), 0.5) * 1.5;
  state.extent = { cx: (x0 + x1) / 2, cz: (z0 + z1) / 2, r: Math.max(Math.hypot(x1 - x0, z1 - z0) / 2 + pad, 1),
    h: Math.max(...shown.map((A) => A.height), 1) };
  buildGrid();
}

// focus describes what the selected species' first unit plays now (see crowd.js
// focusClip): the unit the overlays and the timeline follow.
export function focus() {
  return focusClip(state.assets[state.selected]);
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
