// The side panel: the species' info and clip table, the crowd controls and
// keyboard shortcuts, and the frame statistics.
import { $, state, stats, fail, clampInt, MAX_INSTANCES, wantsClock, kvRows, requestDraw } from './state.js';
import { rebuildCrowd, focus } from './scene.js';
import { frameSeconds, tick, note, settled } from './crowd.js';
import { frameCrowd, focusSelected } from './camera.js';
import { FORMATS, setBAT } from './bat.js';
import { groundSpeed } from './timeline.js';

function fmtBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}

export function showInfo() {
  const A = state.assets[state.selected];
  if (!A) return;
  const i = A.info;
  const rows = [
    ['name', A.name], ['kind', i.kind], ...(i.file ? [['file', { text: i.file, path: true }]] : []), ['species id', i.species_id],
    ['BPAT version', i.version], ['bones', i.bone_count], ['clips', i.clips.length], ['sockets', i.sockets.length],
    ['frames', i.frame_total], ['file size', fmtBytes(i.size)], ['palette', fmtBytes(i.palette_bytes)],
    ['skin palette', `${i.bone_count * 3}×${i.frame_total} RGBA32F` + (A.skinPalette.perRow > 1 ? ` (laid ${A.skinPalette.perRow} frames a row)` : '') +
      ', posed per unit and frame by the core\'s pass'],
    ['mesh', `${i.mesh} · ${i.vertex_count} verts · ${i.triangle_count} tris`],
  ];
  if (i.warning) rows.push(['warning', i.warning]);
  for (const n of i.notes ?? []) rows.push(['note', n]);
  kvRows($('info'), rows);
  showBAT();
  showFades();
  const body = $('clips').tBodies[0];
  const row = (cells, idx) => {
    const tr = document.createElement('tr');
    for (const c of cells) { const td = document.createElement('td'); td.textContent = c; tr.append(td); }
    tr.dataset.clip = idx;
    if ((state.override[A.id] ?? -1) === idx) tr.classList.add('selected');
    tr.addEventListener('click', () => { state.override[A.id] = idx; settled(); showInfo(); });
    return tr;
  };
  const rowsEl = [row(['', '(layout mix)', '', '', '', '', '', ''], -1)];
  // A parade unit travels at a looping clip's ground speed (viewer/travel.go).
  const travels = (c) => (c.loops && c.ground_speed > 0 ? groundSpeed(c) : '');
  A.clips.forEach((c, k) => rowsEl.push(row([k, c.name, c.frame_count, c.fps || '?', c.loops ? 'L' : '', c.duration_s.toFixed(2), Object.keys(c.markers || {}).length || '', travels(c)], k)));
  body.replaceChildren(...rowsEl);
}

// showFades lists how the selected species' clip changes fade: the rules of
// its fade table as the server gives them with the crowd (docs/runtime.md §6.1),
// "into" the states entered, "from" those left; crossed out while fades are off.
export function showFades() {
  const A = state.assets[state.selected], c = state.crowd;
  $('fades').checked = state.fades;
  const rules = A && c ? c.assets[A.index].fades : [];
  const secs = (s) => (s > 0 ? `${+s.toFixed(3)} s` : 'none');
  const rows = [];
  let group = null; // the states entered by the rules listed last, named once above them
  for (const r of rules) {
    if (!r.to && !r.from) { rows.push(['any clip change', secs(r.seconds)]); continue; }
    const into = r.to ? `into ${r.to.join(', ')}` : 'into any state';
    if (into !== group) { rows.push([into, '']); group = into; }
    rows.push([`\u2003from ${r.from ? r.from.join(', ') : 'any other'}`, secs(r.seconds)]);
  }
  kvRows($('fade-table'), rows);
  $('fade-table').classList.toggle('off', !state.fades);
}

// setFades turns cross-fades on or off; it resolves once a step with the
// choice is drawn.
export function setFades(on) {
  state.fades = !!on;
  showFades();
  return settled();
}

function mm(metres) { return `${(metres * 1000).toPrecision(3)} mm`; }

// showBAT describes the selected species' BAT bake: what was stored and the
// verified worst errors against skinning from the palette.
export function showBAT() {
  const A = state.assets[state.selected], S = state.bat;
  const fmt = $('bat-format');
  fmt.replaceChildren(...FORMATS[S.preset].map((f) => new Option(f, f)));
  fmt.value = S.format;
  $('bat-mode').value = S.mode;
  $('bat-preset').value = S.preset;
  if (!A) return;
  const B = A.bat;
  let rows;
  if (S.mode === 'off') rows = [];
  else if (A.info.mesh === 'boxes') rows = [['BAT', 'none: drawn as boxes, from the palette']];
  else if (!B) rows = [['BAT', 'loading…']];
  else if (B.error) rows = [['BAT', B.error]];
  else {
    const r = B.report;
    rows = [
      ['stored', `position ${r.position.encoding} · rotation ${r.rotation.encoding} ${r.rotation.mode} · skin ${r.skin.encoding}`],
      ['textures', `${r.position.width}×${r.position.height} bones×rows${r.stacked ? ' (stacked)' : ''} · skin ${r.skin.width}×${r.skin.height}`],
      ['max error', `bone ${mm(r.max_error.position)} · vertex ${mm(r.max_error.vertex)}`],
    ];
  }
  kvRows($('bat-info'), rows);
}

// switchBAT applies the panel's BAT choices (or those given) and resolves once
// the bakes are loaded and shown.
export function switchBAT(mode = state.bat.mode, preset = state.bat.preset, format = state.bat.format) {
  const p = setBAT(mode, preset, format);
  showBAT();
  return p.then(() => { showBAT(); requestDraw(); }, (err) => { fail(err); throw err; });
}

let statsShown = 0;
export function showStats(now) {
  if (now - statsShown < 250) return;
  statsShown = now;
  kvRows($('stats'), [
    ['frame time', stats.frameMs > 0 ? `${stats.frameMs.toFixed(1)} ms (${(1000 / stats.frameMs).toFixed(0)} fps)` : '—'],
    ['CPU per frame', `${stats.cpuMs.toFixed(2)} ms`],
    ['instances drawn', stats.instances],
    ['draw calls', stats.drawCalls],
    ['time', `${state.time.toFixed(2)} s × ${state.speed.toFixed(2)}`],
    ['playback', playbackText()],
    ...(state.crowd && state.crowd.layout === 'battle' ? [['armies standing', `${stats.alive[0]} red · ${stats.alive[1]} blue`]] : []),
    ['GL errors', stats.glErrors],
  ]);
}

// playbackText says how the crowd plays and how many records the last step
// sent.
function playbackText() {
  const c = state.crowd;
  if (!c || !stats.playback) return '';
  const n = `${stats.recordsSent} of ${c.unit_count} records last step`;
  if (stats.playback === 'clock') return `GPU clock · ${n}`;
  if (c.layout === 'battle' && wantsClock()) return `per frame (the battle has no clock mode: its units move every step) · ${n}`;
  return `per frame · ${n}`;
}

// setClock chooses how crowds play ('auto', 'frame' or 'clock'): the crowd is
// built anew in that mode; it resolves once it is drawn.
export function setClock(mode) {
  state.clock = ['frame', 'clock'].includes(mode) ? mode : 'auto';
  $('clock').value = state.clock;
  return rebuild();
}

export function setPlaying(on) {
  state.playing = on;
  $('play').textContent = on ? 'pause' : 'play';
}

// stepFrame pauses and advances the crowd by one frame of the focus unit's
// clip, or by s seconds; it resolves once that step is drawn.
export function stepFrame(s = frameSeconds(focus())) {
  setPlaying(false);
  state.time += s;
  tick(s);
  return settled();
}

// rebuild asks for the crowd anew (and frames it, when frame); it resolves once
// the new crowd is drawn.
export function rebuild(frame = false) {
  return rebuildCrowd().then(() => {
    if (frame) frameCrowd();
    statsShown = -Infinity; // the stats show the new crowd at the next frame, not up to 250 ms later
    requestDraw();
    showFades();
    const n = note();
    $('note').textContent = n;
    $('note').hidden = n === '';
  }).catch(fail);
}

export function setCount(n) {
  state.count = clampInt(n, 1, MAX_INSTANCES, state.count);
  $('count').value = state.count;
  $('count-n').value = state.count;
  return rebuild();
}

export function setupPanel() {
  const sel = $('asset');
  sel.replaceChildren(...state.assets.map((A, k) => new Option(`${A.name} (${A.info.kind})`, k)));
  sel.value = state.selected;
  sel.addEventListener('change', () => { state.selected = Number(sel.value); if (state.only) rebuild(); else settled(); showInfo(); });
  $('only').value = state.only ? 'selected' : 'all';
  $('only').addEventListener('change', (e) => { state.only = e.target.value === 'selected'; rebuild(true); });
  $('count').value = state.count;
  $('count-n').value = state.count;
  $('count').addEventListener('input', (e) => setCount(e.target.value));
  $('count-n').addEventListener('change', (e) => setCount(e.target.value));
  $('clock').value = state.clock;
  $('clock').addEventListener('change', (e) => setClock(e.target.value));
  $('layout').value = state.layout;
  $('layout').addEventListener('change', (e) => { state.layout = e.target.value; rebuild(true); });
  $('play').addEventListener('click', () => setPlaying(!state.playing));
  $('step').addEventListener('click', () => stepFrame());
  $('frame').addEventListener('click', frameCrowd);
  $('focus').addEventListener('click', focusSelected);
  $('speed').addEventListener('input', (e) => { state.speed = Number(e.target.value); $('speed-v').textContent = `${state.speed.toFixed(2)}×`; });
  for (const k of ['skeleton', 'sockets', 'props']) {
    const key = 'show' + k[0].toUpperCase() + k.slice(1);
    $(k).checked = state[key];
    $(k).addEventListener('change', (e) => { state[key] = e.target.checked; });
  }
  $('fades').addEventListener('change', (e) => setFades(e.target.checked));
  $('bat-mode').addEventListener('change', (e) => switchBAT(e.target.value));
  $('bat-preset').addEventListener('change', (e) => switchBAT(state.bat.mode, e.target.value, ''));
  $('bat-format').addEventListener('change', (e) => switchBAT(state.bat.mode, state.bat.preset, e.target.value));
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === ' ') { setPlaying(!state.playing); e.preventDefault(); }
    else if (e.key === '.') stepFrame();
    else if (e.key === 'f') frameCrowd();
    else if (e.key === 'c') focusSelected();
  });
  setPlaying(state.playing);
  showInfo();
}
