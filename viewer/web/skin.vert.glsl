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
// Skinning a bind-pose vertex is Σ w · pose · inverseBind, where a pose is
// lerp(P[frame], P[next], t), the blend done per matrix element as in bpat.Lerp
// (docs/formats/bpat.md's playback rules). While a unit cross-fades between
// clips (docs/runtime.md §6.1) its pose is
//   (1 − W − Q)·lerp(own rows) + W·lerp(faded-from rows) + Q·lerp(prior rows),
// W and Q from its record; the extra rows are read only while W or Q is not 0.
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
layout(location = 10) in vec4 a_fade;         // the clip faded from: frame row, next row, lerp, weight W
layout(location = 11) in vec4 a_prior;        // an interrupted fade's older clip: the same, weight Q
layout(location = 12) in vec4 a_attachFade;   // the parent's fade and prior
layout(location = 13) in vec4 a_attachPrior;

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

// Level of detail (lod.js, docs/runtime.md §6.4). u_reduced: skin with the two
// heaviest influences, renormalized. u_snapshot: no skinning; the vertex is
// gl_VertexID of frame a_play.x of the snapshot mesh (docs/formats/bpsm.md),
// two texels a vertex (position and colour role, normal), laid out like the
// palette.
uniform bool u_reduced;
uniform bool u_snapshot;
uniform sampler2D u_snapshotTex;
uniform int u_snapshotStride;
uniform int u_snapshotFramesPerRow;

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

// Rows are the top three rows of an affine matrix (the fourth is 0 0 0 1).
struct Rows { vec4 r0, r1, r2; };

// frameRows reads three texels from column col of the frames f.x and f.y of a
// texture laid out like the palette, blended by f.z.
Rows frameRows(sampler2D tex, int stride, int perRow, int col, vec4 f) {
  ivec2 o0 = origin(int(f.x), stride, perRow) + ivec2(col, 0);
  ivec2 o1 = origin(int(f.y), stride, perRow) + ivec2(col, 0);
  return Rows(blend(texelFetch(tex, o0, 0), texelFetch(tex, o1, 0), f.z),
              blend(texelFetch(tex, o0 + ivec2(1, 0), 0), texelFetch(tex, o1 + ivec2(1, 0), 0), f.z),
              blend(texelFetch(tex, o0 + ivec2(2, 0), 0), texelFetch(tex, o1 + ivec2(2, 0), 0), f.z));
}

// posed is the matrix a unit shows at column col: its own clip's rows (play)
// cross-faded with those of the clip it fades from and of the prior, each
// weighing its .w.
Rows posed(sampler2D tex, int stride, int perRow, int col, vec4 play, vec4 fade, vec4 prior) {
  Rows m = frameRows(tex, stride, perRow, col, play);
  if (fade.w == 0.0 && prior.w == 0.0) return m;
  float own = 1.0 - fade.w - prior.w;
  m.r0 *= own; m.r1 *= own; m.r2 *= own;
  if (fade.w != 0.0) {
    Rows a = frameRows(tex, stride, perRow, col, fade);
    m.r0 += fade.w * a.r0; m.r1 += fade.w * a.r1; m.r2 += fade.w * a.r2;
  }
  if (prior.w != 0.0) {
    Rows a = frameRows(tex, stride, perRow, col, prior);
    m.r0 += prior.w * a.r0; m.r1 += prior.w * a.r1; m.r2 += prior.w * a.r2;
  }
  return m;
}

// skin adds one influence: the posed palette matrix of the bone, times its
// inverse bind, times the vertex.
void skin(int bone, float w, vec4 p, vec3 n, inout vec3 sp, inout vec3 sn) {
  int b = bone * 4;
  vec4 i0 = texelFetch(u_inverseBind, ivec2(b, 0), 0);
  vec4 i1 = texelFetch(u_inverseBind, ivec2(b + 1, 0), 0);
  vec4 i2 = texelFetch(u_inverseBind, ivec2(b + 2, 0), 0);
  vec4 q = vec4(dot(i0, p), dot(i1, p), dot(i2, p), 1.0);
  vec4 qn = vec4(dot(i0.xyz, n), dot(i1.xyz, n), dot(i2.xyz, n), 0.0);
  Rows m = posed(u_palette, u_paletteStride, u_paletteFramesPerRow, b, a_play, a_fade, a_prior);
  sp += w * vec3(dot(m.r0, q), dot(m.r1, q), dot(m.r2, q));
  sn += w * vec3(dot(m.r0, qn), dot(m.r1, qn), dot(m.r2, qn));
}

void main() {
  vec4 p = vec4(a_position, 1.0);
  vec3 n = a_normal;
  float role = a_role;
  if (u_snapshot) { // level of detail: the pre-skinned vertex
    ivec2 o = origin(int(a_play.x), u_snapshotStride, u_snapshotFramesPerRow) + ivec2(gl_VertexID * 2, 0);
    vec4 t0 = texelFetch(u_snapshotTex, o, 0);
    p = vec4(t0.xyz, 1.0);
    n = texelFetch(u_snapshotTex, o + ivec2(1, 0), 0).xyz;
    role = t0.w;
  } else if (u_skinned) {
    vec3 sp = vec3(0.0), sn = vec3(0.0);
    // Influences are sorted by weight, largest first; unused ones weigh 0.
    vec4 w = a_weights;
    if (u_reduced) w = vec4(w.xy, 0.0, 0.0) / max(w.x + w.y, 1e-6); // level of detail: the two heaviest
    skin(int(a_joints.x), w.x, p, n, sp, sn);
    if (w.y > 0.0) skin(int(a_joints.y), w.y, p, n, sp, sn);
    if (w.z > 0.0) skin(int(a_joints.z), w.z, p, n, sp, sn);
    if (w.w > 0.0) skin(int(a_joints.w), w.w, p, n, sp, sn);
    p = vec4(sp, 1.0);
    n = sn;
  }
  p = u_local * p;
  if (!u_unlit) n = mat3(u_local) * n;
  if (u_attached) {
    // The parent's socket (or bone) as its pose shows it, fades included, as
    // crowd's Batch.Socket blends it.
    Rows m = posed(u_attachTex, u_attachStride, u_attachFramesPerRow, u_attachBase, a_attach, a_attachFade, a_attachPrior);
    p = vec4(dot(m.r0, p), dot(m.r1, p), dot(m.r2, p), 1.0);
    if (!u_unlit) n = vec3(dot(m.r0.xyz, n), dot(m.r1.xyz, n), dot(m.r2.xyz, n));
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
    int r = clamp(int(role + 0.5), 0, 7);
    float k = r == 1 ? 1.0 : a_tint.a;
    v_color = u_roleColors[r] * mix(vec3(1.0), a_tint.rgb, k);
  }
}
