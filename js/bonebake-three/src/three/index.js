// The three.js binding: a crowd of units of one baked character drawn with
// one InstancedMesh per mesh of the character and level of detail, skinned in
// the vertex stage of the user's own materials (their onBeforeCompile, lights,
// fog, textures and shadows kept). Each frame, update(time) writes every
// unit's posed skinning matrices (its clips' palette frames lerped, its fade
// resolved, times the inverse bind: core/pose.js) into one float texture, and
// each vertex reads three texels per influence (core/glsl.js); given the
// camera, it culls the units out of view and sorts the others into the
// levels' instance lists (core/lod.js), each instance naming its unit
// (core/units.js). Props on sockets read the same texture.

import {
  BufferAttribute, Group, InstancedMesh, InstancedBufferAttribute, DataTexture, RGBAFormat, FloatType, NearestFilter,
  Matrix4, Quaternion, Vector3, Color, Sphere, Box3, Frustum, MeshDepthMaterial, MeshDistanceMaterial, RGBADepthPacking,
  Mesh, Scene, OrthographicCamera, BufferGeometry, Float32BufferAttribute, RawShaderMaterial, GLSL3, WebGLRenderTarget,
  DynamicDrawUsage, PropertyBinding,
} from 'three';
import {
  Clock, playhead, clipRate, speedBlend, SkinPalette, socketAt,
  SKIN_PARS, SKIN_NORMAL, SKIN_VERTEX, POSE_PASS_VERTEX, POSE_PASS_FRAGMENT, RECORD_FLOATS, writeRecord,
  UNIT_PARS, UNIT_SKIN_BASE, SOCKET_PARS, SOCKET_BASE, socketBind,
  LEVEL_FULL, LEVEL_REDUCED, LEVEL_SNAPSHOT, DEFAULT_LOD, lodBands, nextBand, reduceInfluences,
  SNAPSHOT_TEXELS, snapshotTexels, snapshotUVs, SNAPSHOT_PARS, SNAPSHOT_BASE, SNAPSHOT_POSITION, SNAPSHOT_NORMAL,
} from '../core/index.js';

export * from '../core/index.js';

/** The fade a clip change gets when play() is given none: docs/runtime.md §6.1's FadeLocomotion. */
export const DEFAULT_FADE = 0.3;

/**
 * skinMaterial returns a copy of material that skins a BonebakeCrowd's
 * instances from uniforms (bonebakeSkin, bonebakeBones, bonebakePerRow; each
 * instance's unit in its bonebakeUnit attribute), keeping the material's own
 * onBeforeCompile.
 */
export function skinMaterial(material, uniforms) {
  return wrapMaterial(material, uniforms, 'skin', injectSkinning);
}

/** snapshotMaterial: a copy of material that draws the snapshot level (docs/formats/bpsm.md frames, no skinning). */
export function snapshotMaterial(material, uniforms) {
  return wrapMaterial(material, uniforms, 'snapshot', injectSnapshot);
}

/** socketMaterial: a copy of material that places a prop on a unit's socket (uniforms: the crowd's and the socket's). */
export function socketMaterial(material, uniforms) {
  return wrapMaterial(material, uniforms, 'socket', injectSocket);
}

function wrapMaterial(material, uniforms, kind, inject) {
  const m = material.clone();
  const own = material.onBeforeCompile;
  const ownKey = material.customProgramCacheKey.call(material);
  m.onBeforeCompile = function (shader, renderer) {
    own.call(this, shader, renderer);
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = inject(shader.vertexShader);
  };
  m.customProgramCacheKey = () => `bonebake-${kind}:${ownKey}`;
  return m;
}

// intoMain puts pars before a vertex shader's main() and base at its start.
function intoMain(vs, pars, base, needs) {
  const main = vs.indexOf('void main() {');
  const missing = needs.find((n) => !vs.includes(n));
  if (main < 0 || missing) {
    throw new Error(`bonebake: the vertex shader has no ${main < 0 ? 'main()' : missing}: bonebake cannot draw with it`);
  }
  return vs.slice(0, main) + pars + 'void main() {\n' + base + vs.slice(main + 'void main() {'.length);
}

/** injectSkinning puts the skinning chunks into a three.js vertex shader in place of three's own. */
export function injectSkinning(vs) {
  return intoMain(vs, SKIN_PARS + UNIT_PARS, UNIT_SKIN_BASE, ['#include <skinning_vertex>'])
    .replace('#include <skinbase_vertex>', '')
    .replace('#include <skinnormal_vertex>', SKIN_NORMAL)
    .replace('#include <skinning_vertex>', SKIN_VERTEX);
}

/** injectSnapshot makes a three.js vertex shader take its position and normal from the snapshot texture. */
export function injectSnapshot(vs) {
  return intoMain(vs, SNAPSHOT_PARS, SNAPSHOT_BASE, ['#include <begin_vertex>'])
    .replace('#include <beginnormal_vertex>', '#include <beginnormal_vertex>\n' + SNAPSHOT_NORMAL)
    .replace('#include <begin_vertex>', '#include <begin_vertex>\n' + SNAPSHOT_POSITION);
}

/** injectSocket makes a three.js vertex shader place its vertices (and normals) by a unit's socket. */
export function injectSocket(vs) {
  return intoMain(vs, SKIN_PARS + UNIT_PARS + SOCKET_PARS, SOCKET_BASE, ['#include <skinning_vertex>'])
    .replace('#include <skinbase_vertex>', '')
    .replace('#include <skinnormal_vertex>', SKIN_NORMAL)
    .replace('#include <skinning_vertex>', SKIN_VERTEX);
}

const _m = new Matrix4(), _q = new Quaternion(), _p = new Vector3(), _s = new Vector3(), _y = new Vector3(0, 1, 0);
const _pm = new Matrix4(), _frustum = new Frustum(), _cam = new Vector3();

/**
 * BonebakeCrowd draws `count` units of the character in `source` (the glTF
 * scene GLTFLoader gives, or any object holding its SkinnedMeshes) posed by
 * the BPAT file `bpat` (parseBPAT / loadBPAT). Each level of detail draws
 * its units with one InstancedMesh per mesh (and per prop): the full mesh,
 * the mesh with the two heaviest influences, and the snapshot mesh
 * (opts.snapshot); given the camera, update() culls the units it cannot see
 * and sorts the others into the levels' instance lists.
 */
export class BonebakeCrowd extends Group {
  /**
   * @param {import('three').Object3D} source
   * @param {import('../core/bpat.js').BPAT} bpat
   * @param {object} [opts] see index.d.ts's CrowdOptions
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
    const rig = paletteRig(skinned, bpat, opts.bones, source.name);
    this.bones = rig.bones;
    this._inverse = rig.inverse;
    this.skin = new SkinPalette(bpat, rig.inverse);

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

    // Each unit's placement and tint; update() copies those of the units each
    // level draws into that level's instance lists.
    const n = this.count;
    this.instanceMatrix = new InstancedBufferAttribute(new Float32Array(n * 16), 16);
    this.instanceColor = new InstancedBufferAttribute(new Float32Array(n * 3).fill(1), 3);
    const list = (size) => new InstancedBufferAttribute(new Float32Array(n * size), size).setUsage(DynamicDrawUsage);
    this.levels = [LEVEL_FULL, LEVEL_REDUCED, LEVEL_SNAPSHOT].map((level) => ({
      level, count: 0, meshes: [],
      matrices: list(16), colors: list(3), units: list(1), frames: level === LEVEL_SNAPSHOT ? list(1) : null,
    }));

    const full = this.levels[LEVEL_FULL], reduced = this.levels[LEVEL_REDUCED];
    const material = (sm) => {
      const pick = (m) => (opts.material ? opts.material(m, sm) : m);
      return Array.isArray(sm.material) ? sm.material.map(pick) : pick(sm.material);
    };
    const wrap = (m, fn, uniforms) => (Array.isArray(m) ? m.map((x) => fn(x, uniforms)) : fn(m, uniforms));
    for (const sm of skinned) {
      const geometry = geometryFor(sm, rig);
      if (!geometry) continue; // a skin on other joints: not this character's
      const mat = material(sm);
      this._levelMesh(full, sm, withUnits(geometry, full), wrap(mat, skinMaterial, this.uniforms), skinMaterial, this.uniforms);
      const r = reduceInfluences(vec4s(geometry.getAttribute('skinIndex')), vec4s(geometry.getAttribute('skinWeight')));
      const rg = withUnits(geometry, reduced);
      rg.setAttribute('skinIndex', new BufferAttribute(r.indices, 4));
      rg.setAttribute('skinWeight', new BufferAttribute(r.weights, 4));
      this._levelMesh(reduced, sm, rg, wrap(mat, skinMaterial, this.uniforms), skinMaterial, this.uniforms);
    }
    this.meshes = full.meshes.slice();
    if (this.meshes.length === 0) throw new Error(`bonebake: no skinned mesh of ${source.name || 'the source'} is on the joints of ${bpat.name || 'the BPAT file'}`);
    this.snapshot = opts.snapshot ?? null;
    if (this.snapshot) this._snapshotLevel(skinned.find((sm) => geometryFor(sm, rig)), material, maxWidth);

    this.reach = unitReach(bpat, rig.inverse, this.meshes.map((m) => m.geometry));

    /** Level-of-detail distances (metres from the camera, settable), or null: every unit full. */
    this.lod = opts.lod === false ? null : { ...DEFAULT_LOD, ...opts.lod };
    /** Metres added to every unit's bounding radius when culling (units just out of view still cast their shadows). */
    this.cullMargin = opts.cullMargin ?? 0;
    this.props = [];
    this.clocks = Array.from({ length: n }, () => new Clock());
    this.clips = new Int32Array(n).fill(-1);
    this._band = new Uint8Array(n); // each unit's distance band, kept for the hysteresis
    this._pose = new Float64Array(12);
    this._socket = new Float64Array(12);
    this._scale = new Float32Array(n).fill(1);
    this._pos = new Float32Array(n * 3);
    this._boundsDirty = true;
    this._listsDirty = true;
    for (let i = 0; i < n; i++) this.setTransform(i, 0, 0, 0, 0, 1);
    this._gpu = opts.pass === 'cpu' ? null : gpuPass(this, maxWidth);
    this._lists(0, null);
  }

  // _levelMesh adds an InstancedMesh of a level on its instance lists.
  _levelMesh(level, like, geometry, material, shadowMaterial, uniforms, withColor = true) {
    const mesh = new InstancedMesh(geometry, material, this.count);
    mesh.name = like.name;
    mesh.instanceMatrix = level.matrices;
    if (withColor) mesh.instanceColor = level.colors;
    mesh.castShadow = like.castShadow;
    mesh.receiveShadow = like.receiveShadow;
    mesh.customDepthMaterial = shadowMaterial(new MeshDepthMaterial({ depthPacking: RGBADepthPacking }), uniforms);
    mesh.customDistanceMaterial = shadowMaterial(new MeshDistanceMaterial(), uniforms);
    mesh.count = level.count;
    mesh.userData.bonebakeLevel = level.level;
    level.meshes.push(mesh);
    this.add(mesh);
    return mesh;
  }

  // _snapshotLevel builds the far level from the .bpsm snapshot: its clips
  // matched to the BPAT's by name, its frames in a float texture.
  _snapshotLevel(like, material, maxWidth) {
    const s = this.snapshot;
    this._snapClips = this.bpat.clips.map((c) => s.clipIndex(c.name));
    const { data, height } = snapshotTexels(s, maxWidth);
    this._snapTexture = floatTexture(data, maxWidth, height);
    const uniforms = {
      bonebakeSnapshot: { value: this._snapTexture },
      bonebakeSnapshotWidth: { value: maxWidth },
      bonebakeSnapshotVertices: { value: s.vertexCount },
    };
    const level = this.levels[LEVEL_SNAPSHOT];
    const g = new BufferGeometry();
    g.setIndex(new BufferAttribute(s.indices, 1));
    const first = snapshotTexels({ ...s, frameTotal: 1 }, SNAPSHOT_TEXELS).data; // frame 0: its bounds, and three's attributes
    const pos = new Float32Array(s.vertexCount * 3), nor = new Float32Array(s.vertexCount * 3);
    for (let v = 0; v < s.vertexCount; v++) {
      for (let k = 0; k < 3; k++) { pos[3 * v + k] = first[8 * v + k]; nor[3 * v + k] = first[8 * v + 4 + k]; }
    }
    g.setAttribute('position', new BufferAttribute(pos, 3));
    g.setAttribute('normal', new BufferAttribute(nor, 3));
    g.setAttribute('uv', new BufferAttribute(snapshotUVs(s), 2));
    g.setAttribute('bonebakeUnit', level.units);
    g.setAttribute('bonebakeFrame', level.frames);
    let m = material(like);
    if (Array.isArray(m)) m = m[0]; // one mesh: the first material
    this._levelMesh(level, like, g, snapshotMaterial(m, uniforms), snapshotMaterial, uniforms);
  }

  /**
   * attachProp draws a prop on every unit's socket (a name or an index), in the
   * same frame as the units: `prop` is a Mesh (its geometry and material, in
   * the socket's space) or { geometry, material }. The prop's instances read
   * the posed texture the units skin from: the socket's anchor bone's posed
   * matrix times its bind and the socket's offset. Options: unscaled (take the
   * socket's scale out: a prop in metres on a bone that carries its
   * armature's scale), levels (the levels that show it; default all).
   * A group (a model GLTFLoader gave) attaches each of its meshes, placed as
   * in the group. It returns the prop's meshes, one per mesh and level.
   * (Its own name: attach is three.js's Object3D.attach, which the crowd keeps.)
   */
  attachProp(socket, prop, opts = {}) {
    const { unscaled = false, levels = [LEVEL_FULL, LEVEL_REDUCED, LEVEL_SNAPSHOT] } = opts;
    if (!prop.isMesh && prop.isObject3D) {
      prop.updateMatrixWorld(true);
      const inv = prop.matrixWorld.clone().invert(), out = [];
      prop.traverse((o) => {
        if (!o.isMesh || o === prop) return;
        const part = new Mesh(o.geometry.clone().applyMatrix4(inv.clone().multiply(o.matrixWorld)), o.material);
        Object.assign(part, { name: o.name, castShadow: o.castShadow, receiveShadow: o.receiveShadow });
        out.push(...this.attachProp(socket, part, opts));
      });
      return out;
    }
    const s = this.socketIndex(socket);
    const so = this.bpat.sockets[s];
    const uniforms = {
      ...this.uniforms,
      bonebakeSocket: { value: new Matrix4().fromArray(socketBind(this.bpat, this._inverse, s)) },
      bonebakeSocketBone: { value: so.anchor },
      bonebakeSocketUnscaled: { value: unscaled },
    };
    const like = prop.isMesh ? prop : { name: `${so.name} prop`, castShadow: false, receiveShadow: false };
    const meshes = [];
    for (const l of levels) {
      const level = this.levels[l];
      if (l === LEVEL_SNAPSHOT && !this.snapshot) continue;
      const material = Array.isArray(prop.material) ? prop.material.map((m) => socketMaterial(m, uniforms)) : socketMaterial(prop.material, uniforms);
      meshes.push(this._levelMesh(level, like, withUnits(prop.geometry, level), material, socketMaterial, uniforms, false));
    }
    // The prop reaches as far from its unit as the socket does, plus its own size.
    prop.geometry.computeBoundingSphere();
    const b = prop.geometry.boundingSphere, D = this.bpat.socketData, k = this.bpat.sockets.length;
    let far = 0, scale = unscaled ? 1 : 0;
    for (let f = 0; f < this.bpat.frameTotal; f++) {
      const o = (f * k + s) * 12;
      far = Math.max(far, Math.hypot(D[o + 3], D[o + 7], D[o + 11]));
      if (!unscaled) scale = Math.max(scale, Math.hypot(D[o], D[o + 4], D[o + 8]));
    }
    this.reach = Math.max(this.reach, far + (b.center.length() + b.radius) * scale);
    this._boundsDirty = true;
    this.props.push(...meshes);
    return meshes;
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
    this._listsDirty = true;
  }

  /** Tints unit i (a three.js Color, or r, g, b): multiplies its material's colour. */
  setTint(i, r, g, b) {
    const c = r instanceof Color ? r : new Color(r, g, b);
    c.toArray(this.instanceColor.array, 3 * i);
    this.instanceColor.needsUpdate = true;
    this._listsDirty = true;
  }

  /** The clip index of a name or an index; it throws for a clip the file lacks. */
  clipIndex(clip) {
    const k = typeof clip === 'number' ? clip : this.bpat.clipIndex(clip);
    if (!(k >= 0 && k < this.bpat.clips.length)) throw new Error(`bonebake: no clip ${JSON.stringify(clip)} in ${this.bpat.name || 'the BPAT file'} (it has ${this.bpat.clips.map((c) => c.name).join(', ')})`);
    return k;
  }

  /** The socket index of a name or an index; it throws for a socket the file lacks. */
  socketIndex(socket) {
    const s = typeof socket === 'number' ? socket : this.bpat.socketIndex(socket);
    if (!(s >= 0 && s < this.bpat.sockets.length)) throw new Error(`bonebake: no socket ${JSON.stringify(socket)} in ${this.bpat.name || 'the BPAT file'} (it has ${this.bpat.sockets.map((x) => x.name).join(', ') || 'none'})`);
    return s;
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
    const s = this.socketIndex(socket);
    const r = socketAt(this.bpat, this.clocks[i].at(time, this._pose), s, this._socket);
    target.set(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], 0, 0, 0, 1);
    return target.premultiply(_m.fromArray(this.instanceMatrix.array, 16 * i));
  }

  /**
   * update poses every unit at time (seconds, the clock play() and move()
   * were given). Given the renderer, it runs the pass on the GPU: one draw
   * into the posed texture from the units' clock records, which are uploaded
   * only when a unit's clip changed; without it (or with { pass: 'cpu' }) the
   * CPU writes the texture and uploads it whole. Given the camera, it draws
   * only the units whose bounding spheres meet its frustum, each at the level
   * of its distance from the camera (docs/runtime.md §6.4); without one,
   * every unit at the full level.
   */
  update(time, renderer, camera) {
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
    this._lists(time, camera ?? null);
    if (this._boundsDirty) this._bounds();
  }

  /** The level unit i is drawn at by the last update() (LEVEL_FULL, LEVEL_REDUCED, LEVEL_SNAPSHOT), or −1: culled. */
  levelOf(i) { return this._drawn[i]; }

  // _lists writes each level's instance lists: the placements, tints and unit
  // numbers of the units it draws (and a snapshot unit's file frame), packed.
  // Without a camera they change only when a unit's placement or tint does.
  _lists(time, camera) {
    if (!camera && !this._listsDirty && !this._culled) return;
    this._culled = !!camera;
    this._listsDirty = false;
    const n = this.count, M = this.instanceMatrix.array, C = this.instanceColor.array, pos = this._pos;
    const lod = camera ? this.lod : null;
    const planes = this._planes ??= new Float64Array(24), bands = this._bands ??= new Float64Array(4);
    let cx = 0, cy = 0, cz = 0;
    if (camera) {
      camera.updateMatrixWorld();
      _frustum.setFromProjectionMatrix(_pm.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse), camera.coordinateSystem);
      _frustum.planes.forEach((p, k) => { planes[4 * k] = p.normal.x; planes[4 * k + 1] = p.normal.y; planes[4 * k + 2] = p.normal.z; planes[4 * k + 3] = p.constant; });
      _cam.setFromMatrixPosition(camera.matrixWorld);
      cx = _cam.x; cy = _cam.y; cz = _cam.z;
      if (lod) lodBands(lod, bands);
    }
    this._drawn ??= new Int8Array(n);
    const L = this.levels, counts = [0, 0, 0], drawn = this._drawn, band = this._band, scale = this._scale;
    const lm = L.map((l) => l.matrices.array), lc = L.map((l) => l.colors.array), lu = L.map((l) => l.units.array);
    const frames = L[LEVEL_SNAPSHOT].frames.array, reach = this.reach, margin = this.cullMargin;
    for (let i = 0; i < n; i++) {
      let level = LEVEL_FULL;
      if (camera) {
        const x = pos[3 * i], y = pos[3 * i + 1], z = pos[3 * i + 2];
        if (lod) level = band[i] = nextBand(band[i], (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2, bands);
        // Out of the frustum: wholly behind one of its planes (three's Frustum.intersectsSphere).
        const r = -(reach * scale[i] + margin);
        let out = false;
        for (let k = 0; k < 24 && !out; k += 4) out = planes[k] * x + planes[k + 1] * y + planes[k + 2] * z + planes[k + 3] < r;
        if (out) { drawn[i] = -1; continue; }
        if (level === LEVEL_SNAPSHOT) {
          const f = this._snapshotFrame(i, time);
          if (f < 0) level = LEVEL_REDUCED;
          else frames[counts[LEVEL_SNAPSHOT]] = f;
        }
      }
      const k = counts[level]++, dm = lm[level], dc = lc[level];
      for (let e = 0; e < 16; e++) dm[16 * k + e] = M[16 * i + e];
      dc[3 * k] = C[3 * i]; dc[3 * k + 1] = C[3 * i + 1]; dc[3 * k + 2] = C[3 * i + 2];
      lu[level][k] = i;
      drawn[i] = level;
    }
    L.forEach((l, level) => {
      l.count = counts[level];
      for (const [a, size] of [[l.matrices, 16], [l.colors, 3], [l.units, 1], [l.frames, 1]]) {
        if (!a) continue;
        a.clearUpdateRanges();
        a.addUpdateRange(0, l.count * size);
        a.needsUpdate = true;
      }
      for (const m of l.meshes) { m.count = l.count; m.visible = l.count > 0; }
    });
  }

  // _snapshotFrame is the snapshot file frame unit i shows at time (the floor
  // frame of its phase, docs/runtime.md §6.4), or −1 where the snapshot cannot
  // show it: no snapshot, its clip not in it, or the unit fading or blending
  // two gaits (a snapshot holds one clip's pose).
  _snapshotFrame(i, time) {
    const k = this.clips[i];
    if (!this.snapshot || k < 0 || this._snapClips[k] < 0) return -1;
    if (this.clocks[i].at(time, this._pose)[3] !== 1) return -1;
    return this.snapshot.frameAt(this._snapClips[k], this.phaseOf(i, time), this.bpat.clips[k].loops);
  }

  // _bounds sets each mesh's bounding sphere around every unit, so three.js
  // culls the crowd when none of it can be seen, in its shadows' passes too.
  _bounds() {
    const box = new Box3();
    let scale = 0;
    for (let i = 0; i < this.count; i++) {
      box.expandByPoint(_p.set(this._pos[3 * i], this._pos[3 * i + 1], this._pos[3 * i + 2]));
      scale = Math.max(scale, this._scale[i]);
    }
    const s = box.getBoundingSphere(new Sphere());
    s.radius += this.reach * scale + this.cullMargin;
    for (const l of this.levels) for (const m of l.meshes) m.boundingSphere = s.clone();
    this._boundsDirty = false;
  }

  dispose() {
    this.texture?.dispose();
    this._snapTexture?.dispose();
    if (this._gpu) {
      for (const x of [this._gpu.target, this._gpu.recordTexture, this._gpu.skinTexture, this._gpu.material, this._gpu.mesh.geometry]) x.dispose();
    }
    for (const l of this.levels) {
      for (const m of l.meshes) {
        m.geometry.dispose();
        for (const mat of [m.material, m.customDepthMaterial, m.customDistanceMaterial].flat()) mat.dispose();
      }
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

// unitReach is how far from its origin a posed unit can reach, in the
// model's space: over every bone and frame, the bone's origin plus the
// farthest of its vertices from it at rest (in the bone's space: the inverse
// bind times the position) times the bone's largest scale. A skinned vertex
// is a weighted mean of such points, so it lies within the farthest.
function unitReach(bpat, inverse, geometries) {
  const B = bpat.boneCount, far = new Float64Array(B), v = new Vector3();
  const ib = Array.from({ length: B }, (_, j) => new Matrix4().fromArray(inverse, 16 * j));
  for (const g of geometries) {
    const pos = g.getAttribute('position'), idx = g.getAttribute('skinIndex'), w = g.getAttribute('skinWeight');
    for (let i = 0; i < pos.count; i++) {
      for (let c = 0; c < 4; c++) {
        if (!(w.getComponent(i, c) > 0)) continue;
        const j = idx.getComponent(i, c);
        far[j] = Math.max(far[j], v.fromBufferAttribute(pos, i).applyMatrix4(ib[j]).length());
      }
    }
  }
  const P = bpat.palette;
  let reach = 0;
  for (let i = 0, b = 0; i < P.length; i += 16, b = (b + 1) % B) {
    const scale = Math.max(Math.hypot(P[i], P[i + 4], P[i + 8]), Math.hypot(P[i + 1], P[i + 5], P[i + 9]), Math.hypot(P[i + 2], P[i + 6], P[i + 10]));
    reach = Math.max(reach, Math.hypot(P[i + 3], P[i + 7], P[i + 11]) + far[b] * scale);
  }
  return reach;
}

// vec4s reads a four-component attribute (interleaved, normalized or not) as floats.
function vec4s(a) {
  const out = new Float32Array(a.count * 4);
  for (let v = 0; v < a.count; v++) {
    out[4 * v] = a.getX(v); out[4 * v + 1] = a.getY(v); out[4 * v + 2] = a.getZ(v); out[4 * v + 3] = a.getW(v);
  }
  return out;
}

// withUnits is a geometry that shares geometry's attributes, with the level's
// unit numbers as its bonebakeUnit attribute.
function withUnits(geometry, level) {
  const g = new BufferGeometry();
  g.name = geometry.name;
  g.index = geometry.index;
  for (const [k, a] of Object.entries(geometry.attributes)) g.setAttribute(k, a);
  for (const gr of geometry.groups) g.addGroup(gr.start, gr.count, gr.materialIndex);
  g.setAttribute('bonebakeUnit', level.units);
  return g;
}

/**
 * paletteRig finds the three.js joints the BPAT's palette bones are, in
 * palette order, and their inverse binds (docs/formats/gltf.md §1.4):
 * - given names (opts.bones), the joints of those names;
 * - else a skin with as many joints as the palette has bones, in its order;
 * - else a skin that bonebake reduced: its joints that some vertex is
 *   weighted to, in the skin's order, when they are as many as the palette's
 *   bones (the joints no vertex is weighted to are dropped first, which is
 *   all Xbot's 67 joints needed to come to 52).
 * With names or a reduced skin, a joint outside the palette (merged into its
 * parent, §1.4 step 2) skins with its nearest ancestor in the palette.
 */
function paletteRig(skinned, bpat, names, sourceName) {
  const B = bpat.boneCount;
  let bones = null, reduced = true;
  if (names) {
    if (names.length !== B) throw new Error(`bonebake: ${names.length} bone names for the ${B} bones of ${bpat.name || 'the BPAT file'}`);
    const byName = new Map();
    for (const sm of skinned) for (const b of sm.skeleton.bones) if (!byName.has(b.name)) byName.set(b.name, b);
    bones = names.map((n) => {
      // GLTFLoader takes out of node names what three.js's property paths reserve ("mixamorig:Hips" → "mixamorigHips").
      const b = byName.get(n) ?? byName.get(PropertyBinding.sanitizeNodeName(n));
      if (!b) throw new Error(`bonebake: bone ${JSON.stringify(n)} is no joint of ${sourceName || 'the source'}'s skins`);
      return b;
    });
  } else {
    const ref = skinned.find((m) => m.skeleton.bones.length === B);
    if (ref) {
      bones = ref.skeleton.bones;
      reduced = false;
    } else {
      const weighted = new Set();
      for (const sm of skinned) {
        const idx = sm.geometry.getAttribute('skinIndex'), w = sm.geometry.getAttribute('skinWeight');
        if (!idx || !w) continue;
        for (let v = 0; v < idx.count; v++) {
          for (let c = 0; c < idx.itemSize; c++) if (w.getComponent(v, c) > 0) weighted.add(sm.skeleton.bones[idx.getComponent(v, c)]);
        }
      }
      const big = skinned.filter((m) => m.skeleton.bones.length > B).sort((a, b) => b.skeleton.bones.length - a.skeleton.bones.length)[0];
      const kept = big?.skeleton.bones.filter((b) => weighted.has(b));
      if (!kept || kept.length !== B) {
        throw new Error(`bonebake: no skinned mesh in ${sourceName || 'the source'} has the ${B} joints of ${bpat.name || 'the BPAT file'} (its skins have ${skinned.map((m) => m.skeleton.bones.length).join(', ') || 'none'}${kept ? `; ${kept.length} of the largest are weighted` : ''}): give the palette's bone names ({ bones }: the skin's joints less those bake's note says it dropped and merged)`);
      }
      bones = kept;
    }
  }
  const inverse = new Float32Array(B * 16);
  bones.forEach((b, j) => {
    const sm = skinned.find((m) => m.skeleton.bones.includes(b));
    inverse.set(sm.skeleton.boneInverses[sm.skeleton.bones.indexOf(b)].elements, 16 * j);
  });
  return { bones, inverse, reduced };
}

// geometryFor returns the mesh's geometry with its joints numbered by the
// palette: the same geometry when its skeleton is the palette's bones in
// order, else a copy renumbered by node, a joint outside the palette taking
// its nearest ancestor in it when the rig was reduced (and null, not this
// character, when it was not). A joint in the palette must be bound as the
// palette's inverse bind says: one skin's inverse binds draw every mesh.
function geometryFor(mesh, rig) {
  const own = mesh.skeleton.bones, { bones, inverse } = rig;
  if (own.length === bones.length && own.every((b, j) => b === bones[j])) return mesh.geometry;
  const map = own.map((b) => {
    for (let x = b; x; x = rig.reduced ? x.parent : null) {
      const k = bones.indexOf(x);
      if (k >= 0) return k;
    }
    return -1;
  });
  if (!rig.reduced && map.some((j) => j < 0)) return null;
  own.forEach((b, k) => {
    if (bones[map[k]] !== b) return;
    const a = mesh.skeleton.boneInverses[k].elements, r = inverse.subarray(16 * map[k], 16 * map[k] + 16);
    if (a.some((v, e) => Math.abs(v - r[e]) > 1e-4 * Math.max(1, Math.abs(r[e])))) {
      throw new Error(`bonebake: mesh ${mesh.name} binds joint ${b.name} otherwise than the palette's skin: one skin's inverse binds draw every mesh`);
    }
  });
  const g = mesh.geometry.clone();
  const idx = g.getAttribute('skinIndex'), w = g.getAttribute('skinWeight');
  const out = new Float32Array(idx.count * 4);
  for (let v = 0; v < idx.count; v++) {
    for (let c = 0; c < 4; c++) {
      const j = map[idx.getComponent(v, c)] ?? -1;
      if (j < 0 && w.getComponent(v, c) > 0) throw new Error(`bonebake: mesh ${mesh.name}'s vertex ${v} is weighted to joint ${own[idx.getComponent(v, c)]?.name}, which has no bone of the palette above it`);
      out[4 * v + c] = Math.max(j, 0);
    }
  }
  g.setAttribute('skinIndex', new BufferAttribute(out, 4));
  return g;
}
