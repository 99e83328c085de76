// Playback math of docs/formats/bpat.md (sampling and playback), the same rules
// as bpat.Resolve in Go: a clip phase becomes the two baked frames to blend and
// how much of the second.
//
// looping:  w = p − floor(p); pos = w·N; frame = min(floor(pos), N−1);
//           next = (frame+1) mod N; lerp = pos − frame
// one-shot: w = clamp(p, 0, 1); pos = w·(N−1); frame = min(floor(pos), N−1);
//           next = min(frame+1, N−1); lerp = pos − frame (0 at the end)
// N = 1:    frame = next = 0, lerp = 0. A NaN phase plays as 0.

/**
 * @param {number} phase  clip phase (any real number)
 * @param {number} frames N, the clip's frame count (≥ 1)
 * @param {boolean} loops whether the clip loops
 * @param {number[]} [out] optional array to fill
 * @returns {number[]} [frame, next, lerp], frames relative to the clip's first
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
    const next = frame + 1 === n ? 0 : frame + 1;
    out[0] = frame; out[1] = next; out[2] = pos - frame;
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
