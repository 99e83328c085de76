#version 300 es
// Simple hemisphere + sun lighting; unlit draws (grid, skeleton, gizmos) show
// their vertex colour.
precision highp float;

in vec3 v_normal;
in vec3 v_color;
uniform bool u_unlit;
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
  vec3 c = v_color * (0.22 + 0.33 * sky + 0.7 * sun);
  o_color = vec4(pow(c, vec3(1.0 / 1.6)), 1.0);
}
