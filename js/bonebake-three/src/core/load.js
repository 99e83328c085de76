// Loading bonebake's files from a URL (fetch) or from bytes the caller holds.

import { parseBPAT } from './bpat.js';
import { parseBPSM } from './bpsm.js';
import { parseGait } from './gait.js';

async function bytes(src) {
  if (typeof src !== 'string' && !(src instanceof URL)) return src;
  const r = await fetch(src);
  if (!r.ok) throw new Error(`bonebake: ${src}: HTTP ${r.status} ${r.statusText}`);
  return r.arrayBuffer();
}

const nameOf = (src, opts) => opts.name ?? (typeof src === 'string' || src instanceof URL ? String(src) : '');

/** loadBPAT fetches (or takes) a BPAT file and validates it (parseBPAT's options). */
export async function loadBPAT(src, opts = {}) {
  return parseBPAT(await bytes(src), { ...opts, name: nameOf(src, opts) });
}

/** loadBPSM fetches (or takes) a snapshot file and validates it. */
export async function loadBPSM(src, opts = {}) {
  return parseBPSM(await bytes(src), { ...opts, name: nameOf(src, opts) });
}

/**
 * loadGait fetches (or takes) a gait sidecar; given { bpat } it checks the
 * sidecar against that file's clips. With { optional: true } a missing file
 * (HTTP 404) gives null.
 */
export async function loadGait(src, opts = {}) {
  if (typeof src === 'string' || src instanceof URL) {
    const r = await fetch(src);
    if (r.status === 404 && opts.optional) return null;
    if (!r.ok) throw new Error(`bonebake: ${src}: HTTP ${r.status} ${r.statusText}`);
    return parseGait(await r.text(), { ...opts, name: nameOf(src, opts) });
  }
  return parseGait(src, opts);
}

/** gaitURL is the sidecar's URL beside a BPAT's: NAME.bpat → NAME.gait.json. */
export function gaitURL(bpatURL) {
  return String(bpatURL).replace(/\.bpat(\?.*)?$/i, '.gait.json$1');
}
