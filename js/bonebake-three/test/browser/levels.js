// Hooks for browser_levels_test.go: levels of detail, culling, props on
// sockets and reduced rigs, on models the test bakes and serves.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { BonebakeCrowd, loadBPAT, loadBPSM } from '/src/three/index.js';
import { renderer, pixels, box, frontCamera, materials, W, H } from './page.js';

const models = {};

function litScene() {
  const scene = new THREE.Scene();
  scene.add(new THREE.AmbientLight(0xffffff, 1.5));
  const light = new THREE.DirectionalLight(0xffffff, 1.5);
  light.position.set(0, 1, 3);
  scene.add(light);
  return scene;
}

// centroid is the mean pixel centre of the pixels brighter than the background (y down).
function centroid(px) {
  let sx = 0, sy = 0, n = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      if (px[i] + px[i + 1] + px[i + 2] > 24) { sx += x + 0.5; sy += y + 0.5; n++; }
    }
  }
  return { x: sx / n, y: sy / n, n };
}

const allMeshes = (crowd) => crowd.levels.flatMap((l) => l.meshes);

Object.assign(window.bonebakeTest, {
  // load reads a model (glTF, BPAT and, when given, its snapshot) under a name.
  async load(name, glb, bpatURL, bpsmURL) {
    const [gltf, bpat, snapshot] = await Promise.all([
      new GLTFLoader().loadAsync(glb), loadBPAT(bpatURL), bpsmURL ? loadBPSM(bpsmURL) : null,
    ]);
    models[name] = { gltf, bpat, snapshot };
    return true;
  },

  // levels plays clip on one unit from phase at rate (per second) and, at
  // time, draws it at each level in turn: the distance bands are moved
  // across the camera's 10 m (full, then reduced, then the snapshot), the
  // unit's clock left alone. Each level's pixel box, the level the crowd
  // reports, the phase it shows and the snapshot frame it drew.
  levels(name, clip, phase, rate, time) {
    const m = models[name];
    const scene = litScene();
    const crowd = new BonebakeCrowd(m.gltf.scene, m.bpat, { count: 1, snapshot: m.snapshot, material: materials.standard });
    crowd.play(0, clip, { phase, rate, time: 0 });
    scene.add(crowd);
    const cam = frontCamera();
    const out = [];
    for (const lod of [{ reduced: 100, snapshot: 200 }, { reduced: 1, snapshot: 100 }, { reduced: 1, snapshot: 2 }]) {
      crowd.lod = lod;
      crowd.update(time, renderer, cam);
      const level = crowd.levelOf(0);
      out.push({ level, phase: crowd.phaseOf(0, time), frame: crowd.levels[2].frames.array[0], ...box(pixels(scene, cam)) });
    }
    crowd.dispose();
    return out;
  },

  // culling puts one unit 5 m in front of a camera and one 5 m behind it and
  // draws them, culled (update given the camera) and not: the instances each
  // level drew, the triangles the renderer drew, one unit's triangles, and
  // the pixels covered.
  culling(name) {
    const m = models[name];
    const scene = litScene();
    const crowd = new BonebakeCrowd(m.gltf.scene, m.bpat, { count: 2, material: materials.standard });
    crowd.setTransform(0, 0, 0, -5);
    crowd.setTransform(1, 0, 0, 5);
    crowd.play(0, 'Idle');
    crowd.play(1, 'Idle');
    scene.add(crowd);
    const cam = new THREE.PerspectiveCamera(60, 1, 0.1, 100);
    cam.position.set(0, 1, 0);
    cam.lookAt(0, 1, -1);
    const perUnit = crowd.meshes.reduce((s, x) => s + (x.geometry.index ? x.geometry.index.count : x.geometry.getAttribute('position').count) / 3, 0);
    const draw = (camera) => {
      crowd.update(0, renderer, camera);
      const b = box(pixels(scene, cam));
      return { instances: crowd.levels.map((l) => l.count), triangles: renderer.info.render.triangles, pixels: b.n, levels: [crowd.levelOf(0), crowd.levelOf(1)] };
    };
    const culled = draw(cam), all = draw(undefined);
    crowd.dispose();
    return { culled, all, perUnit };
  },

  // socket draws, for each offset, a cube of the given size at that offset in
  // the socket's space, attached to one unit placed at (x, 0, z) turned by
  // heading and playing clip at phase; the unit itself hidden. The mean
  // pixel of each cube.
  socket(name, socket, clip, phase, x, z, heading, unscaled, size, offsets) {
    const m = models[name];
    const scene = new THREE.Scene();
    const crowd = new BonebakeCrowd(m.gltf.scene, m.bpat, { count: 1 });
    crowd.setTransform(0, x, 0, z, heading);
    crowd.play(0, clip, { phase, rate: 0 });
    scene.add(crowd);
    const props = offsets.map((o) => crowd.attachProp(socket, new THREE.Mesh(
      new THREE.BoxGeometry(size, size, size).translate(o[0], o[1], o[2]), new THREE.MeshBasicMaterial({ color: 0xffffff }),
    ), { unscaled }));
    const cam = frontCamera();
    const out = props.map((meshes) => {
      crowd.update(0, renderer, cam);
      for (const mesh of allMeshes(crowd)) mesh.visible = meshes.includes(mesh) && mesh.count > 0;
      return centroid(pixels(scene, cam));
    });
    crowd.dispose();
    return out;
  },

  // silhouetteOf draws one unit of a loaded model at [clip, phase], posed
  // on the GPU, and returns its pixel box; opts are the crowd's (bones).
  silhouetteOf(name, clip, phase, opts = {}) {
    const m = models[name];
    const scene = litScene();
    const crowd = new BonebakeCrowd(m.gltf.scene, m.bpat, { count: 1, material: materials.standard, ...opts });
    crowd.play(0, clip, { phase, rate: 0 });
    crowd.update(0, renderer);
    scene.add(crowd);
    const b = box(pixels(scene, frontCamera()));
    crowd.dispose();
    return b;
  },
});
window.bonebakeLevelsReady = true;
