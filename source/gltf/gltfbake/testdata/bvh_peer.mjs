// three.js's reading of a BVH file, for gltfbake's tests: BVHLoader's skeleton
// played by AnimationMixer at the times given, every joint's world matrix
// (row-major) printed as JSON. End sites, which BVHLoader makes bones of, are
// left out: they are not joints.
//
//   node bvh_peer.mjs FILE.bvh T0 T1 ...
import { readFileSync } from 'node:fs';
import { AnimationMixer } from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';

const [file, ...times] = process.argv.slice(2);
const { skeleton, clip } = new BVHLoader().parse(readFileSync(file, 'utf8'));
const root = skeleton.bones[0];
const mixer = new AnimationMixer(root);
mixer.clipAction(clip).play();
const joints = skeleton.bones.filter((b) => b.name !== 'ENDSITE');
const frames = [];
for (const t of times) {
	mixer.setTime(Number(t));
	root.updateMatrixWorld(true);
	frames.push(joints.map((b) => {
		const e = b.matrixWorld.elements; // column-major
		const m = [];
		for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) m.push(e[c * 4 + r]);
		return m;
	}));
}
process.stdout.write(JSON.stringify({ names: joints.map((b) => b.name), duration: clip.duration, frames }));
