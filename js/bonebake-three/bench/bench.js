// The side-by-side benchmark: frame time for N units of one character drawn
// by bonebake-three (one BonebakeCrowd, posed on the GPU) against N copies of
// the character made with SkeletonUtils.clone, each with its own
// AnimationMixer (what three.js users do without it), in the same page on the
// same renderer, camera, lights and materials (the model's own). Both play
// the same clips (Idle, Walk, Run) at the same phases, and each frame the
// same units (N/200 of them, by a seeded random sequence) switch clip with a
// 0.3 s cross-fade, as examples/index.html does.
//
// For each N (from `from`, times `step`, up to `to`) it builds both, draws
// `warm` frames, then times `frames` frames and keeps the medians:
//   frame: the whole frame, animation through render, ended by a 1-pixel
//          readPixels that waits for the GPU (so a GPU-bound frame counts in
//          full; no vsync cap);
//   cpu:   the animation's share on the CPU: for the clones, every mixer's
//          update, the scene's world matrices and every skeleton's bone
//          matrices (the renderer then uploads one bone texture a clone); for
//          bonebake, the clip switches and crowd.update (which only issues the
//          GPU pass).
// The two approaches' frames alternate at each N, so a machine's load falls
// on both; an approach stops after the first N whose frame is slower than
// 1000/fps ms. Units at equal frame time are read off each curve at
// 1000/fps ms (log–log interpolation between the steps around it).
//
// With draw=0 nothing is drawn: a frame is the animation alone (for
// bonebake its GPU pass, waited for; for the clones the mixers, world and
// bone matrices), the ceiling the CPU sets where a GPU keeps up with the
// drawing.
//
// Query parameters: model, bpat (default: the example's files), from (100),
// step (√2), to (65536), frames (20), warm (3), fps (30), draw (1), w and h
// (the canvas; default the window). window.benchStarted is set once the files are loaded;
// the result is window.benchResult (window.benchDone when it is there,
// window.benchError on failure) and the table on the page.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { BonebakeCrowd, loadBPAT } from 'bonebake-three';

const q = new URLSearchParams(location.search);
const num = (k, d) => (q.has(k) ? Number(q.get(k)) : d);
const opt = {
  model: q.get('model') ?? '../examples/Soldier.glb',
  bpat: q.get('bpat') ?? '../examples/soldier.bpat',
  from: num('from', 100), step: num('step', Math.SQRT2), to: num('to', 65536),
  frames: num('frames', 20), warm: num('warm', 3), fps: num('fps', 30), draw: num('draw', 1) !== 0,
  width: num('w', innerWidth), height: num('h', innerHeight),
};
const CLIPS = ['Idle', 'Walk', 'Run'];
const FADE = 0.3, DT = 1 / 60, SPACING = 1.5;
const BACKGROUND = new THREE.Color(0x8fa5b8);

const report = document.getElementById('report');
const renderer = new THREE.WebGLRenderer({ antialias: false, powerPreference: 'high-performance' });
renderer.setPixelRatio(1);
renderer.setSize(opt.width, opt.height);
renderer.setClearColor(BACKGROUND);
document.body.appendChild(renderer.domElement);
const gl = renderer.getContext();
// scene makes one approach's scene: the same lights in each.
function scene() {
  const s = new THREE.Scene();
  s.matrixWorldAutoUpdate = false; // the approaches update the world matrices themselves, timed as animation
  s.add(new THREE.HemisphereLight(0xffffff, 0x445544, 2));
  const sun = new THREE.DirectionalLight(0xffffff, 2);
  sun.position.set(8, 14, 6);
  s.add(sun);
  return s;
}
const camera = new THREE.PerspectiveCamera(50, opt.width / opt.height, 0.1, 2000);

// rng is a seeded generator (mulberry32): both approaches get one from the
// same seed, so they place, start and switch the same units alike.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// layout places n units on a square grid centred on the origin, each with a
// heading, a clip and a phase, and aims the camera so that all are in view.
function layout(n) {
  const r = rng(1), side = Math.ceil(Math.sqrt(n));
  const units = Array.from({ length: n }, (_, i) => ({
    x: (i % side - (side - 1) / 2) * SPACING, z: (Math.floor(i / side) - (side - 1) / 2) * SPACING,
    heading: r() * 2 * Math.PI, clip: i % CLIPS.length, phase: r(),
  }));
  const reach = side * SPACING;
  camera.position.set(0, reach * 0.9, reach * 1.1);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  return units;
}

// switches calls f(unit, clip) for the units that change clip in frame k
// (N/200 a frame, as examples/index.html does).
function switches(n, k, f) {
  const r = rng(1000 + k);
  for (let j = 0; j < Math.ceil(n / 200); j++) f(Math.floor(r() * n), Math.floor(r() * CLIPS.length));
}

const approaches = {
  // bonebake-three: one crowd, its units posed on the GPU.
  bonebake(n, { gltf, bpat }) {
    const crowd = new BonebakeCrowd(gltf.scene, bpat, { count: n });
    layout(n).forEach((u, i) => {
      crowd.setTransform(i, u.x, 0, u.z, u.heading);
      crowd.play(i, CLIPS[u.clip], { phase: u.phase, time: 0 });
    });
    const s = scene().add(crowd);
    return {
      scene: s,
      animate(k, t) {
        switches(n, k, (i, c) => crowd.play(i, CLIPS[c], { time: t, fade: FADE }));
        crowd.update(t, renderer);
        s.updateMatrixWorld();
      },
      skeletons() {},
      dispose() { crowd.dispose(); },
    };
  },

  // What three.js users do: a clone of the character per unit, each with its
  // own mixer; a switch cross-fades to the new clip's action at the phase the
  // old one shows (as bonebake's play keeps a looping clip's phase).
  mixer(n, { gltf }) {
    const group = new THREE.Group();
    const clips = CLIPS.map((name) => {
      const c = THREE.AnimationClip.findByName(gltf.animations, name);
      if (!c) throw new Error(`bench: ${opt.model} has no clip ${name}`);
      return c;
    });
    const units = layout(n).map((u) => {
      const o = SkeletonUtils.clone(gltf.scene);
      o.position.set(u.x, 0, u.z);
      o.rotation.y = u.heading;
      group.add(o);
      const mixer = new THREE.AnimationMixer(o);
      const actions = clips.map((c) => mixer.clipAction(c));
      actions[u.clip].play().time = u.phase * clips[u.clip].duration;
      const skeletons = [];
      o.traverse((m) => { if (m.isSkinnedMesh && !skeletons.includes(m.skeleton)) skeletons.push(m.skeleton); });
      return { mixer, actions, skeletons, clip: u.clip };
    });
    const s = scene().add(group);
    return {
      scene: s,
      animate(k) {
        switches(n, k, (i, c) => {
          const u = units[i];
          if (c === u.clip) return;
          const from = u.actions[u.clip], to = u.actions[c];
          to.reset().play().time = (from.time / from.getClip().duration) * to.getClip().duration;
          from.crossFadeTo(to, FADE, false);
          u.clip = c;
        });
        for (const u of units) u.mixer.update(DT);
        s.updateMatrixWorld();
      },
      // The bone matrices the renderer computes (once a frame) before it
      // uploads them: timed apart, outside the frame.
      skeletons() { for (const u of units) for (const s of u.skeletons) s.update(); },
      dispose() {
        for (const u of units) {
          u.mixer.stopAllAction();
          for (const s of u.skeletons) s.dispose();
        }
      },
    };
  },
};

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const pixel = new Uint8Array(4);
const yieldToBrowser = () => new Promise((r) => setTimeout(r, 0));

// coverage counts the canvas's pixels that are not the background: the
// crowd's footprint, which should match between the approaches.
function coverage() {
  const w = renderer.domElement.width, h = renderer.domElement.height;
  const px = new Uint8Array(w * h * 4);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
  const hex = BACKGROUND.getHex(), bg = [hex >> 16, (hex >> 8) & 255, hex & 255];
  let n = 0;
  for (let i = 0; i < px.length; i += 4) {
    if (Math.abs(px[i] - bg[0]) + Math.abs(px[i + 1] - bg[1]) + Math.abs(px[i + 2] - bg[2]) > 24) n++;
  }
  return n;
}

// measure builds n units with each of the approaches named, draws them and
// returns each one's figures. Their frames alternate (one of each in turn),
// so that a load that comes and goes on the machine falls on both.
async function measure(names, n, assets) {
  const units = names.map((name) => {
    const t0 = performance.now();
    return { name, unit: approaches[name](n, assets), build: performance.now() - t0, frame: [], cpu: [] };
  });
  for (let k = 0; k < opt.warm + opt.frames; k++) {
    const t = 1 + k * DT;
    for (const u of units) {
      const a = performance.now();
      u.unit.animate(k, t);
      const b = performance.now();
      if (opt.draw) renderer.render(u.unit.scene, camera);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel); // waits for the frame's GPU work
      const c = performance.now();
      u.unit.skeletons();
      const d = performance.now();
      if (k >= opt.warm) {
        // Drawn, the renderer computed the bone matrices within the frame; not
        // drawn, the frame is the animation alone, bone matrices included.
        u.frame.push(opt.draw ? c - a : d - a);
        u.cpu.push(b - a + d - c);
      }
      await yieldToBrowser();
    }
  }
  return units.map((u) => {
    let covered = 0;
    if (opt.draw) { // drawn again: the canvas is cleared once shown
      renderer.render(u.unit.scene, camera);
      covered = coverage();
    }
    u.unit.dispose();
    return { name: u.name, step: { n, frameMs: median(u.frame), cpuMs: median(u.cpu), buildMs: u.build, covered } };
  });
}

// unitsAt reads the units an approach draws in ms a frame off its steps (log–log
// between the two around it): null when even its first step is slower, and
// { atLeast } when none is.
function unitsAt(steps, ms) {
  const k = steps.findIndex((s) => s.frameMs > ms);
  if (k === 0) return null;
  if (k < 0) return { atLeast: steps[steps.length - 1].n };
  const a = steps[k - 1], b = steps[k];
  const f = (Math.log(ms) - Math.log(a.frameMs)) / (Math.log(b.frameMs) - Math.log(a.frameMs));
  return { units: Math.round(Math.exp(Math.log(a.n) + f * (Math.log(b.n) - Math.log(a.n)))) };
}

function show(result) {
  const lines = [`${result.gpu}, ${result.width}×${result.height}${opt.draw ? '' : ', nothing drawn'}; median of ${opt.frames} frames; stop below ${opt.fps} fps`,
    'units   bonebake: frame ms  cpu ms   mixer clones: frame ms  cpu ms'];
  const rows = new Map();
  for (const name of Object.keys(approaches)) for (const s of result.steps[name]) rows.set(s.n, { ...rows.get(s.n), [name]: s });
  const cell = (s) => (s ? `${s.frameMs.toFixed(1).padStart(16)}${s.cpuMs.toFixed(2).padStart(8)}` : ' '.repeat(24));
  for (const [n, r] of rows) lines.push(`${String(n).padStart(5)} ${cell(r.bonebake)}      ${cell(r.mixer)}`);
  if (result.at) {
    const u = (x) => (x === null ? `under ${opt.from}` : x.atLeast ? `over ${x.atLeast}` : String(x.units));
    lines.push(`at ${result.at.ms.toFixed(1)} ms a frame: bonebake ${u(result.at.bonebake)} units, mixer clones ${u(result.at.mixer)}` +
      (result.at.ratio ? `: ${result.at.ratio.toFixed(1)}×` : ''));
  }
  report.textContent = lines.join('\n');
}

async function run() {
  const [gltf, bpat] = await Promise.all([new GLTFLoader().loadAsync(opt.model), loadBPAT(opt.bpat)]);
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const result = {
    gpu: info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
    width: renderer.domElement.width, height: renderer.domElement.height, fps: opt.fps, frames: opt.frames, draw: opt.draw,
    steps: { bonebake: [], mixer: [] }, at: null,
  };
  window.benchStarted = true;
  const done = new Set();
  for (let n = opt.from; done.size < 2 && n <= opt.to; n = Math.round(n * opt.step)) {
    const names = Object.keys(approaches).filter((name) => !done.has(name));
    for (const { name, step } of await measure(names, n, { gltf, bpat })) {
      result.steps[name].push(step);
      if (step.frameMs > 1000 / opt.fps) done.add(name);
    }
    show(result);
  }
  const ms = 1000 / opt.fps;
  const at = { ms, bonebake: unitsAt(result.steps.bonebake, ms), mixer: unitsAt(result.steps.mixer, ms) };
  if (at.bonebake?.units && at.mixer?.units) at.ratio = at.bonebake.units / at.mixer.units;
  result.at = at;
  show(result);
  window.benchResult = result;
  window.benchDone = true;
}

run().catch((e) => {
  report.textContent = String(e?.stack ?? e);
  window.benchError = String(e?.message ?? e);
});
