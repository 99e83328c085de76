// The playback rule and the runtime's fades, as the Go side states and runs
// them: docs/formats/bpat.md §5.2 (phase → frame, next, lerp: bpat.Resolve),
// docs/runtime.md §6.1 (cross-fades: crowd.TimeRecord's Switch and At, the GPU
// clock mode's reference) and §6.3 (speed-blended locomotion: crowd's gait
// pair). testdata/playback/golden.json holds the cases both sides run.

/**
 * resolve turns a clip phase into [frame, next, lerp], frames counted from the
 * clip's first (docs/formats/bpat.md §5.2):
 *   looping:  w = p − floor(p); pos = w·N; frame = min(floor(pos), N−1); next = (frame+1) mod N
 *   one-shot: w = clamp(p, 0, 1); pos = w·(N−1); frame = min(floor(pos), N−1); next = min(frame+1, N−1)
 *   N = 1:    0, 0, 0.   A NaN or infinite phase plays as 0.
 */
export function resolve(phase, frames, loops, out = [0, 0, 0]) {
  if (frames <= 1) {
    out[0] = 0; out[1] = 0; out[2] = 0;
    return out;
  }
  const n = frames;
  if (loops) {
    let pos = (phase - Math.floor(phase)) * n;
    let frame = Math.floor(pos);
    if (!(frame >= 0 && frame < n)) { // pos rounded up to n, or a NaN/Inf phase
      if (pos === n) {
        frame = n - 1;
      } else {
        pos = 0; frame = 0;
      }
    }
    out[0] = frame; out[1] = frame + 1 === n ? 0 : frame + 1; out[2] = pos - frame;
    return out;
  }
  let w = phase;
  if (!(w > 0)) w = 0; // also NaN
  else if (w > 1) w = 1;
  const pos = w * (n - 1);
  const frame = Math.min(Math.floor(pos), n - 1);
  out[0] = frame; out[1] = Math.min(frame + 1, n - 1); out[2] = pos - frame;
  return out;
}

/** smoothstep(x) = x²(3 − 2x): a fade's weight of its new clip at x = t/d. */
export const smoothstep = (x) => x * x * (3 - 2 * x);

/** isFade: a fade time that fades (finite, > 0, with a finite inverse); any other switches at once. */
export const isFade = (d) => d > 0 && 1 / d > 0 && 1 / d <= 3.4028234663852886e38;

// settle brings a phase outside [0, 1) back: wrapped into [0, 1), or clamped to
// [0, 1]; NaN (and what cannot wrap) becomes 0 (docs/runtime.md §6).
function settle(q, wrap) {
  if (q >= 0 && q < 1) return q;
  if (wrap) {
    const r = q - Math.floor(q);
    return r >= 0 && r < 1 ? r : 0;
  }
  return q >= 0 ? Math.min(q, 1) : 0;
}

/**
 * A Playhead is one clip playing: its phase at the record's start, its rate
 * (phase per second), the palette row of the clip's first frame, its frame
 * count, whether the clip loops and whether the phase wraps (a looping clip, or
 * a one-shot that repeats) or clamps (a death, a one-shot played once).
 */
export function playhead({ phase = 0, rate = 0, row = 0, frames = 1, loops = true, wraps = loops } = {}) {
  return { phase, rate, row, frames, loops, wraps };
}

const idle = () => playhead();

function phaseAt(p, dt) {
  if (p.frames <= 1) return 0;
  return settle(p.phase + p.rate * dt, p.wraps);
}

function advanced(p, dt) { return { ...p, phase: phaseAt(p, dt) }; }

// rows writes the palette rows phase ph falls between and the lerp into out at k.
function rows(p, ph, out, k) {
  const r = resolve(ph, p.frames, p.loops, scratch);
  out[k] = p.row + r[0]; out[k + 1] = p.row + r[1]; out[k + 2] = r[2];
}
const scratch = [0, 0, 0];

/**
 * A Clock is one unit's playback as the Go runtime's GPU clock mode keeps it
 * (crowd.TimeRecord, docs/runtime.md §6.1–§6.2): its own clip, the clip it fades
 * from and an interrupted fade's prior, the fade's start and inverse time, and
 * the prior's share. Its state changes only when the clip or rate does
 * (`switchTo`, `rebase`); `at(t)` gives the pose at any time.
 */
export class Clock {
  constructor(own = idle(), start = 0) {
    this.own = own;
    this.from = idle();
    this.prior = idle();
    this.start = start;
    this.fadeStart = 0;
    this.fadeInv = 0;
    this.priorShare = 0;
    this.priorIsGait = false; // the prior is a speed blend's other gait (ShapeGait)
  }

  /**
   * at writes into out (12 numbers) the rows and weights shown at time t:
   * [frame, next, lerp, weight] of the own clip, of the clip faded from and of
   * the prior, weights summing to 1, as crowd.TimeRecord.At (own weight first).
   */
  at(t, out = new Float64Array(12)) {
    const dt = t - this.start;
    rows(this.own, phaseAt(this.own, dt), out, 0);
    let own = 1, wFrom = 0, wPrior = 0;
    out.fill(0, 4);
    if (this.fadeInv > 0) {
      const x = (t - this.fadeStart) * this.fadeInv;
      if (x < 1) {
        own = smoothstep(Math.max(x, 0));
        rows(this.from, phaseAt(this.from, dt), out, 4);
        wFrom = 1 - own;
      }
    }
    if (this.priorShare !== 0) {
      if (this.priorIsGait) {
        rows(this.prior, phaseAt(this.prior, dt), out, 8);
        wPrior = own * this.priorShare;
      } else if (own < 1) {
        rows(this.prior, phaseAt(this.prior, dt), out, 8);
        wPrior = (1 - own) * this.priorShare;
        wFrom = (1 - own) * (1 - this.priorShare);
      }
    }
    if (wFrom === 0 && wPrior > 0) { // a speed blend alone: the other gait in the first place, as Animate has it
      out[4] = out[8]; out[5] = out[9]; out[6] = out[10]; wFrom = wPrior; wPrior = 0;
      out[8] = out[9] = out[10] = 0;
    }
    out[3] = 1 - wFrom - wPrior; out[7] = wFrom; out[11] = wPrior;
    return out;
  }

  /** rebase moves the start to now without changing what is shown; a fade ended by now is dropped. */
  rebase(now) {
    if (this.fadeInv > 0 && !((now - this.fadeStart) * this.fadeInv < 1)) {
      this.from = idle(); this.fadeStart = 0; this.fadeInv = 0;
      if (!this.priorIsGait) { this.prior = idle(); this.priorShare = 0; }
    }
    const dt = now - this.start;
    this.own = advanced(this.own, dt);
    this.start = now;
    if (this.fadeInv > 0) this.from = advanced(this.from, dt);
    if (this.priorShare > 0) this.prior = advanced(this.prior, dt);
  }

  /**
   * switchTo makes `to` the own clip from now on, fading over `fade` seconds
   * from the pose shown (docs/runtime.md §6.1): a fade that interrupts another
   * keeps the pose shown (the clip fading in becomes the one faded from, the
   * older side with the larger share stays as the prior); a speed blend fades
   * out as both its gaits; no fade time switches at once.
   */
  switchTo(now, to, fade = 0) {
    this.rebase(now);
    const cur = this.own;
    let gait = null, gaitW = 0;
    if (this.priorIsGait) {
      gait = this.prior; gaitW = this.priorShare;
      this.prior = idle(); this.priorShare = 0; this.priorIsGait = false;
    }
    if (!isFade(fade)) {
      this.from = idle(); this.prior = idle(); this.fadeStart = 0; this.fadeInv = 0; this.priorShare = 0;
    } else if (this.fadeInv > 0) { // a fade into a speed blend loses the gait
      const w = smoothstep((now - this.fadeStart) * this.fadeInv);
      [this.from, this.prior, this.priorShare] = interrupted(cur, this.from, this.prior, w, this.priorShare);
    } else if (gaitW > 0) {
      [this.from, this.prior, this.priorShare] = interrupted(cur, gait, idle(), 1 - gaitW, 0);
    } else {
      this.from = cur; this.prior = idle(); this.priorShare = 0;
    }
    if (isFade(fade)) { this.fadeStart = now; this.fadeInv = 1 / fade; }
    this.own = to;
  }

  /**
   * setGait shows `other` (the other gait of a speed blend, at the own clip's
   * phase) with weight `w` of the own side, from now on (docs/runtime.md §6.3);
   * w = 0 removes it.
   */
  setGait(now, other, w) {
    this.rebase(now);
    if (this.priorIsGait) { this.prior = idle(); this.priorShare = 0; this.priorIsGait = false; }
    if (!(w > 0)) return;
    // The other gait takes the prior's place; of an interrupted fade's two
    // clips the one with the larger share stays, as GPUClock.Commit does.
    if (this.priorShare > 0.5) this.from = this.prior;
    this.prior = other; this.priorShare = w; this.priorIsGait = true;
  }
}

// interrupted: cur (fading in with weight w) becomes the side faded from; of the
// interrupted fade's sides the one with the larger share becomes the prior,
// with the share 1 − w.
function interrupted(cur, from, prior, w, share) {
  return [cur, share > 0.5 ? prior : from, 1 - w];
}

/** How close to a gait's own speed, as a share of the walk-to-run range, a unit plays that gait alone. */
export const GAIT_SNAP = 1e-3;

/**
 * speedBlend is a walking or running unit's blend at ground speed v
 * (docs/runtime.md §6.3), for gaits {speed, cycle} with walk.speed < run.speed:
 * run's weight b = clamp((v − S_w)/(S_r − S_w), 0, 1) (0 or 1 within GAIT_SNAP)
 * and the phase rate v / ((1 − b)·L_w + b·L_r), L = cycle · speed.
 */
export function speedBlend(v, walk, run) {
  const b = (v - walk.speed) / (run.speed - walk.speed);
  if (b < GAIT_SNAP) return { run: 0, rate: v / (walk.cycle * walk.speed) };
  if (b > 1 - GAIT_SNAP) return { run: 1, rate: v / (run.cycle * run.speed) };
  const lw = walk.cycle * walk.speed, lr = run.cycle * run.speed;
  return { run: b, rate: v / (lw + (lr - lw) * b) };
}

/** A clip's phase rate (docs/runtime.md §6): speed/(cycle·ground speed) for a gait, else 1/cycle. */
export function clipRate(gait, speed = 0) {
  if (gait && gait.groundSpeed > 0) return speed / (gait.cycle * gait.groundSpeed);
  return gait && gait.cycle > 0 ? 1 / gait.cycle : 0;
}
