// The three.js binding: a crowd of units of one baked character drawn with
// one InstancedMesh per mesh of the character, skinned in the vertex stage of
// the user's own materials (their onBeforeCompile, lights, fog, textures and
// shadows kept). Each frame, update(time) writes every unit's posed skinning
// matrices (its clips' palette frames lerped, its fade resolved, times the
// inverse bind: core/pose.js) into one float DataTexture, and each vertex
// reads three texels per influence (core/glsl.js).

import {
  BufferAttribute, Group, InstancedMesh, InstancedBufferAttribute, DataTexture, RGBAFormat, FloatType, NearestFilter,
  Matrix4, Quaternion, Vector3, Color, Sphere, MeshDepthMaterial, MeshDistanceMaterial, RGBADepthPacking,
  Mesh, Scene, OrthographicCamera, BufferGeometry, Float32BufferAttribute, RawShaderMaterial, GLSL3, WebGLRenderTarget,
} from 'three';
import {
  Clock, playhead, clipRate, speedBlend, SkinPalette, socketAt,
  SKIN_PARS, SKIN_BASE, SKIN_NORMAL, SKIN_VERTEX, POSE_PASS_VERTEX, POSE_PASS_FRAGMENT, RECORD_FLOATS, writeRecord,
} from '../core/index.js';

export * from '../core/index.js';

/** The fade a clip change gets when play() is given none: docs/runtime.md §6.1's FadeLocomotion. */
export const DEFAULT_FADE = 0.3;

/**
 * skinMaterial returns a copy of material that skins a BonebakeCrowd's
 * instances from uniforms (bonebakeSkin, bonebakeBones, bonebakePerRow),
 * keeping the material's own onBeforeCompile.
 */
export function skinMaterial(material, uniforms) {
  const m = material.clone();
  const own = material.onBeforeCompile;
  const ownKey = material.customProgramCacheKey.call(material);
  m.onBeforeCompile = function (shader, renderer) {
    own.call(this, shader, renderer);
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = injectSkinning(shader.vertexShader);
  };
  m.customProgramCacheKey = () => `bonebake:${ownKey}`;
  return m;
}

/** injectSkinning puts the skinning chunks into a three.js vertex shader in place of three's own. */
export function injectSkinning(vs) {
  const main = vs.indexOf('void main() {');
  if (main < 0 || !vs.includes('#include <skinning_vertex>')) {
    throw new Error('bonebake: the vertex shader has no main() or no #include <skinning_vertex>: it cannot be skinned');
  }
  vs = vs.slice(0, main) + SKIN_PARS + 'void main() {\n' + SKIN_BASE + vs.slice(main + 'void main() {'.length);
  return vs.replace('#include <skinbase_vertex>', '')
    .replace('#include <skinnormal_vertex>', SKIN_NORMAL)
    .replace('#include <skinning_vertex>', SKIN_VERTEX);
}

const _m = new Matrix4(), _q = new Quaternion(), _p = new Vector3(), _s = new Vector3(), _y = new Vector3(0, 1, 0);

/**
 * BonebakeCrowd draws `count` units of the character in `source` (the glTF
 * scene GLTFLoader gives, or any object holding its SkinnedMeshes) posed by
 * the BPAT file `bpat` (parseBPAT / loadBPAT).
 */
export class BonebakeCrowd extends Group {
  /**
   * @param {import('three').Object3D} source
   * @param {import('../core/bpat.js').BPAT} bpat
   * @param {object} [opts]
   * @param {number} [opts.count=1]
   * @param {object} [opts.gait] the sidecar (parseGait / loadGait with { bpat })
   * @param {(m: import('three').Material, mesh: import('three').SkinnedMesh) => import('three').Material} [opts.material]
   *   the material each mesh draws with (default: the mesh's own)
   * @param {number} [opts.maxTextureWidth=2048]
   */
  constructor(source, bpat, opts = {}) {
    super();
    this.name = 'BonebakeCrowd';
    this.bpat = bpat;
    this.gait = opts.gait ?? null;
    this.count = opts.count ?? 1;
    const skinned = [];
    source.updateMatrixWorld(true);
    source.traverse((o) => { if (o.isSkinnedMesh) skinned.push(o); });
    const ref = skinned.find((m) => m.skeleton.bones.length === bpat.boneCount);
    if (!ref) {
      throw new Error(`bonebake: no skinned mesh in ${source.name || 'the source'} has the ${bpat.boneCount} joints of ${bpat.name || 'the BPAT file'} (its meshes have ${skinned.map((m) => m.skeleton.bones.length).join(', ') || 'none'}): bake this model, and a model of over 64 joints with the mesh bonebake writes`);
    }
    const bones = ref.skeleton.bones;
    const inverse = new Float32Array(bpat.boneCount * 16);
    ref.skeleton.boneInverses.forEach((m, j) => inverse.set(m.elements, 16 * j));
    this.skin = new SkinPalette(bpat, inverse);

    // The posed texture: perRow units a row, each bones·3 texels, so a unit's
    // matrices are contiguous floats.
    const unitTexels = bpat.boneCount * 3;
    const maxWidth = opts.maxTextureWidth ?? 2048;
    this.perRow = Math.max(1, Math.min(this.count, Math.floor(maxWidth / unitTexels)));
    const rows = Math.ceil(this.count / this.perRow);
    this.textureWidth = this.perRow * unitTexels;
    this.textureHeight = rows;
    // The CPU pass's texture and its floats (posed) are made on its first use:
    // a crowd posed on the GPU never holds them.
    this.posed = null;
    this.texture = null;
    this.uniforms = {
      bonebakeSkin: { value: null },
      bonebakeBones: { value: bpat.boneCount },
      bonebakePerRow: { value: this.perRow },
    };

    const matrices = new InstancedBufferAttribute(new Float32Array(this.count * 16), 16);
    const colors = new InstancedBufferAttribute(new Float32Array(this.count * 3).fill(1), 3);
    this.meshes = [];
    for (const sm of skinned) {
      const geometry = geometryFor(sm, ref, bones);
      if (!geometry) continue; // a skin on other joints: not this character's
      const wrap = (m) => skinMaterial(opts.material ? opts.material(m, sm) : m, this.uniforms);
      const material = Array.isArray(sm.material) ? sm.material.map(wrap) : wrap(sm.material);
      const mesh = new InstancedMesh(geometry, material, this.count);
      mesh.name = sm.name;
      mesh.instanceMatrix = matrices;
      mesh.instanceColor = colors;
      mesh.castShadow = sm.castShadow;
      mesh.receiveShadow = sm.receiveShadow;
      mesh.customDepthMaterial = skinMaterial(new MeshDepthMaterial({ depthPacking: RGBADepthPacking }), this.uniforms);
      mesh.customDistanceMaterial = skinMaterial(new MeshDistanceMaterial(), this.uniforms);
      this.meshes.push(mesh);
      this.add(mesh);
    }
    this.instanceMatrix = matrices;
    this.instanceColor = colors;
    // How far a posed unit reaches from its origin: the farthest bone origin
    // over every frame, plus the rest mesh's reach from its nearest bone, at
    // most the mesh's radius.
    let reach = 0;
    const P = bpat.palette;
    for (let i = 0; i < P.length; i += 16) reach = Math.max(reach, Math.hypot(P[i + 3], P[i + 7], P[i + 11]));
    const radii = this.meshes.map((m) => { m.geometry.computeBoundingSphere(); return m.geometry.boundingSphere.radius; });
    this.reach = reach + Math.max(0, ...radii) * 0.5;

    this.clocks = Array.from({ length: this.count }, () => new Clock());
    this.clips = new Int32Array(this.count).fill(-1);
    this._pose = new Float64Array(12);
    this._socket = new Float64Array(12);
    this._scale = new Float32Array(this.count).fill(1);
    this._pos = new Float32Array(this.count * 3);
    this._boundsDirty = true;
    for (let i = 0; i < this.count; i++) this.setTransform(i, 0, 0, 0, 0, 1);
    this._gpu = opts.pass === 'cpu' ? null : gpuPass(this, maxWidth);
  }

  // _record copies unit i's clock into the records the GPU pass reads.
  _record(i) {
    if (!this._gpu) return;
    writeRecord(this.clocks[i], this._gpu.records, i * RECORD_FLOATS);
    this._gpu.recordTexture.needsUpdate = true;
  }

  /** Places unit i at (x, y, z), turned by heading radians about +y (from +z toward +x), scaled. */
  setTransform(i, x, y, z, heading = 0, scale = 1) {
    _q.setFromAxisAngle(_y, heading);
    _m.compose(_p.set(x, y, z), _q, _s.set(scale, scale, scale));
    _m.toArray(this.instanceMatrix.array, 16 * i);
    this.instanceMatrix.needsUpdate = true;
    this._pos[3 * i] = x; this._pos[3 * i + 1] = y; this._pos[3 * i + 2] = z;
    this._scale[i] = scale;
    this._boundsDirty = true;
  }

  /** Tints unit i (a three.js Color, or r, g, b): multiplies its material's colour. */
  setTint(i, r, g, b) {
    const c = r instanceof Color ? r : new Color(r, g, b);
    c.toArray(this.instanceColor.array, 3 * i);
    this.instanceColor.needsUpdate = true;
  }

  /** The clip index of a name or an index; it throws for a clip the file lacks. */
  clipIndex(clip) {
    const k = typeof clip === 'number' ? clip : this.bpat.clipIndex(clip);
    if (!(k >= 0 && k < this.bpat.clips.length)) throw new Error(`bonebake: no clip ${JSON.stringify(clip)} in ${this.bpat.name || 'the BPAT file'} (it has ${this.bpat.clips.map((c) => c.name).join(', ')})`);
    return k;
  }

  /**
   * play starts clip (a name or an index) on unit i at time `time` (the clock
   * update() is given). Options: phase (default: a looping clip keeps the
   * phase the unit shows, a one-shot starts at 0: docs/runtime.md §6), rate
   * (phase per second; default from speed and the gait sidecar, else one pass
   * per clip duration), speed (m/s, for a clip with a ground speed), fade
   * (seconds; default DEFAULT_FADE, none for a unit's first clip), repeat (a
   * one-shot wraps instead of holding its end).
   */
  play(i, clip, { time = 0, phase, rate, speed = 0, fade, repeat = false } = {}) {
    const k = this.clipIndex(clip);
    const c = this.bpat.clips[k];
    const clock = this.clocks[i];
    const first = this.clips[i] < 0;
    const same = this.clips[i] === k; // no change of clip: no fade, the phase kept (docs/runtime.md §6.1)
    if (phase === undefined) phase = (c.loops || same) && !first ? this.phaseOf(i, time) : 0;
    if (rate === undefined) {
      const g = this.gait?.forClip?.[k];
      rate = g ? clipRate(g, speed) : 0;
      if (!(rate > 0) && !(g && g.groundSpeed > 0)) rate = 1 / duration(c);
    }
    const to = playhead({ phase, rate, row: c.frameOffset, frames: c.frameCount, loops: c.loops, wraps: c.loops || repeat });
    if (same) {
      clock.rebase(time);
      clock.own = to;
    } else {
      clock.switchTo(time, to, first ? 0 : (fade ?? DEFAULT_FADE));
    }
    this.clips[i] = k;
    this._record(i);
  }

  /**
   * move sets a walking or running unit's ground speed (docs/runtime.md
   * §6.3): with walk and run clips that both have a ground speed in the gait
   * sidecar, the unit shows both at its one phase, weighted by its speed; it
   * plays the heavier one as its own clip (fading in when that changes).
   */
  move(i, speed, { time = 0, walk = 'Walk', run = 'Run', fade } = {}) {
    const wk = this.clipIndex(walk), rk = this.clipIndex(run);
    const gw = this.gait?.forClip?.[wk], gr = this.gait?.forClip?.[rk];
    if (!(gw?.groundSpeed > 0 && gr?.groundSpeed > gw.groundSpeed)) {
      throw new Error(`bonebake: move needs ground speeds for ${walk} and ${run} (the gait sidecar), the run's the higher`);
    }
    const b = speedBlend(speed, { speed: gw.groundSpeed, cycle: gw.cycle }, { speed: gr.groundSpeed, cycle: gr.cycle });
    const own = b.run >= 0.5 ? rk : wk, other = own === rk ? wk : rk;
    const clock = this.clocks[i];
    if (this.clips[i] !== own) this.play(i, own, { time, rate: b.rate, fade });
    else clock.rebase(time);
    clock.own.rate = b.rate;
    const oc = this.bpat.clips[other];
    const w = own === rk ? 1 - b.run : b.run;
    clock.setGait(time, playhead({ phase: clock.own.phase, rate: b.rate, row: oc.frameOffset, frames: oc.frameCount, loops: oc.loops }), w);
    this._record(i);
  }

  /** The phase unit i's own clip shows at time. */
  phaseOf(i, time) {
    const c = this.clocks[i];
    const p = c.own;
    if (p.frames <= 1) return 0;
    const q = p.phase + p.rate * (time - c.start);
    if (q >= 0 && q < 1) return q;
    if (p.wraps) { const r = q - Math.floor(q); return r >= 0 && r < 1 ? r : 0; }
    return q >= 0 ? Math.min(q, 1) : 0;
  }

  /** The twelve numbers unit i shows at time: rows, lerp and weight of its own clip, the clip faded from, the prior. */
  poseOf(i, time, out = new Float64Array(12)) { return this.clocks[i].at(time, out); }

  /**
   * socketMatrix sets target (a three.js Matrix4) to socket (a name or an
   * index) of unit i at time, in the world: the unit's placement times the
   * socket's pose, blended over its clips as its skin is.
   */
  socketMatrix(i, socket, time, target = new Matrix4()) {
    const s = typeof socket === 'number' ? socket : this.bpat.socketIndex(socket);
    if (s < 0) throw new Error(`bonebake: no socket ${JSON.stringify(socket)} in ${this.bpat.name || 'the BPAT file'} (it has ${this.bpat.sockets.map((x) => x.name).join(', ') || 'none'})`);
    const r = socketAt(this.bpat, this.clocks[i].at(time, this._pose), s, this._socket);
    target.set(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], 0, 0, 0, 1);
    return target.premultiply(_m.fromArray(this.instanceMatrix.array, 16 * i));
  }

  /**
   * update poses every unit at time (seconds, the clock play() and move()
   * were given). Given the renderer, it runs the pass on the GPU: one draw
   * into the posed texture from the units' clock records, which are uploaded
   * only when a unit's clip changed; without it (or with { pass: 'cpu' }) the
   * CPU writes the texture and uploads it whole.
   */
  update(time, renderer) {
    if (renderer && this._gpu) {
      const g = this._gpu;
      g.uniforms.bonebakeTime.value = time;
      const before = renderer.getRenderTarget();
      renderer.setRenderTarget(g.target);
      renderer.render(g.scene, g.camera);
      renderer.setRenderTarget(before);
      this.uniforms.bonebakeSkin.value = g.target.texture;
    } else {
      if (!this.texture) {
        this.posed = new Float32Array(this.textureWidth * this.textureHeight * 4);
        this.texture = floatTexture(this.posed, this.textureWidth, this.textureHeight);
      }
      const n = this.count, fs = this.skin.frameSize, pose = this._pose;
      for (let i = 0; i < n; i++) this.skin.write(this.posed, i * fs, this.clocks[i].at(time, pose));
      this.texture.needsUpdate = true;
      this.uniforms.bonebakeSkin.value = this.texture;
    }
    if (this._boundsDirty) this._bounds();
  }

  // _bounds sets each mesh's bounding sphere around every unit, so three.js
  // culls the crowd when none of it can be seen.
  _bounds() {
    const s = new Sphere();
    const pts = [];
    for (let i = 0; i < this.count; i++) pts.push(new Vector3(this._pos[3 * i], this._pos[3 * i + 1], this._pos[3 * i + 2]));
    s.setFromPoints(pts);
    s.radius += this.reach * Math.max(...this._scale);
    for (const m of this.meshes) m.boundingSphere = s.clone();
    this._boundsDirty = false;
  }

  dispose() {
    this.texture?.dispose();
    if (this._gpu) {
      for (const x of [this._gpu.target, this._gpu.recordTexture, this._gpu.skinTexture, this._gpu.material, this._gpu.mesh.geometry]) x.dispose();
    }
    for (const m of this.meshes) {
      m.geometry.dispose();
      for (const mat of [m.material, m.customDepthMaterial, m.customDistanceMaterial].flat()) mat.dispose();
    }
  }
}

// gpuPass builds the GPU skinning pass of a crowd: its units' clock records
// (4 texels a unit), the skin palette as a texture, and a full-screen
// triangle drawn into a float render target shaped as the posed texture.
function gpuPass(crowd, maxWidth) {
  const n = crowd.count, B = crowd.bpat.boneCount;
  const recPerRow = Math.max(1, Math.min(n, Math.floor(maxWidth / 4)));
  const recRows = Math.ceil(n / recPerRow);
  const records = new Float32Array(recPerRow * 4 * recRows * 4);
  const recordTexture = floatTexture(records, recPerRow * 4, recRows);
  // The skin palette, framesPerRow frames to a texture row.
  const total = crowd.bpat.frameTotal, framesPerRow = Math.max(1, Math.ceil(total / maxWidth));
  const skinRows = Math.ceil(total / framesPerRow);
  const skin = new Float32Array(framesPerRow * skinRows * B * 12);
  skin.set(crowd.skin.skin);
  const skinTexture = floatTexture(skin, framesPerRow * B * 3, skinRows);
  const uniforms = {
    bonebakeRecords: { value: recordTexture }, bonebakeRecordsPerRow: { value: recPerRow }, bonebakeSkinPalette: { value: skinTexture },
    bonebakeFramesPerRow: { value: framesPerRow }, bonebakeBones: { value: B },
    bonebakePerRow: { value: crowd.perRow }, bonebakeCount: { value: n }, bonebakeTime: { value: 0 },
  };
  const material = new RawShaderMaterial({ glslVersion: GLSL3, vertexShader: POSE_PASS_VERTEX, fragmentShader: POSE_PASS_FRAGMENT, uniforms, depthTest: false, depthWrite: false });
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute([-1, -1, 0, 3, -1, 0, -1, 3, 0], 3));
  const mesh = new Mesh(geometry, material);
  mesh.frustumCulled = false;
  const scene = new Scene();
  scene.add(mesh);
  const target = new WebGLRenderTarget(crowd.textureWidth, crowd.textureHeight, {
    type: FloatType, format: RGBAFormat, minFilter: NearestFilter, magFilter: NearestFilter, depthBuffer: false, generateMipmaps: false,
  });
  const g = { records, recordTexture, skinTexture, uniforms, material, mesh, scene, camera: new OrthographicCamera(), target };
  crowd.clocks.forEach((c, i) => writeRecord(c, records, i * RECORD_FLOATS));
  return g;
}

function floatTexture(data, width, height) {
  const t = new DataTexture(data, width, height, RGBAFormat, FloatType);
  t.minFilter = t.magFilter = NearestFilter;
  t.generateMipmaps = false;
  t.needsUpdate = true;
  return t;
}

function duration(c) {
  const n = c.loops ? c.frameCount : c.frameCount - 1;
  return n > 0 ? n / c.fps : 1;
}

// geometryFor returns the mesh's geometry with its joints numbered by the
// palette (the reference skin's joints): the same geometry when its skeleton
// is the reference's bones in order, a copy renumbered by node when its
// joints are some of those (its inverse binds must then agree), and null for
// a skin on other joints.
function geometryFor(mesh, ref, bones) {
  const own = mesh.skeleton.bones;
  if (own.length === bones.length && own.every((b, j) => b === bones[j])) return mesh.geometry;
  const map = own.map((b) => bones.indexOf(b));
  if (map.some((j) => j < 0)) return null;
  own.forEach((b, k) => {
    const a = mesh.skeleton.boneInverses[k].elements, r = ref.skeleton.boneInverses[map[k]].elements;
    if (a.some((v, e) => Math.abs(v - r[e]) > 1e-4 * Math.max(1, Math.abs(r[e])))) {
      throw new Error(`bonebake: mesh ${mesh.name} binds joint ${b.name} otherwise than ${ref.name}: one skin's inverse binds draw both`);
    }
  });
  const g = mesh.geometry.clone();
  const idx = g.getAttribute('skinIndex');
  const out = new Float32Array(idx.count * 4);
  for (let v = 0; v < idx.count; v++) {
    for (let c = 0; c < 4; c++) out[4 * v + c] = map[idx.getComponent(v, c)] ?? 0;
  }
  g.setAttribute('skinIndex', new BufferAttribute(out, 4));
  return g;
}
