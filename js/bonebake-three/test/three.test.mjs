// The three.js binding without a GPU: the shaders it builds, the materials it
// copies, the meshes and joints it takes, the matrices it writes. It skips
// when three is not installed (npm ci in the package, or go test's cache).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bpatFile, T } from './bpatfile.mjs';

let THREE, bb;
try {
  THREE = await import('three');
  bb = await import('../src/three/index.js');
} catch (e) {
  THREE = null;
}
const skip = !THREE && 'three is not installed';

test('three is the release go test installed', { skip: skip || (!process.env.BONEBAKE_THREE_VERSION && 'BONEBAKE_THREE_VERSION is not set') }, () => {
  assert.equal(THREE.REVISION, process.env.BONEBAKE_THREE_VERSION.split('.')[1]);
});

test('injectSkinning replaces three.js\'s skinning chunks in every material kind', { skip }, () => {
  for (const kind of ['basic', 'lambert', 'phong', 'standard', 'physical', 'toon', 'depth', 'distance', 'normal']) {
    // three before r180 names the distance shader distanceRGBA.
    const lib = THREE.ShaderLib[kind] ?? THREE.ShaderLib[`${kind}RGBA`];
    const vs = bb.injectSkinning(lib.vertexShader);
    assert.ok(vs.includes('mat4 bonebakeSkin4 = bonebakeSkinMatrix(int(bonebakeUnit));'), kind);
    assert.ok(!vs.includes('#include <skinning_vertex>') && !vs.includes('#include <skinbase_vertex>'), kind);
    assert.ok(vs.indexOf('bonebakeSkinMatrix(int unit)') < vs.indexOf('void main()'), kind);
  }
  assert.throws(() => bb.injectSkinning('void main() {}'), /no #include <skinning_vertex>: bonebake cannot draw with it/);
});

test('skinMaterial keeps the user\'s onBeforeCompile and its own program key', { skip }, () => {
  const m = new THREE.MeshStandardMaterial({ color: 0xff0000 });
  let called = 0;
  m.onBeforeCompile = (shader) => { called++; shader.vertexShader = '// mine\n' + shader.vertexShader; };
  const uniforms = { bonebakeSkin: { value: null } };
  const s = bb.skinMaterial(m, uniforms);
  assert.notEqual(s, m);
  assert.equal(s.color.getHex(), 0xff0000);
  const shader = { vertexShader: THREE.ShaderLib.standard.vertexShader, fragmentShader: '', uniforms: {} };
  s.onBeforeCompile(shader, null);
  assert.equal(called, 1);
  assert.ok(shader.vertexShader.startsWith('// mine\n'));
  assert.ok(shader.vertexShader.includes('bonebakeSkinMatrix'));
  assert.equal(shader.uniforms.bonebakeSkin, uniforms.bonebakeSkin);
  assert.match(s.customProgramCacheKey(), /^bonebake-skin:/);
});

// character builds a two-joint character: a mesh on both joints, a second
// mesh on joint 1 alone (another skin on the same joints), and a mesh on a
// joint of another skeleton.
function character() {
  const root = new THREE.Group();
  const j0 = new THREE.Bone(), j1 = new THREE.Bone(), other = new THREE.Bone();
  j0.add(j1);
  root.add(j0, other);
  const ib0 = new THREE.Matrix4(), ib1 = new THREE.Matrix4().makeTranslation(0, -1, 0);
  const geo = (joints) => {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 0, 1, 0, 1, 1, 0], 3));
    g.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(joints, 4));
    g.setAttribute('skinWeight', new THREE.Float32BufferAttribute([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 4));
    return g;
  };
  const body = new THREE.SkinnedMesh(geo([0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]), new THREE.MeshStandardMaterial());
  body.bind(new THREE.Skeleton([j0, j1], [ib0, ib1]), new THREE.Matrix4()); // a bind matrix given: the inverses are kept
  const hat = new THREE.SkinnedMesh(geo([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), new THREE.MeshLambertMaterial());
  hat.bind(new THREE.Skeleton([j1], [ib1.clone()]), new THREE.Matrix4());
  const prop = new THREE.SkinnedMesh(geo([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), new THREE.MeshBasicMaterial());
  prop.bind(new THREE.Skeleton([other], [new THREE.Matrix4()]), new THREE.Matrix4());
  root.add(body, hat, prop);
  return root;
}

const file = async () => (await import('../src/core/index.js')).parseBPAT(bpatFile(2, [
  { name: 'walk', loops: true, frames: [[T(0, 0, 0), T(0, 1, 0)], [T(2, 0, 0), T(2, 1, 0)]] },
  { name: 'die', loops: false, frames: [[T(0, 0, 5), T(0, 1, 5)]] },
]), { name: 'two.bpat' });

test('a crowd takes the character\'s meshes, renumbers another skin\'s joints, and writes each unit\'s matrices', { skip }, async () => {
  const f = await file();
  const crowd = new bb.BonebakeCrowd(character(), f, { count: 3 });
  assert.equal(crowd.meshes.length, 2); // the prop on another skeleton is left out
  assert.equal(crowd.meshes[1].geometry.getAttribute('skinIndex').getX(0), 1); // the hat's joint 0 is the palette's 1
  assert.ok(crowd.meshes.every((m) => m.customDepthMaterial && m.customDistanceMaterial));
  crowd.play(0, 'walk', { phase: 0.25, rate: 0 }); // pos 0.5: x = 1
  crowd.play(1, 'die', { rate: 0 });
  crowd.play(2, 'walk', { phase: 0, rate: 0.5 });
  crowd.play(2, 'die', { time: 1, fade: 1 }); // at t = 1.5: half faded
  crowd.update(1.5);
  const fs = 2 * 12;
  const u = (i, b) => Array.from(crowd.posed.subarray(i * fs + b * 12, i * fs + b * 12 + 12));
  assert.deepEqual(u(0, 1), [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0]); // T(1, 1, 0) · T(0, −1, 0)
  assert.deepEqual(u(1, 0), [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5]);
  // Unit 2: walk at phase 0.5·1.5 = 0.75 (pos 1.5: x = 2 + (0 − 2)·0.5 = 1), half of it, and half of die (z = 5).
  assert.deepEqual(u(2, 0), [1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 2.5]);
  crowd.setTransform(1, 3, 0, -2, Math.PI / 2, 2);
  const m = new THREE.Matrix4().fromArray(crowd.instanceMatrix.array, 16);
  const p = new THREE.Vector3(0, 0, 1).applyMatrix4(m); // +z turns toward +x, scaled 2
  assert.ok(p.distanceTo(new THREE.Vector3(5, 0, -2)) < 1e-6, `${p.toArray()}`);
  assert.throws(() => crowd.play(0, 'fly'), /no clip "fly" in two\.bpat \(it has walk, die\)/);
});

test('a model whose skins do not have the file\'s joints is refused, naming both', { skip }, async () => {
  const f = await file();
  const g = new THREE.Group();
  assert.throws(() => new bb.BonebakeCrowd(g, f), /no skinned mesh .* has the 2 joints of two\.bpat \(its skins have none\): give the palette's bone names/);
});

test('socketBind inverts a rotated, scaled bind as three.js does', { skip }, () => {
  const ib = new THREE.Matrix4().compose(new THREE.Vector3(0.3, -2, 5), new THREE.Quaternion().setFromEuler(new THREE.Euler(0.4, -1.1, 2.3)), new THREE.Vector3(0.01, 0.01, 0.01));
  const inverse = [...new THREE.Matrix4().elements, ...ib.elements];
  const want = ib.clone().invert().multiply(new THREE.Matrix4().makeTranslation(4, -5, 6));
  const got = bb.socketBind({ sockets: [{ name: 's', anchor: 1, offset: [4, -5, 6] }] }, inverse, 0);
  got.forEach((x, i) => assert.ok(Math.abs(x - want.elements[i]) < 1e-9 * Math.max(1, Math.abs(want.elements[i])), `element ${i}: ${x} against ${want.elements[i]}`));
});

// A camera at the origin looking down −z, 90° wide.
function camera() {
  const c = new THREE.PerspectiveCamera(90, 1, 0.1, 1000);
  c.updateMatrixWorld();
  return c;
}

test('given the camera, update culls the units it cannot see and sorts the rest into levels by distance', { skip }, async () => {
  const f = await file();
  const crowd = new bb.BonebakeCrowd(character(), f, { count: 5, pass: 'cpu' });
  // In front at 10 m (full), behind at 10 m, in front at 50 m (reduced), at
  // 200 m (the snapshot band; no snapshot: reduced), and far to the side.
  [[0, 0, -10], [0, 0, 10], [1, 0, -50], [0, 0, -200], [300, 0, -10]].forEach(([x, y, z], i) => {
    crowd.setTransform(i, x, y, z);
    crowd.setTint(i, i / 10, 0, 0);
    crowd.play(i, 'walk', { rate: 0 });
  });
  crowd.update(0);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => crowd.levelOf(i)), [0, 0, 0, 0, 0]); // no camera: every unit, full
  assert.equal(crowd.levels[0].count, 5);
  crowd.update(0, undefined, camera());
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => crowd.levelOf(i)), [bb.LEVEL_FULL, -1, bb.LEVEL_REDUCED, bb.LEVEL_REDUCED, -1]);
  const [full, reduced, snap] = crowd.levels;
  assert.deepEqual([full.count, reduced.count, snap.count], [1, 2, 0]);
  assert.deepEqual(Array.from(reduced.units.array.subarray(0, 2)), [2, 3]);
  assert.deepEqual(Array.from(reduced.matrices.array.subarray(12, 15)), [1, 0, -50]); // unit 2's placement, first in the list
  assert.ok(Math.abs(reduced.colors.array[3] - 0.3) < 1e-6); // unit 3's tint, second
  assert.ok(full.meshes.every((m) => m.count === 1 && m.visible) && snap.meshes.every((m) => !m.visible));
  assert.equal(full.meshes.length, 2);
  assert.equal(reduced.meshes.length, 2);
  // Hysteresis: unit 2 comes back to 28 m and stays reduced; at 26 m it is full.
  crowd.setTransform(2, 0, 0, -28);
  crowd.update(0, undefined, camera());
  assert.equal(crowd.levelOf(2), bb.LEVEL_REDUCED);
  crowd.setTransform(2, 0, 0, -26);
  crowd.update(0, undefined, camera());
  assert.equal(crowd.levelOf(2), bb.LEVEL_FULL);
  crowd.lod = null; // every unit full; still culled
  crowd.update(0, undefined, camera());
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => crowd.levelOf(i)), [0, -1, 0, 0, -1]);
});

// reducedCharacter: a skin of four joints, j0 → j1 → j2 and j0 → j3, where no
// vertex is weighted to j3 and one vertex is half on j1, half on j2.
function reducedCharacter() {
  const root = new THREE.Group();
  const j = [0, 1, 2, 3].map((k) => Object.assign(new THREE.Bone(), { name: `j${k}` }));
  j[0].add(j[1], j[3]);
  j[1].add(j[2]);
  root.add(j[0]);
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 0, 1, 0, 1, 1, 0], 3));
  g.setAttribute('skinIndex', new THREE.Uint16BufferAttribute([0, 3, 0, 0, 1, 0, 0, 0, 2, 1, 0, 0], 4));
  g.setAttribute('skinWeight', new THREE.Float32BufferAttribute([1, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0], 4));
  const ib = [0, 1, 2, 3].map((k) => new THREE.Matrix4().makeTranslation(0, -k, 0));
  const body = new THREE.SkinnedMesh(g, new THREE.MeshStandardMaterial());
  body.bind(new THREE.Skeleton(j, ib), new THREE.Matrix4());
  root.add(body);
  return root;
}

test('a rig bonebake reduced: the unweighted joints dropped, or the palette\'s bones by name, a merged joint on its parent', { skip }, async () => {
  const { parseBPAT } = await import('../src/core/index.js');
  const bones = (n) => parseBPAT(bpatFile(n, [{ name: 'idle', loops: true, frames: [Array.from({ length: n }, () => T(0, 0, 0))] }]), { name: `${n}.bpat` });
  // Three bones: j3, weighted by no vertex, was dropped.
  let crowd = new bb.BonebakeCrowd(reducedCharacter(), bones(3));
  assert.deepEqual(crowd.bones.map((b) => b.name), ['j0', 'j1', 'j2']);
  assert.deepEqual(Array.from(crowd.meshes[0].geometry.getAttribute('skinIndex').array.slice(8, 10)), [2, 1]);
  assert.equal(crowd.skin.skin[2 * 12 + 7], -2); // j2's inverse bind: y − 2
  // Two bones: which of three weighted joints was merged cannot be told from the mesh.
  assert.throws(() => new bb.BonebakeCrowd(reducedCharacter(), bones(2)), /has the 2 joints of 2\.bpat .*3 of the largest are weighted.*give the palette's bone names/);
  // Names as bake prints them: GLTFLoader took the ':' out of "j:1".
  crowd = new bb.BonebakeCrowd(reducedCharacter(), bones(2), { bones: ['j0', 'j:1'] });
  assert.deepEqual(crowd.bones.map((b) => b.name), ['j0', 'j1']);
  assert.deepEqual(Array.from(crowd.meshes[0].geometry.getAttribute('skinIndex').array.slice(0, 12)), [0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0]);
  // The reduced level sums the vertex's two influences, now on one bone.
  assert.deepEqual(Array.from(crowd.levels[1].meshes[0].geometry.getAttribute('skinWeight').array.slice(8, 12)), [1, 0, 0, 0]);
  assert.throws(() => new bb.BonebakeCrowd(reducedCharacter(), bones(2), { bones: ['j0', 'hand'] }), /bone "hand" is no joint/);
  assert.throws(() => new bb.BonebakeCrowd(reducedCharacter(), bones(2), { bones: ['j0'] }), /1 bone names for the 2 bones of 2\.bpat/);
});

test('attachProp (not three.js\'s Object3D.attach, which the crowd keeps) puts a prop on each level, a group\'s meshes placed as in the group, and widens the reach', { skip }, async () => {
  const f = await file();
  // A socket on joint 1, 2 m up (every frame's socket matrix a translation).
  f.sockets = [{ name: 'hand', anchor: 1, offset: [0, 1, 0] }];
  f.socketData = new Float32Array(f.frameTotal * 12);
  for (let k = 0; k < f.frameTotal; k++) f.socketData.set([1, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1, 0], 12 * k);
  f.socketIndex = (n) => (n === 'hand' ? 0 : -1);
  const crowd = new bb.BonebakeCrowd(character(), f, { count: 2, pass: 'cpu' });
  const reach = crowd.reach;
  const box = new THREE.Mesh(new THREE.BoxGeometry(0.2, 0.2, 0.2), new THREE.MeshStandardMaterial());
  const sword = new THREE.Group();
  const blade = new THREE.Mesh(new THREE.BoxGeometry(0.1, 10, 0.1), new THREE.MeshBasicMaterial());
  blade.position.set(0, 5, 0);
  sword.add(blade, new THREE.Mesh(new THREE.SphereGeometry(0.1), new THREE.MeshBasicMaterial()));
  assert.equal(crowd.attachProp('hand', box).length, 2); // full and reduced: no snapshot level without a snapshot
  const parts = crowd.attachProp('hand', sword, { levels: [bb.LEVEL_FULL] });
  assert.equal(parts.length, 2);
  parts[0].geometry.computeBoundingBox();
  assert.ok(Math.abs(parts[0].geometry.boundingBox.max.y - 10) < 1e-6, 'the blade keeps its place in the group');
  assert.ok(parts.every((m) => m.instanceMatrix === crowd.levels[0].matrices && !m.instanceColor));
  assert.ok(crowd.reach >= 2 + 10 - 1e-6 && reach < 7, `reach ${reach}, then ${crowd.reach}`); // the socket's 2 m plus the blade's 10
  assert.match(crowd.props[0].material.customProgramCacheKey(), /^bonebake-socket:/);
  crowd.update(0, undefined, camera());
  assert.ok(crowd.props.every((m) => m.count === crowd.levels[m.userData.bonebakeLevel].count));
  assert.throws(() => crowd.attachProp('foot', box), /no socket "foot" in two\.bpat \(it has hand\)/);
  assert.equal(crowd.attach, THREE.Object3D.prototype.attach);
});

test('attach with a three.js object alone is Object3D\'s: a child kept where it was in the world', { skip }, async () => {
  const crowd = new bb.BonebakeCrowd(character(), await file(), { count: 1 });
  crowd.position.set(1, 2, 3);
  crowd.updateMatrixWorld();
  const o = new THREE.Object3D();
  o.position.set(5, 0, 0);
  assert.equal(crowd.attach(o), crowd);
  assert.equal(o.parent, crowd);
  assert.deepEqual(o.position.toArray(), [4, -2, -3]);
});
