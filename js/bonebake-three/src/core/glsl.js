// GLSL chunks of the skinning path (GLSL ES 3.00, WebGL2). A pass writes each
// unit's posed skinning matrices once per frame (palette frames lerped, fades
// resolved, times the inverse bind: pose.js) into an RGBA32F texture, three
// texels a bone (the top three rows of the 3×4 affine matrix, row-major as the
// palette, docs/formats/bpat.md §1); the vertex stage reads three texels per
// influence and fades cost it nothing. Units are laid perRow to a texture row
// (bonebakeBones·3·perRow texels wide) so that any crowd fits WebGL2's texture
// size limits.
//
// The chunks name nothing of three.js: a renderer wires them in (the binding
// in src/three replaces three's skinning chunks with them).

/**
 * Reading a posed texture (no attributes): bonebakePosedRow(tex, n, perRow,
 * unit, i, k) is row k (0–2) of matrix i of a unit in any texture the pass
 * writes (n matrices a unit, perRow units a texture row: posed bones, or a
 * unit's sockets posed from the socket data); bonebakeSkinMatrixOf(unit,
 * joints, weights) is the skin matrix of a vertex with those influences from
 * bonebakeSkin, for a renderer with attributes of its own (or fewer
 * influences, for level of detail).
 */
export const SKIN_READ = /* glsl */ `
uniform highp sampler2D bonebakeSkin;
uniform int bonebakeBones;
uniform int bonebakePerRow;

vec4 bonebakePosedRow(highp sampler2D tex, int n, int perRow, int unit, int i, int k) {
  int row = unit / perRow;
  return texelFetch(tex, ivec2((unit - row * perRow) * n * 3 + i * 3 + k, row), 0);
}

// bonebakeRows adds weight w of bone bone's posed skinning matrix (three texels) to r.
void bonebakeRows(int unit, int bone, float w, inout vec4 r0, inout vec4 r1, inout vec4 r2) {
  int row = unit / bonebakePerRow;
  int x = (unit - row * bonebakePerRow) * bonebakeBones * 3 + bone * 3;
  r0 += w * texelFetch(bonebakeSkin, ivec2(x, row), 0);
  r1 += w * texelFetch(bonebakeSkin, ivec2(x + 1, row), 0);
  r2 += w * texelFetch(bonebakeSkin, ivec2(x + 2, row), 0);
}

// bonebakeSkinMatrixOf is Σ w · posed[joint] over four influences (those
// weighing 0 are not read), as a column-major mat4.
mat4 bonebakeSkinMatrixOf(int unit, vec4 joints, vec4 weights) {
  vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
  if (weights.x > 0.0) bonebakeRows(unit, int(joints.x), weights.x, r0, r1, r2);
  if (weights.y > 0.0) bonebakeRows(unit, int(joints.y), weights.y, r0, r1, r2);
  if (weights.z > 0.0) bonebakeRows(unit, int(joints.z), weights.z, r0, r1, r2);
  if (weights.w > 0.0) bonebakeRows(unit, int(joints.w), weights.w, r0, r1, r2);
  return transpose(mat4(r0, r1, r2, vec4(0.0, 0.0, 0.0, 1.0)));
}
`;

/** Declarations: SKIN_READ, the skin attributes and bonebakeSkinMatrix(unit) of the vertex's influences. */
export const SKIN_PARS = SKIN_READ + /* glsl */ `
attribute vec4 skinIndex;
attribute vec4 skinWeight;

mat4 bonebakeSkinMatrix(int unit) { return bonebakeSkinMatrixOf(unit, skinIndex, skinWeight); }
`;

/**
 * The unit's skin matrix, once per vertex (gl_InstanceID is the unit): put at
 * the start of main(), so that every later chunk sees it whichever of them a
 * shader compiles.
 */
export const SKIN_BASE = /* glsl */ `
mat4 bonebakeSkin4 = bonebakeSkinMatrix(gl_InstanceID);
`;

/** Skins objectNormal (and objectTangent when the material has tangents). */
export const SKIN_NORMAL = /* glsl */ `
objectNormal = (bonebakeSkin4 * vec4(objectNormal, 0.0)).xyz;
#ifdef USE_TANGENT
objectTangent = (bonebakeSkin4 * vec4(objectTangent, 0.0)).xyz;
#endif
`;

/** Skins the position. */
export const SKIN_VERTEX = /* glsl */ `
transformed = (bonebakeSkin4 * vec4(transformed, 1.0)).xyz;
`;

/**
 * The playback rule in GLSL (ES 3.00), as core/playback.js states it for the
 * CPU: a phase settled into a clip (wrapped or clamped, NaN as 0), resolved to
 * palette rows and lerp (docs/formats/bpat.md §5.2), and a unit's weights of
 * its own clip, the clip it fades from and the prior at a time (Clock.at,
 * docs/runtime.md §6.1, §6.3), and a swing's attack phase over its eased
 * timeline (docs/runtime.md §8: the Go runtime's GPU clock plays a swing's
 * clip by it). The skinning pass below and the viewer's GPU clock pass
 * (viewer/web/clock.vert.glsl) include it: one copy for every shader that
 * plays clips. Its functions run on testdata/playback/golden.json without a
 * browser too (test/glsl.test.mjs evaluates this GLSL as written).
 */
export const PLAYBACK = /* glsl */ `
// bonebakeSettle brings a phase outside [0, 1) back: wrapped, or clamped to
// [0, 1]; NaN (and what cannot wrap) plays as 0.
float bonebakeSettle(float q, bool wraps) {
  if (q >= 0.0 && q < 1.0) return q;
  if (wraps) { float r = q - floor(q); return (r >= 0.0 && r < 1.0) ? r : 0.0; }
  return q >= 0.0 ? min(q, 1.0) : 0.0; // NaN compares false: 0
}

// bonebakeResolve is phase ph (settled) of a clip of last + 1 frames whose
// first is palette row row: (frame row, next row, lerp).
vec3 bonebakeResolve(float row, int last, bool loops, float ph) {
  if (last <= 0) return vec3(row, row, 0.0);
  float pos = ph * float(loops ? last + 1 : last);
  int f = min(int(floor(pos)), last);
  int nx = f + 1 > last ? (loops ? 0 : last) : f + 1;
  return vec3(row + float(f), row + float(nx), pos - float(f));
}

// bonebakeWeights are the weights (own, faded from, prior) shown at time t of
// a unit whose fade started at fadeStart and lasts 1/fadeInv seconds (none:
// fadeInv 0), with a prior of share share that is a speed blend's other gait
// when gait, else an interrupted fade's older side.
vec3 bonebakeWeights(float t, float fadeStart, float fadeInv, float share, bool gait) {
  float w = 1.0, wFrom = 0.0, wPrior = 0.0;
  if (fadeInv > 0.0) {
    float x = (t - fadeStart) * fadeInv;
    if (x < 1.0) {
      x = max(x, 0.0);
      w = x * x * (3.0 - 2.0 * x);
      wFrom = 1.0 - w;
    }
  }
  if (share != 0.0) {
    if (gait) { wPrior = w * share; }
    else if (w < 1.0) { wPrior = (1.0 - w) * share; wFrom = (1.0 - w) * (1.0 - share); }
  }
  return vec3(1.0 - wFrom - wPrior, wFrom, wPrior);
}

// A swing's timeline (docs/runtime.md §8, crowd/combat): phase k of Advance (1)
// to Reposition (6) starts at BONEBAKE_SWING_START[k] seconds, lasts
// BONEBAKE_SWING_DUR[k] and sweeps the attack phases BONEBAKE_SWING_LO[k] to
// BONEBAKE_SWING_HI[k]; BONEBAKE_SWING_START[7] is the swing's end.
const float BONEBAKE_SWING_START[8] = float[8](0.0, 0.0, 0.22, 0.64, 0.98, 1.16, 1.56, 1.84);
const float BONEBAKE_SWING_DUR[7] = float[7](0.0, 0.22, 0.42, 0.34, 0.18, 0.4, 0.28);
const float BONEBAKE_SWING_LO[7] = float[7](0.0, 0.0, 0.14, 0.34, 0.52, 0.6, 0.86);
const float BONEBAKE_SWING_HI[7] = float[7](0.0, 0.14, 0.34, 0.52, 0.6, 0.86, 0.995);

// bonebakeAttackPhase is combat.AttackPhase: the attack clip's phase t seconds
// into a swing (at tempo 1), the phase's window swept by its ease: WindUp
// u²(2.4 − 1.4u), Strike 1 − (1 − u)², the others smoothstep; 0 before the
// start, .995 from the end on.
float bonebakeAttackPhase(float t) {
  if (t >= BONEBAKE_SWING_START[7]) return BONEBAKE_SWING_HI[6];
  if (!(t >= 0.0)) return 0.0;
  int k = 1;
  while (k < 6 && t >= BONEBAKE_SWING_START[k + 1]) k++;
  float u = min((t - BONEBAKE_SWING_START[k]) / BONEBAKE_SWING_DUR[k], 1.0);
  float e;
  if (k == 2) e = u * u * (2.4 - 1.4 * u);
  else if (k == 3) e = 1.0 - (1.0 - u) * (1.0 - u);
  else e = u * u * (3.0 - 2.0 * u);
  return BONEBAKE_SWING_LO[k] + (BONEBAKE_SWING_HI[k] - BONEBAKE_SWING_LO[k]) * e;
}
`;

/**
 * The skinning pass on the GPU (GLSL ES 3.00, a full-screen triangle drawn
 * into the posed texture): each texel is row k of bone b's posed skinning
 * matrix of one unit, computed from the unit's clock record (16 floats: the
 * own clip's, the faded-from clip's and the prior's playheads as phase, rate,
 * first palette row, (frames − 1)·8 + loops + 2·wraps; then start, fade start,
 * 1/fade time, the prior's share, negative when the prior is a speed blend's
 * other gait) by Clock.at's rules (core/playback.js, crowd.TimeRecord.At),
 * and the skin palette (palette · inverse bind, three texels a bone and
 * frame, framesPerRow frames to a texture row).
 */
export const POSE_PASS_VERTEX = /* glsl */ `
precision highp float;
in vec3 position;
void main() { gl_Position = vec4(position.xy, 0.0, 1.0); }
`;

// What both pose passes share: the skin palette, the posed texture's layout,
// and bonebakeTexel (the unit and column this fragment writes).
const POSE_PASS_HEAD = /* glsl */ `
precision highp float;
precision highp int;
precision highp sampler2D;
uniform sampler2D bonebakeSkinPalette;
uniform int bonebakeFramesPerRow;
uniform int bonebakeBones;
uniform int bonebakePerRow;
uniform int bonebakeCount;
layout(location = 0) out highp vec4 bonebakePosed;

vec4 bonebakeSkinRow(float frame, int col) {
  int f = int(frame);
  int row = f / bonebakeFramesPerRow;
  int x = (f - row * bonebakeFramesPerRow) * bonebakeBones * 3 + col;
  return texelFetch(bonebakeSkinPalette, ivec2(x, row), 0);
}

// bonebakeLerped is column col of the palette rows r (frame row, next row,
// lerp) blended, as bpat.Lerp blends them.
vec4 bonebakeLerped(vec3 r, int col) {
  vec4 a = bonebakeSkinRow(r.x, col);
  return a + (bonebakeSkinRow(r.y, col) - a) * r.z;
}

// bonebakeTexel finds the unit and column (bone·3 + row) this fragment
// writes; false past the last unit.
bool bonebakeTexel(out int unit, out int col) {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int unitTexels = bonebakeBones * 3;
  unit = p.y * bonebakePerRow + p.x / unitTexels;
  col = p.x - (p.x / unitTexels) * unitTexels;
  return unit < bonebakeCount;
}
`;

export const POSE_PASS_FRAGMENT = POSE_PASS_HEAD + /* glsl */ `
uniform sampler2D bonebakeRecords;   // 4 texels a unit, bonebakeRecordsPerRow units a row
uniform int bonebakeRecordsPerRow;
uniform float bonebakeTime;
${PLAYBACK}
// rows resolves a playhead dt seconds after its record's start to palette rows
// and lerp by docs/formats/bpat.md §5.2.
vec3 bonebakeRows(vec4 p, float dt) {
  int code = int(p.w);
  return bonebakeResolve(p.z, code >> 3, (code & 1) != 0, bonebakeSettle(p.x + p.y * dt, (code & 2) != 0));
}

void main() {
  int unit, col;
  if (!bonebakeTexel(unit, col)) { bonebakePosed = vec4(0.0); return; }
  int rr = unit / bonebakeRecordsPerRow;
  int rx = (unit - rr * bonebakeRecordsPerRow) * 4;
  vec4 own = texelFetch(bonebakeRecords, ivec2(rx, rr), 0);
  vec4 from = texelFetch(bonebakeRecords, ivec2(rx + 1, rr), 0);
  vec4 prior = texelFetch(bonebakeRecords, ivec2(rx + 2, rr), 0);
  vec4 clock = texelFetch(bonebakeRecords, ivec2(rx + 3, rr), 0);
  float t = bonebakeTime, dt = t - clock.x;
  vec3 w = bonebakeWeights(t, clock.y, clock.z, abs(clock.w), clock.w < 0.0);
  vec4 pose = w.x * bonebakeLerped(bonebakeRows(own, dt), col);
  if (w.y > 0.0) pose += w.y * bonebakeLerped(bonebakeRows(from, dt), col);
  if (w.z > 0.0) pose += w.z * bonebakeLerped(bonebakeRows(prior, dt), col);
  bonebakePosed = pose;
}
`;

/**
 * The same pass from poses already resolved (on the CPU by Clock.at, or by a
 * server): a unit's pose is three texels, (frame row, next row, lerp, weight)
 * of its own clip, the clip it fades from and the prior, the own clip weighing
 * 1 − the others (its own w is not read). They lie at texels bonebakePoseAt
 * (own, from, prior) of the unit's bonebakePoseTexels texels, laid
 * bonebakePosesPerRow units a row: Clock.at's twelve numbers are
 * bonebakePoseAt (0, 1, 2) of 3, and a renderer's own instance records can be
 * read where they are.
 */
export const POSE_PASS_POSES_FRAGMENT = POSE_PASS_HEAD + /* glsl */ `
uniform sampler2D bonebakePoses;
uniform int bonebakePoseTexels;
uniform int bonebakePosesPerRow;
uniform ivec3 bonebakePoseAt;

void main() {
  int unit, col;
  if (!bonebakeTexel(unit, col)) { bonebakePosed = vec4(0.0); return; }
  int rr = unit / bonebakePosesPerRow;
  int rx = (unit - rr * bonebakePosesPerRow) * bonebakePoseTexels;
  vec4 own = texelFetch(bonebakePoses, ivec2(rx + bonebakePoseAt.x, rr), 0);
  vec4 from = texelFetch(bonebakePoses, ivec2(rx + bonebakePoseAt.y, rr), 0);
  vec4 prior = texelFetch(bonebakePoses, ivec2(rx + bonebakePoseAt.z, rr), 0);
  vec4 pose = (1.0 - from.w - prior.w) * bonebakeLerped(own.xyz, col);
  if (from.w > 0.0) pose += from.w * bonebakeLerped(from.xyz, col);
  if (prior.w > 0.0) pose += prior.w * bonebakeLerped(prior.xyz, col);
  bonebakePosed = pose;
}
`;

/** RECORD_FLOATS: a unit's clock record for the GPU pass. */
export const RECORD_FLOATS = 16;

/** writeRecord puts clock's state at out[offset…offset+16) as POSE_PASS_FRAGMENT reads it. */
export function writeRecord(clock, out, offset) {
  const ph = (p, o) => {
    out[o] = p.phase; out[o + 1] = p.rate; out[o + 2] = p.row;
    out[o + 3] = (p.frames - 1) * 8 + (p.loops ? 1 : 0) + (p.wraps ? 2 : 0);
  };
  ph(clock.own, offset); ph(clock.from, offset + 4); ph(clock.prior, offset + 8);
  out[offset + 12] = clock.start; out[offset + 13] = clock.fadeStart; out[offset + 14] = clock.fadeInv;
  out[offset + 15] = clock.priorIsGait ? -clock.priorShare : clock.priorShare;
}
