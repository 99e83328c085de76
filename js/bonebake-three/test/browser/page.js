// Hooks for browser_test.go: each builds a scene with the package's
// BonebakeCrowd on the model the test serves under /model/, renders it and
// returns what the test compares with the Go reference.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { BonebakeCrowd, loadBPAT, loadGait, gaitURL } from '/src/three/index.js';

export const W = 240, H = 240;
export const renderer = new THREE.WebGLRenderer({ antialias: false });
renderer.setPixelRatio(1);
renderer.setSize(W, H);
renderer.shadowMap.enabled = true;
document.body.appendChild(renderer.domElement);

const model = new URLSearchParams(location.search).get('model');
const bpatURL = new URLSearchParams(location.search).get('bpat');
let gltf, bpat, gait;

// An orthographic camera looking down −z onto a W×H window of [x0,x1]×[y0,y1] metres.
export const frame = { x0: -1.2, x1: 1.2, y0: -0.3, y1: 2.1 };
export function frontCamera() {
  const cam = new THREE.OrthographicCamera(frame.x0, frame.x1, frame.y1, frame.y0, 0.1, 100);
  cam.position.set(0, 0, 10);
  return cam;
}

// pixels renders and returns the RGBA bytes, top row first.
export function pixels(scene, cam) {
  renderer.render(scene, cam);
  const gl = renderer.getContext();
  const px = new Uint8Array(W * H * 4);
  gl.readPixels(0, 0, W, H, gl.RGBA, gl.UNSIGNED_BYTE, px);
  const out = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) out.set(px.subarray((H - 1 - y) * W * 4, (H - y) * W * 4), y * W * 4);
  return out;
}

// box is the bounding box of the pixels brighter than the background.
export function box(px) {
  let x0 = W, y0 = H, x1 = -1, y1 = -1, n = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      if (px[i] + px[i + 1] + px[i + 2] > 24) { n++; x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    }
  }
  return { x0, y0, x1, y1, n };
}

export const materials = {
  basic: () => new THREE.MeshBasicMaterial({ color: 0xffffff }),
  lambert: () => new THREE.MeshLambertMaterial({ color: 0xffffff }),
  standard: () => new THREE.MeshStandardMaterial({ color: 0xffffff, roughness: 1, metalness: 0 }),
  physical: () => new THREE.MeshPhysicalMaterial({ color: 0xffffff, roughness: 1, clearcoat: 0.5 }),
  own: null, // the model's own materials, textures and normal maps included
};

window.bonebakeTest = {

  // poses plays each unit's [clip, phase] (rate 0: held) and then fades
  // fade.unit from its clip to fade.clip at fade.phase over fade.time seconds,
  // and returns, at fade.at, every unit's posed skinning matrices as the
  // crowd wrote them for the GPU.
  // With gpu, the pass runs on the GPU and the texture is read back.
  poses(units, fade, gpu) {
    const crowd = new BonebakeCrowd(gltf.scene, bpat, { count: units.length, gait, pass: gpu ? 'gpu' : 'cpu' });
    units.forEach(([clip, phase], i) => crowd.play(i, clip, { phase, rate: 0, time: 0 }));
    crowd.play(fade.unit, fade.clip, { phase: fade.phase, rate: 0, time: 1, fade: fade.time });
    let data;
    if (gpu) {
      crowd.update(fade.at, renderer);
      const t = crowd._gpu.target;
      data = new Float32Array(t.width * t.height * 4);
      renderer.readRenderTargetPixels(t, 0, 0, t.width, t.height, data);
    } else {
      crowd.update(fade.at);
      data = crowd.posed;
    }
    const fs = bpat.boneCount * 12;
    const posed = units.map((_, i) => Array.from(data.subarray(i * fs, (i + 1) * fs)));
    let ref;
    gltf.scene.traverse((o) => { if (!ref && o.isSkinnedMesh && o.skeleton.bones.length === bpat.boneCount) ref = o; });
    const inverseBinds = ref.skeleton.boneInverses.map((m) => Array.from(m.elements));
    crowd.dispose();
    return { posed, inverseBinds };
  },

  // silhouette draws one unit at [clip, phase] with a material kind, lit
  // from the front, and returns the bounding box of its pixels.
  silhouette(kind, clip, phase, gpu) {
    const scene = new THREE.Scene();
    scene.add(new THREE.AmbientLight(0xffffff, 1.5));
    const light = new THREE.DirectionalLight(0xffffff, 1.5);
    light.position.set(0, 1, 3);
    scene.add(light);
    const crowd = new BonebakeCrowd(gltf.scene, bpat, { count: 1, material: materials[kind] ?? undefined });
    crowd.play(0, clip, { phase, rate: 0 });
    crowd.update(0, gpu ? renderer : undefined);
    scene.add(crowd);
    const b = box(pixels(scene, frontCamera()));
    crowd.dispose();
    return { ...b, frame, W, H };
  },

  // shadow draws a unit standing on a plane lit from the side, seen from
  // above, with and without the unit casting shadows, and counts the plane's
  // dark pixels in each picture.
  shadow(clip, phase) {
    const scene = new THREE.Scene();
    scene.add(new THREE.AmbientLight(0xffffff, 0.3));
    const light = new THREE.DirectionalLight(0xffffff, 2.5);
    light.position.set(4, 3, 0);
    light.castShadow = true;
    Object.assign(light.shadow.camera, { left: -4, right: 4, top: 4, bottom: -4, near: 0.1, far: 20 });
    light.shadow.mapSize.set(512, 512);
    scene.add(light);
    const plane = new THREE.Mesh(new THREE.PlaneGeometry(8, 8), new THREE.MeshStandardMaterial({ color: 0xffffff }));
    plane.rotation.x = -Math.PI / 2;
    plane.receiveShadow = true;
    scene.add(plane);
    const crowd = new BonebakeCrowd(gltf.scene, bpat, { count: 1, material: materials.standard });
    crowd.play(0, clip, { phase, rate: 0 });
    crowd.update(0, renderer);
    scene.add(crowd);
    const cam = new THREE.OrthographicCamera(-4, 4, 4, -4, 0.1, 100);
    cam.position.set(0, 10, 0);
    cam.lookAt(0, 0, 0);
    const dark = (px) => {
      let n = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i] < 90) n++;
      return n;
    };
    const count = () => { crowd.meshes.forEach((m) => { m.castShadow = true; }); return dark(pixels(scene, cam)); };
    const lit = count();
    crowd.meshes.forEach((m) => { m.castShadow = false; });
    const unlit = dark(pixels(scene, cam));
    crowd.dispose();
    return { withShadow: lit, withoutShadow: unlit };
  },
};
// Loaded without a top-level await, so that the page's load event does not wait for the model.
(async () => {
  [gltf, bpat] = await Promise.all([new GLTFLoader().loadAsync(model), loadBPAT(bpatURL)]);
  gait = await loadGait(gaitURL(bpatURL), { bpat, optional: true });
  window.bonebakeReady = true;
})().catch((e) => { window.bonebakeError = String(e.stack || e); console.error(e); });

// goldenGPU runs the golden fades (testdata/playback/golden.json) through the
// GPU pass: a one-bone character whose palette frame f is a translation by f
// along x, bound at identity, so that a unit's posed x is
// Σ weight · (frame + (next − frame) · lerp) over its clips: the rows and
// weights the golden case expects, summed. One unit per probe, one pass per
// probe time.
import { bpatFile, T } from '/test/bpatfile.mjs';
import { parseBPAT, playhead } from '/src/core/index.js';

window.bonebakeTest.goldenGPU = (golden) => {
  const clips = Object.entries(golden.clips).sort((a, b) => a[1].row - b[1].row);
  let row = 0;
  const file = parseBPAT(bpatFile(1, clips.map(([name, c]) => {
    if (c.row !== row) throw new Error(`golden clip ${name} starts at row ${c.row}, not ${row}`);
    const frames = Array.from({ length: c.frames }, (_, f) => [T(row + f, 0, 0)]);
    row += c.frames;
    return { name, loops: c.loops, frames };
  })), { name: 'golden.bpat' });
  const root = new THREE.Group(), bone = new THREE.Bone();
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 1, 0], 3));
  geo.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(new Array(12).fill(0), 4));
  geo.setAttribute('skinWeight', new THREE.Float32BufferAttribute([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 4));
  const sm = new THREE.SkinnedMesh(geo, new THREE.MeshBasicMaterial());
  sm.bind(new THREE.Skeleton([bone], [new THREE.Matrix4()]), new THREE.Matrix4());
  root.add(bone, sm);
  const probes = golden.fades.flatMap((c) => c.probes.map((p) => ({ c, p })));
  const crowd = new BonebakeCrowd(root, file, { count: probes.length, pass: 'gpu' });
  const num = (v) => (v === 'NaN' ? NaN : v === 'Inf' ? Infinity : v === '-Inf' ? -Infinity : v);
  probes.forEach(({ c, p }, i) => {
    for (const s of c.switches) {
      if (s.t > p.t) continue;
      if (s.gait) crowd.clocks[i].setGait(s.t, playhead(golden.clips[s.gait]), s.share);
      else crowd.clocks[i].switchTo(s.t, playhead(golden.clips[s.to]), num(s.fade));
    }
    crowd._record(i);
  });
  const t = crowd._gpu.target, data = new Float32Array(t.width * t.height * 4);
  return probes.map(({ c, p }, i) => {
    crowd.update(p.t, renderer);
    renderer.readRenderTargetPixels(t, 0, 0, t.width, t.height, data);
    const want = [p.own, p.from, p.prior].reduce((x, [a, b, l, w]) => x + w * (a + (b - a) * l), 0);
    return { name: c.name, t: p.t, got: data[i * 12 + 3], want };
  });
};
