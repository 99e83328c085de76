// The viewer's shared state: the URL's settings, what the page shows, frame
// statistics and the test hook (window.bonebake) that the browser tests drive.

// A per-instance record is RECORD floats (wire.js, docs/viewer-wire.md).
import { RECORD } from './wire.js';
export { RECORD };
export const RECORD_BYTES = RECORD * 4;
export const MAX_INSTANCES = 20000;
// From this many units a parade plays in the GPU clock mode unless the page is
// told otherwise (the server's ClockUnits).
export const CLOCK_UNITS = 5000;

export const $ = (id) => document.getElementById(id);
export const params = new URLSearchParams(location.search);

export function clampInt(v, lo, hi, dflt) {
  const n = Math.round(Number(v));
  if (v === null || v === '' || !Number.isFinite(n)) return dflt;
  return Math.min(hi, Math.max(lo, n));
}

export const state = {
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
  fades: params.get('fades') !== '0', // clip changes cross-fade (the server's runtime does them)
  // How the parade plays (clock.js): 'clock' (the GPU clock mode), 'frame' (every
  // record every step) or 'auto' (the clock from CLOCK_UNITS units).
  clock: { 1: 'clock', 0: 'frame' }[params.get('clock')] || 'auto',
  // The BAT mode (bat.js): 'off', 'bat' (skinned from the textures) or 'side'
  // (palette left, textures right), with the preset and format baked.
  bat: { mode: ['bat', 'side'].includes(params.get('bat')) ? params.get('bat') : 'off', preset: params.get('preset') || 'raw', format: params.get('format') || '' },
  override: [], // per asset: the clip every unit of it plays, or -1 for the layout's own
  crowd: null, // the server's description of the crowd (crowd.js newCrowd)
  extent: null, // the crowd's ground extent: { cx, cz, r, h } (scene.js)
};
// playback is how the last step came ('clock' or 'frame'), recordsSent how
// many unit records it carried; steps and records count the answers applied
// and the records they carried.
export const stats = { frames: 0, drawCalls: 0, instances: 0, glErrors: 0, lastGLError: 0, frameMs: 0, cpuMs: 0, alive: [0, 0],
  playback: '', recordsSent: 0, steps: 0, records: 0 };

// wantsClock says whether a new crowd should be asked for in the clock mode: by
// default a large parade (its levels of detail come with the changed records).
export function wantsClock() {
  return state.clock === 'clock' || (state.clock === 'auto' && state.count >= CLOCK_UNITS);
}

// A paused page draws a frame only when something it shows may have changed
// (app.js): requestDraw asks for the next one; takeDraw says whether one was
// asked for since the last call.
let drawWanted = true;
export function requestDraw() { drawWanted = true; }
export function takeDraw() { const w = drawWanted; drawWanted = false; return w; }

// The test hook; app.js adds its functions.
export const hook = { ready: false, error: null, state, stats };
window.bonebake = hook;

// Notice is an error that says to the user what happened and what to try: it
// is shown as it is, without a stack.
export class Notice extends Error {}

export function fail(err) {
  const msg = err instanceof Notice ? err.message : (err && err.stack) ? String(err.stack) : String(err);
  hook.error = msg;
  const box = $('message');
  box.textContent = 'bonebake viewer: ' + msg;
  box.hidden = false;
  $('status').textContent = 'error';
  console.error('bonebake viewer:', msg);
}

// focusAsset is the selected species when it has instances in the crowd: the one
// the skeleton, sockets and timeline follow (its first instance).
export function focusAsset() {
  const A = state.assets[state.selected];
  return A && A.count > 0 ? A : null;
}

// kvRows fills a two-column table; a value may be {text, path: true}: a file path,
// shown by its end (where the name is) with the whole on hover, so that a long
// one never pushes the other values out of the panel.
export function kvRows(table, rows) {
  table.replaceChildren(...rows.map(([k, v]) => {
    const tr = document.createElement('tr');
    const a = document.createElement('td'), b = document.createElement('td');
    a.textContent = k;
    if (v && v.path) {
      b.className = 'path';
      b.textContent = `\u200e${v.text}\u200e`; // kept left to right inside the right-to-left cell
      b.title = v.text;
    } else {
      b.textContent = v;
    }
    tr.append(a, b);
    return tr;
  }));
}
