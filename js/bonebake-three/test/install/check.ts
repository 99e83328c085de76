// What a TypeScript project writes with bonebake-three: TestPackInstall
// type-checks it (tsc --noEmit, strict) in a fresh project that installed the
// packed package, three and @types/three. The lines marked @ts-expect-error
// must be refused: the declarations type the API rather than leave it `any`.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { BonebakeCrowd, loadBPAT, loadGait, DEFAULT_FADE } from 'bonebake-three';
import { parseBPAT, resolve, Clock, playhead, ValidationError, type BPAT, type Gait } from 'bonebake-three/core';

export async function crowdOf(url: string, scene: THREE.Scene, renderer: THREE.WebGLRenderer): Promise<BonebakeCrowd> {
  const [gltf, bpat] = await Promise.all([new GLTFLoader().loadAsync(url), loadBPAT('soldier.bpat')]);
  const gait: Gait | null = await loadGait('soldier.gait.json', { bpat });
  const crowd = new BonebakeCrowd(gltf.scene, bpat, { count: 10, gait, material: (m) => m });
  crowd.setTransform(0, 1, 0, 2, Math.PI / 2, 1.1);
  crowd.setTint(0, new THREE.Color(0xff0000));
  crowd.play(0, 'Walk', { phase: 0.25, speed: 1.7, fade: DEFAULT_FADE });
  const hand: THREE.Matrix4 = crowd.socketMatrix(0, 0, 1.5);
  hand.decompose(new THREE.Vector3(), new THREE.Quaternion(), new THREE.Vector3());
  const meshes: THREE.InstancedMesh[] = crowd.meshes;
  meshes.forEach((m) => { m.castShadow = true; });
  scene.add(crowd);
  crowd.update(1.5, renderer);
  // @ts-expect-error a phase is a number
  crowd.play(0, 'Walk', { phase: 'half' });
  // @ts-expect-error setTransform takes coordinates
  crowd.setTransform(0, new THREE.Vector3());
  return crowd;
}

export function core(bytes: ArrayBuffer): number {
  try {
    const f: BPAT = parseBPAT(bytes, { name: 'a.bpat', lenient: true });
    const [frame, next, lerp] = resolve(0.5, f.clips[0].frameCount, f.clips[0].loops);
    const c = new Clock(playhead({ phase: 0.5, rate: 1, frames: 8, loops: true }), 0);
    // @ts-expect-error a clip's name is a string
    const n: number = f.clips[0].name;
    return frame + next + lerp + c.at(1)[0] + n;
  } catch (e) {
    if (e instanceof ValidationError) return e.problems.length;
    throw e;
  }
}
