// The crowd: where each instance stands, which clip it plays and how its phase
// advances with time. The rest of the viewer sees it only through this module's
// exports:
//
//   buildCrowd(all, shown, count, layout)  places count instances of the shown
//       species; sets each species' members (A.members, A.count) and returns
//       the placement { n, asset, x, z, yaw } (per instance, world units).
//   fillRecords(all, time, override)  writes each species' records (A.instData,
//       A.count of them: frames, tint, place, a rider's frames) for a time.
//   focusClip(A, time, override)  the clip and phase of A's first instance.
//   frameSeconds(f), timeAtPhase(f, phase), timing(i)  the timeline's and the
//       test hook's view of an instance's clock.
//   riderClips(horse, rider)  which rider clip plays with each horse clip.
//
// override[A.id] is the clip every instance of A plays, or -1 for the layout's mix.
// Of a species A it reads A.index, A.id, A.clips (with c.seconds), A.spacing,
// A.scale and A.rider ({ asset, clipFor }, set by props.js from riderClips); it
// touches neither WebGL nor the page.
import { resolve } from './playback.js';
import { RECORD } from './state.js';

const ONE_SHOT_HOLD = 0.35; // a one-shot in the crowd replays after holding its end pose this long (in clip lengths)

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

// buildCrowd places count instances of the species in shown (a subset of all)
// in a layout, 'parade' or 'battle', and gives each a clip, a phase and a rate.
export function buildCrowd(all, shown, count, layout) {
  const n = count;
  const assets = shown, nA = assets.length;
  inst = {
    n, asset: new Uint16Array(n), clip: new Uint16Array(n), phase0: new Float32Array(n), rate: new Float32Array(n),
    x: new Float32Array(n), z: new Float32Array(n), yaw: new Float32Array(n), tint: new Float32Array(n * 4),
  };
  const rnd = rng(0x5eed + n);
  const choose = (list) => list[Math.floor(rnd() * list.length)];
  if (layout === 'parade') {
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
  // Per-species member lists: instance A.members[k] has record k of A.
  const counts = new Array(all.length).fill(0);
  for (let i = 0; i < n; i++) counts[inst.asset[i]]++;
  all.forEach((A, a) => {
    A.members = new Int32Array(counts[a]);
    A.count = 0;
  });
  for (let i = 0; i < n; i++) { const A = all[inst.asset[i]]; A.members[A.count++] = i; }
  return { n, asset: inst.asset, x: inst.x, z: inst.z, yaw: inst.yaw };
}

function phaseOf(c, p0, rate, time) {
  const d = c.seconds;
  if (!(d > 0)) return p0;
  let p = p0 + (time * rate) / d;
  if (!c.loops) { const cycle = 1 + ONE_SHOT_HOLD; p -= Math.floor(p / cycle) * cycle; }
  return p;
}

function clipOf(A, i, override) {
  const o = override[A.id];
  return o >= 0 ? o : inst.clip[i];
}

const fr = [0, 0, 0];

// fillRecords computes every instance's frames (the playback rules of
// docs/formats/bpat.md) into its species' records at a time in seconds.
export function fillRecords(all, time, override) {
  for (const A of all) {
    const d = A.instData, R = A.rider;
    let o = 0;
    for (let k = 0; k < A.count; k++, o += RECORD) {
      const i = A.members[k];
      const ci = clipOf(A, i, override), c = A.clips[ci];
      resolve(phaseOf(c, inst.phase0[i], inst.rate[i], time), c.frames, c.loops, fr);
      d[o] = c.frame_offset + fr[0]; d[o + 1] = c.frame_offset + fr[1]; d[o + 2] = fr[2]; d[o + 3] = 0;
      d[o + 4] = inst.tint[i * 4]; d[o + 5] = inst.tint[i * 4 + 1]; d[o + 6] = inst.tint[i * 4 + 2]; d[o + 7] = inst.tint[i * 4 + 3];
      d[o + 8] = inst.x[i]; d[o + 9] = inst.z[i]; d[o + 10] = inst.yaw[i]; d[o + 11] = A.scale;
      if (R) {
        const rc = R.asset.clips[R.clipFor[ci]];
        resolve(phaseOf(rc, inst.phase0[i], inst.rate[i], time), rc.frames, rc.loops, fr);
        d[o + 12] = rc.frame_offset + fr[0]; d[o + 13] = rc.frame_offset + fr[1]; d[o + 14] = fr[2]; d[o + 15] = 0;
      }
    }
  }
}

// focusClip describes what species A's first instance plays at a time: { A, i
// (the instance, or -1 when A has none), ci (the clip's index), c (the clip), p
// (its phase) }; null without A.
export function focusClip(A, time, override) {
  if (!A) return null;
  const i = A.count > 0 ? A.members[0] : -1;
  const ci = override[A.id] >= 0 ? override[A.id] : i >= 0 ? inst.clip[i] : 0;
  const c = A.clips[ci];
  const p = i >= 0 ? phaseOf(c, inst.phase0[i], inst.rate[i], time) : 0;
  return { A, i, ci, c, p };
}

// frameSeconds is how far the time moves for focusClip's f to advance one frame.
export function frameSeconds(f) {
  const fps = f && f.c.fps > 0 ? f.c.fps : 30;
  const rate = f && f.i >= 0 ? inst.rate[f.i] : 1;
  return 1 / (fps * rate);
}

// timeAtPhase is the time at which focusClip's f (with an instance and a clip of
// some duration) is at a phase.
export function timeAtPhase(f, phase) {
  return ((phase - inst.phase0[f.i]) * f.c.seconds) / inst.rate[f.i];
}

// timing is instance i's clock: its phase at time 0 and its rate.
export function timing(i) {
  return { phase0: inst.phase0[i], rate: inst.rate[i] };
}

// riderClips maps each horse clip to the rider clip played with it: { idle (the
// rider's idle clip), clipFor (by horse clip) }, or null when the rider has no
// riding clips.
export function riderClips(horse, rider) {
  const ridingClip = (name) => rider.clips.findIndex((c) => c.name === name);
  const idle = ridingClip('riding_idle') >= 0 ? ridingClip('riding_idle') : rider.clips.findIndex((c) => /^riding/.test(c.name));
  if (idle < 0) return null;
  const pick = (name) => (ridingClip(name) >= 0 ? ridingClip(name) : idle);
  const clipFor = horse.clips.map((c) => {
    if (/^die/.test(c.name)) return pick('die_mounted');
    if (/^dead/.test(c.name)) return pick('dead_mounted');
    if (/gallop|canter|fight|charge/.test(c.name)) return pick('riding_charge');
    return idle;
  });
  return { idle, clipFor };
}
