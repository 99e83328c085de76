// Type declarations of bonebake-three (src/three), written by hand.
import type { Bone, BufferGeometry, Camera, Color, DataTexture, Matrix4, Group, InstancedBufferAttribute, InstancedMesh, Material, Mesh, Object3D, SkinnedMesh } from 'three';
import type { BPAT, BPSM, Gait, Clock, SkinPalette, Level, LODDistances } from './core.js';

export * from './core.js';

export const DEFAULT_FADE: number;

export interface CrowdOptions {
  /** Units (default 1). */
  count?: number;
  /** The gait sidecar, parsed with { bpat }: clip rates from ground speeds, and move(). */
  gait?: Gait | null;
  /** The material a mesh draws with (default its own); it is copied and skinned. */
  material?: (material: Material, mesh: SkinnedMesh) => Material;
  /** Widest posed texture, in texels (default 2048). */
  maxTextureWidth?: number;
  /** 'gpu' (default): update(time, renderer) poses units on the GPU; 'cpu': always on the CPU. */
  pass?: 'gpu' | 'cpu';
  /** The far level: the .bpsm snapshot bake --snapshot writes (NAME_minimal.bpsm); without it far units show reduced. */
  snapshot?: BPSM | null;
  /** Level-of-detail distances from the camera (default DEFAULT_LOD: 30 and 90 m); false: every unit full. */
  lod?: Partial<LODDistances> | false;
  /** Metres added to every unit's bounding radius when culling (default 0). */
  cullMargin?: number;
  /**
   * The palette's bone names, in palette order, for a model bake reduced by
   * merging joints (over 64 joints): the skin's joints less those bake's note
   * says it dropped and merged. Not needed when the palette is the skin's
   * joints, or those some vertex is weighted to.
   */
  bones?: string[];
}

export interface AttachOptions {
  /** Take the socket's scale out (a prop in metres on a bone that carries its armature's scale). */
  unscaled?: boolean;
  /** The levels that show the prop (default all). */
  levels?: Level[];
}

/** One level's instance lists, refilled by update(): placements, tints, unit numbers (and snapshot frames). */
export interface CrowdLevel {
  level: Level;
  count: number;
  meshes: InstancedMesh[];
  matrices: InstancedBufferAttribute;
  colors: InstancedBufferAttribute;
  units: InstancedBufferAttribute;
  frames: InstancedBufferAttribute | null;
}

export interface PlayOptions {
  /** The clock time (seconds) the change happens at; update() is given the same clock. */
  time?: number;
  phase?: number;
  /** Phase per second. */
  rate?: number;
  /** Ground speed in m/s, for a clip with one in the gait sidecar. */
  speed?: number;
  /** Cross-fade seconds (default DEFAULT_FADE; none for a unit's first clip). */
  fade?: number;
  /** A one-shot clip repeats instead of holding its end. */
  repeat?: boolean;
}

export class BonebakeCrowd extends Group {
  constructor(source: Object3D, bpat: BPAT, opts?: CrowdOptions);
  bpat: BPAT;
  gait: Gait | null;
  count: number;
  /** The full level's meshes, one per mesh of the character. */
  meshes: InstancedMesh[];
  levels: [CrowdLevel, CrowdLevel, CrowdLevel];
  /** The three.js joints the palette's bones are, in palette order. */
  bones: Bone[];
  snapshot: BPSM | null;
  /** Settable: the distances of the levels, or null (every unit full). */
  lod: LODDistances | null;
  cullMargin: number;
  /** How far from its origin a posed unit (and its props) can reach, for culling. */
  reach: number;
  props: InstancedMesh[];
  /** The CPU pass's texture and its floats; null until update() runs it. */
  texture: DataTexture | null;
  posed: Float32Array | null;
  textureWidth: number;
  textureHeight: number;
  perRow: number;
  skin: SkinPalette;
  clocks: Clock[];
  instanceMatrix: InstancedBufferAttribute;
  instanceColor: InstancedBufferAttribute;
  setTransform(i: number, x: number, y: number, z: number, heading?: number, scale?: number): void;
  setTint(i: number, r: Color | number, g?: number, b?: number): void;
  clipIndex(clip: string | number): number;
  socketIndex(socket: string | number): number;
  play(i: number, clip: string | number, opts?: PlayOptions): void;
  move(i: number, speed: number, opts?: { time?: number; walk?: string | number; run?: string | number; fade?: number }): void;
  phaseOf(i: number, time: number): number;
  poseOf(i: number, time: number, out?: Float64Array): Float64Array;
  /** The world matrix of a unit's socket at time (its placement times the socket's blended pose). */
  socketMatrix(i: number, socket: string | number, time: number, target?: Matrix4): Matrix4;
  /**
   * Draws a prop on every unit's socket from the posed texture, in the units'
   * frame; one mesh per level (a group: per mesh of it and level).
   */
  attachProp(socket: string | number, prop: Mesh | Object3D | { geometry: BufferGeometry; material: Material | Material[] }, opts?: AttachOptions): InstancedMesh[];
  /**
   * Poses every unit at time: on the GPU when given the renderer, else on the
   * CPU. Given the camera, units out of its frustum are not drawn and the
   * others are drawn at the level of their distance from it.
   */
  update(time: number, renderer?: import('three').WebGLRenderer, camera?: Camera): void;
  /** The level unit i was drawn at by the last update(), or −1: culled. */
  levelOf(i: number): Level | -1;
  dispose(): void;
}

export function skinMaterial<M extends Material>(material: M, uniforms: Record<string, { value: unknown }>): M;
export function snapshotMaterial<M extends Material>(material: M, uniforms: Record<string, { value: unknown }>): M;
export function socketMaterial<M extends Material>(material: M, uniforms: Record<string, { value: unknown }>): M;
export function injectSkinning(vertexShader: string): string;
export function injectSnapshot(vertexShader: string): string;
export function injectSocket(vertexShader: string): string;
