// The CPU skinning pass's cost per frame: node bench/pass.mjs FILE.bpat
// [units ...]. Every unit plays a clip at its own phase; a tenth of them are
// cross-fading (their posed matrices blend four palette frames, not two).
// Prints milliseconds per frame of wall time (the median of 30 frames after 10
// warm-up frames) and of CPU time (the process's user and system time over
// those 30 frames, which a machine shared with other work does not inflate),
// and CPU nanoseconds per unit.
import { readFileSync } from 'node:fs';
import { parseBPAT, SkinPalette, Clock, playhead } from '../src/core/index.js';

const [path, ...counts] = process.argv.slice(2);
if (!path) {
  console.error('usage: node bench/pass.mjs FILE.bpat [units ...]');
  process.exit(2);
}
const f = parseBPAT(readFileSync(path), { name: path, lenient: true });
const ib = new Float32Array(f.boneCount * 16);
for (let b = 0; b < f.boneCount; b++) ib.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], b * 16);
const skin = new SkinPalette(f, ib);
const head = (k, phase) => { const c = f.clips[k % f.clips.length]; return playhead({ phase, rate: 1, row: c.frameOffset, frames: c.frameCount, loops: c.loops }); };
for (const n of (counts.length ? counts : ['1000', '10000']).map(Number)) {
  const clocks = Array.from({ length: n }, (_, i) => {
    const c = new Clock();
    c.switchTo(0, head(i, (i * 0.618) % 1), 0);
    if (i % 10 === 0) c.switchTo(0.5, head(i + 1, 0.3), 1e6); // fading for the whole run
    return c;
  });
  const out = new Float32Array(n * skin.frameSize);
  const pose = new Float64Array(12);
  const times = [];
  let cpu0;
  for (let frame = 0; frame < 40; frame++) {
    if (frame === 10) cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const t = 1 + frame / 60;
    for (let i = 0; i < n; i++) skin.write(out, i * skin.frameSize, clocks[i].at(t, pose));
    if (frame >= 10) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const used = process.cpuUsage(cpu0);
  const cpu = (used.user + used.system) / 1000 / times.length;
  times.sort((a, b) => a - b);
  const ms = times[times.length >> 1];
  console.log(`${f.boneCount} bones, ${n} units: ${ms.toFixed(2)} ms a frame (wall), ${cpu.toFixed(2)} ms of CPU, ${(cpu * 1e6 / n).toFixed(0)} CPU ns a unit, ${(out.byteLength / 1e6).toFixed(1)} MB to upload`);
}
