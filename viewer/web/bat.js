// The BAT mode: the crowd skinned from bone animation textures
// (docs/formats/bat.md) that the server bakes from the same palettes, alone or
// side by side with the palette, so each preset's precision shows.
//
// For each asset with a mesh the page fetches /api/bat/{id}?preset&format (the
// report, with the verified max_error) and /api/bat/{id}/texels (the three
// textures' stored channel values as RGBA floats, then TEXCOORD_1), uploads the
// textures unchanged as RGBA32F with nearest filtering, and draws with
// bat.vert.glsl, which decodes c·range + offset itself.
import { gl, api, fetchOK, floatTexture, compileShader, meshVAO } from './gl.js';
import { state } from './state.js';

// The formats each preset takes (§7), its default first.
export const FORMATS = { raw: ['exr', 'exr16'], gametools: ['exr', 'exr16', 'png16', 'png8'], ue: ['png16', 'png8'] };

let prog = null, U = null;
const SKIN_UV = 13, BAT_POS = 14, BAT_NORMAL = 15; // bat.vert.glsl's attributes
const UNITS = { u_batPosition: 4, u_batRotation: 5, u_batSkin: 6 };

export async function setupBAT(fragSource) {
  const vs = await fetchOK('bat.vert.glsl').then((r) => r.text());
  prog = gl.createProgram();
  gl.attachShader(prog, compileShader(gl.VERTEX_SHADER, vs, 'bat.vert.glsl'));
  gl.attachShader(prog, compileShader(gl.FRAGMENT_SHADER, fragSource, 'skin.frag.glsl'));
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('link bat.vert.glsl: ' + gl.getProgramInfoLog(prog));
  U = {};
  for (const n of ['u_batPosition', 'u_batRotation', 'u_batSkin', 'u_batBones', 'u_posOffset', 'u_posRange', 'u_rotOffset', 'u_rotRange',
    'u_axisAngle', 'u_indexScale', 'u_rowShift', 'u_radiansPerUnit', 'u_toScene', 'u_fromScene', 'u_viewProj', 'u_roleColors', 'u_unlit', 'u_sun', 'u_material', 'u_baseColor', 'u_textured', 'u_baseTex']) {
    U[n] = gl.getUniformLocation(prog, n);
  }
  gl.useProgram(prog);
  for (const [n, unit] of Object.entries(UNITS)) gl.uniform1i(U[n], unit);
  gl.uniform1i(U.u_baseTex, 3);
  gl.uniform1i(U.u_unlit, 0);
  const sun = [0.45, 0.8, 0.4], l = Math.hypot(...sun);
  gl.uniform3f(U.u_sun, sun[0] / l, sun[1] / l, sun[2] / l);
}

// loadBAT fetches and uploads one asset's bake for preset and format; it
// resolves to the bake, or to { error } when the server cannot make it (an 8-bit
// skin texture for more than 256 bones, say).
async function loadBAT(A, preset, format) {
  const q = `?preset=${encodeURIComponent(preset)}&format=${encodeURIComponent(format)}`;
  const res = await api(`api/bat/${A.id}${q}`);
  if (!res.ok) return { error: `${res.status}: ${(await res.text()).trim()}` };
  const report = await res.json();
  const buf = await fetchOK(`api/bat/${A.id}/texels${q}`).then((r) => r.arrayBuffer());
  const P = report.position, R = report.rotation, S = report.skin, V = report.vertices;
  const sizes = [P.width * P.height, R.width * R.height, S.width * S.height].map((n) => n * 4);
  const want = (sizes[0] + sizes[1] + sizes[2] + V * 8) * 4;
  if (buf.byteLength !== want) throw new Error(`${A.name}: BAT texels are ${buf.byteLength} bytes, want ${want}`);
  if (V !== A.info.vertex_count || report.bones > A.info.bone_count) throw new Error(`${A.name}: the BAT bake has ${V} vertices and ${report.bones} bone columns`);
  const shift = report.viewer.row_shift;
  report.clips.forEach((c, k) => {
    const p = A.clips[k];
    if (!p || c.first_row !== p.frame_offset + shift) throw new Error(`${A.name}: BAT clip ${c.name} starts at row ${c.first_row}, not ${shift} after palette frame ${p && p.frame_offset}`);
  });
  const f = new Float32Array(buf);
  const B = {
    report, preset, format,
    position: floatTexture(f.subarray(0, sizes[0]), P.width, P.height).tex,
    rotation: floatTexture(f.subarray(sizes[0], sizes[0] + sizes[1]), R.width, R.height).tex,
    skin: floatTexture(f.subarray(sizes[0] + sizes[1], sizes[0] + sizes[1] + sizes[2]), S.width, S.height).tex,
  };
  // TEXCOORD_1 and the BAT mesh are attributes 13-15 of a vertex array of the
  // BAT program's own: the palette program's attach attributes, which it has
  // no use for, take those places in the asset's (16 in all, WebGL2's least).
  const mesh = sizes[0] + sizes[1] + sizes[2];
  if (!A.batVao) A.batVao = meshVAO(A.gpu, A.instBuf);
  if (!A.batBuf) A.batBuf = gl.createBuffer();
  gl.bindVertexArray(A.batVao);
  gl.bindBuffer(gl.ARRAY_BUFFER, A.batBuf);
  gl.bufferData(gl.ARRAY_BUFFER, f.subarray(mesh), gl.STATIC_DRAW);
  for (const [loc, n, off] of [[SKIN_UV, 2, 0], [BAT_POS, 3, V * 2], [BAT_NORMAL, 3, V * 5]]) {
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, n, gl.FLOAT, false, 0, off * 4);
  }
  gl.bindVertexArray(null);
  return B;
}

function release(B) {
  if (B && B.position) for (const t of [B.position, B.rotation, B.skin]) gl.deleteTexture(t);
}

// setBAT switches the mode ('off', 'bat' or 'side') and loads the bakes of
// preset and format for every asset with a mesh; it resolves once they are in.
export async function setBAT(mode, preset, format) {
  const S = state.bat;
  if (!FORMATS[preset]) throw new Error(`unknown BAT preset ${preset}`);
  if (!FORMATS[preset].includes(format)) format = FORMATS[preset][0];
  S.mode = mode; S.preset = preset; S.format = format;
  if (mode === 'off') return;
  const targets = state.assets.filter((A) => A.info.mesh !== 'boxes' && !(A.bat && A.bat.preset === preset && A.bat.format === format));
  const bakes = await Promise.all(targets.map((A) => loadBAT(A, preset, format)));
  targets.forEach((A, k) => { release(A.bat); A.bat = bakes[k]; });
}

// useBAT readies the BAT program for A's bake and returns its uniforms, or
// returns null when A has none to draw with (it is then drawn from the palette).
export function useBAT(A, viewProj, colors) {
  const B = A.bat;
  if (!B || B.error || !prog) return null;
  const r = B.report;
  gl.useProgram(prog);
  for (const [n, unit] of Object.entries(UNITS)) {
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(gl.TEXTURE_2D, B[{ u_batPosition: 'position', u_batRotation: 'rotation', u_batSkin: 'skin' }[n]]);
  }
  gl.uniform1i(U.u_batBones, r.viewer.columns || r.bones);
  gl.uniform1i(U.u_rowShift, r.viewer.row_shift);
  gl.uniform1f(U.u_radiansPerUnit, r.viewer.radians_per_unit);
  const cols = (m) => [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]; // row-major; GL takes columns
  gl.uniformMatrix3fv(U.u_toScene, false, cols(r.viewer.to_scene));
  gl.uniformMatrix3fv(U.u_fromScene, false, cols(r.viewer.from_scene));
  gl.uniform3fv(U.u_posOffset, r.position.offset);
  gl.uniform3fv(U.u_posRange, r.position.range);
  gl.uniform4fv(U.u_rotOffset, r.rotation.offset);
  gl.uniform4fv(U.u_rotRange, r.rotation.range);
  gl.uniform1i(U.u_axisAngle, r.rotation.mode === 'axis_angle' ? 1 : 0);
  gl.uniform1f(U.u_indexScale, r.skin.index_scale);
  gl.uniformMatrix4fv(U.u_viewProj, false, viewProj);
  gl.uniform3fv(U.u_roleColors, colors);
  return U;
}
