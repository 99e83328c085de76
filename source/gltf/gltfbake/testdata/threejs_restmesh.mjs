#!/usr/bin/env node
// threejs_restmesh.mjs - where three.js draws every mesh of a glTF model at rest.
//
//   node threejs_restmesh.mjs MODEL OUT.json
//
// Loads MODEL with three's GLTFLoader in Node, as the peer baker bake.mjs does (no
// DOM: images, textures, samplers and materials stripped, buffers packed into one
// GLB BIN chunk), updates the scene's matrices at rest, and writes for every glTF
// node that draws a mesh the world position of each of its vertices (primitives in
// order) as three.js renders it: SkinnedMesh.getVertexPosition (skinning with the
// weights GLTFLoader normalized) then matrixWorld, for skinned and rigid meshes
// alike. Output: {"nodes": {"<node index>": [x, y, z, x, y, z, ...]}}.
// bonebake's tests compare gltf.Load's rest mesh with it (threejs_test.go).
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

function decodeDataUri(uri) {
  const comma = uri.indexOf(',');
  const head = uri.slice(0, comma);
  const payload = uri.slice(comma + 1);
  return head.endsWith(';base64') ? Buffer.from(payload, 'base64') : Buffer.from(decodeURIComponent(payload), 'latin1');
}

function readAsset(file) {
  const data = fs.readFileSync(file);
  let json;
  let glbBin = null;
  if (data.length >= 12 && data.readUInt32LE(0) === 0x46546c67) {
    const length = data.readUInt32LE(8);
    let off = 12;
    while (off + 8 <= Math.min(length, data.length)) {
      const clen = data.readUInt32LE(off);
      const ctype = data.readUInt32LE(off + 4);
      const chunk = data.subarray(off + 8, off + 8 + clen);
      if (ctype === 0x4e4f534a && !json) json = JSON.parse(chunk.toString('utf8'));
      else if (ctype === 0x004e4942 && !glbBin) glbBin = chunk;
      off += 8 + clen;
    }
  } else {
    json = JSON.parse(data.toString('utf8').replace(/^\uFEFF/, ''));
  }
  const dir = path.dirname(path.resolve(file));
  const buffers = (json.buffers || []).map((b) => {
    if (b.uri === undefined) return glbBin;
    if (b.uri.startsWith('data:')) return decodeDataUri(b.uri);
    return fs.readFileSync(path.join(dir, decodeURIComponent(b.uri)));
  });
  return { json, buffers };
}

function strippedGlb({ json, buffers }) {
  const j = JSON.parse(JSON.stringify(json));
  delete j.images; delete j.textures; delete j.samplers; delete j.materials;
  for (const m of j.meshes || []) for (const p of m.primitives || []) delete p.material;
  const bases = [];
  let total = 0;
  for (const b of buffers) { bases.push(total); total += (b.length + 7) & ~7; }
  const bin = Buffer.alloc(total);
  buffers.forEach((b, i) => b.copy(bin, bases[i]));
  for (const v of j.bufferViews || []) { v.byteOffset = (v.byteOffset || 0) + bases[v.buffer]; v.buffer = 0; }
  j.buffers = total ? [{ byteLength: total }] : [];
  let jsonBuf = Buffer.from(JSON.stringify(j), 'utf8');
  jsonBuf = Buffer.concat([jsonBuf, Buffer.alloc((4 - (jsonBuf.length % 4)) % 4, 0x20)]);
  const parts = [Buffer.alloc(12), Buffer.alloc(8), jsonBuf];
  parts[1].writeUInt32LE(jsonBuf.length, 0); parts[1].writeUInt32LE(0x4e4f534a, 4);
  if (total) { const h = Buffer.alloc(8); h.writeUInt32LE(total, 0); h.writeUInt32LE(0x004e4942, 4); parts.push(h, bin); }
  const glb = Buffer.concat(parts);
  glb.writeUInt32LE(0x46546c67, 0); glb.writeUInt32LE(2, 4); glb.writeUInt32LE(glb.length, 8);
  return glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.length);
}

async function main() {
  const [model, out] = process.argv.slice(2);
  if (!model || !out) throw new Error('usage: node threejs_restmesh.mjs MODEL OUT.json');
  const gltf = await new GLTFLoader().parseAsync(strippedGlb(readAsset(model)), '');
  const scene = gltf.scene;
  scene.updateMatrixWorld(true);
  // The node's object is a Mesh (one primitive) or a Group of them (several).
  const nodeObj = new Map();
  scene.traverse((o) => {
    const as = gltf.parser.associations.get(o);
    if (as && as.nodes !== undefined && !nodeObj.has(as.nodes)) nodeObj.set(as.nodes, o);
  });
  const nodes = {};
  const v = new THREE.Vector3();
  for (const [n, o] of nodeObj) {
    let prims = o.isMesh ? [o] : o.children.filter((c) => c.isMesh && !gltf.parser.associations.get(c)?.nodes);
    if (prims.length === 0) continue;
    prims = prims.map((p) => [gltf.parser.associations.get(p)?.primitives ?? 0, p]).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
    const xs = [];
    for (const p of prims) {
      const count = p.geometry.attributes.position.count;
      for (let i = 0; i < count; i++) {
        p.getVertexPosition(i, v);
        v.applyMatrix4(p.matrixWorld);
        xs.push(v.x, v.y, v.z);
      }
    }
    nodes[n] = xs;
  }
  fs.writeFileSync(out, JSON.stringify({ three: THREE.REVISION, nodes }));
}

main().catch((e) => { console.error(`error: ${e && e.stack ? e.stack : e}`); process.exit(2); });
