// Props: the sword humanoid's sword in its hand_r socket, and a rider on the
// horse's saddle. Each is drawn with its carrier's instance records: a horse's
// record carries its rider's frames (the server picks the rider's species and
// clips with the runtime's tables).
import * as M from './mat.js';
import { solidMesh, meshVAO } from './gl.js';
import { REC_RIDER } from './wire.js';
import { socketMatrices, modelPaletteTex } from './pose.js';

// A sword for the hand_r socket: the grip at the socket origin, the blade along +z.
function sword() {
  const P = [], N = [], R = [], I = [];
  const box = (c, h, role) => {
    const faces = [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[-1, 0, 0], [0, 0, 1], [0, 1, 0]], [[0, 1, 0], [0, 0, 1], [1, 0, 0]],
      [[0, -1, 0], [1, 0, 0], [0, 0, 1]], [[0, 0, 1], [1, 0, 0], [0, 1, 0]], [[0, 0, -1], [0, 1, 0], [1, 0, 0]]];
    for (const [n, u, v] of faces) {
      const base = P.length / 3;
      for (const [a, b] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
        for (let k = 0; k < 3; k++) P.push(c[k] + h[k] * (n[k] + a * u[k] + b * v[k]));
        N.push(...n);
        R.push(role);
      }
      I.push(base, base + 1, base + 2, base, base + 2, base + 3);
    }
  };
  box([0, 0, -0.04], [0.017, 0.017, 0.075], 4); // grip
  box([0, 0, -0.125], [0.026, 0.026, 0.02], 3); // pommel
  box([0, 0, 0.045], [0.1, 0.018, 0.014], 3);   // cross-guard
  box([0, 0, 0.44], [0.026, 0.006, 0.38], 3);   // blade
  return { positions: new Float32Array(P), normals: new Float32Array(N), roles: new Uint8Array(R), indices: new Uint32Array(I) };
}

// setupProps gives the sword species its sword (A.sword).
export function setupProps(assets) {
  const swordMesh = solidMesh(sword());
  for (const A of assets) {
    const hand = A.sockets.findIndex((s) => s.name === 'hand_r');
    if (hand >= 0 && (/sword/i.test(A.name) || A.info.species_id === 3)) {
      A.sword = { socket: hand, vao: meshVAO(swordMesh, A.instBuf), count: swordMesh.count, mesh: swordMesh };
    }
  }
}

const riders = new Map(); // "horse:rider" → how that rider sits on that horse

// placeRiders seats each species' riders as the crowd says (crowd.assets[k].rider:
// the species a rider on asset k is drawn with, or -1).
export function placeRiders(assets, crowd) {
  for (const A of assets) {
    const r = crowd.assets[A.index].rider;
    if (r < 0 || assets[r] === A) { A.rider = null; continue; }
    const key = `${A.index}:${r}`;
    if (!riders.has(key)) riders.set(key, seat(A, assets[r]));
    A.rider = riders.get(key);
  }
}

// seat is how rider sits on horse. With a saddle socket: a built-in rider's
// clips are in the game's mount frame (info.mount_seat: where they put the seat),
// so the rider is moved by saddle − mount_seat to put its seat on the saddle of
// the horse standing at its first frame; other riding clips are made for that
// horse on the rider's ground. The rider then follows the saddle's motion away
// from there: local = inverse(saddle at that frame) · that move. Without a saddle
// socket, the rider's pelvis goes a little above the body bone.
function seat(horse, rider) {
  let source, local;
  const sock = horse.sockets.findIndex((s) => /saddle|rider|mount|seat/i.test(s.name));
  if (sock >= 0) {
    source = { src: socketMatrices(horse), index: sock };
    const S = new Float32Array(horse.socketData.buffer, horse.socketData.byteOffset + sock * 48, 12);
    local = inverseAffine(S);
    const m = rider.info.mount_seat;
    if (m) local = M.multiply(local, M.translation(S[3] - m[0], S[7] - m[1], S[11] - m[2]));
  } else {
    const names = horse.info.bone_names || [];
    let body = names.findIndex((n) => /^body$/i.test(n));
    if (body < 0) body = Math.min(1, horse.info.bone_count - 1);
    source = { src: modelPaletteTex(horse), index: body };
    const rnames = rider.info.bone_names || [];
    let pelvis = rnames.findIndex((n) => /pelvis|hips/i.test(n));
    if (pelvis < 0) pelvis = Math.min(1, rider.info.bone_count - 1);
    const idle = Math.max(0, rider.clips.findIndex((c) => c.name === 'riding_idle'));
    const o = (rider.clips[idle].frame_offset * rider.info.bone_count + pelvis) * 16;
    local = M.translation(-rider.palette[o + 3], -rider.palette[o + 7] + 0.2 * horse.height, -rider.palette[o + 11]);
  }
  return { asset: rider, source, local, vao: meshVAO(rider.gpu, horse.instBuf, REC_RIDER * 4) };
}

// inverseAffine inverts the affine matrix whose top three rows r (12 floats,
// row-major) holds, into a column-major 4×4.
function inverseAffine(r) {
  const [a, b, c, tx, d, e, f, ty, g, h, i, tz] = r;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (!(Math.abs(det) > 1e-12)) return M.identity();
  const s = 1 / det;
  // Rows of the inverse 3×3.
  const m = [
    [A * s, -(b * i - c * h) * s, (b * f - c * e) * s],
    [B * s, (a * i - c * g) * s, -(a * f - c * d) * s],
    [C * s, -(a * h - b * g) * s, (a * e - b * d) * s],
  ];
  const out = M.identity();
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) out[col * 4 + row] = m[row][col];
    out[12 + row] = -(m[row][0] * tx + m[row][1] * ty + m[row][2] * tz);
  }
  return out;
}
