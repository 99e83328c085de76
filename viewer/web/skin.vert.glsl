#version 300 es
// GPU skinning straight from BPAT palette bytes.
//
// u_palette is the file's palette block uploaded unchanged as an RGBA32F texture:
// one frame is bone_count·4 texels (u_paletteStride), texel k of a bone is row k of
// its row-major model-space matrix (docs/formats/bpat.md). A texture row
// normally holds one frame; a clip set taller than MAX_TEXTURE_SIZE is laid
// u_paletteFramesPerRow frames to a row (the same bytes in the same order). Rows
// 0-2 are read: palette entries are affine.
//
// Skinning a bind-pose vertex is Σ w · lerp(P[frame], P[next], t) · inverseBind,
// the blend done per matrix element as in bpat.Lerp (docs/formats/bpat.md's
// playback rules).
precision highp float;
precision highp int;
precision highp sampler2D;

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;   // for unlit draws: the vertex colour
layout(location = 2) in uvec4 a_joints;
layout(location = 3) in vec4 a_weights;
layout(location = 4) in float a_role;
layout(location = 9) in vec2 a_uv;       // base colour texture coordinates (glTF TEXCOORD_0)
// Per instance.
layout(location = 5) in vec4 a_play;     // frame row, next row, lerp
layout(location = 6) in vec4 a_tint;     // rgb, and how much of it non-cloth roles take
layout(location = 7) in vec4 a_xform;    // x, z, yaw, scale
layout(location = 8) in vec4 a_attach;   // the parent's frame row, next row, lerp

uniform sampler2D u_palette;
uniform int u_paletteStride;
uniform int u_paletteFramesPerRow;
uniform sampler2D u_inverseBind;        // bone_count·4 × 1 texels, row-major rows
uniform bool u_skinned;

// Attached draws (props, riders, socket gizmos) follow three rows of another
// texture: a socket data block (3 texels per socket and frame) or a palette.
uniform bool u_attached;
uniform sampler2D u_attachTex;
uniform int u_attachStride;
uniform int u_attachFramesPerRow;
uniform int u_attachBase;

uniform mat4 u_local;      // applied to the mesh first (column-major)
uniform mat4 u_viewProj;
uniform vec3 u_roleColors[8];
uniform bool u_unlit;

out vec3 v_normal;
out vec3 v_color;
out vec2 v_uv;

// origin returns the texel where frame's block starts: column, row.
ivec2 origin(int frame, int stride, int perRow) {
  if (perRow == 1) return ivec2(0, frame);
  int row = frame / perRow;
  return ivec2((frame - row * perRow) * stride, row);
}

vec4 blend(vec4 a, vec4 b, float t) { return a + (b - a) * t; }

// skin adds one influence: the blended palette matrix of the bone whose rows
// start at texel column b, times its inverse bind, times the vertex.
void skin(int bone, float w, ivec2 o0, ivec2 o1, float t, vec4 p, vec3 n, inout vec3 sp, inout vec3 sn) {
  int b = bone * 4;
  vec4 i0 = texelFetch(u_inverseBind, ivec2(b, 0), 0);
  vec4 i1 = texelFetch(u_inverseBind, ivec2(b + 1, 0), 0);
  vec4 i2 = texelFetch(u_inverseBind, ivec2(b + 2, 0), 0);
  vec4 q = vec4(dot(i0, p), dot(i1, p), dot(i2, p), 1.0);
  vec4 qn = vec4(dot(i0.xyz, n), dot(i1.xyz, n), dot(i2.xyz, n), 0.0);
  vec4 r0 = blend(texelFetch(u_palette, o0 + ivec2(b, 0), 0), texelFetch(u_palette, o1 + ivec2(b, 0), 0), t);
  vec4 r1 = blend(texelFetch(u_palette, o0 + ivec2(b + 1, 0), 0), texelFetch(u_palette, o1 + ivec2(b + 1, 0), 0), t);
  vec4 r2 = blend(texelFetch(u_palette, o0 + ivec2(b + 2, 0), 0), texelFetch(u_palette, o1 + ivec2(b + 2, 0), 0), t);
  sp += w * vec3(dot(r0, q), dot(r1, q), dot(r2, q));
  sn += w * vec3(dot(r0, qn), dot(r1, qn), dot(r2, qn));
}

void main() {
  vec4 p = vec4(a_position, 1.0);
  vec3 n = a_normal;
  if (u_skinned) {
    ivec2 o0 = origin(int(a_play.x), u_paletteStride, u_paletteFramesPerRow);
    ivec2 o1 = origin(int(a_play.y), u_paletteStride, u_paletteFramesPerRow);
    float t = a_play.z;
    vec3 sp = vec3(0.0), sn = vec3(0.0);
    // Influences are sorted by weight, largest first; unused ones weigh 0.
    skin(int(a_joints.x), a_weights.x, o0, o1, t, p, n, sp, sn);
    if (a_weights.y > 0.0) skin(int(a_joints.y), a_weights.y, o0, o1, t, p, n, sp, sn);
    if (a_weights.z > 0.0) skin(int(a_joints.z), a_weights.z, o0, o1, t, p, n, sp, sn);
    if (a_weights.w > 0.0) skin(int(a_joints.w), a_weights.w, o0, o1, t, p, n, sp, sn);
    p = vec4(sp, 1.0);
    n = sn;
  }
  p = u_local * p;
  if (!u_unlit) n = mat3(u_local) * n;
  if (u_attached) {
    ivec2 o0 = origin(int(a_attach.x), u_attachStride, u_attachFramesPerRow) + ivec2(u_attachBase, 0);
    ivec2 o1 = origin(int(a_attach.y), u_attachStride, u_attachFramesPerRow) + ivec2(u_attachBase, 0);
    float t = a_attach.z;
    vec4 r0 = blend(texelFetch(u_attachTex, o0, 0), texelFetch(u_attachTex, o1, 0), t);
    vec4 r1 = blend(texelFetch(u_attachTex, o0 + ivec2(1, 0), 0), texelFetch(u_attachTex, o1 + ivec2(1, 0), 0), t);
    vec4 r2 = blend(texelFetch(u_attachTex, o0 + ivec2(2, 0), 0), texelFetch(u_attachTex, o1 + ivec2(2, 0), 0), t);
    p = vec4(dot(r0, p), dot(r1, p), dot(r2, p), 1.0);
    if (!u_unlit) n = vec3(dot(r0.xyz, n), dot(r1.xyz, n), dot(r2.xyz, n));
  }
  // The instance: scale, turn about +y by yaw (facing +z turns toward +x), place.
  float c = cos(a_xform.z), s = sin(a_xform.z);
  vec3 q = p.xyz * a_xform.w;
  vec3 world = vec3(c * q.x + s * q.z, q.y, -s * q.x + c * q.z) + vec3(a_xform.x, 0.0, a_xform.y);
  gl_Position = u_viewProj * vec4(world, 1.0);

  v_uv = a_uv;
  if (u_unlit) {
    v_normal = vec3(0.0, 1.0, 0.0);
    v_color = a_normal * a_tint.rgb;
  } else {
    v_normal = vec3(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);
    int role = clamp(int(a_role + 0.5), 0, 7);
    float k = role == 1 ? 1.0 : a_tint.a;
    v_color = u_roleColors[role] * mix(vec3(1.0), a_tint.rgb, k);
  }
}
