// The skinning pass on the CPU: each unit's posed skinning matrices, once per
// frame, into the Float32Array a float texture uploads (the layout glsl.js
// reads). Skinning is linear, so the palette is multiplied by the inverse binds
// once at load (skin[frame][bone] = palette · inverseBind, docs/formats/bpat.md
// §1) and a unit's matrix is then the weighted blend of up to six of those
// rows: Σ weight · lerp(skin[frame], skin[next], lerp) over its own clip, the
// clip it fades from and the prior (docs/runtime.md §6.1).

/** Floats per bone in the posed texture: three RGBA texels. */
export const FLOATS_PER_POSED = 12;

export class SkinPalette {
  /**
   * @param {import('./bpat.js').BPAT} bpat
   * @param {ArrayLike<number>} inverseBinds boneCount·16 floats, column-major
   *   (three.js Matrix4.elements, glTF's inverseBindMatrices)
   */
  constructor(bpat, inverseBinds) {
    const n = bpat.boneCount;
    if (inverseBinds.length !== n * 16) {
      throw new Error(`bonebake: ${inverseBinds.length / 16} inverse bind matrices for ${n} palette bones${bpat.name ? ' of ' + bpat.name : ''}`);
    }
    this.boneCount = n;
    this.frameSize = n * FLOATS_PER_POSED;
    const P = bpat.palette;
    const S = new Float32Array(bpat.frameTotal * this.frameSize);
    for (let f = 0; f < bpat.frameTotal; f++) {
      for (let b = 0; b < n; b++) {
        const p = (f * n + b) * 16, ib = b * 16, s = (f * n + b) * 12;
        for (let r = 0; r < 3; r++) {
          for (let c = 0; c < 4; c++) {
            // (P · IB)(r, c) = Σ_k P(r, k) · IB(k, c); P row-major, IB column-major.
            S[s + r * 4 + c] = P[p + r * 4] * inverseBinds[ib + c * 4] + P[p + r * 4 + 1] * inverseBinds[ib + c * 4 + 1] +
              P[p + r * 4 + 2] * inverseBinds[ib + c * 4 + 2] + P[p + r * 4 + 3] * inverseBinds[ib + c * 4 + 3];
          }
        }
      }
    }
    /** frameTotal · boneCount · 12 floats: the top three rows of palette · inverseBind. */
    this.skin = S;
  }

  /**
   * write puts the posed matrices of a unit showing `pose` (Clock.at's twelve
   * numbers: frame row, next row, lerp, weight for its own clip, the clip
   * faded from and the prior) at out[offset…offset + boneCount·12).
   */
  write(out, offset, pose) {
    const S = this.skin, fs = this.frameSize;
    let first = true;
    for (let k = 0; k < 12; k += 4) {
      const w = pose[k + 3];
      if (!(w > 0)) continue;
      // w · lerp(S[a], S[b], t) as w(1−t)·S[a] + wt·S[b]; integer indices keep V8 on its fast path.
      const a = (pose[k] * fs) | 0, b = (pose[k + 1] * fs) | 0, wb = w * pose[k + 2], wa = w - wb;
      if (first) {
        for (let i = 0; i < fs; i++) out[offset + i] = wa * S[a + i] + wb * S[b + i];
        first = false;
      } else {
        for (let i = 0; i < fs; i++) out[offset + i] += wa * S[a + i] + wb * S[b + i];
      }
    }
    if (first) out.fill(0, offset, offset + fs);
  }
}

/**
 * socketAt writes into out (12 numbers: the top three rows of a row-major
 * matrix, in the model's space) socket s of a unit showing `pose` (Clock.at's
 * twelve numbers), the socket data blended as the palette is
 * (docs/formats/bpat.md §1, §5.2; crowd's Batch.Socket).
 */
export function socketAt(bpat, pose, s, out = new Float64Array(12)) {
  const n = bpat.sockets.length;
  if (!(s >= 0 && s < n)) throw new RangeError(`bonebake: socket ${s} out of range [0,${n})${bpat.name ? ' of ' + bpat.name : ''}`);
  const D = bpat.socketData;
  out.fill(0);
  for (let k = 0; k < 12; k += 4) {
    const w = pose[k + 3];
    if (!(w > 0)) continue;
    const a = ((pose[k] * n + s) * 12) | 0, b = ((pose[k + 1] * n + s) * 12) | 0, t = pose[k + 2];
    for (let i = 0; i < 12; i++) out[i] += w * (D[a + i] + (D[b + i] - D[a + i]) * t);
  }
  return out;
}
