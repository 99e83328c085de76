// Level of detail and sockets in the core: the distance bands with their
// hysteresis (docs/runtime.md §6.4), the reduced level's influences, and the
// constant that turns an anchor's posed matrix into its socket's
// (docs/formats/bpat.md §1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextLevel, reduceInfluences, socketBind, DEFAULT_LOD, LEVEL_FULL, LEVEL_REDUCED, LEVEL_SNAPSHOT } from '../src/core/index.js';

test('a unit changes band only 10 % past a boundary (boundaries 30 and 90 m)', () => {
  const cases = [
    // [band now, distance, band next]: out beyond 33 and 99, back below 27 and 81.
    [LEVEL_FULL, 32, LEVEL_FULL], [LEVEL_FULL, 34, LEVEL_REDUCED], [LEVEL_FULL, 100, LEVEL_SNAPSHOT],
    [LEVEL_REDUCED, 28, LEVEL_REDUCED], [LEVEL_REDUCED, 26, LEVEL_FULL], [LEVEL_REDUCED, 98, LEVEL_REDUCED],
    [LEVEL_REDUCED, 99.5, LEVEL_SNAPSHOT], [LEVEL_SNAPSHOT, 82, LEVEL_SNAPSHOT], [LEVEL_SNAPSHOT, 80, LEVEL_REDUCED],
    [LEVEL_SNAPSHOT, 10, LEVEL_FULL], [LEVEL_FULL, Infinity, LEVEL_SNAPSHOT],
  ];
  for (const [cur, d, want] of cases) assert.equal(nextLevel(cur, d, DEFAULT_LOD), want, `band ${cur} at ${d} m`);
  // A camera swaying ±5 % about a boundary switches nobody.
  let band = LEVEL_FULL;
  for (let k = 0; k < 40; k++) band = nextLevel(band, 30 * (1 + 0.05 * Math.sin(k)), DEFAULT_LOD);
  assert.equal(band, LEVEL_FULL);
  assert.equal(nextLevel(LEVEL_FULL, 12, { reduced: 5, snapshot: 10 }), LEVEL_SNAPSHOT);
});

test('the reduced level keeps the two heaviest joints, renormalized, a joint named twice summed', () => {
  const { indices, weights } = reduceInfluences(
    [3, 1, 3, 0, /**/ 5, 0, 0, 0, /**/ 2, 4, 6, 7, /**/ 1, 2, 0, 0],
    [0.2, 0.3, 0.4, 0.1, /**/ 1, 0, 0, 0, /**/ 0.25, 0.25, 0.25, 0.25, /**/ 0.5, 0.5, 0, 0],
  );
  assert.deepEqual(Array.from(indices), [3, 1, 0, 0, /**/ 5, 0, 0, 0, /**/ 2, 4, 0, 0, /**/ 1, 2, 0, 0]);
  const near = (a, b) => a.every((x, i) => Math.abs(x - b[i]) < 1e-7);
  assert.ok(near(Array.from(weights), [2 / 3, 1 / 3, 0, 0, /**/ 1, 0, 0, 0, /**/ 0.5, 0.5, 0, 0, /**/ 0.5, 0.5, 0, 0]), `${weights}`);
});

test('socketBind is the anchor\'s bind times the socket\'s offset', () => {
  // Inverse bind: scale x by 2, then translate (5, 6, 7); column-major.
  const ib = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, /**/ 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 6, 7, 1];
  const file = { name: 'f.bpat', sockets: [{ name: 'hand', anchor: 1, offset: [1, 2, 3] }] };
  const m = socketBind(file, ib, 0);
  // bind: x → (x − 5)/2, y → y − 6, z → z − 7; at the offset (1, 2, 3): (−2, −4, −4).
  assert.deepEqual(m, [0.5, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -2, -4, -4, 1]);
  assert.throws(() => socketBind(file, ib, 1), /socket 1 out of range \[0,1\) of f\.bpat/);
  const flat = [...ib.slice(0, 16), ...new Array(16).fill(0)];
  assert.throws(() => socketBind(file, flat, 0), /inverse bind of bone 1 \(socket hand's anchor\) cannot be inverted/);
});
