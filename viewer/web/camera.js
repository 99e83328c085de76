// The camera (orbiting a target) and the pointer controls that move it: drag to
// orbit, right-drag or shift-drag to pan, wheel or pinch to zoom.
import * as M from './mat.js';
import { state, focusAsset, RECORD } from './state.js';
import { canvas } from './gl.js';

const FOV = 45 * Math.PI / 180;

// follow is the target array of a close-up (focusSelected) that keeps the
// selected species' first unit in view as it walks its lane: followFocus
// moves the target with the unit while cam.target is that array (framing the
// crowd, panning or a target set anew stops it).
export const cam = { target: [0, 1, 0], yaw: 0.5, pitch: 0.42, dist: 10, follow: null };
export let viewProj = M.identity(); // column-major, set by updateCamera

// frameCrowd shows the whole crowd.
export function frameCrowd() {
  const e = state.extent;
  cam.target = [e.cx, e.h * 0.45, e.cz];
  cam.follow = null;
  cam.dist = Math.max(e.r * 2, e.h * 3);
  cam.yaw = state.layout === 'battle' ? 0.9 : 0.35;
  cam.pitch = 0.42;
}

// viewSelected is the view a page opens on: the crowd as frameCrowd frames it,
// unless that is farther than the selected species' full-detail distance (its
// level-of-detail "reduced" distance, lod_distances[0]); then the camera looks at
// the species' first unit, on the ground, from within that distance, so that a
// user checking a bake sees it drawn at full detail first, the crowd behind it.
export function viewSelected() {
  frameCrowd();
  const F = focusAsset();
  const d = F && F.info.lod_distances;
  if (!d || !(d[0] > 0)) return;
  const near = d[0] * 0.7; // inside the boundary and its hysteresis, with room to sway
  if (cam.dist <= near) return;
  const r = F.instData; // its first record: x, z, yaw at 8, 9, 10
  cam.target = [r[8], F.height * 0.4, r[9]];
  cam.dist = Math.max(near, F.height * 3);
}

// focusSelected brings the camera close to the selected species' first instance,
// the one the skeleton, sockets and timeline show.
export function focusSelected() {
  const F = focusAsset();
  if (!F) return;
  const r = F.instData; // its first record: x, z, yaw at 8, 9, 10
  cam.target = cam.follow = [r[8], F.height * 0.5, r[9]];
  cam.dist = Math.max(F.height, F.radius * 2) * 2.2;
  // From ahead and to one side of the way the unit faces: the parade turns
  // every unit to face +x, the way it travels (a model facing -z is turned by
  // -π/2, so its heading is not where it looks); the battle's built-ins face +z
  // at their heading. In the parade, from the side of the unit's lane with the
  // more room: the other lanes run beside it, and a unit of the next one would
  // stand between the camera and it.
  cam.yaw = state.layout === 'battle' ? r[10] + 0.6 : Math.PI / 2 + 0.6 * laneSide(r[9]);
  cam.pitch = 0.25;
}

// laneSide is the side of the lane at z with the more room to the nearest other
// lane, along the camera's z for yaw π/2 + 0.6 · side: 1 toward −z (ties), −1
// toward +z.
function laneSide(z) {
  let plus = Infinity, minus = Infinity;
  for (const A of state.assets) {
    for (let o = 0; o < A.count * RECORD; o += RECORD) {
      const dz = A.instData[o + 9] - z;
      if (dz > 1e-3) plus = Math.min(plus, dz);
      else if (dz < -1e-3) minus = Math.min(minus, -dz);
    }
  }
  return plus > minus ? -1 : 1;
}

// followFocus keeps a close-up on the selected species' first unit (see
// cam.follow): its feet are watched against the ground grid as it travels.
// When it walks off its lane's end the close-up cuts back with it to the
// lane's start: it is the one unit the lanes' ends do not shrink
// (viewer/travel.go), so it stays in view, at its size, across the wrap.
export function followFocus() {
  const F = focusAsset();
  if (!F || !cam.follow || cam.target !== cam.follow) return;
  cam.target[0] = F.instData[8];
  cam.target[2] = F.instData[9];
}

// eye is the camera's position in the world.
export function eye() {
  const cp = Math.cos(cam.pitch);
  return [cam.target[0] + cam.dist * cp * Math.sin(cam.yaw), cam.target[1] + cam.dist * Math.sin(cam.pitch), cam.target[2] + cam.dist * cp * Math.cos(cam.yaw)];
}

// updateCamera sets viewProj for the canvas' size, or for a viewport of the
// aspect given (the BAT mode's halves).
export function updateCamera(aspect = canvas.width / Math.max(1, canvas.height)) {
  const far = cam.dist * 4 + state.extent.r * 4;
  viewProj = M.multiply(M.perspective(FOV, aspect, Math.max(cam.dist * 0.01, 0.01), far), M.lookAt(eye(), cam.target, [0, 1, 0]));
}

// project maps a world point to CSS pixels in the canvas.
export function project(p) {
  const c = M.transform(viewProj, p);
  return [(c[0] / c[3] * 0.5 + 0.5) * canvas.clientWidth, (0.5 - c[1] / c[3] * 0.5) * canvas.clientHeight];
}

// crowdRect is the screen rectangle (CSS pixels) the instances stand in: the
// corners of each unit's box (its radius around it, from the ground to its
// height), so a wide creature (a fox drawn at its true size) lies inside too.
export function crowdRect() {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  for (const A of state.assets) {
    for (let o = 0; o < A.count * RECORD; o += RECORD) {
      for (const [dx, y, dz] of boxCorners(A)) {
        const c = M.transform(viewProj, [A.instData[o + 8] + dx, y, A.instData[o + 9] + dz]);
        if (c[3] <= 0) continue;
        const sx = (c[0] / c[3] * 0.5 + 0.5) * w, sy = (0.5 - c[1] / c[3] * 0.5) * h;
        x0 = Math.min(x0, sx); x1 = Math.max(x1, sx); y0 = Math.min(y0, sy); y1 = Math.max(y1, sy);
      }
    }
  }
  x0 = Math.max(0, x0); y0 = Math.max(0, y0); x1 = Math.min(w, x1); y1 = Math.min(h, y1);
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

// boxCorners lists the corners of a unit's box relative to where it stands.
function boxCorners(A) {
  const r = A.radius, out = [];
  for (const y of [0, A.height]) for (const dx of [-r, r]) for (const dz of [-r, r]) out.push([dx, y, dz]);
  return out;
}

function pan(dx, dy) {
  cam.follow = null;
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

export function setupPointer() {
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
