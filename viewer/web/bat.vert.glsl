#version 300 es
// Skinning from bone animation textures (docs/formats/bat.md), for the viewer's
// BAT mode: the same instances as skin.vert.glsl, posed from the BAT textures
// instead of the palette.
//
// It keeps a skinning of its own, not the npm package's core's: what it shows is
// what another engine gets from the BAT files (a reference row and per-frame
// offsets and axis-angle rotations, encoded as c·range + offset, in the
// textures' space), a different layout and decoding from the palette matrices
// the core's pass poses, and the precision it shows is the files'.
//
// u_batPosition and u_batRotation hold one texel per column per row (§2): row 0
// the reference pose (absolute), later rows the clip stack relative to it. The
// stack keeps the palette's clip order with no clip padding, so palette frame row
// r is row r + u_rowShift (1; 2 after the gametools preset's padding row: the
// server checks every clip's first row says so). Entry (row, column) is at linear
// index row·columns + column, texel (i mod width, i / width): the plain layout
// when width = columns, the stacked one of §8 otherwise. Each stored value c
// decodes as c·range + offset (§4), an axis-angle angle in u_radiansPerUnit.
// u_batSkin holds each vertex's four columns at its TEXCOORD_1 texel and their
// weights in the texel below (§5).
//
// A vertex v of the BAT mesh (posed at the reference row, in the scene's space)
// is taken into the textures' space by u_fromScene (the gametools preset's
// centimetres in Blender's axes), becomes Σ w·(R·(v − p_ref) + p_ref + Δp) (§3)
// there, and u_toScene takes it back to the scene (metres, y up). The map is
// affine in v, so blending the two frames' results by lerp equals the palette
// path's element-by-element blend; for the same reason a unit cross-fading
// between clips (docs/runtime.md §6.1) is the sum of its clips' results weighted
// as its record says, as the palette path blends their rows.
precision highp float;
precision highp int;
precision highp sampler2D;

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 4) in float a_role;
layout(location = 9) in vec2 a_uv;
layout(location = 13) in vec2 a_skinUV;  // TEXCOORD_1 of the BAT mesh
layout(location = 14) in vec3 a_batPos;  // the BAT mesh's positions and normals
layout(location = 15) in vec3 a_batNormal;
layout(location = 5) in vec4 a_play;     // frame row, next row, lerp
layout(location = 10) in vec4 a_fade;    // the clip faded from: frame row, next row, lerp, weight
layout(location = 11) in vec4 a_prior;   // an interrupted fade's older clip: the same
layout(location = 6) in vec4 a_tint;
layout(location = 7) in vec4 a_xform;    // x, z, yaw, scale

uniform sampler2D u_batPosition;
uniform sampler2D u_batRotation;
uniform sampler2D u_batSkin;
uniform int u_batBones;
uniform vec3 u_posOffset;
uniform vec3 u_posRange;
uniform vec4 u_rotOffset;
uniform vec4 u_rotRange;
uniform bool u_axisAngle;   // else quaternion
uniform float u_indexScale;
uniform int u_rowShift;
uniform float u_radiansPerUnit;
uniform mat3 u_toScene;
uniform mat3 u_fromScene;

uniform mat4 u_viewProj;
uniform vec3 u_roleColors[8];

out vec3 v_normal;
out vec3 v_color;
out vec2 v_uv;

ivec2 entry(int width, int row, int bone) {
  int i = row * u_batBones + bone;
  return ivec2(i % width, i / width);
}

vec3 position(int row, int bone) {
  vec4 c = texelFetch(u_batPosition, entry(textureSize(u_batPosition, 0).x, row, bone), 0);
  return c.xyz * u_posRange + u_posOffset;
}

vec4 rotation(int row, int bone) {
  vec4 c = texelFetch(u_batRotation, entry(textureSize(u_batRotation, 0).x, row, bone), 0) * u_rotRange + u_rotOffset;
  if (u_axisAngle) {
    float a = c.w * u_radiansPerUnit;
    return vec4(normalize(c.xyz) * sin(0.5 * a), cos(0.5 * a));
  }
  return normalize(c);
}

vec3 rotate(vec4 q, vec3 v) { return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v); }

void skin(int bone, float w, int r0, int r1, float t, inout vec3 sp, inout vec3 sn) {
  vec3 ref = position(0, bone);
  vec3 d = u_fromScene * a_batPos - ref;
  vec4 q0 = rotation(r0, bone), q1 = rotation(r1, bone);
  vec3 p0 = rotate(q0, d) + ref + position(r0, bone);
  vec3 p1 = rotate(q1, d) + ref + position(r1, bone);
  sp += w * mix(p0, p1, t);
  vec3 n = u_fromScene * a_batNormal;
  sn += w * mix(rotate(q0, n), rotate(q1, n), t);
}

// pose adds the vertex as the frames f.x, f.y blended by f.z put it, times k.
void pose(vec4 f, float k, vec4 bones, vec4 weights, inout vec3 sp, inout vec3 sn) {
  int r0 = int(f.x) + u_rowShift, r1 = int(f.y) + u_rowShift;
  // Most influential first; unused influences weigh 0.
  skin(int(bones.x), k * weights.x, r0, r1, f.z, sp, sn);
  if (weights.y > 0.0) skin(int(bones.y), k * weights.y, r0, r1, f.z, sp, sn);
  if (weights.z > 0.0) skin(int(bones.z), k * weights.z, r0, r1, f.z, sp, sn);
  if (weights.w > 0.0) skin(int(bones.w), k * weights.w, r0, r1, f.z, sp, sn);
}

void main() {
  ivec2 size = textureSize(u_batSkin, 0);
  ivec2 st = ivec2(floor(a_skinUV * vec2(size)));
  vec4 bones = floor(texelFetch(u_batSkin, st, 0) * u_indexScale + 0.5);
  vec4 weights = texelFetch(u_batSkin, st + ivec2(0, 1), 0);
  vec3 sp = vec3(0.0), sn = vec3(0.0);
  pose(a_play, 1.0 - a_fade.w - a_prior.w, bones, weights, sp, sn);
  if (a_fade.w != 0.0) pose(a_fade, a_fade.w, bones, weights, sp, sn);
  if (a_prior.w != 0.0) pose(a_prior, a_prior.w, bones, weights, sp, sn);

  vec3 p = u_toScene * sp;
  vec3 n = u_toScene * sn; // an orthogonal map over a scale: the direction survives
  float c = cos(a_xform.z), s = sin(a_xform.z);
  vec3 q = p * a_xform.w;
  vec3 world = vec3(c * q.x + s * q.z, q.y, -s * q.x + c * q.z) + vec3(a_xform.x, 0.0, a_xform.y);
  gl_Position = u_viewProj * vec4(world, 1.0);
  v_uv = a_uv;
  v_normal = vec3(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);
  int role = clamp(int(a_role + 0.5), 0, 7);
  float k = role == 1 ? 1.0 : a_tint.a;
  v_color = u_roleColors[role] * mix(vec3(1.0), a_tint.rgb, k);
}
