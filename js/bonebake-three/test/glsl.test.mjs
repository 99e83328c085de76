// The PLAYBACK chunk's GLSL (src/core/glsl.js), evaluated as written by a
// GLSL-subset evaluator (glsl.mjs: float32, no implicit conversions), on the
// playback rule's golden cases (testdata/playback/golden.json) that formats/bpat,
// crowd, crowd/combat and the JavaScript core run too: a change to the GLSL is
// caught here, without a browser (the browser tests run the compiled shaders).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PLAYBACK, POSE_PASS_FRAGMENT } from '../src/core/glsl.js';
import { Clock, playhead } from '../src/core/index.js';
import { compile } from './glsl.mjs';

const golden = JSON.parse(readFileSync(process.env.BONEBAKE_GOLDEN ?? new URL('../../../testdata/playback/golden.json', import.meta.url), 'utf8'));
const num = (v) => (v === 'NaN' ? NaN : v === 'Inf' ? Infinity : v === '-Inf' ? -Infinity : v);
const tol = golden.tolerance;
const glsl = compile(PLAYBACK);

test('the GPU pass includes the PLAYBACK chunk as it is', () => {
  assert.ok(POSE_PASS_FRAGMENT.includes(PLAYBACK));
  for (const f of ['bonebakeSettle', 'bonebakeResolve', 'bonebakeWeights', 'bonebakeAttackPhase']) assert.ok(glsl.functions.includes(f), f);
});

// A phase in [0, 1) is resolved as is; any other is settled first (wrapped or
// clamped, NaN as 0), which may name the same pose differently (a phase just
// under 0 wraps to 1 − ε, which float32 rounds to 1 and settles at 0: frame 0,
// where the golden case's own resolve says frame N−1 lerp 1): those compare by
// where in the clip they stand, frame + lerp (mod N when the clip loops).
test('golden: phase → frame, next, lerp (bonebakeSettle, bonebakeResolve)', () => {
  let exact = 0;
  for (const c of golden.resolve) {
    const ph = num(c.phase);
    const inRange = ph >= 0 && ph < 1;
    const q = inRange ? ph : glsl.call('bonebakeSettle', ph, c.loops);
    const [f, n, l] = glsl.call('bonebakeResolve', 100, c.frames - 1, c.loops, q);
    const msg = `bonebakeResolve of phase ${c.phase} (settled ${q}), ${c.frames} frames, loops ${c.loops} = ${f}, ${n}, ${l}; want 100 + ${c.want} (${c.why})`;
    if (inRange || (f - 100 === c.want[0] && n - 100 === c.want[1])) {
      exact++;
      assert.equal(f, 100 + c.want[0], msg);
      assert.equal(n, 100 + c.want[1], msg);
      assert.ok(Math.abs(l - c.want[2]) <= tol, msg);
      continue;
    }
    const at = (frame, lerp) => (c.loops ? (frame + lerp) % c.frames : frame + lerp);
    assert.ok(Math.abs(at(f - 100, l) - at(c.want[0], c.want[2])) <= tol, msg);
  }
  assert.ok(exact >= golden.resolve.length - 2, `only ${exact} golden phases resolved to the same rows`);
});

// The golden fades: the CPU Clock (golden.test.mjs checks it) keeps each
// unit's state; the GLSL resolves it at the probe's time, as POSE_PASS_FRAGMENT
// and the viewer's clock pass do: each playhead's phase settled and resolved,
// the weights from bonebakeWeights, a speed blend alone (no fade) shown in the
// second place as Clock.at orders it.
test('golden: cross-fades, interrupted fades, no fade, speed blends (bonebakeWeights)', () => {
  const side = (p, dt) => {
    const q = p.frames <= 1 ? 0 : glsl.call('bonebakeSettle', Math.fround(p.phase + Math.fround(p.rate * dt)), p.wraps);
    return glsl.call('bonebakeResolve', p.row, p.frames - 1, p.loops, q);
  };
  let probes = 0;
  for (const c of golden.fades) {
    const clock = new Clock();
    let k = 0;
    for (const p of c.probes) {
      while (k < c.switches.length && c.switches[k].t <= p.t) {
        const s = c.switches[k++];
        if (s.gait) clock.setGait(s.t, playhead(golden.clips[s.gait]), s.share);
        else clock.switchTo(s.t, playhead(golden.clips[s.to]), num(s.fade));
      }
      const share = clock.priorShare;
      const [w, wFrom, wPrior] = glsl.call('bonebakeWeights', p.t, clock.fadeStart, clock.fadeInv, share, clock.priorIsGait);
      const dt = p.t - clock.start;
      let from = wFrom > 0 ? [...side(clock.from, dt), wFrom] : [0, 0, 0, 0];
      let prior = wPrior > 0 ? [...side(clock.prior, dt), wPrior] : [0, 0, 0, 0];
      if (from[3] === 0 && prior[3] > 0) [from, prior] = [prior, [0, 0, 0, 0]];
      const got = [...side(clock.own, dt), w, ...from, ...prior];
      const want = [...p.own, ...p.from, ...p.prior];
      for (let i = 0; i < 12; i++) {
        assert.ok(Math.abs(got[i] - want[i]) <= tol, `${c.name} at t=${p.t}: ${got} want ${want} (${p.why})`);
      }
      probes++;
    }
  }
  assert.ok(probes >= 10);
});

test('golden: a swing\'s attack phase (bonebakeAttackPhase)', () => {
  assert.ok(golden.swing.cases.length >= 10);
  for (const c of golden.swing.cases) {
    const got = glsl.call('bonebakeAttackPhase', num(c.t));
    assert.ok(Math.abs(got - c.phase) <= tol, `bonebakeAttackPhase(${c.t}) = ${got}; want ${c.phase} (${c.why})`);
  }
});

// The evaluator itself: GLSL's rules where JavaScript's differ, and what it refuses.
test('the GLSL evaluator runs GLSL ES 3.00 semantics and refuses what it does not know', () => {
  const g = compile(`
    int idiv(int a, int b) { return a / b; }
    int trunc(float x) { return int(x); }
    float third(float x) { return x / 3.0; }
    bool nanFalse(float x) { return x >= 0.0 || x < 0.0; }
    int loop(int n) { int k = 0; while (k < n) k++; return k; }
  `);
  assert.equal(g.call('idiv', -7, 2), -3);
  assert.equal(g.call('trunc', -2.5), -2);
  assert.equal(g.call('third', 1), Math.fround(Math.fround(1) / 3));
  assert.equal(g.call('nanFalse', NaN), false);
  assert.equal(g.call('loop', 5), 5);
  assert.throws(() => compile('float f(float x) { return x * 2; }').call('f', 1), /no implicit conversions/);
  assert.throws(() => compile('float f(int x) { float y = x; return y; }').call('f', 1), /no implicit conversions/);
  assert.throws(() => compile('#define X 1\n'), /preprocessor/);
  assert.throws(() => compile('void f(out float x) { x = 1.0; }'), /out parameters/);
  assert.throws(() => compile('vec2 f(vec4 v) { return v.xy; }'), /swizzle/);
  assert.throws(() => compile('float f(float x) { return sin(x); }').call('f', 1), /sin is outside/);
  assert.throws(() => compile('float f(float x) { for (int i = 0; i < 2; i++) x += 1.0; return x; }'), /for is outside/);
});
