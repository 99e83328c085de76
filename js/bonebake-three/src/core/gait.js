// The gait sidecar NAME.gait.json (docs/formats/gait.md §1): each clip's cycle
// and ground speed. Checked as Go's formats/gait.Parse checks it; with the BPAT
// it describes, a clip it lists that the file lacks refuses it (a sidecar of
// another bake), as the Go registry does.

/** A broken rule of a sidecar: the file, the rule, the JSON key and what is wrong. */
export class GaitError extends Error {
  constructor(file, rule, key, detail) {
    super(`${file ? file + ': ' : ''}${key}: ${rule}: ${detail} (docs/formats/gait.md §1)`);
    this.name = 'GaitError';
    this.file = file;
    this.rule = rule;
    this.key = key;
    this.detail = detail;
  }
}

const positive = (v) => typeof v === 'number' && Number.isFinite(v) && v > 0;
const finiteOrAbsent = (v) => v === undefined || (typeof v === 'number' && Number.isFinite(v));
// A direction of travel is [x, 0, z], of length 1 within the writer's rounding.
const unitHorizontal = (d) => Array.isArray(d) && d.length === 3 && d.every((v) => typeof v === 'number' && Number.isFinite(v)) &&
  d[1] === 0 && Math.abs(Math.hypot(d[0], d[2]) - 1) <= 1e-3;

/**
 * parseGait reads a sidecar (its text, bytes or parsed object); given the BPAT
 * it describes, it returns each of the BPAT's clips' gaits by index too.
 * @returns {{clips: object[], byName: Map<string, object>, forClip: (object|null)[]}}
 */
export function parseGait(data, { name = '', bpat = null } = {}) {
  let f = data;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) data = new TextDecoder().decode(data);
  if (typeof data === 'string') {
    try {
      f = JSON.parse(data);
    } catch (e) {
      throw new GaitError(name, 'json', '$', `not JSON: ${e.message}`);
    }
  }
  if (f === null || typeof f !== 'object' || Array.isArray(f)) throw new GaitError(name, 'json', '$', 'not a JSON object');
  if (f.format !== 'bonebake-gait') throw new GaitError(name, 'format', 'format', `format ${JSON.stringify(f.format)}, want "bonebake-gait"`);
  if (f.version !== 1) throw new GaitError(name, 'version', 'version', `version ${f.version}: only version 1 exists`);
  const list = f.clips ?? [];
  if (!Array.isArray(list)) throw new GaitError(name, 'clips', 'clips', 'clips must be an array');
  const byName = new Map();
  list.forEach((c, i) => {
    const key = `clips[${i}]`;
    if (c === null || typeof c !== 'object' || typeof c.name !== 'string') throw new GaitError(name, 'clips', key, 'a clip must be an object with a name');
    if (byName.has(c.name)) throw new GaitError(name, 'name', `${key}.name`, `a second clip named ${JSON.stringify(c.name)}: names are unique`);
    if (!positive(c.cycle)) throw new GaitError(name, 'cycle', `${key}.cycle`, `clip ${JSON.stringify(c.name)}: cycle ${c.cycle} must be a positive number of seconds`);
    if (c.ground_speed !== undefined && !positive(c.ground_speed)) {
      throw new GaitError(name, 'ground-speed', `${key}.ground_speed`, `clip ${JSON.stringify(c.name)}: ground_speed ${c.ground_speed} must be a positive number of m/s, or absent`);
    }
    if (c.ground_speed !== undefined && c.ground_speed_source !== 'measured' && c.ground_speed_source !== 'manifest') {
      throw new GaitError(name, 'source', `${key}.ground_speed_source`, `clip ${JSON.stringify(c.name)}: ground_speed_source ${JSON.stringify(c.ground_speed_source)}: want "measured" or "manifest"`);
    }
    if (!finiteOrAbsent(c.stride) || !finiteOrAbsent(c.confidence)) {
      throw new GaitError(name, 'finite', key, `clip ${JSON.stringify(c.name)}: stride ${c.stride} and confidence ${c.confidence} must be finite numbers`);
    }
    if (c.direction !== undefined && !unitHorizontal(c.direction)) {
      throw new GaitError(name, 'direction', `${key}.direction`, `clip ${JSON.stringify(c.name)}: direction ${JSON.stringify(c.direction)} must be a horizontal unit vector [x, 0, z]`);
    }
    byName.set(c.name, { name: c.name, cycle: c.cycle, groundSpeed: c.ground_speed ?? 0, source: c.ground_speed_source ?? 'sidecar', status: c.status ?? '', direction: c.direction ?? null });
  });
  let forClip = [];
  if (bpat) {
    for (const n of byName.keys()) {
      if (bpat.clipIndex(n) < 0) throw new GaitError(name, 'clip', 'clips', `lists clip ${JSON.stringify(n)}, which ${bpat.name || 'the BPAT file'} lacks: a sidecar of another bake`);
    }
    forClip = bpat.clips.map((c) => byName.get(c.name) ?? null);
  }
  return { bpat: f.bpat ?? '', units: f.units ?? 'm', clips: [...byName.values()], byName, forClip };
}
