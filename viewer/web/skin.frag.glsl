#version 300 es
// Simple hemisphere + sun lighting; unlit draws (grid, skeleton, gizmos) show
// their vertex colour.
precision highp float;

in vec3 v_normal;
in vec3 v_color;
in vec2 v_uv;
uniform bool u_unlit;
uniform bool u_material;    // a glTF material: base colour × texture, shown sRGB-encoded
uniform vec4 u_baseColor;
uniform bool u_textured;
uniform sampler2D u_baseTex; // sRGB: samples are linear
uniform vec3 u_sun;
out vec4 o_color;

void main() {
  if (u_unlit) {
    o_color = vec4(v_color, 1.0);
    return;
  }
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;
  float sun = max(dot(n, u_sun), 0.0);
  float sky = 0.5 + 0.5 * n.y;
  float light = 0.22 + 0.33 * sky + 0.7 * sun;
  if (u_material) {
    vec4 base = u_baseColor;
    if (u_textured) base *= texture(u_baseTex, v_uv);
    o_color = vec4(pow(base.rgb * v_color * light, vec3(1.0 / 2.2)), 1.0);
    return;
  }
  // The role colours are tuned for this softer curve.
  o_color = vec4(pow(v_color * light, vec3(1.0 / 1.6)), 1.0);
}
