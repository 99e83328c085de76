// The playback rule's golden cases (testdata/playback/golden.json), which the
// Go side runs too (formats/bpat, crowd): resolve, the runtime's fades through
// Clock (crowd.TimeRecord's rules) and the speed blend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve, Clock, playhead, speedBlend } from '../src/core/index.js';

const golden = JSON.parse(readFileSync(process.env.BONEBAKE_GOLDEN ?? new URL('../../../testdata/playback/golden.json', import.meta.url), 'utf8'));
const num = (v) => (v === 'NaN' ? NaN : v === 'Inf' ? Infinity : v === '-Inf' ? -Infinity : v);
const tol = golden.tolerance;

test('golden: phase → frame, next, lerp', () => {
  assert.ok(golden.resolve.length >= 20);
  for (const c of golden.resolve) {
    const [f, n, l] = resolve(num(c.phase), c.frames, c.loops);
    const msg = `resolve(${c.phase}, ${c.frames}, loops ${c.loops}) = ${f}, ${n}, ${l}; want ${c.want} (${c.why})`;
    assert.equal(f, c.want[0], msg);
    assert.equal(n, c.want[1], msg);
    assert.ok(Math.abs(l - c.want[2]) <= tol, msg);
  }
});

test('golden: cross-fades, interrupted fades, no fade', () => {
  for (const c of golden.fades) {
    const clock = new Clock();
    let k = 0;
    for (const p of c.probes) {
      while (k < c.switches.length && c.switches[k].t <= p.t) {
        const s = c.switches[k++];
        if (s.gait) clock.setGait(s.t, playhead(golden.clips[s.gait]), s.share);
        else clock.switchTo(s.t, playhead(golden.clips[s.to]), num(s.fade));
      }
      const got = Array.from(clock.at(p.t));
      const want = [...p.own, ...p.from, ...p.prior];
      for (let i = 0; i < 12; i++) {
        assert.ok(Math.abs(got[i] - want[i]) <= tol, `${c.name} at t=${p.t}: ${got} want ${want} (${p.why})`);
      }
    }
  }
});

test('golden: speed-blended locomotion', () => {
  const { walk, run, cases } = golden.speedBlend;
  for (const c of cases) {
    const got = speedBlend(c.v, walk, run);
    assert.ok(Math.abs(got.run - c.run) <= tol, `v=${c.v}: run ${got.run} want ${c.run} (${c.why})`);
    assert.ok(Math.abs(got.rate - c.rate) <= tol * c.rate, `v=${c.v}: rate ${got.rate} want ${c.rate} (${c.why})`);
  }
});
