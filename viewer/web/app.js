// bonebake viewer: draws crowds of baked creatures with WebGL2, skinned on the GPU
// from the BPAT palettes the server hands out by the npm package's core
// (js/bonebake-three/src/core, served under /core/).
//
// This module wires the others together, runs the frame loop and fills in the
// test hook (window.bonebake) the browser tests drive:
//   state.js     settings, statistics and the hook object
//   gl.js        WebGL2 setup, textures, buffers, the per-instance record layout
//   assets.js    fetching /api/assets and each species' data
//   crowd.js     the crowd: a client of the server's /api/crowd, which computes it
//   clock.js     the GPU clock mode: time records resolved on the GPU
//   props.js     the sword and the rider
//   scene.js     the crowd for the current settings, its extent and grid
//   camera.js    the camera and pointer controls
//   draw.js      drawing a frame
//   panel.js     the side panel; timeline.js the timeline
//   lod.js       level of detail: each unit drawn at the level the server chose
//   pose.js      the skinning pass (the npm package's core, served under /core/)
import { resolve } from './core/playback.js';
import { $, params, state, stats, hook, fail, Notice, RECORD, requestDraw, takeDraw } from './state.js';
import { gl, setupGL, checkGL, fragSource } from './gl.js';
import { setupBAT } from './bat.js';
import { setupClock, evaluate } from './clock.js';
import { setupPose } from './pose.js';
import { loadAssets } from './assets.js';
import { tick, applyStep, settled, seek } from './crowd.js';
import { setupProps } from './props.js';
import { focus } from './scene.js';
import { cam, frameCrowd, focusSelected, followFocus, viewSelected, setupPointer, project, crowdRect, viewProj } from './camera.js';
import { render } from './draw.js';
import { showInfo, showStats, setPlaying, stepFrame, setCount, setupPanel, rebuild, switchBAT, setFades, setClock } from './panel.js';
import { drawTimeline, setupTimeline, travel } from './timeline.js';
import { setupLOD, showLOD, preloadSnapshots } from './lod.js';

const frameWaiters = [];
let last = 0;
let drewLast = false;

// frame runs once per animation frame. It draws while playing; paused, only
// when something it shows may have changed (a step answer applied, an input
// event, a hook call, a load that finished: requestDraw) or a frame is waited
// for (nextFrames). Otherwise the canvas keeps its last picture, so a paused
// crowd costs no drawing however large it is.
function frame(now) {
  // A lost context draws nothing (its calls return null): the webglcontextlost
  // event, which can come a frame after the loss at a GPU's frame rate, says so.
  if (gl.isContextLost()) return;
  try {
    const gap = last ? now - last : 0;
    const dt = Math.min(gap / 1000, 0.25);
    last = now;
    const t0 = performance.now();
    const d = state.playing ? dt * state.speed : 0;
    state.time += d;
    const stepped = applyStep(state.assets);
    tick(d); // the next step is computed while this one is drawn
    const wanted = takeDraw();
    const draw = state.playing || stepped || wanted || frameWaiters.length > 0;
    if (draw) {
      if (drewLast && gap) stats.frameMs = stats.frameMs ? stats.frameMs * 0.9 + gap * 0.1 : gap;
      if (state.extent) {
        followFocus(); // a close-up walks with its unit
        render();
        drawTimeline();
      } else {
        gl.clear(gl.COLOR_BUFFER_BIT); // the background until the crowd comes
      }
      stats.frames++;
      if (stats.frames % 30 === 1) checkGL();
      stats.cpuMs = performance.now() - t0;
    }
    drewLast = draw;
    showStats(now);
    showLOD(now);
    while (frameWaiters.length && frameWaiters[0].until <= stats.frames) frameWaiters.shift().resolve(stats.frames);
  } catch (err) {
    fail(err);
    return;
  }
  requestAnimationFrame(frame);
}

// The hook's functions that change the crowd return promises that resolve once
// the change is drawn.
Object.assign(hook, {
  camera: cam,
  resolve,
  setInstances: (n) => setCount(n).then(() => state.count),
  // setCrowdSpecies('selected') fills the crowd with the selected species alone;
  // 'all' with every species.
  setCrowdSpecies: (which) => { state.only = which === 'selected'; $('only').value = state.only ? 'selected' : 'all'; return rebuild(true); },
  setLayout: (name) => { state.layout = name === 'battle' ? 'battle' : 'parade'; $('layout').value = state.layout; return rebuild(true); },
  selectAsset: (key) => {
    const k = state.assets.findIndex((A) => A.id === key || A.name === key);
    if (k < 0) return Promise.resolve(false);
    state.selected = k; $('asset').value = k;
    showInfo();
    return (state.only ? rebuild() : settled()).then(() => true);
  },
  // selectClip plays the named clip on every unit of the selected species; null
  // goes back to the layout's own. With seconds, the change goes to the server
  // with a step of that much crowd time (paused after): a paused crowd shows a
  // change at once, and fades only while time passes.
  selectClip: (name, seconds = 0) => {
    const A = state.assets[state.selected];
    const k = name == null ? -1 : A.clips.findIndex((c) => c.name === name);
    if (name != null && k < 0) return Promise.resolve(false);
    state.override[A.id] = k;
    showInfo();
    return (seconds > 0 ? stepFrame(seconds) : settled()).then(() => true);
  },
  // setFades(false) makes every clip change switch at once; true cross-fades
  // them (the default). It resolves once a step with the choice is drawn.
  setFades,
  // setClock('auto' | 'frame' | 'clock') builds the crowd anew in that playback
  // mode; it resolves once it is drawn. clockResolve(records, times) runs the
  // GPU clock mode's resolve pass on time records (16 uint32 words each) at each
  // time and resolves to the 32-float records it writes (each record as a
  // unit's own and as its rider's).
  setClock,
  clockResolve: evaluate,
  // seek puts the focus unit at a phase of its clip.
  seek: (phase) => { seek(Number(phase)); return settled(); },
  // setBAT('off' | 'bat' | 'side', preset, format) switches the BAT mode; it
  // resolves once the bakes are loaded and drawn. batReport(asset) is the
  // report of an asset's bake (null before one is loaded).
  setBAT: (mode, preset = state.bat.preset, format = '') => switchBAT(mode, preset, format).then(() => hook.nextFrames(2)),
  batReport: (key) => { const A = state.assets.find((X) => X.id === key || X.name === key); return A && A.bat ? (A.bat.report || A.bat) : null; },
  settled,
  play: () => setPlaying(true),
  pause: () => setPlaying(false),
  // step advances a paused crowd by one frame of the focus clip, or by seconds.
  step: (seconds) => stepFrame(seconds > 0 ? seconds : undefined),
  setSpeed: (v) => { state.speed = Number(v); },
  setCrowdVisible: (on) => { state.showCrowd = !!on; },
  setOverlays: (on) => { state.showSkeleton = state.showSockets = !!on; },
  frameCrowd,
  focusSelected,
  viewSelected,
  glError: () => gl.getError(),
  // sync waits for the GPU to finish what it was given (a one-pixel read).
  sync: () => { const px = new Uint8Array(4); gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px); return true; },
  // drawTimed(n) draws the frame shown n times back to back and waits for the
  // GPU to finish: the milliseconds one frame takes to draw, whatever rate the
  // display paces frames at (the viewer on a GPU, BENCHMARKS.md).
  drawTimed: (n = 30) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) render();
    hook.sync();
    return (performance.now() - t0) / n;
  },
  // nextFrames resolves after k more frames have been drawn.
  nextFrames: (k = 1) => new Promise((res) => frameWaiters.push({ until: stats.frames + k, resolve: res })),
  // focusInstance describes the unit the overlays follow (the selected species'
  // first): its clip and phase as the server sent them, and its record as last
  // uploaded (frame row, next row, lerp, tint, x, z, yaw, scale, ...), and
  // travel, what the timeline says of its travel.
  focusInstance: () => {
    const f = focus();
    if (!f || f.i < 0) return null;
    return { index: f.i, asset: f.A.name, clip: f.c.name, phase: f.p, rate: f.rate, seconds: f.c.duration_s, travel: travel(f),
      record: Array.from(f.A.instData.subarray(0, RECORD)) };
  },
  // drawnRecords gives the records a species' units were last drawn from (its
  // instance buffer, as uploaded per frame or written by the GPU clock mode's
  // resolve pass; with level of detail off), RECORD floats each.
  drawnRecords: (name) => {
    const A = state.assets.find((X) => X.name === name);
    const f = new Float32Array(A.count * RECORD);
    gl.bindBuffer(gl.COPY_READ_BUFFER, A.instBuf);
    gl.getBufferSubData(gl.COPY_READ_BUFFER, 0, f);
    gl.bindBuffer(gl.COPY_READ_BUFFER, null);
    return Array.from(f);
  },
  // project maps a world point to CSS pixels in the canvas; viewProj is the
  // matrix it uses (column-major, as last drawn), for tests that project
  // many points themselves.
  project,
  viewProj: () => Array.from(viewProj),
  // crowdRect is the screen rectangle (CSS pixels) the instances stand in.
  crowdRect,
});

// drawAfterHookCalls makes every hook function (this module's and those the
// others add) but those that only read ask for a frame when called and again
// when what it returns resolves: each may change what the page shows.
const hookReaders = new Set(['resolve', 'drawnRecords', 'glError', 'sync', 'drawTimed', 'nextFrames', 'focusInstance', 'project', 'viewProj', 'crowdRect',
  'batReport', 'clockResolve', 'lodStats', 'lodLevels', 'snapshotsLoaded', 'eye']);
function drawAfterHookCalls() {
  for (const [k, f] of Object.entries(hook)) {
    if (typeof f !== 'function' || hookReaders.has(k)) continue;
    hook[k] = (...args) => {
      requestDraw();
      const r = f(...args);
      if (r && typeof r.then === 'function') r.then(requestDraw, () => {});
      return r;
    };
  }
}

async function main() {
  if (!gl) {
    throw new Notice('This browser cannot give the page WebGL2, which the viewer draws with. ' +
      'Try a current Chrome, Edge, Firefox or Safari, turn on hardware acceleration in its settings, ' +
      'or check that WebGL is not disabled (chrome://gpu, about:support).');
  }
  // A lost context (a GPU reset, a driver update, memory pressure) stops every draw:
  // say so rather than freeze on the last frame.
  gl.canvas.addEventListener('webglcontextlost', (e) => {
    e.preventDefault();
    fail(new Notice('The WebGL context was lost (the GPU was reset or ran short of memory). Reload the page to start again; ' +
      'if it keeps happening, lower the crowd size or close other tabs using the GPU.'));
  });
  await setupGL();
  setupPose();
  await setupBAT(fragSource);
  await setupClock();
  state.assets = await loadAssets();
  state.override = state.assets.map(() => -1);
  setupProps(state.assets);
  await preloadSnapshots(state.assets);
  const want = params.get('asset');
  if (want) state.selected = Math.max(0, state.assets.findIndex((A) => A.name === want));
  const clip = params.get('clip');
  if (clip) { const A = state.assets[state.selected]; state.override[A.id] = A.clips.findIndex((c) => c.name === clip); }
  setupPanel();
  setupLOD();
  drawAfterHookCalls();
  if (state.bat.mode !== 'off') await switchBAT();
  setupPointer();
  setupTimeline();
  // Input (the panel, the pointer, keys) and a resized window may change the
  // picture: a paused page draws the next frame.
  for (const ev of ['pointerdown', 'pointermove', 'pointerup', 'wheel', 'touchstart', 'touchmove', 'touchend', 'keydown', 'input', 'change', 'click']) {
    window.addEventListener(ev, requestDraw, { capture: true, passive: true });
  }
  window.addEventListener('resize', requestDraw);
  const start = state.time; // the clock the URL asks for
  requestAnimationFrame(frame); // the loop fetches the crowd's steps from now on
  await rebuild();
  if (hook.error) return;
  $('status').textContent = `${state.assets.length} asset${state.assets.length === 1 ? '' : 's'}`;
  if (params.get('focus') === '1') focusSelected();
  else if (params.get('frame') === '1') frameCrowd(); // the whole crowd, however far
  else viewSelected();
  // Camera overrides for reproducible screenshots: yaw and pitch in radians, zoom
  // multiplying the distance.
  if (params.has('yaw')) cam.yaw = Number(params.get('yaw')) || 0;
  if (params.has('pitch')) cam.pitch = Number(params.get('pitch')) || 0;
  if (params.has('zoom')) cam.dist *= Number(params.get('zoom')) || 1;
  if (start > 0) { tick(start); await settled(); }
  if (checkGL() !== gl.NO_ERROR) throw new Error('WebGL error while loading');
  await hook.nextFrames(1);
  hook.ready = true;
}

main().catch(fail);
