// The skinning pass: posed skinning matrices = the blend of palette · inverse
// bind over a unit's clips (docs/formats/bpat.md §1, docs/runtime.md §6.1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBPAT, SkinPalette, Clock, playhead } from '../src/core/index.js';
import { bpatFile, T } from './bpatfile.mjs';

// One bone; clip "a": translate x by 1 then 3; clip "b": translate z by 4.
const file = parseBPAT(bpatFile(1, [
  { name: 'a', loops: false, frames: [[T(1, 0, 0)], [T(3, 0, 0)]] },
  { name: 'b', loops: true, frames: [[T(0, 0, 4)]] },
]));
// Its inverse bind translates by −1 in y; column-major as three.js holds it.
const ib = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1];

test('palette · inverse bind, lerped and faded', () => {
  const s = new SkinPalette(file, ib);
  const out = new Float32Array(12);
  // Own: clip a rows 0, 1 at lerp 0.5 (x = 2), weight 0.75; faded from: clip b's row 2 (z = 4), weight 0.25.
  s.write(out, 0, [0, 1, 0.5, 0.75, 2, 2, 0, 0.25, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(out), [1, 0, 0, 1.5, 0, 1, 0, -1, 0, 0, 1, 1]);
});

test('a clock drives the pass: a one-shot fading in over a loop', () => {
  const s = new SkinPalette(file, ib);
  const c = new Clock();
  c.switchTo(0, playhead({ row: 2, frames: 1, loops: true, rate: 1 }), 0);
  c.switchTo(1, playhead({ row: 0, frames: 2, loops: false, rate: 0.5 }), 1);
  // At t = 1.5: x = 0.5, weight 0.5 each; clip a at phase 0.25: lerp 0.25, x = 1.5.
  const out = new Float32Array(12);
  s.write(out, 0, c.at(1.5));
  assert.deepEqual(Array.from(out), [1, 0, 0, 0.75, 0, 1, 0, -1, 0, 0, 1, 2]);
  assert.throws(() => new SkinPalette(file, new Float32Array(32)), /2 inverse bind matrices for 1 palette bones/);
});
