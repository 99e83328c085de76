// Instances that name their unit: a renderer that culls and sorts units into
// levels draws compacted instance lists, so an instance finds its unit's posed
// matrices (glsl.js's texture) by an attribute rather than by gl_InstanceID.
// Props on sockets read the same texture: a socket follows its anchor bone
// (docs/formats/bpat.md §1: socket = palette[anchor] · translate(offset)), and
// the posed matrix of that bone is palette · inverseBind, so the socket is
// posed[anchor] · bind[anchor] · translate(offset), the last two constant.

/** The unit an instance draws (a float attribute: exact up to 2²⁴ units). */
export const UNIT_PARS = /* glsl */ `
attribute float bonebakeUnit;
`;

/** glsl.js's SKIN_BASE for an instance of unit bonebakeUnit. */
export const UNIT_SKIN_BASE = /* glsl */ `
mat4 bonebakeSkin4 = bonebakeSkinMatrix(int(bonebakeUnit));
`;

/**
 * A prop on a socket: its vertices are taken by the socket's matrix in the
 * unit's model space, posed[bonebakeSocketBone] · bonebakeSocket, read from the
 * posed texture (needs glsl.js's SKIN_PARS before it); with
 * bonebakeSocketUnscaled the matrix's scale is taken out (a prop sized in
 * metres on a bone that carries its armature's scale).
 */
export const SOCKET_PARS = /* glsl */ `
uniform mat4 bonebakeSocket;
uniform int bonebakeSocketBone;
uniform bool bonebakeSocketUnscaled;
mat4 bonebakeSocketMatrix(int unit) {
  vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
  bonebakeRows(unit, bonebakeSocketBone, 1.0, r0, r1, r2);
  mat4 m = transpose(mat4(r0, r1, r2, vec4(0.0, 0.0, 0.0, 1.0))) * bonebakeSocket;
  if (bonebakeSocketUnscaled) {
    m[0].xyz = normalize(m[0].xyz);
    m[1].xyz = normalize(m[1].xyz);
    m[2].xyz = normalize(m[2].xyz);
  }
  return m;
}
`;

/** SKIN_BASE for a prop: the socket's matrix stands for the skin matrix, so SKIN_NORMAL and SKIN_VERTEX place it. */
export const SOCKET_BASE = /* glsl */ `
mat4 bonebakeSkin4 = bonebakeSocketMatrix(int(bonebakeUnit));
`;

/**
 * socketBind is bind[anchor] · translate(offset) for socket s (column-major, as
 * a mat4 uniform takes it), from the anchor's inverse bind (16 floats,
 * column-major): what turns the anchor's posed skinning matrix into the
 * socket's matrix.
 */
export function socketBind(bpat, inverseBinds, s) {
  const so = bpat.sockets[s];
  if (!so) throw new RangeError(`bonebake: socket ${s} out of range [0,${bpat.sockets.length})${bpat.name ? ' of ' + bpat.name : ''}`);
  const ib = Array.from(inverseBinds.slice(so.anchor * 16, so.anchor * 16 + 16));
  const bind = invert4(ib);
  if (!bind) throw new Error(`bonebake: the inverse bind of bone ${so.anchor} (socket ${so.name}'s anchor) cannot be inverted`);
  const [x, y, z] = so.offset;
  // bind · T(offset): the translation column gains bind's upper 3×3 · offset.
  for (let r = 0; r < 3; r++) bind[12 + r] += bind[r] * x + bind[4 + r] * y + bind[8 + r] * z;
  return bind;
}

// invert4 inverts a column-major 4×4 matrix (cofactors, in float64); null when singular.
function invert4(m) {
  const [a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33] = m;
  const b00 = a00 * a11 - a01 * a10, b01 = a00 * a12 - a02 * a10, b02 = a00 * a13 - a03 * a10;
  const b03 = a01 * a12 - a02 * a11, b04 = a01 * a13 - a03 * a11, b05 = a02 * a13 - a03 * a12;
  const b06 = a20 * a31 - a21 * a30, b07 = a20 * a32 - a22 * a30, b08 = a20 * a33 - a23 * a30;
  const b09 = a21 * a32 - a22 * a31, b10 = a21 * a33 - a23 * a31, b11 = a22 * a33 - a23 * a32;
  const det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
  if (!det || !Number.isFinite(det)) return null;
  const d = 1 / det;
  return [
    (a11 * b11 - a12 * b10 + a13 * b09) * d, (a02 * b10 - a01 * b11 - a03 * b09) * d,
    (a31 * b05 - a32 * b04 + a33 * b03) * d, (a22 * b04 - a21 * b05 - a23 * b03) * d,
    (a12 * b08 - a10 * b11 - a13 * b07) * d, (a00 * b11 - a02 * b08 + a03 * b07) * d,
    (a32 * b02 - a30 * b05 - a33 * b01) * d, (a20 * b05 - a22 * b02 + a23 * b01) * d,
    (a10 * b10 - a11 * b08 + a13 * b06) * d, (a01 * b08 - a00 * b10 - a03 * b06) * d,
    (a30 * b04 - a31 * b02 + a33 * b00) * d, (a21 * b02 - a20 * b04 - a23 * b00) * d,
    (a11 * b07 - a10 * b09 - a12 * b06) * d, (a00 * b09 - a01 * b07 + a02 * b06) * d,
    (a31 * b01 - a30 * b03 - a32 * b00) * d, (a20 * b03 - a21 * b01 + a22 * b00) * d,
  ];
}
