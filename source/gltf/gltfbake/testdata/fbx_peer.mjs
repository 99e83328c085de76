// three.js's reading of an FBX file, for gltfbake's tests: FBXLoader's scene,
// every bone's world matrix (row-major) with the clip named played by
// AnimationMixer at the times given, and every skinned mesh's vertices skinned
// at rest (SkinnedMesh.applyBoneTransform, then the mesh's world matrix), as
// JSON. Values are in the file's units and axes: FBXLoader converts neither
// (it keeps UnitScaleFactor in userData, and turns only Z-up scenes).
//
//   node fbx_peer.mjs FILE.fbx CLIP T0 T1 ...
import { readFileSync } from 'node:fs';
import { AnimationMixer, Vector3 } from 'three';
import { FBXLoader } from 'three/examples/jsm/loaders/FBXLoader.js';

const [file, clipName, ...times] = process.argv.slice(2);
const buf = readFileSync(file);
const scene = new FBXLoader().parse(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), '');
const bones = [];
const meshes = [];
scene.traverse((o) => {
	if (o.isBone) bones.push(o);
	if (o.isSkinnedMesh) meshes.push(o);
});
const rowMajor = (m) => {
	const e = m.elements; // column-major
	const out = [];
	for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) out.push(e[c * 4 + r]);
	return out;
};
scene.updateMatrixWorld(true);
const rest = [];
const v = new Vector3();
for (const mesh of meshes) {
	const pos = mesh.geometry.attributes.position;
	for (let i = 0; i < pos.count; i++) {
		v.fromBufferAttribute(pos, i);
		mesh.applyBoneTransform(i, v);
		v.applyMatrix4(mesh.matrixWorld);
		rest.push(v.x, v.y, v.z);
	}
}
const clip = scene.animations.find((a) => a.name === clipName);
const mixer = new AnimationMixer(scene);
if (clip) mixer.clipAction(clip).play();
const frames = [];
for (const t of times) {
	mixer.setTime(Number(t));
	scene.updateMatrixWorld(true);
	frames.push(bones.map((b) => rowMajor(b.matrixWorld)));
}
process.stdout.write(JSON.stringify({
	names: bones.map((b) => b.name),
	clips: scene.animations.map((a) => ({ name: a.name, duration: a.duration })),
	unit: scene.userData.unitScaleFactor ?? 1,
	rest,
	frames,
}));
