// Drawing a frame: the ground grid, every species' instances in one instanced
// call (or one per material), their props, and the focus instance's skeleton and
// socket gizmos on top.
import * as M from './mat.js';
import { state, stats, focusAsset, RECORD } from './state.js';
import { gl, canvas, prog, U, dummyTex, focusBuf, focusData, unitBuf, axes, skeletonLines, lineMesh, BACKGROUND } from './gl.js';
import { viewProj, updateCamera } from './camera.js';
import { grid } from './scene.js';
import { useBAT } from './bat.js';
import { levelsDrawn, drawBody, drawProps, countSkinned, beginFrame } from './lod.js';
import { pose, UNIT, RIDER, skinPalette, socketMatrices, modelPalette } from './pose.js';

function resize() {
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  const w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
}

function bindTex(unit, tex) {
  gl.activeTexture(gl.TEXTURE0 + unit);
  gl.bindTexture(gl.TEXTURE_2D, tex);
}

const IDENTITY = M.identity();

// setDraw sets what the next draws read, for n instances whose records are in
// buffer buf: a skinned asset (its pose at side of each record: UNIT, or a
// horse's RIDER), a matrix to follow (attach: { src, index }, posed from each
// record's own pose: a socket of socketMatrices, a bone of modelPalette) and a
// mesh transform (local, first). It runs the skinning pass (pose.js) for what
// is skinned or followed, then binds the program.
export function setDraw({ buf = null, n = 0, skinned = null, side = UNIT, attach = null, unlit = false, local = IDENTITY, colors = null }) {
  const skin = skinned ? pose(skinned.posed ||= {}, skinPalette(skinned), buf, n, side) : null;
  const follow = attach ? pose(attach.src.posed ||= {}, attach.src, buf, n, UNIT) : null;
  gl.useProgram(prog);
  bindTex(0, skin ? skin.tex : dummyTex);
  if (skin) {
    gl.uniform1i(U.bonebakeBones, skin.count);
    gl.uniform1i(U.bonebakePerRow, skin.perRow);
  }
  gl.uniform1i(U.u_skinned, skin ? 1 : 0);
  bindTex(2, follow ? follow.tex : dummyTex);
  if (follow) {
    gl.uniform1i(U.u_attachCount, follow.count);
    gl.uniform1i(U.u_attachPerRow, follow.perRow);
    gl.uniform1i(U.u_attachIndex, attach.index);
  }
  gl.uniform1i(U.u_attached, attach ? 1 : 0);
  gl.uniform1i(U.u_unlit, unlit ? 1 : 0);
  gl.uniformMatrix4fv(U.u_local, false, local);
  if (colors) gl.uniform3fv(U.u_roleColors, colors);
}

// setMaterial makes the next draws take their colour from a glTF material: the
// base colour times the texture, if any. setMaterial(null) goes back to roles.
// drawMesh draws n instances of A's mesh from the bound vertex array, part by
// part with its materials where it has them (with the uniforms u of the bound
// program); it returns the draw calls.
export function drawMesh(A, n, u = U) {
  if (!A.mesh.materials) {
    gl.drawElementsInstanced(gl.TRIANGLES, A.gpu.count, gl.UNSIGNED_INT, 0, n);
    return 1;
  }
  for (const p of A.mesh.parts) {
    setMaterial(p.color, A.textures[p.texture] || null, u);
    gl.drawElementsInstanced(gl.TRIANGLES, p.count, gl.UNSIGNED_INT, p.first * 4, n);
  }
  setMaterial(null, null, u);
  return A.mesh.parts.length;
}

export function setMaterial(color, tex = null, u = U) {
  gl.uniform1i(u.u_material, color ? 1 : 0);
  if (color) gl.uniform4fv(u.u_baseColor, color);
  gl.uniform1i(u.u_textured, tex ? 1 : 0);
  bindTex(3, tex || dummyTex);
}

// render draws a frame with the records last uploaded. In the BAT mode's side
// by side view the canvas is cut in two halves of equal size, the same camera in
// each: the left one skinned from the palette, the right one from the BAT
// textures.
export function render() {
  resize();
  gl.disable(gl.SCISSOR_TEST);
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  beginFrame();
  const mode = state.bat.mode;
  let calls = 0, drawn = 0;
  if (mode === 'side') {
    const w = Math.max(1, Math.floor(canvas.width / 2));
    updateCamera(w / Math.max(1, canvas.height));
    gl.enable(gl.SCISSOR_TEST);
    for (const [x, bat] of [[0, false], [canvas.width - w, true]]) {
      gl.viewport(x, 0, w, canvas.height);
      gl.scissor(x, 0, w, canvas.height);
      const n = drawView(bat);
      calls += n.calls; drawn += n.drawn;
    }
    gl.disable(gl.SCISSOR_TEST);
  } else {
    updateCamera();
    const n = drawView(mode === 'bat');
    calls = n.calls; drawn = n.drawn;
  }
  gl.bindVertexArray(null);
  stats.drawCalls = calls;
  stats.instances = drawn;
}

// drawView draws the scene into the current viewport, the crowd's meshes skinned
// from the BAT textures when bat (each asset that has a bake; props, riders and
// overlays always follow the palette).
function drawView(bat) {
  gl.enable(gl.DEPTH_TEST);
  gl.useProgram(prog);
  gl.uniformMatrix4fv(U.u_viewProj, false, viewProj);
  let calls = 0, drawn = 0;

  const F = focusAsset();
  if (F) { // the ground is the scene's, shown with the crowd hidden too (as the grid is)
    focusData.set(F.instData.subarray(0, RECORD));
    focusData.set([1, 1, 1, 0], 4); // the ground and the overlays keep their own colours
    gl.bindBuffer(gl.ARRAY_BUFFER, focusBuf);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, focusData);
    calls += drawGround(F);
    calls += drawFineGrid(F);
  }
  setDraw({ unlit: true });
  gl.bindVertexArray(grid.vao);
  gl.drawArraysInstanced(gl.LINES, 0, grid.count, 1);
  calls++;

  if (state.showCrowd) {
    for (const A of state.assets) {
      if (A.count === 0) continue;
      if (levelsDrawn(A, bat)) { // level of detail: each level from its own buffer (lod.js)
        calls += drawBody(A);
        drawn += A.count;
        continue;
      }
      countSkinned(A, A.count);
      let u = bat ? useBAT(A, viewProj, A.roleColors) : null;
      if (!u) {
        setDraw({ buf: A.instBuf, n: A.count, skinned: A, colors: A.roleColors });
        u = U;
      }
      gl.bindVertexArray(u === U ? A.vao : A.batVao);
      calls += drawMesh(A, A.count, u);
      drawn += A.count;
    }
    gl.useProgram(prog);
    if (state.showProps) {
      for (const A of state.assets) {
        if (A.count === 0) continue;
        if (levelsDrawn(A, bat)) {
          calls += drawProps(A);
          continue;
        }
        if (A.sword) {
          setDraw({ buf: A.instBuf, n: A.count, attach: { src: socketMatrices(A), index: A.sword.socket }, colors: A.roleColors });
          gl.bindVertexArray(A.sword.vao);
          gl.drawElementsInstanced(gl.TRIANGLES, A.sword.count, gl.UNSIGNED_INT, 0, A.count);
          calls++;
        }
        if (A.rider) {
          const R = A.rider;
          setDraw({ buf: A.instBuf, n: A.count, skinned: R.asset, side: RIDER, attach: R.source, local: R.local, colors: R.asset.roleColors });
          gl.bindVertexArray(R.vao);
          gl.drawElementsInstanced(gl.TRIANGLES, R.asset.gpu.count, gl.UNSIGNED_INT, 0, A.count);
          countSkinned(R.asset, A.count);
          calls++;
        }
      }
    }
  }

  if (F && state.showCrowd && (state.showSkeleton || state.showSockets)) {
    gl.disable(gl.DEPTH_TEST);
    if (state.showSkeleton) {
      const n = skeletonVertices(F);
      setDraw({ unlit: true });
      gl.bindVertexArray(skeletonLines.vao);
      gl.drawArraysInstanced(gl.LINES, 0, n, 1);
      calls++;
    }
    if (state.showSockets && F.sockets.length > 0) {
      const len = F.height * 0.09;
      const local = M.identity();
      local[0] = local[5] = local[10] = len;
      for (let s = 0; s < F.sockets.length; s++) {
        setDraw({ buf: focusBuf, n: 1, unlit: true, attach: { src: socketMatrices(F), index: s }, local });
        gl.bindVertexArray(axes.vao);
        gl.drawArraysInstanced(gl.LINES, 0, axes.count, 1);
        calls++;
      }
    }
    gl.enable(gl.DEPTH_TEST);
  }
  return { calls, drawn };
}

// The ground under the focus unit: a lighter disc, with a contact shadow at its
// centre and an edge that fades into the background, drawn under the grid and
// without depth, so that a close-up shows where the unit meets the ground (the
// crowd's grid is laid for the whole crowd: near one unit its lines are far
// apart and dim). It follows the unit's place and scale; its size is the
// species' footprint.
let ground = null;
const GROUND_RINGS = [[0, [0.09, 0.1, 0.12]], [0.4, [0.25, 0.28, 0.33]], [0.7, [0.25, 0.28, 0.33]], [1, BACKGROUND]];

function drawGround(F) {
  if (!ground) {
    const P = [], C = [], N = 48;
    const at = (r, k) => [r * Math.cos((2 * Math.PI * k) / N), 0, r * Math.sin((2 * Math.PI * k) / N)];
    for (let i = 1; i < GROUND_RINGS.length; i++) {
      const [r0, c0] = GROUND_RINGS[i - 1], [r1, c1] = GROUND_RINGS[i];
      for (let k = 0; k < N; k++) {
        P.push(...at(r0, k), ...at(r1, k), ...at(r1, k + 1), ...at(r0, k), ...at(r1, k + 1), ...at(r0, k + 1));
        C.push(...c0, ...c1, ...c1, ...c0, ...c1, ...c0);
      }
    }
    ground = lineMesh(new Float32Array(P), new Float32Array(C), focusBuf);
  }
  const r = F.radius * 2.5, local = M.identity();
  local[0] = local[10] = r;
  setDraw({ unlit: true, local });
  gl.depthMask(false);
  gl.bindVertexArray(ground.vao);
  gl.drawArraysInstanced(gl.TRIANGLES, 0, ground.count, 1);
  gl.depthMask(true);
  return 1;
}

// The fine grid under the focus unit: lines fixed in the world, a step of 1,
// 2 or 5 times a power of ten about a sixth of the ground disc's radius apart,
// fading out at its edge. The parade's units travel (viewer/travel.go), and
// the disc travels with the unit: against these lines feet planted in the bake
// stand still and feet that slide are seen sliding.
let fine = null; // { radius, step, mesh }

function drawFineGrid(F) {
  const R = F.radius * 2.5 * F.instData[11];
  if (!(R > 0)) return 0;
  if (!fine || fine.radius !== R) {
    const e = Math.pow(10, Math.floor(Math.log10(R / 6))), m = R / 6 / e;
    const step = e * (m >= 5 ? 5 : m >= 2 ? 2 : 1), n = Math.ceil(R / step) + 1, pieces = 24;
    const P = [], C = [];
    const colour = (x, z) => {
      const w = Math.min(1, Math.hypot(x, z) / R), k = w * w;
      return [0, 1, 2].map((c) => [0.45, 0.5, 0.57][c] * (1 - k) + BACKGROUND[c] * k);
    };
    for (let i = -n; i <= n; i++) {
      for (let j = 0; j < pieces; j++) {
        const a = -n * step + (2 * n * step * j) / pieces, b = -n * step + (2 * n * step * (j + 1)) / pieces;
        for (const [p, q] of [[[i * step, a], [i * step, b]], [[a, i * step], [b, i * step]]]) {
          P.push(p[0], 0, p[1], q[0], 0, q[1]);
          C.push(...colour(...p), ...colour(...q));
        }
      }
    }
    if (fine) { gl.deleteBuffer(fine.mesh.pos); gl.deleteBuffer(fine.mesh.col); gl.deleteVertexArray(fine.mesh.vao); }
    fine = { radius: R, step, mesh: lineMesh(new Float32Array(P), new Float32Array(C), unitBuf) };
  }
  const local = M.identity();
  local[12] = Math.round(F.instData[8] / fine.step) * fine.step;
  local[14] = Math.round(F.instData[9] / fine.step) * fine.step;
  setDraw({ unlit: true, local });
  gl.depthMask(false);
  gl.bindVertexArray(fine.mesh.vao);
  gl.drawArraysInstanced(gl.LINES, 0, fine.mesh.count, 1);
  gl.depthMask(true);
  return 1;
}

const skelPos = new Float32Array(64 * 6 * 3), skelCol = new Float32Array(64 * 6 * 3), posed = new Float32Array(64 * 12);

// skeletonVertices writes the focus instance's bones as lines (parent origin to
// child origin, or per-bone axes when the parents are unknown), its palette
// posed on the CPU by the core's skinning pass (SkinPalette.write), fades
// included.
function skeletonVertices(A) {
  const bones = Math.min(A.info.bone_count, 64), d = A.instData;
  // Its clips: [frame row, next row, lerp, weight] of its own, the one faded from, the prior.
  const pose = [d[0], d[1], d[2], 1 - d[19] - d[23], d[16], d[17], d[18], d[19], d[20], d[21], d[22], d[23]];
  modelPalette(A).write(posed, 0, pose);
  const at = (b, k) => posed[b * 12 + k];
  const origin = (b) => [at(b, 3), at(b, 7), at(b, 11)];
  let v = 0;
  const put = (p, col) => { skelPos.set(p, v * 3); skelCol.set(col, v * 3); v++; };
  const parents = A.info.parents;
  if (parents) {
    for (let b = 0; b < bones; b++) {
      const p = parents[b];
      if (p >= 0 && p < bones) { put(origin(p), [1, 0.86, 0.3]); put(origin(b), [1, 0.55, 0.15]); }
    }
  }
  if (!parents || v === 0) {
    const len = A.height * 0.05;
    for (let b = 0; b < bones; b++) {
      const o = origin(b);
      for (let axis = 0; axis < 3; axis++) {
        const dir = [at(b, axis), at(b, 4 + axis), at(b, 8 + axis)];
        const l = Math.hypot(...dir) || 1;
        const col = [0.35, 0.35, 0.35]; col[axis] = 1;
        put(o, col);
        put([o[0] + (dir[0] / l) * len, o[1] + (dir[1] / l) * len, o[2] + (dir[2] / l) * len], col);
      }
    }
  }
  gl.bindBuffer(gl.ARRAY_BUFFER, skeletonLines.pos);
  gl.bufferSubData(gl.ARRAY_BUFFER, 0, skelPos, 0, v * 3);
  gl.bindBuffer(gl.ARRAY_BUFFER, skeletonLines.col);
  gl.bufferSubData(gl.ARRAY_BUFFER, 0, skelCol, 0, v * 3);
  return v;
}
