// Loading the assets: the server's list (/api/assets), each species' palette,
// socket data, mesh and textures, uploaded to the GPU, and its size on screen.
import { gl, fetchOK, solidMesh, meshVAO } from './gl.js';
import { skinPalette } from './pose.js';

const ROLE_COLORS = [
  [0.86, 0.67, 0.54], // skin / hide
  [0.86, 0.86, 0.84], // cloth (takes the instance tint)
  [0.32, 0.23, 0.15], // hair, mane
  [0.74, 0.76, 0.80], // metal
  [0.46, 0.31, 0.19], // leather
  [0.90, 0.87, 0.78], // bone, hooves
  [0.56, 0.41, 0.26], // wood
  [0.08, 0.08, 0.09], // eyes
];

// loadAssets fetches every asset the server lists, in its order; an asset's
// index is its place in the list.
export async function loadAssets() {
  const list = await (await fetchOK('api/assets')).json();
  if (!list.assets.length) throw new Error('the server has no assets');
  const assets = await Promise.all(list.assets.map(loadAsset));
  assets.forEach((A, k) => { A.index = k; });
  return assets;
}

const MESH_UVS = 2, MESH_MATERIALS = 4; // EncodeMesh's flags

function parseMesh(buf) {
  const dv = new DataView(buf);
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (magic !== 'BBVM') throw new Error('mesh: bad magic ' + JSON.stringify(magic));
  if (dv.getUint32(4, true) !== 2) throw new Error('mesh: version ' + dv.getUint32(4, true) + ', want 2');
  const V = dv.getUint32(8, true), I = dv.getUint32(12, true), B = dv.getUint32(16, true);
  const flags = dv.getUint32(20, true), P = dv.getUint32(24, true);
  let o = 32;
  const take = (Type, n, bytes) => { const a = new Type(buf, o, n); o += bytes; return a; };
  const m = {
    positions: take(Float32Array, V * 3, V * 12),
    normals: take(Float32Array, V * 3, V * 12),
    joints: take(Uint16Array, V * 4, V * 8),
    weights: take(Float32Array, V * 4, V * 16),
    roles: take(Uint8Array, V, (V + 3) & ~3),
    uvs: flags & MESH_UVS ? take(Float32Array, V * 2, V * 8) : null,
    indices: take(Uint32Array, I, I * 4),
    inverseBind: take(Float32Array, B * 16, B * 64),
    materials: (flags & MESH_MATERIALS) !== 0,
    parts: [],
  };
  for (let k = 0; k < P; k++, o += 32) {
    m.parts.push({
      first: dv.getUint32(o, true), count: dv.getUint32(o + 4, true), texture: dv.getInt32(o + 8, true),
      color: [0, 1, 2, 3].map((c) => dv.getFloat32(o + 16 + 4 * c, true)),
    });
  }
  return m;
}

// baseTexture uploads a base colour image (sRGB, so the shader samples linear
// colour) with the model's sampler modes; mipmaps unless its filters say none. An
// image the browser cannot decode leaves the part untextured (null).
async function baseTexture(url, t) {
  const blob = await fetchOK(url).then((r) => r.blob());
  let img;
  try {
    img = await createImageBitmap(blob, { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
  } catch (err) {
    console.warn(`bonebake viewer: ${url} does not decode (${err}); drawn without it`);
    return null;
  }
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false); // glTF's uv (0,0) is the image's first row
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.SRGB8_ALPHA8, gl.RGBA, gl.UNSIGNED_BYTE, img);
  const minF = t.min_filter || gl.LINEAR_MIPMAP_LINEAR;
  if (minF !== gl.NEAREST && minF !== gl.LINEAR) gl.generateMipmap(gl.TEXTURE_2D);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, minF);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, t.mag_filter || gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, t.wrap_s || gl.REPEAT);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, t.wrap_t || gl.REPEAT);
  return tex;
}

async function loadAsset(info) {
  const base = `api/assets/${info.id}/`;
  const [pal, sock, mesh] = await Promise.all(['palette', 'socketdata', 'mesh'].map((w) => fetchOK(base + w).then((r) => r.arrayBuffer())));
  const textures = await Promise.all(info.textures.map((t, k) => baseTexture(`${base}texture/${k}`, t)));
  if (pal.byteLength !== info.palette_bytes) throw new Error(`${info.name}: palette is ${pal.byteLength} bytes, want ${info.palette_bytes}`);
  const A = {
    info, id: info.id, name: info.name, clips: info.clips, sockets: info.sockets,
    paletteBytes: pal,
    palette: new Float32Array(pal), // the file's palette block as floats (little-endian host)
    socketData: new Float32Array(sock),
    mesh: parseMesh(mesh), textures,
    count: 0, instData: new Float32Array(0), instCap: 0,
  };
  skinPalette(A); // what the skinning pass reads (pose.js)
  A.gpu = solidMesh(A.mesh);
  A.instBuf = gl.createBuffer();
  A.vao = meshVAO(A.gpu, A.instBuf);
  measure(A);
  A.roleColors = roleColors(A);
  return A;
}

// measure finds the creature's size at rest (or, for bones drawn as boxes, from
// the first frame). A model's box at rest comes from the server (rest_bounds:
// its mesh skinned at the rest pose, where the glTF spec puts it,
// docs/formats/gltf.md §1.2), in the scene's units: it is drawn as it is, with
// no display correction, as three.js draws it.
function measure(A) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const add = (...p) => {
    for (let k = 0; k < 3; k++) if (Number.isFinite(p[k])) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); }
  };
  if (A.info.rest_bounds) { // the mesh at rest, as the server skinned it: a skin bound in another pose stores that pose
    add(...A.info.rest_bounds[0]);
    add(...A.info.rest_bounds[1]);
  } else if (A.info.mesh === 'boxes') {
    for (let b = 0; b < A.info.bone_count; b++) add(A.palette[b * 16 + 3], A.palette[b * 16 + 7], A.palette[b * 16 + 11]);
  } else {
    const p = A.mesh.positions;
    for (let i = 0; i < p.length; i += 3) add(p[i], p[i + 1], p[i + 2]);
  }
  let h = hi[1] - lo[1], w = Math.max(hi[0] - lo[0], hi[2] - lo[2]);
  if (!(h > 0)) h = 0; if (!(w > 0)) w = 0;
  const size = Math.max(h, w);
  A.height = Math.max(h, 0.25 * size, 0.05) || 1;
  A.radius = Math.max(w * 0.5, 0.25 * A.height, 0.15);
  A.spacing = A.radius * 2.3;
}

function roleColors(A) {
  const c = ROLE_COLORS.map((x) => x.slice());
  const n = A.name.toLowerCase();
  if (A.info.mesh === 'gltf') c[0] = [0.84, 0.58, 0.36];
  if (/horse/.test(n) || A.info.species_id === 1) c[0] = [0.50, 0.34, 0.22];
  if (/elephant/.test(n) || A.info.species_id === 2) c[0] = [0.47, 0.46, 0.47];
  if (/skeleton/.test(n) || A.info.species_id === 5) c[0] = ROLE_COLORS[5];
  if (A.mesh.materials) c[0] = [1, 1, 1]; // the material colours it alone
  return new Float32Array(c.flat());
}
