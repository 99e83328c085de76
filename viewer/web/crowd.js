// The crowd, as the server computes it: the page only draws it. The server
// builds the crowd with bonebake's runtime (a parade played by crowd.Batch, or a
// battle of crowd/battle: exactly what a game gets) and answers each step with
// every unit's 32-float GPU record (its cross-fade included), grouped by
// species, so the page uploads them as they come with no per-instance loop. In
// the GPU clock mode (a parade asked for with clock) it answers with the time
// and only the time records that changed, which the page keeps and resolves on
// the GPU (clock.js). A step is requested while the last one is drawn. The rest
// of the viewer sees the crowd only through this module's exports:
//
//   newCrowd(all, { layout, count, only, clock })  asks the server for a crowd;
//       resolves to its description { id, layout, unit_count, assets, extent,
//       note, playback ('clock' or 'frame') }, or to null when a newer crowd
//       was asked for before it came.
//   tick(dt)  adds dt seconds of crowd time and sends the next step request when
//       none is in flight.
//   applyStep(all)  takes the answers that came: each species' records
//       (A.instData, A.count of them) are uploaded, or in the clock mode the
//       changed entries, and the records resolved; returns whether it did.
//   focusClip(A)  the clip and phase of A's first unit in the latest answer.
//   frameSeconds(f)  how long that unit takes to advance one frame.
//   seek(phase)  puts the focus unit at a phase (in the next step).
//   settled()  resolves once a step requested after the call has been applied.
//
// What a step carries besides time: the selected species (its first unit is the
// focus), every species' chosen clip (state.override) and whether clip changes
// cross-fade (state.fades).
import { state, stats, RECORD } from './state.js';
import { api, fetchOK, reserveRecords, uploadRecords } from './gl.js';
import { reserveClock, putClock, uploadClock } from './clock.js';
import { lodQuery, cameraMoved, splitLevels, putClockLevel, resolveClockLevels } from './lod.js';
import { STEP_MAGIC, CLOCK_MAGIC, HEADER, HDR_ASSETS, HDR_FOCUS_CLIP, HDR_FOCUS_PHASE, HDR_FOCUS_RATE, HDR_ALIVE, CLOCK, LEVEL_ENTRY } from './wire.js';

const MAX_DT = 1; // the server's limit per step

let crowd = null; // the server's description of the current crowd: answers for others are dropped
let generation = 0; // bumps with every crowd asked for: only the newest is taken
let owed = 0; // seconds of crowd time not yet sent
let dirty = false; // the next step must be sent even with no time to add
let seekTo = null;
let inflight = false, sent = 0, applied = 0;
let answers = []; // the answers not yet applied, in order: { seq, buf, focusAsset }
let unitAsset = null; // per unit index: its asset (the clock mode's entries name units)
let focus = { clip: -1, phase: 0, rate: 0 };
const waiters = [];

// postCrowd sends one crowd request at a time: the server builds at most a
// few crowds at once (MaxBuilding) and refuses more with 503, so a request waits
// for the one in flight, and one superseded meanwhile is not sent (null). A 503
// (another tab building) is retried after the Retry-After it gives, a few times.
let posting = null;
async function postCrowd(body, gen) {
  for (let tries = 0; ; tries++) {
    while (posting) await posting.catch(() => {});
    if (gen !== generation) return null;
    posting = api('api/crowd', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    let r;
    try { r = await posting; } finally { posting = null; }
    if (r.status === 503 && tries < 20) {
      await new Promise((ok) => setTimeout(ok, 1000 * (Number(r.headers.get('Retry-After')) || 1)));
      continue;
    }
    if (!r.ok) throw new Error(`api/crowd: HTTP ${r.status}: ${await r.text()}`);
    return r.json();
  }
}

// newCrowd asks the server for a crowd of count units in a layout, of every
// species or of one (only: an index), each measured as the page shows it.
export async function newCrowd(all, { layout, count, only, clock }) {
  const gen = ++generation;
  const body = { layout, count, seed: 1, clock: !!clock, assets: all.map((A) => ({ scale: 1, spacing: A.spacing })) };
  if (only != null) body.only = only;
  const c = await postCrowd(body, gen);
  if (c === null || gen !== generation) return null; // a newer crowd was asked for meanwhile: it is the one
  crowd = c;
  answers = [];
  dirty = true;
  unitAsset = new Uint16Array(c.unit_count);
  for (const A of all) {
    const a = c.assets[A.index];
    A.count = 0;
    reserveRecords(A, a.unit_count);
    if (c.playback === 'clock') reserveClock(A, a.unit_count);
    unitAsset.fill(A.index, a.first, a.first + a.unit_count);
  }
  await settled();
  return c;
}

// tick adds dt seconds of crowd time and asks for the next step when no request
// is in flight.
export function tick(dt) {
  owed += dt;
  if (!crowd || inflight || !(owed > 0 || dirty || seekTo !== null || cameraMoved())) return;
  const d = Math.min(owed, MAX_DT);
  owed -= d;
  dirty = false;
  const q = new URLSearchParams({ dt: String(d), focus: String(state.selected) });
  const clips = [];
  state.override.forEach((c, a) => { if (c >= 0) clips.push(`${a}:${c}`); });
  if (clips.length) q.set('clips', clips.join(','));
  if (!state.fades) q.set('fades', '0');
  if (seekTo !== null) { q.set('seek', String(seekTo)); seekTo = null; }
  lodQuery(q); // level of detail: the camera's position (lod.js)
  // The answer is for this crowd alone: one that comes after a new crowd
  // replaced it (steps go on while the new one is asked for) is dropped.
  const of = crowd, seq = ++sent, focusAsset = state.selected;
  inflight = true;
  fetchOK(`api/crowd/${of.id}/step?${q}`).then((r) => r.arrayBuffer()).then((buf) => {
    inflight = false;
    if (of === crowd) answers.push({ seq, buf, focusAsset });
  }, (err) => {
    inflight = false;
    if (of === crowd) throw err;
  }).catch((err) => { console.error('bonebake viewer: step:', err); });
}

// applyStep uploads the answers that came since the last call: of per-frame
// answers the newest; of clock answers every one, in order (each holds only
// the changes since the one before), then resolves the records at the newest
// one's time.
export function applyStep(all) {
  if (answers.length === 0) return false;
  const clocked = new DataView(answers[0].buf).getUint32(0, true) === CLOCK_MAGIC;
  const todo = clocked ? answers : answers.slice(-1);
  let now = 0;
  for (const { buf, focusAsset } of todo) now = applyAnswer(all, buf, focusAsset);
  if (clocked) {
    for (const A of all) { uploadClock(A); resolveClockLevels(A, now); }
  }
  applied = answers[answers.length - 1].seq;
  answers = [];
  for (let k = waiters.length - 1; k >= 0; k--) {
    if (waiters[k].seq <= applied) waiters.splice(k, 1)[0].resolve();
  }
  return true;
}

// applyAnswer takes one answer: a per-frame one's records are uploaded, a
// clock one's entries kept (uploadClock sends them); it returns the clock
// answer's time.
function applyAnswer(all, buf, focusAsset) {
  const dv = new DataView(buf);
  const magic = dv.getUint32(0, true);
  if (magic !== STEP_MAGIC && magic !== CLOCK_MAGIC) throw new Error('step: not a step answer');
  const n = dv.getUint32(HDR_ASSETS, true);
  if (n !== all.length) throw new Error(`step: ${n} species, the page has ${all.length}`);
  focus = { clip: dv.getInt32(HDR_FOCUS_CLIP, true), phase: dv.getFloat32(HDR_FOCUS_PHASE, true), rate: dv.getFloat32(HDR_FOCUS_RATE, true) };
  stats.alive = [dv.getUint32(HDR_ALIVE, true), dv.getUint32(HDR_ALIVE + 4, true)];
  let o = HEADER + 4 * n, units = 0;
  for (const A of all) {
    A.count = dv.getUint32(HEADER + 4 * A.index, true);
    units += A.count;
  }
  if (magic === STEP_MAGIC) {
    for (const A of all) {
      A.instData = new Float32Array(buf, o, A.count * RECORD);
      splitLevels(A); // level of detail: per-level instance buffers (lod.js)
      o += A.count * RECORD * 4;
      reserveRecords(A, A.count);
      uploadRecords(A);
    }
    stats.playback = 'frame';
    stats.recordsSent = units;
    stats.steps++;
    stats.records += units;
    return 0;
  }
  const now = dv.getFloat32(o, true);
  const F = all[focusAsset];
  if (F && F.count > 0 && focus.clip >= 0) F.instData.set(new Float32Array(buf.slice(o + 4, o + 4 + RECORD * 4)));
  o += 4 + RECORD * 4;
  const k = dv.getUint32(o, true);
  o += 4;
  const bytes = new Uint8Array(buf);
  for (let e = 0; e < k; e++, o += 4 + CLOCK * 4) {
    const i = dv.getUint32(o, true), A = all[unitAsset[i]];
    putClock(A, i - crowd.assets[A.index].first, bytes, o + 4);
  }
  const levels = dv.getUint32(o, true); // the units whose levels of detail changed (lod.js)
  o += 4;
  for (let e = 0; e < levels; e++, o += LEVEL_ENTRY) {
    const i = dv.getUint32(o, true), A = all[unitAsset[i]];
    putClockLevel(A, i - crowd.assets[A.index].first, bytes[o + 4], bytes[o + 5]);
  }
  stats.playback = 'clock';
  stats.recordsSent = k;
  stats.steps++;
  stats.records += k;
  return now;
}

// settled resolves once a step sent after this call has been applied.
export function settled() {
  dirty = true;
  return new Promise((resolve) => waiters.push({ seq: sent + 1, resolve }));
}

// focusClip describes what species A's first unit plays in the latest answer:
// { A, i (0, or -1 when A has no units), ci (the clip's index), c (the clip), p
// (its phase), rate (phase per second) }; null without A.
export function focusClip(A) {
  if (!A) return null;
  const has = A.count > 0 && A.index === state.selected && focus.clip >= 0;
  const ci = has ? focus.clip : Math.max(0, state.override[A.id] ?? 0);
  return { A, i: A.count > 0 ? 0 : -1, ci, c: A.clips[ci], p: has ? focus.phase : 0, rate: has ? focus.rate : 0 };
}

// frameSeconds is how long focusClip's f takes to advance one frame at its rate.
export function frameSeconds(f) {
  if (!f || !(f.rate > 0)) return 1 / 30;
  const c = f.c, span = c.loops ? c.frame_count : Math.max(1, c.frame_count - 1);
  return 1 / (span * f.rate);
}

// seek puts the focus unit at a phase in the next step.
export function seek(phase) {
  seekTo = phase;
}

// note is what the server says about the crowd ('' for nothing), for the panel.
export function note() {
  return crowd && crowd.note ? crowd.note : '';
}
