// A canonical BPAT v1 file built by docs/formats/bpat.md §3.5 for the node
// tests: clips of { name, loops, frames: [[bone matrices (16 row-major floats)]] }.
export function bpatFile(boneCount, clips, fps = 30) {
  const enc = new TextEncoder();
  const names = [...new Set(clips.map((c) => c.name))];
  const strings = enc.encode(names.map((n) => n + '\0').join(''));
  const frameTotal = clips.reduce((s, c) => s + c.frames.length, 0);
  const strAt = 64 + 32 * clips.length;
  const palAt = Math.ceil((strAt + strings.length) / 16) * 16;
  const b = new Uint8Array(palAt + frameTotal * boneCount * 64), v = new DataView(b.buffer);
  b.set([0x42, 0x50, 0x41, 0x54]);
  [1, 7, boneCount, 0, clips.length, frameTotal, strings.length].forEach((x, i) => v.setUint32(4 + 4 * i, x, true));
  v.setBigUint64(32, 64n, true);
  v.setBigUint64(48, BigInt(strAt), true);
  v.setBigUint64(56, BigInt(palAt), true);
  b.set(strings, strAt);
  let off = 0;
  clips.forEach((c, i) => {
    const e = 64 + 32 * i;
    let so = 0;
    for (const m of names) { if (m === c.name) break; so += enc.encode(m).length + 1; }
    v.setUint32(e, so, true); v.setUint32(e + 4, enc.encode(c.name).length, true);
    v.setUint32(e + 8, c.frames.length, true); v.setUint32(e + 12, off, true);
    v.setFloat32(e + 16, fps, true); b[e + 20] = c.loops ? 1 : 0;
    c.frames.forEach((frame, f) => frame.forEach((m, bone) => m.forEach((x, k) => v.setFloat32(palAt + (((off + f) * boneCount + bone) * 16 + k) * 4, x, true))));
    off += c.frames.length;
  });
  return b;
}

/** translate(x, y, z) row-major. */
export const T = (x, y, z) => [1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z, 0, 0, 0, 1];
