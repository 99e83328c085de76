#version 300 es
// The GPU clock mode's resolve pass (docs/runtime.md §6.2): one vertex per unit,
// its outputs captured by transform feedback into the unit's 32-float instance
// record (gl.js), which skin.vert.glsl, bat.vert.glsl and the attached draws
// then read as in the per-frame mode. Resolving once per unit rather than per
// skinned vertex keeps those shaders, and what they draw, the same in both modes.
//
// Each vertex is an item: a unit's index in its asset's entries texture (bits
// 0–23), its level of detail (bits 24–25) and its rider's (26–27). An entry is
// eleven texels: tint and place as float bits, then two crowd.TimeRecords (its
// own, and its rider's: all zero without one), each four texels: the playheads
// Own, From and Prior (phase and rate as float bits, palette row, shape), then
// Start, FadeStart, FadeInv and PriorShare as float bits; then its travel
// (viewer/travel.go): the lanes' start x and length, its speed and the time it
// started at that speed, as float bits; place's x is where it stood then, and
// at u_now it stands speed · (u_now − that time) farther along +x, wrapped
// into the lanes as the server wraps it, and a unit that travels shrinks at the
// lanes' ends by laneEdge (all but the focus unit, u_keep), as the server
// shrinks it per frame. At time u_now a record
// shows what crowd.TimeRecord.At computes, in float32 as it does, by the core's
// playback rule (PLAYBACK, included below); then the
// unit's level (docs/runtime.md §6.4) floors its rows (reduced) or shows its
// snapshot frame (snapshot), as the server's runtime does per frame and the
// page's splitLevels lays it out (lod.js).
precision highp float;
precision highp int;
precision highp usampler2D;

layout(location = 0) in uint a_item;

uniform usampler2D u_entries;
// The snapshot maps of the unit's species and of its rider's (clock.js): by
// palette row, the snapshot frames of the clip starting there (offset, scale as
// float bits, last); by snapshot frame, the palette frame at the same time.
uniform usampler2D u_snapMap, u_snapPalette, u_riderSnapMap, u_riderSnapPalette;
// u_tintLevel ≥ 0: every unit drawn in that level's colour (the panel's option).
uniform int u_tintLevel;
const vec3 LEVEL_TINT[3] = vec3[3](vec3(0.3, 0.9, 0.35), vec3(1.0, 0.75, 0.2), vec3(0.95, 0.3, 0.85));

const uint PER_ROW = 180u; // entries per texture row (clock.js)

uniform float u_now;
// u_keep ≥ 0: the entry of the focus unit, which keeps its size at the lanes'
// ends (the overlays and the close-up show it).
uniform int u_keep;

// In the record's order (gl.js): 0 play, 4 tint, 8 place, 12 the rider's play,
// 16 fade, 20 prior, 24 the rider's fade, 28 its prior.
out vec4 o_play, o_tint, o_place, o_riderPlay, o_fade, o_prior, o_riderFade, o_riderPrior;

const uint FRAMES = 0xFFFFFFu; // Shape: the clip's frame count − 1
const uint LOOPS = 1u << 24;   // the frame after the last is the first
const uint WRAPS = 1u << 25;   // the phase wraps into [0,1), else clamps
const uint SWING = 1u << 26;   // phase and rate are a swing's timeline seconds and tempo
const uint GAIT = 1u << 27;    // the prior is a speed blend's other gait

// The playback rule: bonebakeSettle, bonebakeResolve, bonebakeWeights and a
// swing's bonebakeAttackPhase (the npm package's core,
// js/bonebake-three/src/core/glsl.js; clock.js puts it here).
#include <bonebake_playback>

// laneEdge is the scale of a travelling unit at x in lanes from x0, len metres
// long: 0 at either end, 1 from a metre inside them (a quarter of a lane under
// 4 m), smoothstep between. It is viewer/travel.go's lanes.edge, and runs on
// its golden cases (TestLaneEdgeGolden, in node by the core's GLSL evaluator).
float laneEdge(float x, float x0, float len) {
  float e = min(1.0, len * 0.25);
  float d = min(x - x0, x0 + len - x);
  float s = clamp(d / e, 0.0, 1.0);
  return s * s * (3.0 - 2.0 * s);
}

// phaseAt is the playhead's phase dt seconds after its record's Start.
float phaseAt(uvec4 p, float dt) {
  float q = uintBitsToFloat(p.x) + uintBitsToFloat(p.y) * dt;
  if ((p.w & SWING) != 0u) return bonebakeAttackPhase(q);
  return (p.w & FRAMES) == 0u ? 0.0 : bonebakeSettle(q, (p.w & WRAPS) != 0u);
}

// rows resolves phase ph to palette rows by docs/formats/bpat.md §5: frame row,
// next row, lerp, and w.
vec4 rows(uvec4 p, float ph, float w) {
  return vec4(bonebakeResolve(float(p.z), int(p.w & FRAMES), (p.w & LOOPS) != 0u, ph), w);
}

// resolve is crowd.TimeRecord.At: the own clip's rows, and the fade's two sides
// (rows and weight in w), zero while the unit is not fading.
void resolve(uvec4 own, uvec4 from, uvec4 prior, uvec4 times, out vec4 play, out vec4 fade, out vec4 pri) {
  vec4 tm = uintBitsToFloat(times); // Start, FadeStart, FadeInv, PriorShare
  float dt = u_now - tm.x;
  vec3 w = bonebakeWeights(u_now, tm.y, tm.z, tm.w, (prior.w & GAIT) != 0u);
  play = rows(own, phaseAt(own, dt), 0.0);
  fade = w.y > 0.0 ? rows(from, phaseAt(from, dt), w.y) : vec4(0.0);
  pri = w.z > 0.0 ? rows(prior, phaseAt(prior, dt), w.z) : vec4(0.0);
  if (fade.w == 0.0 && pri.w > 0.0) { // a speed blend alone: the other gait first, as At has it
    fade = pri;
    pri = vec4(0.0);
  }
}

// texel k of entry e.
uvec4 entry(uint e, uint k) {
  return texelFetch(u_entries, ivec2(int((e % PER_ROW) * 11u + k), int(e / PER_ROW)), 0);
}

// lookup is texel k of a map laid out 1,024 texels a row (clock.js).
uvec4 lookup(usampler2D map, uint k) {
  return texelFetch(map, ivec2(int(k % 1024u), int(k / 1024u)), 0);
}

// atLevel shows a resolved side at level lv: reduced and snapshot floor the rows
// (next = frame, lerp 0, its fade's too); a snapshot shows its snapshot frame in
// w (crowd.SnapshotMap's floor frame of the phase) and in x and y the palette
// frame at the same time; otherwise w is the level.
void atLevel(uint lv, uvec4 own, float dt, usampler2D map, usampler2D palette, inout vec4 play, inout vec4 fade, inout vec4 pri) {
  play.w = float(lv);
  if (lv == 0u) return;
  play.y = play.x;
  play.z = 0.0;
  fade.yz = vec2(fade.x, 0.0);
  pri.yz = vec2(pri.x, 0.0);
  if (lv != 2u) return;
  uvec4 m = lookup(map, own.z);
  int f = min(int(phaseAt(own, dt) * uintBitsToFloat(m.y)), int(m.z));
  uint frame = m.x + uint(f);
  play.w = float(frame);
  play.xy = vec2(float(lookup(palette, frame).x));
  fade = vec4(0.0);
  pri = vec4(0.0);
}

void main() {
  uint e = a_item & 0xFFFFFFu, lv = (a_item >> 24) & 3u, rl = (a_item >> 26) & 3u;
  o_tint = uintBitsToFloat(entry(e, 0u));
  o_place = uintBitsToFloat(entry(e, 1u));
  vec4 travel = uintBitsToFloat(entry(e, 10u)); // lanes' x0 and length, speed, start time
  if (travel.y > 0.0) o_place.x = travel.x + mod(o_place.x - travel.x + travel.z * (u_now - travel.w), travel.y);
  if (travel.y > 0.0 && travel.z != 0.0 && int(e) != u_keep) o_place.w *= laneEdge(o_place.x, travel.x, travel.y);
  uvec4 own = entry(e, 2u), riderOwn = entry(e, 6u);
  uvec4 times = entry(e, 5u), riderTimes = entry(e, 9u);
  resolve(own, entry(e, 3u), entry(e, 4u), times, o_play, o_fade, o_prior);
  resolve(riderOwn, entry(e, 7u), entry(e, 8u), riderTimes, o_riderPlay, o_riderFade, o_riderPrior);
  atLevel(lv, own, u_now - uintBitsToFloat(times.x), u_snapMap, u_snapPalette, o_play, o_fade, o_prior);
  atLevel(rl, riderOwn, u_now - uintBitsToFloat(riderTimes.x), u_riderSnapMap, u_riderSnapPalette, o_riderPlay, o_riderFade, o_riderPrior);
  if (u_tintLevel >= 0) o_tint = vec4(LEVEL_TINT[u_tintLevel], 1.0);
  gl_Position = vec4(0.0);
}
