// Type declarations of bonebake-three (src/three), written by hand.
import type { Color, DataTexture, Matrix4, Group, InstancedBufferAttribute, InstancedMesh, Material, Object3D, SkinnedMesh } from 'three';
import type { BPAT, Gait, Clock, SkinPalette } from './core.js';

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
  meshes: InstancedMesh[];
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
  play(i: number, clip: string | number, opts?: PlayOptions): void;
  move(i: number, speed: number, opts?: { time?: number; walk?: string | number; run?: string | number; fade?: number }): void;
  phaseOf(i: number, time: number): number;
  poseOf(i: number, time: number, out?: Float64Array): Float64Array;
  /** The world matrix of a unit's socket at time (its placement times the socket's blended pose). */
  socketMatrix(i: number, socket: string | number, time: number, target?: Matrix4): Matrix4;
  /** Poses every unit at time: on the GPU when given the renderer, else on the CPU. */
  update(time: number, renderer?: import('three').WebGLRenderer): void;
  dispose(): void;
}

export function skinMaterial<M extends Material>(material: M, uniforms: Record<string, { value: unknown }>): M;
export function injectSkinning(vertexShader: string): string;
