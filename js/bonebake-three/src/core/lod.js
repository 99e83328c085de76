// Level of detail as the Go runtime chooses it (docs/runtime.md §6.4), for a
// renderer that draws each level from instance lists of its own: the distance
// bands with their hysteresis, the reduced level's influences (the two
// heaviest, renormalized, chosen per vertex at load) and the snapshot level's
// vertices (docs/formats/bpsm.md) as a float texture a vertex shader reads.

import { VERTEX_SIZE } from './bpsm.js';

/** The levels: palette skinning with every influence; with the one or two heaviest; the snapshot mesh, no skinning. */
export const LEVEL_FULL = 0, LEVEL_REDUCED = 1, LEVEL_SNAPSHOT = 2;

/** How far past a boundary, as a share of its distance, a unit must go to change level (crowd.LODHysteresis). */
export const LOD_HYSTERESIS = 0.1;

/** The distances (metres) beyond which a unit drops to reduced and to its snapshot: crowd.DefaultLOD's humanoids'. */
export const DEFAULT_LOD = Object.freeze({ reduced: 30, snapshot: 90 });

/**
 * nextLevel is the distance band of a unit in band `cur` at distance d from
 * the camera, with boundaries lod = {reduced, snapshot}: it goes out to a
 * farther band beyond boundary·(1 + LOD_HYSTERESIS) and back below
 * boundary·(1 − LOD_HYSTERESIS), and stays where it is between
 * (crowd's lodBands.next).
 */
export function nextLevel(cur, d, lod) {
  return nextBand(cur, d * d, lodBands(lod));
}

/**
 * lodBands is nextBand's form of the boundaries, for a loop over many units:
 * the squared distances out past each boundary, then back below each.
 */
export function lodBands(lod, out = new Float64Array(4)) {
  const hi = 1 + LOD_HYSTERESIS, lo = 1 - LOD_HYSTERESIS;
  out[0] = (lod.reduced * hi) ** 2; out[1] = (lod.snapshot * hi) ** 2;
  out[2] = (lod.reduced * lo) ** 2; out[3] = (lod.snapshot * lo) ** 2;
  return out;
}

/** nextBand is nextLevel at the squared distance d2 with lodBands' boundaries. */
export function nextBand(cur, d2, bands) {
  const up = (d2 > bands[0] ? 1 : 0) + (d2 > bands[1] ? 1 : 0);
  const down = (d2 > bands[2] ? 1 : 0) + (d2 > bands[3] ? 1 : 0);
  return Math.min(Math.max(cur, up), down);
}

/**
 * reduceInfluences keeps each vertex's `keep` heaviest joints (influences on
 * one joint summed first, as a merged joint's are), renormalized to sum 1, the
 * rest zero: the reduced level's skinIndex and skinWeight (4 a vertex).
 * Equal weights keep the earlier influence.
 */
export function reduceInfluences(indices, weights, keep = 2) {
  const n = indices.length / 4;
  const outI = new Float32Array(n * 4), outW = new Float32Array(n * 4);
  const j = [0, 0, 0, 0], w = [0, 0, 0, 0];
  for (let v = 0; v < n; v++) {
    let m = 0;
    for (let k = 0; k < 4; k++) {
      const wk = weights[4 * v + k];
      if (!(wk > 0)) continue;
      const at = j.indexOf(indices[4 * v + k]);
      if (at >= 0 && at < m) { w[at] += wk; continue; }
      j[m] = indices[4 * v + k]; w[m] = wk; m++;
    }
    // The heaviest first; a stable insertion sort of at most four.
    for (let a = 1; a < m; a++) {
      for (let b = a; b > 0 && w[b] > w[b - 1]; b--) {
        [w[b], w[b - 1]] = [w[b - 1], w[b]];
        [j[b], j[b - 1]] = [j[b - 1], j[b]];
      }
    }
    const kept = Math.min(m, keep);
    let sum = 0;
    for (let k = 0; k < kept; k++) sum += w[k];
    for (let k = 0; k < kept; k++) {
      outI[4 * v + k] = j[k];
      outW[4 * v + k] = w[k] / sum;
    }
  }
  return { indices: outI, weights: outW };
}

/** Texels a snapshot vertex takes in each frame: its position, then its normal. */
export const SNAPSHOT_TEXELS = 2;

/**
 * snapshotTexels lays a snapshot's vertices out for SNAPSHOT_PARS: vertex v of
 * file frame f is texels (f·vertexCount + v)·2 and +1 (position, normal),
 * `width` texels to a row. It returns the RGBA floats and the height.
 */
export function snapshotTexels(bpsm, width) {
  const V = bpsm.vertexCount, total = bpsm.frameTotal * V * SNAPSHOT_TEXELS;
  const height = Math.ceil(total / width);
  const out = new Float32Array(width * height * 4);
  const b = bpsm.vertexBytes, dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let r = 0, n = bpsm.frameTotal * V; r < n; r++) {
    const o = r * VERTEX_SIZE, t = r * SNAPSHOT_TEXELS * 4;
    for (let k = 0; k < 3; k++) {
      out[t + k] = dv.getFloat32(o + 4 * k, true);
      out[t + 4 + k] = dv.getFloat32(o + 12 + 4 * k, true);
    }
  }
  return { data: out, height };
}

/** snapshotUVs: the texture coordinates of the snapshot's first frame (they do not change with the pose). */
export function snapshotUVs(bpsm) {
  const b = bpsm.vertexBytes, dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = new Float32Array(bpsm.vertexCount * 2);
  for (let v = 0; v < bpsm.vertexCount; v++) {
    out[2 * v] = dv.getFloat32(v * VERTEX_SIZE + 24, true);
    out[2 * v + 1] = dv.getFloat32(v * VERTEX_SIZE + 28, true);
  }
  return out;
}

/**
 * The snapshot level's vertex stage (GLSL ES 3.00): the vertex's position and
 * normal at the file frame the instance gives (bonebakeFrame), read from
 * snapshotTexels' texture by gl_VertexID; put at the start of main(), with
 * SNAPSHOT_POSITION after the shader's own start of the position and
 * SNAPSHOT_NORMAL after its start of the normal.
 */
export const SNAPSHOT_PARS = /* glsl */ `
uniform highp sampler2D bonebakeSnapshot;
uniform int bonebakeSnapshotWidth;
uniform int bonebakeSnapshotVertices;
attribute float bonebakeFrame;
vec4 bonebakeSnapshotTexel(int k) {
  return texelFetch(bonebakeSnapshot, ivec2(k - (k / bonebakeSnapshotWidth) * bonebakeSnapshotWidth, k / bonebakeSnapshotWidth), 0);
}
`;

export const SNAPSHOT_BASE = /* glsl */ `
int bonebakeTexel = (int(bonebakeFrame) * bonebakeSnapshotVertices + gl_VertexID) * ${SNAPSHOT_TEXELS};
vec3 bonebakePosition = bonebakeSnapshotTexel(bonebakeTexel).xyz;
vec3 bonebakeNormal = bonebakeSnapshotTexel(bonebakeTexel + 1).xyz;
`;

export const SNAPSHOT_POSITION = /* glsl */ `
transformed = bonebakePosition;
`;

export const SNAPSHOT_NORMAL = /* glsl */ `
objectNormal = bonebakeNormal;
`;
