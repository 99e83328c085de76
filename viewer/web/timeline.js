// The timeline under the view: the focus instance's clip with a tick per baked
// frame, its markers and the playhead; click or drag to scrub.
import { resolve } from './core/playback.js';
import { $, state } from './state.js';
import { focus } from './scene.js';
import { seek } from './crowd.js';
import { setPlaying } from './panel.js';

const MARKER_COLORS = {
  anticipation_start: '#7fb3ff', weapon_release: '#c28bff', contact: '#ff6464', recover_unlocked: '#7fe08a', exit_safe: '#e0e070',
};

// drawTimeline draws the timeline for the current time.
export function drawTimeline() {
  const cv = $('timeline');
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  const W = Math.round(cv.clientWidth * dpr), H = Math.round(cv.clientHeight * dpr);
  if (cv.width !== W || cv.height !== H) { cv.width = W; cv.height = H; }
  const ctx = cv.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const w = cv.clientWidth, h = cv.clientHeight;
  ctx.clearRect(0, 0, w, h);
  const f = focus();
  if (!f) return;
  const { c, p } = f;
  const x0 = 14, x1 = w - 14, y0 = 26, y1 = h - 10;
  const xOf = (phase) => x0 + phase * (x1 - x0);
  ctx.fillStyle = '#2a3038';
  ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
  // One tick per baked frame (thinned when they would crowd).
  const span = c.loops ? c.frame_count : Math.max(1, c.frame_count - 1);
  const every = Math.max(1, Math.ceil(c.frame_count / ((x1 - x0) / 4)));
  ctx.strokeStyle = '#56606c';
  ctx.beginPath();
  for (let k = 0; k < c.frame_count; k += every) {
    const x = Math.round(xOf(c.frame_count === 1 ? 0 : k / span)) + 0.5;
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
  const pb = resolve(p, c.frame_count, c.loops);
  const x = Math.round(xOf(w01)) + 0.5;
  ctx.strokeStyle = '#ffffff';
  ctx.lineWidth = 2;
  ctx.beginPath(); ctx.moveTo(x, y0 - 4); ctx.lineTo(x, y1); ctx.stroke();
  ctx.lineWidth = 1;
  ctx.fillStyle = '#e6e8eb';
  ctx.font = '12px system-ui, sans-serif';
  const fps = c.fps > 0 ? c.fps : '?';
  ctx.fillText(`${f.A.name} · ${c.name}${travel(f)}   frame ${pb[0]} → ${pb[1]}  lerp ${pb[2].toFixed(2)}   ${c.frame_count} frames @ ${fps} fps, ${c.loops ? 'loops' : 'one-shot'}   phase ${w01.toFixed(3)}`, x0, 17);
}

// travel says how the focus unit of a parade moves (viewer/travel.go): at
// rate · ground speed · cycle along its lane, in place, or by its own frames
// (root motion, which the parade does not add to). It says where the
// figure comes from, the clip's ground speed (as the clip table and inspect
// give it) times the unit's pace (rate · cycle: 1 plays the clip at its baked
// length), so that it is not taken for the sidecar's speed.
export function travel(f) {
  if (!state.crowd || state.crowd.layout !== 'parade') return '';
  const c = f.c;
  if (!(c.loops && c.ground_speed > 0)) return ' · in place';
  if (c.travels_in_frames) return ' · travels in its own frames (root motion): bake --in-place for units the game moves';
  const pace = f.rate * c.cycle;
  return ` · ${(pace * c.ground_speed).toFixed(2)} m/s (clip's ground speed ${groundSpeed(c)} × pace ${pace.toFixed(3)})`;
}

// groundSpeed writes a clip's ground speed in m/s as inspect does (%.4g): 1.728.
export function groundSpeed(c) { return String(Number(c.ground_speed.toPrecision(4))); }

export function setupTimeline() {
  const cv = $('timeline');
  const scrub = (e) => {
    const f = focus();
    if (!f || f.i < 0) return;
    const r = cv.getBoundingClientRect();
    const w = Math.min(1, Math.max(0, (e.clientX - r.left - 14) / (r.width - 28)));
    setPlaying(false);
    seek(w);
  };
  cv.addEventListener('pointerdown', (e) => { cv.setPointerCapture(e.pointerId); scrub(e); });
  cv.addEventListener('pointermove', (e) => { if (e.buttons) scrub(e); });
}
