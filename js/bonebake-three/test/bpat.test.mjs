// The BPAT reader against formats/bpat on the same bytes: the Go test
// (node_test.go) writes a file, Go's samples of it and corrupted copies with
// the problems Go's reader reports, in $BONEBAKE_FIXTURES.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBPAT, ValidationError, socketAt } from '../src/core/index.js';

const dir = process.env.BONEBAKE_FIXTURES;
const fx = dir && JSON.parse(readFileSync(join(dir, 'fixture.json'), 'utf8'));
const skip = !dir && 'run from go test ./js/bonebake-three (it writes the fixtures)';

test('reads what formats/bpat wrote, and samples it as bpat.File.Sample', { skip }, () => {
  const f = parseBPAT(readFileSync(fx.file), { name: 'fixture.bpat' });
  assert.equal(f.boneCount, fx.bones);
  assert.equal(f.version, 2);
  assert.deepEqual(f.clips.map((c) => [c.name, c.frameCount, c.frameOffset, c.fps, c.loops]),
    fx.clips.map((c) => [c.Name, c.FrameCount, c.FrameOffset, c.FPS, c.Loops]));
  assert.deepEqual(f.clips[1].markers.map(Math.fround), fx.clips[1].Markers.map(Math.fround));
  assert.equal(f.sockets.length, 1);
  assert.equal(f.sockets[0].name, 'hand');
  assert.equal(f.sockets[0].anchor, 2);
  assert.equal(f.clipIndex('strike'), 1);
  assert.equal(f.clipIndex('run'), -1);
  for (const s of fx.samples) {
    const got = f.sample(s.clip, s.phase);
    // Bit for bit: both blend in float32 with the product rounded before the sum.
    assert.deepEqual(Array.from(got), s.palette.map(Math.fround), `clip ${s.clip} phase ${s.phase}`);
  }
});

test('a socket blends as bpat.File.Sample blends it', { skip }, () => {
  const f = parseBPAT(readFileSync(fx.file));
  for (const s of fx.samples) {
    const [a, b, t] = f.resolve(s.clip, s.phase);
    const row = f.clips[s.clip].frameOffset;
    const got = socketAt(f, [row + a, row + b, t, 1, 0, 0, 0, 0, 0, 0, 0, 0], 0);
    got.forEach((v, i) => assert.ok(Math.abs(v - s.sockets[i]) <= 1e-6 * Math.max(1, Math.abs(v)), `clip ${s.clip} phase ${s.phase} [${i}]: ${v} want ${s.sockets[i]}`));
  }
  assert.throws(() => socketAt(f, new Float64Array(12), 1), /socket 1 out of range \[0,1\)/);
});

test('refuses each corrupted file with the rules and offsets formats/bpat reports', { skip }, () => {
  const good = readFileSync(fx.file);
  assert.ok(fx.broken.length >= 15);
  for (const k of fx.broken) {
    let b = Buffer.from(good);
    for (const p of k.patch ?? []) Buffer.from(p.bytes, 'base64').copy(b, p.offset);
    if (k.truncate) b = b.subarray(0, k.truncate);
    if (k.append) b = Buffer.concat([b, Buffer.alloc(k.append, 0xaa)]);
    for (const [mode, want] of [['strict', k.strict], ['lenient', k.lenient]]) {
      let got = [];
      try {
        const f = parseBPAT(b, { name: 'x.bpat', lenient: mode === 'lenient' });
        assert.ok(f.boneCount > 0);
      } catch (e) {
        assert.ok(e instanceof ValidationError, `${k.name} (${mode}): ${e}`);
        assert.match(e.message, /^x\.bpat: /);
        got = e.problems.map((p) => ({ rule: p.rule, offset: p.offset, index: p.index }));
      }
      assert.deepEqual(got, want ?? [], `${k.name} (${mode})`);
    }
  }
});

test('an error names the file, the offset, the rule and the value', () => {
  const b = new Uint8Array(64);
  b.set([0x42, 0x50, 0x41, 0x54]);
  new DataView(b.buffer).setUint32(4, 7, true);
  assert.throws(() => parseBPAT(b, { name: 'v7.bpat' }), (e) => {
    assert.equal(e.message, 'v7.bpat: offset 4 (0x4): version: version 7 is not one this reader knows (1, 2)');
    assert.equal(e.problems[0].rule, 'version');
    return true;
  });
  assert.throws(() => parseBPAT(new ArrayBuffer(10)), /offset 10 \(0xa\): truncated: 10 bytes is shorter than the 64-byte header/);
});
