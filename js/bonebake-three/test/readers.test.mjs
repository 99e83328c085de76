// The gait sidecar and BPSM readers on files built here by the specs'
// layouts (docs/formats/gait.md §1, docs/formats/bpsm.md §2–§5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGait, GaitError, parseBPSM, ValidationError } from '../src/core/index.js';

const sidecar = {
  format: 'bonebake-gait', version: 1, bpat: 'soldier.bpat', units: 'm',
  clips: [
    { name: 'Idle', cycle: 1.967, status: 'no_travel' },
    { name: 'Run', cycle: 0.7, ground_speed: 4.447, ground_speed_source: 'measured', status: 'measured', stride: 3.113, confidence: 0.98, direction: [0.0058, 0, -1] },
  ],
};
const fakeBPAT = { name: 'soldier.bpat', clips: [{ name: 'Idle' }, { name: 'Run' }, { name: 'Walk' }], clipIndex(n) { return this.clips.findIndex((c) => c.name === n); } };

test('gait: reads the clips and maps them onto the BPAT file', () => {
  const g = parseGait(JSON.stringify(sidecar), { bpat: fakeBPAT });
  assert.equal(g.byName.get('Run').groundSpeed, 4.447);
  assert.equal(g.byName.get('Idle').groundSpeed, 0);
  assert.deepEqual(g.byName.get('Run').direction, [0.0058, 0, -1]);
  assert.equal(g.byName.get('Idle').direction, null); // none given, as in a sidecar written before the key: +z
  assert.deepEqual(g.forClip.map((c) => c && c.name), ['Idle', 'Run', null]);
});

test('gait: refuses each broken rule, naming the key and the rule', () => {
  const cases = [
    [{ ...sidecar, format: 'x' }, 'format', 'format'],
    [{ ...sidecar, version: 2 }, 'version', 'version'],
    [{ ...sidecar, clips: [sidecar.clips[0], sidecar.clips[0]] }, 'name', 'clips[1].name'],
    [{ ...sidecar, clips: [{ name: 'Idle', cycle: 0 }] }, 'cycle', 'clips[0].cycle'],
    [{ ...sidecar, clips: [{ name: 'Run', cycle: 1, ground_speed: -1, ground_speed_source: 'measured' }] }, 'ground-speed', 'clips[0].ground_speed'],
    [{ ...sidecar, clips: [{ name: 'Run', cycle: 1, ground_speed: 2 }] }, 'source', 'clips[0].ground_speed_source'],
    [{ ...sidecar, clips: [{ name: 'Run', cycle: 1, direction: [0, 0, 2] }] }, 'direction', 'clips[0].direction'],
    [{ ...sidecar, clips: [{ name: 'Run', cycle: 1, direction: [0.6, 0.1, 0.8] }] }, 'direction', 'clips[0].direction'],
    [{ ...sidecar, clips: [{ name: 'Fly', cycle: 1 }] }, 'clip', 'clips'],
  ];
  for (const [f, rule, key] of cases) {
    assert.throws(() => parseGait(f, { name: 's.gait.json', bpat: fakeBPAT }), (e) => {
      assert.ok(e instanceof GaitError, String(e));
      assert.equal(e.rule, rule);
      assert.equal(e.key, key);
      assert.match(e.message, /^s\.gait\.json: /);
      return true;
    });
  }
  assert.throws(() => parseGait('{', { name: 'bad.json' }), /bad\.json: \$: json: not JSON/);
});

// bpsm builds a canonical snapshot file (docs/formats/bpsm.md §5): clips of
// [name, frames], vertices a frame, a triangle list.
function bpsm(clips, vertices, indices) {
  const names = [...new Set(clips.map((c) => c[0]))];
  const strings = new TextEncoder().encode(names.map((n) => n + '\0').join(''));
  const frames = clips.reduce((s, c) => s + c[1], 0);
  const clipAt = 72, strAt = clipAt + 32 * clips.length;
  const idxAt = Math.ceil((strAt + strings.length) / 16) * 16;
  const vtxAt = Math.ceil((idxAt + 4 * indices.length) / 16) * 16;
  const size = vtxAt + frames * vertices * 56;
  const b = new Uint8Array(size), v = new DataView(b.buffer);
  b.set([0x42, 0x50, 0x53, 0x4d]);
  [1, 7, 1, vertices, indices.length, clips.length, frames, strings.length, 0].forEach((x, i) => v.setUint32(4 + 4 * i, x, true));
  [clipAt, strAt, idxAt, vtxAt].forEach((x, i) => v.setBigUint64(40 + 8 * i, BigInt(x), true));
  let off = 0;
  clips.forEach(([n, f], i) => {
    const e = clipAt + 32 * i;
    const enc = new TextEncoder();
    let so = 0;
    for (const m of names) { if (m === n) break; so += enc.encode(m).length + 1; }
    v.setUint32(e, so, true); v.setUint32(e + 4, enc.encode(n).length, true);
    v.setUint32(e + 8, f, true); v.setUint32(e + 12, off, true);
    off += f;
  });
  b.set(strings, strAt);
  indices.forEach((x, i) => v.setUint32(idxAt + 4 * i, x, true));
  for (let k = 0; k < frames * vertices; k++) {
    const o = vtxAt + 56 * k;
    v.setFloat32(o, k, true); v.setFloat32(o + 4, 2 * k, true); v.setFloat32(o + 8, 3 * k, true);
    v.setFloat32(o + 36, 1, true);
  }
  return { b, v, idxAt, vtxAt };
}

test('bpsm: reads a canonical file, and maps a phase to its floor frame', () => {
  const { b } = bpsm([['idle', 4], ['run', 3]], 3, [0, 1, 2]);
  const f = parseBPSM(b, { name: 's.bpsm' });
  assert.equal(f.vertexCount, 3);
  assert.deepEqual(f.clips, [{ name: 'idle', frameCount: 4, frameOffset: 0 }, { name: 'run', frameCount: 3, frameOffset: 4 }]);
  assert.deepEqual(Array.from(f.indices), [0, 1, 2]);
  // run, looping, phase 0.7: pos 2.1, floor frame 2 → file frame 4 + 2; its first vertex is record 6·3.
  assert.equal(f.frameAt(1, 0.7, true), 6);
  assert.deepEqual(Array.from(f.positions(6).subarray(0, 3)), [18, 36, 54]);
});

test('bpsm: refuses broken rules with their offsets', () => {
  const mk = () => bpsm([['idle', 2]], 3, [0, 1, 2]);
  const cases = [
    [(x) => x.v.setUint32(4, 2, true), 'version', 4],
    [(x) => x.v.setUint32(12, 5, true), 'lod', 12],
    [(x) => x.v.setUint32(x.idxAt + 4, 9, true), 'index', null],
    [(x) => x.v.setUint32(72 + 8, 0, true), 'frame-count', 80],
    [(x) => x.v.setFloat32(x.vtxAt + 4, NaN, true), 'vertex-float', null],
  ];
  for (const [patch, rule, offset] of cases) {
    const x = mk();
    patch(x);
    assert.throws(() => parseBPSM(x.b, { name: 'b.bpsm' }), (e) => {
      assert.ok(e instanceof ValidationError, String(e));
      const p = e.problems.find((q) => q.rule === rule);
      assert.ok(p, `${rule}: ${e.message}`);
      if (offset !== null) assert.equal(p.offset, offset);
      return true;
    });
  }
  const x = mk();
  x.v.setFloat32(x.vtxAt + 4, NaN, true);
  assert.equal(parseBPSM(x.b, { lenient: true }).warnings[0].rule, 'vertex-float');
});
