#version 300 es
// The GPU clock mode's resolve pass (docs/runtime.md §6.2): one vertex per unit,
// its outputs captured by transform feedback into the unit's 32-float instance
// record (gl.js), which skin.vert.glsl, bat.vert.glsl and the attached draws
// then read as in the per-frame mode. Resolving once per unit rather than per
// skinned vertex keeps those shaders, and what they draw, the same in both modes.
//
// Each unit brings its tint and place and two crowd.TimeRecords (its own, and its
// rider's: all zero without one), each as four uvec4s: the playheads Own, From
// and Prior (phase and rate as float bits, palette row, shape), then Start,
// FadeStart, FadeInv and PriorShare as float bits. At time u_now a record shows
// what crowd.TimeRecord.At computes, in float32 as it does.
precision highp float;
precision highp int;

layout(location = 0) in vec4 a_tint;
layout(location = 1) in vec4 a_place;
layout(location = 2) in uvec4 a_own;
layout(location = 3) in uvec4 a_from;
layout(location = 4) in uvec4 a_prior;
layout(location = 5) in uvec4 a_times;
layout(location = 6) in uvec4 a_riderOwn;
layout(location = 7) in uvec4 a_riderFrom;
layout(location = 8) in uvec4 a_riderPrior;
layout(location = 9) in uvec4 a_riderTimes;

uniform float u_now;

// In the record's order (gl.js): 0 play, 4 tint, 8 place, 12 the rider's play,
// 16 fade, 20 prior, 24 the rider's fade, 28 its prior.
out vec4 o_play, o_tint, o_place, o_riderPlay, o_fade, o_prior, o_riderFade, o_riderPrior;

const uint FRAMES = 0xFFFFFFu; // Shape: the clip's frame count − 1
const uint LOOPS = 1u << 24;   // the frame after the last is the first
const uint WRAPS = 1u << 25;   // the phase wraps into [0,1), else clamps
const uint SWING = 1u << 26;   // phase and rate are a swing's timeline seconds and tempo
const uint GAIT = 1u << 27;    // the prior is a speed blend's other gait

// The swing timeline (crowd/combat.go, docs/runtime.md §8): phase k of Advance (1)
// to Reposition (6) starts at START[k] seconds, lasts DUR[k] and sweeps the
// attack phases LO[k] to HI[k]; START[7] is the swing's end.
const float START[8] = float[8](0.0, 0.0, 0.22, 0.64, 0.98, 1.16, 1.56, 1.84);
const float DUR[7] = float[7](0.0, 0.22, 0.42, 0.34, 0.18, 0.4, 0.28);
const float LO[7] = float[7](0.0, 0.0, 0.14, 0.34, 0.52, 0.6, 0.86);
const float HI[7] = float[7](0.0, 0.14, 0.34, 0.52, 0.6, 0.86, 0.995);

// attackPhase is crowd.AttackPhase: the attack clip's phase t seconds into a swing.
float attackPhase(float t) {
  if (t >= START[7]) return HI[6];
  if (!(t >= 0.0)) return 0.0;
  int k = 1;
  while (k < 6 && t >= START[k + 1]) k++;
  float u = min((t - START[k]) / DUR[k], 1.0);
  float e;
  if (k == 2) e = u * u * (2.4 - 1.4 * u);          // WindUp
  else if (k == 3) e = 1.0 - (1.0 - u) * (1.0 - u); // Strike
  else e = u * u * (3.0 - 2.0 * u);
  return LO[k] + (HI[k] - LO[k]) * e;
}

// phaseAt is the playhead's phase dt seconds after its record's Start.
float phaseAt(uvec4 p, float dt) {
  float q = uintBitsToFloat(p.x) + uintBitsToFloat(p.y) * dt;
  if ((p.w & SWING) != 0u) return attackPhase(q);
  if (!(q >= 0.0 && q < 1.0)) {
    if ((p.w & WRAPS) != 0u) {
      float t = float(int(q)); // floor(q), as crowd's settle takes it
      if (t > q) t -= 1.0;
      q -= t;
      if (!(q >= 0.0 && q < 1.0)) q = 0.0;
    } else {
      q = q >= 0.0 ? min(q, 1.0) : 0.0;
    }
  }
  return (p.w & FRAMES) == 0u ? 0.0 : q;
}

// rows resolves phase ph to palette rows by docs/formats/bpat.md §5: frame row,
// next row, lerp (w left 0).
vec4 rows(uvec4 p, float ph) {
  uint last = p.w & FRAMES, wrapTo = last;
  float scale = float(last);
  if ((p.w & LOOPS) != 0u) { scale = float(last + 1u); wrapTo = 0u; }
  float pos = ph * scale;
  uint f = min(uint(pos), last);
  uint nx = f + 1u > last ? wrapTo : f + 1u;
  return vec4(float(p.z + f), float(p.z + nx), pos - float(f), 0.0);
}

// resolve is crowd.TimeRecord.At: the own clip's rows, and the fade's two sides
// (rows and weight in w), zero while the unit is not fading.
void resolve(uvec4 own, uvec4 from, uvec4 prior, uvec4 times, out vec4 play, out vec4 fade, out vec4 pri) {
  vec4 tm = uintBitsToFloat(times); // Start, FadeStart, FadeInv, PriorShare
  float dt = u_now - tm.x;
  play = rows(own, phaseAt(own, dt));
  fade = vec4(0.0);
  pri = vec4(0.0);
  float w = 1.0;
  if (tm.z > 0.0) {
    float x = (u_now - tm.y) * tm.z;
    if (x < 1.0) {
      x = max(x, 0.0);
      w = x * x * (3.0 - 2.0 * x);
      fade = rows(from, phaseAt(from, dt));
      fade.w = 1.0 - w;
    }
  }
  if (tm.w == 0.0) {
  } else if ((prior.w & GAIT) != 0u) {
    pri = rows(prior, phaseAt(prior, dt));
    pri.w = w * tm.w;
  } else if (w < 1.0) {
    pri = rows(prior, phaseAt(prior, dt));
    pri.w = (1.0 - w) * tm.w;
    fade.w = (1.0 - w) * (1.0 - tm.w);
  }
  if (fade.w == 0.0 && pri.w > 0.0) { // a speed blend alone: the other gait first, as At has it
    fade = pri;
    pri = vec4(0.0);
  }
}

void main() {
  o_tint = a_tint;
  o_place = a_place;
  resolve(a_own, a_from, a_prior, a_times, o_play, o_fade, o_prior);
  resolve(a_riderOwn, a_riderFrom, a_riderPrior, a_riderTimes, o_riderPlay, o_riderFade, o_riderPrior);
  gl_Position = vec4(0.0);
}
