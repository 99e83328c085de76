#version 300 es
// The viewer's vertex stage. Skinning is the npm package's core's
// (js/bonebake-three/src/core/glsl.js, SKIN_READ, which gl.js puts where this
// file includes it): before the draw, its pass (pose.js) wrote each instance's
// posed matrices (the palette rows its record names, lerped and cross-faded by
// its weights, docs/runtime.md §6.1, times the inverse bind) into u_skin, and
// a vertex reads three texels per influence. Attached draws (props, riders,
// socket gizmos) follow a matrix the same pass posed for each instance from
// the parent's socket data or palette (u_attach).
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
layout(location = 5) in vec4 a_play;     // frame row, next row, lerp (a snapshot draw: its frame in x)
layout(location = 6) in vec4 a_tint;     // rgb, and how much of it non-cloth roles take
layout(location = 7) in vec4 a_xform;    // x, z, yaw, scale

#include <bonebake_skin>
uniform bool u_skinned;

// Attached draws: matrix u_attachIndex of the instance's u_attachCount in a
// posed texture (u_attachPerRow instances a row).
uniform bool u_attached;
uniform sampler2D u_attach;
uniform int u_attachCount;
uniform int u_attachPerRow;
uniform int u_attachIndex;

// Level of detail (lod.js, docs/runtime.md §6.4). u_reduced: skin with the two
// heaviest influences, renormalized. u_snapshot: no skinning; the vertex is
// gl_VertexID of frame a_play.x of the snapshot mesh (docs/formats/bpsm.md),
// two texels a vertex (position and colour role, normal), a frame a row (or
// u_snapshotFramesPerRow of them).
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
    // Influences are sorted by weight, largest first; unused ones weigh 0.
    vec4 w = a_weights;
    if (u_reduced) w = vec4(w.xy, 0.0, 0.0) / max(w.x + w.y, 1e-6); // level of detail: the two heaviest
    mat4 m = bonebakeSkinMatrixOf(gl_InstanceID, vec4(a_joints), w);
    p = vec4((m * p).xyz, 1.0);
    n = mat3(m) * n;
  }
  p = u_local * p;
  if (!u_unlit) n = mat3(u_local) * n;
  if (u_attached) {
    // The parent's socket (or bone) as its pose shows it, fades included, as
    // crowd's Batch.Socket blends it.
    vec4 r0 = bonebakePosedRow(u_attach, u_attachCount, u_attachPerRow, gl_InstanceID, u_attachIndex, 0);
    vec4 r1 = bonebakePosedRow(u_attach, u_attachCount, u_attachPerRow, gl_InstanceID, u_attachIndex, 1);
    vec4 r2 = bonebakePosedRow(u_attach, u_attachCount, u_attachPerRow, gl_InstanceID, u_attachIndex, 2);
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
    int r = clamp(int(role + 0.5), 0, 7);
    float k = r == 1 ? 1.0 : a_tint.a;
    v_color = u_roleColors[r] * mix(vec3(1.0), a_tint.rgb, k);
  }
}
