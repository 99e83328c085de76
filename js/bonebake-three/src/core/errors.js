// Errors of the readers: one broken rule names the file, the rule (the
// identifiers of docs/formats/bpat.md §4, bpsm.md §6, gait.md §1), the byte
// offset of the offending field and the clip or socket index (−1 when none), as
// Go's formats.FormatError does, so a message reads the same from either side.

/** One broken rule. */
export class FormatError extends Error {
  constructor(file, rule, offset, index, detail) {
    const where = file ? `${file}: ` : '';
    super(`${where}offset ${offset} (0x${offset.toString(16)}): ${rule}: ${detail}`);
    this.name = 'FormatError';
    this.file = file;
    this.rule = rule;
    this.offset = offset;
    this.index = index;
    this.detail = detail;
  }
}

/** Every rule a file breaks, sorted by offset; `problems` holds each FormatError. */
export class ValidationError extends Error {
  constructor(format, file, problems) {
    let msg;
    if (problems.length === 1) {
      msg = problems[0].message;
    } else {
      msg = `${file || format}: ${problems.length} problems:` +
        problems.map((p) => `\n  offset ${p.offset} (0x${p.offset.toString(16)}): ${p.rule}: ${p.detail}`).join('');
    }
    super(msg);
    this.name = 'ValidationError';
    this.format = format;
    this.file = file;
    this.problems = problems;
  }
}

// Checker collects problems while a reader walks a file. Lenient rules (those
// the game's reader lets pass) become warnings when the caller asks for
// lenient reading.
export class Checker {
  constructor(format, file, bytes, { lenient = false } = {}) {
    this.format = format;
    this.file = file;
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.lenient = lenient;
    this.problems = [];
    this.warnings = [];
  }

  fail(rule, offset, index, detail) {
    this.problems.push(new FormatError(this.file, rule, Number(offset), index, detail));
  }

  // strict reports a rule lenient mode lets pass as a warning.
  strict(rule, offset, index, detail) {
    const e = new FormatError(this.file, rule, Number(offset), index, detail);
    (this.lenient ? this.warnings : this.problems).push(e);
  }

  u8(o) { return this.bytes[o]; }
  u32(o) { return this.view.getUint32(o, true); }
  f32(o) { return this.view.getFloat32(o, true); }
  // u64 as a Number: offsets beyond 2⁵³ are out of any file's bounds anyway.
  u64(o) { return this.view.getUint32(o, true) + this.view.getUint32(o + 4, true) * 0x100000000; }

  // zeros reports the first non-zero byte of [from, to).
  zeros(from, to, what, index) {
    for (let o = from; o < to; o++) {
      if (this.bytes[o] !== 0) {
        this.strict('zero-bytes', o, index, `${what} byte is 0x${this.bytes[o].toString(16)}; it must be 0`);
        return;
      }
    }
  }

  // name reads a string-table name, checking bounds, its NUL and its UTF-8.
  name(kind, index, entry, table) {
    const off = this.u32(entry), len = this.u32(entry + 4);
    if (!table.ok || off + len + 1 > table.end - table.start) {
      this.fail('bounds', entry, index, `${kind} ${index} name at ${off}+${len} lies outside the ${table.end - table.start}-byte string table`);
      return '';
    }
    const s = table.start + off;
    const raw = this.bytes.subarray(s, s + len);
    if (this.bytes[s + len] !== 0) {
      this.fail('name', s + len, index, `${kind} ${index} name is not followed by NUL`);
    } else if (raw.includes(0)) {
      this.fail('name', s + raw.indexOf(0), index, `${kind} ${index} name contains a NUL`);
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      this.fail('name', s, index, `${kind} ${index} name is not valid UTF-8`);
      return '';
    }
  }

  // section returns the span of count·size bytes at offset, failing bounds
  // when it lies outside the file (sizes in doubles: exact up to 2⁵³, and any
  // larger size is out of bounds).
  section(name, field, offset, count, size) {
    const bytes = count * size;
    const end = offset + bytes;
    if (!(end <= this.bytes.length) || offset > this.bytes.length) {
      this.fail('bounds', field, -1, `${name} at ${offset} of ${count} × ${size} bytes ends past the file's ${this.bytes.length} bytes`);
      return { name, start: offset, end, ok: false };
    }
    return { name, start: offset, end, ok: true };
  }

  align(span, n) {
    if (span.ok && span.start % n !== 0) {
      this.fail('alignment', span.field ?? span.start, -1, `${span.name} at ${span.start} is not ${n}-byte aligned`);
    }
  }

  // order checks that the spans follow each other (section-order), do not
  // overlap, leave zero gaps, end the file, and sit where the canonical layout
  // puts them.
  order(spans, canonical, want) {
    if (!spans.every((s) => s.ok)) return;
    let ordered = true;
    for (let i = 1; i < spans.length; i++) {
      const a = spans[i - 1], b = spans[i];
      if (b.start < a.start) {
        this.fail('section-order', b.field ?? b.start, -1, `${b.name} at ${b.start} comes before ${a.name} at ${a.start}; the order is ${want}`);
        ordered = false;
      } else if (b.start < a.end) {
        this.strict('overlap', b.field ?? b.start, -1, `${b.name} at ${b.start} starts inside ${a.name} [${a.start}, ${a.end})`);
        ordered = false;
      }
    }
    for (let i = 0; i < spans.length; i++) {
      if (spans[i].start !== canonical[i]) {
        this.strict('layout', spans[i].field ?? spans[i].start, -1, `${spans[i].name} is at ${spans[i].start}; the canonical layout puts it at ${canonical[i]}`);
      }
    }
    if (!ordered) return;
    for (let i = 1; i < spans.length; i++) this.zeros(spans[i - 1].end, spans[i].start, 'gap', -1);
    const last = spans[spans.length - 1].end;
    if (last < this.bytes.length) {
      this.strict('trailing-bytes', last, -1, `${this.bytes.length - last} bytes follow the last section`);
    }
  }

  // finite reports the first NaN or infinite float of a span.
  finite(rule, span) {
    if (!span.ok) return;
    for (let o = span.start; o + 4 <= span.end; o += 4) {
      if (!Number.isFinite(this.f32(o))) {
        this.strict(rule, o, -1, `float ${this.f32(o)} in ${span.name} at ${o}; every float must be finite`);
        return;
      }
    }
  }

  done() {
    if (this.problems.length) {
      this.problems.sort((a, b) => a.offset - b.offset);
      throw new ValidationError(this.format, this.file, this.problems);
    }
  }
}

// bytesOf views an ArrayBuffer, a typed array or a DataView as bytes.
export function bytesOf(data) {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new TypeError('expected an ArrayBuffer or a typed array');
}
