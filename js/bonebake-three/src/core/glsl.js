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

/** Declarations: the texture, its layout, the skin attributes and bonebakeSkinMatrix(unit). */
export const SKIN_PARS = /* glsl */ `
uniform highp sampler2D bonebakeSkin;
uniform int bonebakeBones;
uniform int bonebakePerRow;
attribute vec4 skinIndex;
attribute vec4 skinWeight;

// bonebakeRows adds weight w of bone bone's posed skinning matrix (three texels) to r.
void bonebakeRows(int unit, int bone, float w, inout vec4 r0, inout vec4 r1, inout vec4 r2) {
  int row = unit / bonebakePerRow;
  int x = (unit - row * bonebakePerRow) * bonebakeBones * 3 + bone * 3;
  r0 += w * texelFetch(bonebakeSkin, ivec2(x, row), 0);
  r1 += w * texelFetch(bonebakeSkin, ivec2(x + 1, row), 0);
  r2 += w * texelFetch(bonebakeSkin, ivec2(x + 2, row), 0);
}

// bonebakeSkinMatrix is Σ w · posed[joint] over the vertex's four influences
// (influences weighing 0 are not read), as a column-major mat4.
mat4 bonebakeSkinMatrix(int unit) {
  vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
  if (skinWeight.x > 0.0) bonebakeRows(unit, int(skinIndex.x), skinWeight.x, r0, r1, r2);
  if (skinWeight.y > 0.0) bonebakeRows(unit, int(skinIndex.y), skinWeight.y, r0, r1, r2);
  if (skinWeight.z > 0.0) bonebakeRows(unit, int(skinIndex.z), skinWeight.z, r0, r1, r2);
  if (skinWeight.w > 0.0) bonebakeRows(unit, int(skinIndex.w), skinWeight.w, r0, r1, r2);
  return transpose(mat4(r0, r1, r2, vec4(0.0, 0.0, 0.0, 1.0)));
}
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
