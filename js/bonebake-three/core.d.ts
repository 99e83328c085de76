// Type declarations of bonebake-three/core (src/core), written by hand.

/** One broken rule: the file, the rule (docs/formats/*.md), the byte offset, the clip or socket index (−1: none). */
export class FormatError extends Error {
  file: string;
  rule: string;
  offset: number;
  index: number;
  detail: string;
}

/** Every rule a file breaks, sorted by offset. */
export class ValidationError extends Error {
  format: 'bpat' | 'bpsm';
  file: string;
  problems: FormatError[];
}

export interface ReadOptions {
  /** The file's name in messages (loadBPAT uses the URL). */
  name?: string;
  /** Let through, as warnings, what the game's reader accepts (docs/formats/bpat.md §4). */
  lenient?: boolean;
  /** Species ids the file may have; absent: any. */
  knownSpecies?: Iterable<number>;
  /** Skip the scan of the bulk data for NaN and infinite floats. */
  skipFloatScan?: boolean;
}

export interface BPATClip {
  name: string;
  frameCount: number;
  frameOffset: number;
  fps: number;
  loops: boolean;
  /** anticipation_start, weapon_release, contact, recover_unlocked, exit_safe; −1 unset. */
  markers: number[];
}

export interface BPATSocket {
  name: string;
  anchor: number;
  offset: [number, number, number];
}

export const MAX_BONES: 64;
export const MARKERS: string[];

export class BPAT {
  name: string;
  version: 1 | 2;
  speciesId: number;
  boneCount: number;
  frameTotal: number;
  clips: BPATClip[];
  sockets: BPATSocket[];
  warnings: FormatError[];
  /** frameTotal · boneCount · 16 floats: row-major model-space matrices. */
  palette: Float32Array;
  /** frameTotal · socketCount · 12 floats. */
  socketData: Float32Array;
  clipIndex(name: string): number;
  socketIndex(name: string): number;
  paletteFrame(clip: number, frame: number): Float32Array;
  resolve(clip: number, phase: number, out?: number[]): [number, number, number];
  sample(clip: number, phase: number, out?: Float32Array): Float32Array;
}

export function parseBPAT(data: ArrayBuffer | ArrayBufferView, opts?: ReadOptions): BPAT;

export interface BPSMClip {
  name: string;
  frameCount: number;
  frameOffset: number;
}

export class BPSM {
  name: string;
  speciesId: number;
  lod: 0 | 1;
  vertexCount: number;
  frameTotal: number;
  clips: BPSMClip[];
  indices: Uint32Array;
  warnings: FormatError[];
  vertexBytes: Uint8Array;
  clipIndex(name: string): number;
  frameAt(clip: number, phase: number, loops: boolean): number;
  positions(frame: number, out?: Float32Array): Float32Array;
}

export function parseBPSM(data: ArrayBuffer | ArrayBufferView, opts?: ReadOptions): BPSM;

export class GaitError extends Error {
  file: string;
  rule: string;
  key: string;
  detail: string;
}

export interface ClipGait {
  name: string;
  /** Seconds one pass lasts at groundSpeed. */
  cycle: number;
  /** m/s; 0 for a clip played in place. */
  groundSpeed: number;
  source: string;
  status: string;
  /** The model-space unit vector [x, 0, z] the clip was measured to travel along; null when the sidecar gives none (read +z). */
  direction: [number, number, number] | null;
}

export interface Gait {
  bpat: string;
  units: string;
  clips: ClipGait[];
  byName: Map<string, ClipGait>;
  /** By the BPAT's clip index (when parsed with { bpat }); null where the sidecar has none. */
  forClip: (ClipGait | null)[];
}

export function parseGait(data: string | object | ArrayBuffer | ArrayBufferView, opts?: { name?: string; bpat?: BPAT }): Gait;

export function loadBPAT(src: string | URL | ArrayBuffer | ArrayBufferView, opts?: ReadOptions): Promise<BPAT>;
export function loadBPSM(src: string | URL | ArrayBuffer | ArrayBufferView, opts?: ReadOptions): Promise<BPSM>;
export function loadGait(src: string | URL | object, opts?: { name?: string; bpat?: BPAT; optional?: boolean }): Promise<Gait | null>;
export function gaitURL(bpatURL: string | URL): string;

/** docs/formats/bpat.md §5.2: [frame, next, lerp], frames from the clip's first. */
export function resolve(phase: number, frames: number, loops: boolean, out?: number[]): [number, number, number];
export function smoothstep(x: number): number;
export function isFade(seconds: number): boolean;

export interface Playhead {
  phase: number;
  rate: number;
  row: number;
  frames: number;
  loops: boolean;
  wraps: boolean;
}
export function playhead(p?: Partial<Playhead>): Playhead;

/** One unit's playback by the Go runtime's GPU clock rules (crowd.TimeRecord). */
export class Clock {
  constructor(own?: Playhead, start?: number);
  own: Playhead;
  from: Playhead;
  prior: Playhead;
  start: number;
  fadeStart: number;
  fadeInv: number;
  priorShare: number;
  priorIsGait: boolean;
  /** Rows, lerp and weight of the own clip, the clip faded from and the prior. */
  at(t: number, out?: Float64Array): Float64Array;
  rebase(now: number): void;
  switchTo(now: number, to: Playhead, fade?: number): void;
  setGait(now: number, other: Playhead, weight: number): void;
}

export const GAIT_SNAP: number;
export function speedBlend(v: number, walk: { speed: number; cycle: number }, run: { speed: number; cycle: number }): { run: number; rate: number };
export function clipRate(gait: ClipGait | null, speed?: number): number;

export const FLOATS_PER_POSED: 12;
export class SkinPalette {
  /** inverseBinds: boneCount · 16 floats, column-major (three.js, glTF). */
  constructor(bpat: BPAT, inverseBinds: ArrayLike<number>);
  boneCount: number;
  frameSize: number;
  skin: Float32Array;
  write(out: Float32Array, offset: number, pose: ArrayLike<number>): void;
}

/** Socket s of a unit showing pose (Clock.at's numbers): the top three rows of its model-space matrix. */
export function socketAt(bpat: BPAT, pose: ArrayLike<number>, socket: number, out?: Float64Array): Float64Array;

/**
 * The playback rule in GLSL ES 3.00 (bonebakeSettle, bonebakeResolve,
 * bonebakeWeights, and bonebakeAttackPhase: a swing's attack phase over its
 * eased timeline, with its BONEBAKE_SWING_* tables), for shaders that play
 * clips: the GPU pass includes it.
 */
export const PLAYBACK: string;
export const POSE_PASS_VERTEX: string;
export const POSE_PASS_FRAGMENT: string;
/** The pass from poses already resolved (three texels a unit, at bonebakePoseAt of bonebakePoseTexels). */
export const POSE_PASS_POSES_FRAGMENT: string;
export const RECORD_FLOATS: 16;
/** A unit's clock as the GPU pass reads it: 16 floats at out[offset]. */
export function writeRecord(clock: Clock, out: Float32Array, offset: number): void;

/** Reading posed textures (bonebakePosedRow, bonebakeSkinMatrixOf), without the skin attributes. */
export const SKIN_READ: string;
export const SKIN_PARS: string;
export const SKIN_BASE: string;
export const SKIN_NORMAL: string;
export const SKIN_VERTEX: string;

/** Levels of detail (docs/runtime.md §6.4). */
export const LEVEL_FULL: 0;
export const LEVEL_REDUCED: 1;
export const LEVEL_SNAPSHOT: 2;
export type Level = 0 | 1 | 2;
export const LOD_HYSTERESIS: number;
/** Metres from the camera beyond which a unit drops to reduced and to its snapshot (30, 90). */
export interface LODDistances { reduced: number; snapshot: number }
export const DEFAULT_LOD: Readonly<LODDistances>;
/** The band of a unit in band cur at distance d: out past boundary·1.1, back below boundary·0.9. */
export function nextLevel(cur: Level, d: number, lod: LODDistances): Level;
/** The squared distances out past each boundary, then back below each: nextBand's form of lod. */
export function lodBands(lod: LODDistances, out?: Float64Array): Float64Array;
/** nextLevel at the squared distance d2 (for a loop over many units). */
export function nextBand(cur: Level, d2: number, bands: ArrayLike<number>): Level;
/** Each vertex's `keep` (2) heaviest joints, renormalized: the reduced level's skinIndex and skinWeight. */
export function reduceInfluences(indices: ArrayLike<number>, weights: ArrayLike<number>, keep?: number): { indices: Float32Array; weights: Float32Array };
export const SNAPSHOT_TEXELS: 2;
/** A snapshot's positions and normals, two texels a vertex and frame, `width` texels a row. */
export function snapshotTexels(bpsm: BPSM, width: number): { data: Float32Array; height: number };
export function snapshotUVs(bpsm: BPSM): Float32Array;
export const SNAPSHOT_PARS: string;
export const SNAPSHOT_BASE: string;
export const SNAPSHOT_POSITION: string;
export const SNAPSHOT_NORMAL: string;

/** Instances that name their unit (attribute bonebakeUnit), and props on sockets. */
export const UNIT_PARS: string;
export const UNIT_SKIN_BASE: string;
export const SOCKET_PARS: string;
export const SOCKET_BASE: string;
/** bind[anchor] · translate(offset), column-major: the anchor's posed skinning matrix times it is the socket's matrix. */
export function socketBind(bpat: BPAT, inverseBinds: ArrayLike<number>, socket: number): number[];
