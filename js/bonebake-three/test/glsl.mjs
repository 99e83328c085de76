// A small evaluator of the GLSL ES 3.00 subset the PLAYBACK chunk is written
// in, so that node runs the chunk's own text on the golden cases without a
// browser (glsl.test.mjs). It parses the source and runs it as GLSL would:
// highp float is float32 (every float result rounded with Math.fround), int is
// a 32-bit integer, int(x) truncates, and there is no implicit conversion
// between int and float (an ES 3.00 compile error is an error here too). What
// it does not know (a preprocessor line, out parameters, a for loop, a swizzle
// of several components, a function it has no table entry for) it refuses,
// naming the line, rather than guess: a chunk that grows past the subset makes
// the test fail until the evaluator learns the new construct.

const TOKEN = /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|(\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+u?)|([A-Za-z_]\w*)|(<<=|>>=|\+\+|--|\+=|-=|\*=|\/=|%=|==|!=|<=|>=|&&|\|\||<<|>>|[-+*/%<>=!?:;,(){}\[\].&|^~])|(#)|(.)/y;

function tokenize(src) {
  const out = [];
  let line = 1;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (m[4] !== undefined) throw new Error(`line ${line}: a preprocessor line is outside the evaluated subset`);
    if (m[5] !== undefined) throw new Error(`line ${line}: unexpected character ${JSON.stringify(m[5])}`);
    if (m[1] !== undefined) out.push({ k: 'num', v: m[1], line });
    else if (m[2] !== undefined) out.push({ k: 'id', v: m[2], line });
    else if (m[3] !== undefined) out.push({ k: 'op', v: m[3], line });
    for (let i = at; i < TOKEN.lastIndex; i++) if (src[i] === '\n') line++;
  }
  out.push({ k: 'eof', v: '', line });
  return out;
}

const SCALARS = new Set(['float', 'int', 'bool']);
const VECTORS = { vec2: 2, vec3: 3, vec4: 4 };
const TYPES = new Set(['void', ...SCALARS, ...Object.keys(VECTORS)]);

// Binary operators by precedence (GLSL's, as C's), lowest first.
const BINARY = [['||'], ['&&'], ['|'], ['^'], ['&'], ['==', '!='], ['<', '>', '<=', '>='], ['<<', '>>'], ['+', '-'], ['*', '/', '%']];

class Parser {
  constructor(src) { this.t = tokenize(src); this.i = 0; }
  peek(o = 0) { return this.t[this.i + o]; }
  next() { return this.t[this.i++]; }
  is(v) { const p = this.peek(); return (p.k === 'op' || p.k === 'id') && p.v === v; }
  eat(v) { if (this.is(v)) { this.i++; return true; } return false; }
  want(v) {
    const p = this.next();
    if (p.v !== v) throw new Error(`line ${p.line}: want ${JSON.stringify(v)}, got ${JSON.stringify(p.v)}`);
    return p;
  }
  ident() {
    const p = this.next();
    if (p.k !== 'id' || TYPES.has(p.v)) throw new Error(`line ${p.line}: want a name, got ${JSON.stringify(p.v)}`);
    return p.v;
  }
  type() {
    const p = this.next();
    if (p.k !== 'id' || !TYPES.has(p.v)) throw new Error(`line ${p.line}: type ${JSON.stringify(p.v)} is outside the evaluated subset`);
    return p.v;
  }

  // program: const arrays and scalars, and functions.
  program() {
    const consts = [], funcs = new Map();
    while (this.peek().k !== 'eof') {
      const line = this.peek().line;
      if (this.eat('const')) {
        const type = this.type();
        const name = this.ident();
        let size = null;
        if (this.eat('[')) { size = this.intLiteral(); this.want(']'); }
        this.want('=');
        const init = this.expr();
        this.want(';');
        consts.push({ type, name, size, init, line });
        continue;
      }
      const type = this.type();
      const name = this.ident();
      this.want('(');
      const params = [];
      if (!this.eat(')')) {
        do {
          if (this.is('out') || this.is('inout')) throw new Error(`line ${this.peek().line}: ${this.peek().v} parameters are outside the evaluated subset`);
          this.eat('in');
          params.push({ type: this.type(), name: this.ident() });
        } while (this.eat(','));
        this.want(')');
      }
      if (funcs.has(name)) throw new Error(`line ${line}: ${name} defined twice (overloads are outside the evaluated subset)`);
      funcs.set(name, { type, name, params, body: this.block(), line });
    }
    return { consts, funcs };
  }
  intLiteral() {
    const p = this.next();
    if (p.k !== 'num' || !/^\d+$/.test(p.v)) throw new Error(`line ${p.line}: want an array size`);
    return Number(p.v);
  }
  block() {
    this.want('{');
    const body = [];
    while (!this.eat('}')) body.push(this.statement());
    return { s: 'block', body };
  }
  statement() {
    const p = this.peek();
    if (p.v === '{' && p.k === 'op') return this.block();
    if (p.k === 'id') {
      if (p.v === 'if') {
        this.next(); this.want('(');
        const cond = this.expr();
        this.want(')');
        const then = this.statement();
        const els = this.eat('else') ? this.statement() : null;
        return { s: 'if', cond, then, els, line: p.line };
      }
      if (p.v === 'while') {
        this.next(); this.want('(');
        const cond = this.expr();
        this.want(')');
        return { s: 'while', cond, body: this.statement(), line: p.line };
      }
      if (p.v === 'return') {
        this.next();
        const e = this.is(';') ? null : this.expr();
        this.want(';');
        return { s: 'return', e, line: p.line };
      }
      if (['for', 'do', 'switch', 'break', 'continue', 'discard'].includes(p.v)) throw new Error(`line ${p.line}: ${p.v} is outside the evaluated subset`);
      if (TYPES.has(p.v) && this.peek(1).k === 'id') { // a declaration
        const type = this.type();
        const vars = [];
        do {
          const name = this.ident();
          vars.push({ name, init: this.eat('=') ? this.assign() : null });
        } while (this.eat(','));
        this.want(';');
        return { s: 'decl', type, vars, line: p.line };
      }
    }
    const e = this.expr();
    this.want(';');
    return { s: 'expr', e, line: p.line };
  }

  expr() { return this.assign(); }
  assign() {
    const left = this.ternary();
    const p = this.peek();
    if (p.k === 'op' && ['=', '+=', '-=', '*=', '/='].includes(p.v)) {
      this.next();
      if (left.e !== 'var') throw new Error(`line ${p.line}: only a variable can be assigned in the evaluated subset`);
      return { e: 'assign', op: p.v, name: left.name, value: this.assign(), line: p.line };
    }
    return left;
  }
  ternary() {
    const cond = this.binary(0);
    if (!this.eat('?')) return cond;
    const a = this.assign();
    this.want(':');
    return { e: 'cond', cond, a, b: this.assign(), line: this.peek().line };
  }
  binary(level) {
    if (level === BINARY.length) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const p = this.peek();
      if (p.k !== 'op' || !BINARY[level].includes(p.v)) return left;
      this.next();
      left = { e: 'bin', op: p.v, a: left, b: this.binary(level + 1), line: p.line };
    }
  }
  unary() {
    const p = this.peek();
    if (p.k === 'op' && ['-', '+', '!', '~'].includes(p.v)) {
      this.next();
      return { e: 'un', op: p.v, a: this.unary(), line: p.line };
    }
    if (p.k === 'op' && (p.v === '++' || p.v === '--')) throw new Error(`line ${p.line}: prefix ${p.v} is outside the evaluated subset`);
    return this.postfix();
  }
  postfix() {
    let e = this.primary();
    for (;;) {
      const p = this.peek();
      if (p.k !== 'op') return e;
      if (p.v === '[') {
        this.next();
        e = { e: 'index', a: e, i: this.expr(), line: p.line };
        this.want(']');
      } else if (p.v === '.') {
        this.next();
        const f = this.next();
        if (f.k !== 'id' || !/^[xyzw]$/.test(f.v)) throw new Error(`line ${f.line}: swizzle .${f.v} is outside the evaluated subset (one of x, y, z, w)`);
        e = { e: 'field', a: e, k: 'xyzw'.indexOf(f.v), line: p.line };
      } else if (p.v === '++' || p.v === '--') {
        this.next();
        if (e.e !== 'var') throw new Error(`line ${p.line}: only a variable can be incremented in the evaluated subset`);
        e = { e: 'assign', op: p.v === '++' ? '+=' : '-=', name: e.name, value: { e: 'num', v: '1', line: p.line }, post: true, line: p.line };
      } else return e;
    }
  }
  primary() {
    const p = this.next();
    if (p.k === 'num') return { e: 'num', v: p.v, line: p.line };
    if (p.k === 'op' && p.v === '(') {
      const e = this.expr();
      this.want(')');
      return e;
    }
    if (p.k !== 'id') throw new Error(`line ${p.line}: unexpected ${JSON.stringify(p.v)}`);
    if (p.v === 'true' || p.v === 'false') return { e: 'bool', v: p.v === 'true', line: p.line };
    if (TYPES.has(p.v) && this.is('[')) { // an array constructor: float[8](…)
      this.next();
      const size = this.intLiteral();
      this.want(']');
      return { e: 'array', type: p.v, size, args: this.args(), line: p.line };
    }
    if (this.is('(')) return { e: 'call', name: p.v, args: this.args(), line: p.line };
    return { e: 'var', name: p.v, line: p.line };
  }
  args() {
    this.want('(');
    const out = [];
    if (this.eat(')')) return out;
    do out.push(this.assign()); while (this.eat(','));
    this.want(')');
    return out;
  }
}

// Values are { t, v }: t a type name ('float', 'int', 'bool', 'vec3', or
// 'float[]' for an array), v a number, boolean or array of numbers.
const f32 = Math.fround;
const i32 = (x) => x | 0;
const typeErr = (line, what) => new Error(`line ${line}: ${what} (not GLSL ES 3.00: no implicit conversions)`);

function scalar(t, v) { return { t, v: t === 'float' ? f32(v) : t === 'int' ? i32(v) : v }; }

function convert(t, x, line) {
  if (SCALARS.has(t)) {
    if (!SCALARS.has(x.t)) throw typeErr(line, `${t}(${x.t})`);
    if (t === 'bool') return { t, v: typeof x.v === 'boolean' ? x.v : x.v !== 0 };
    const n = typeof x.v === 'boolean' ? (x.v ? 1 : 0) : x.v;
    return scalar(t, t === 'int' ? Math.trunc(n) : n); // int(float) drops the fraction
  }
  throw typeErr(line, `conversion to ${t}`);
}

const BUILTINS = {
  floor: (line, x) => { need(line, 'floor', x, 'float'); return scalar('float', Math.floor(x.v)); },
  abs: (line, x) => { need(line, 'abs', x); return scalar(x.t, Math.abs(x.v)); },
  min: (line, a, b) => { same(line, 'min', a, b); return scalar(a.t, a.v < b.v ? a.v : b.v); }, // GLSL: b < a ? b : a
  max: (line, a, b) => { same(line, 'max', a, b); return scalar(a.t, a.v < b.v ? b.v : a.v); },
  clamp: (line, x, lo, hi) => { same(line, 'clamp', x, lo); same(line, 'clamp', x, hi); return scalar(x.t, Math.min(Math.max(x.v, lo.v), hi.v)); },
};
function need(line, f, x, t) {
  if (!(t ? x.t === t : x.t === 'float' || x.t === 'int')) throw typeErr(line, `${f}(${x.t})`);
}
function same(line, f, a, b) {
  if (a.t !== b.t || !(a.t === 'float' || a.t === 'int')) throw typeErr(line, `${f}(${a.t}, ${b.t})`);
}

function arith(op, a, b, line) {
  if (a.t !== b.t || !(a.t === 'float' || a.t === 'int')) throw typeErr(line, `${a.t} ${op} ${b.t}`);
  const x = a.v, y = b.v;
  if (a.t === 'int') {
    switch (op) {
      case '+': return scalar('int', x + y);
      case '-': return scalar('int', x - y);
      case '*': return scalar('int', Math.imul(x, y));
      case '/': if (y === 0) throw new Error(`line ${line}: integer division by zero`); return scalar('int', Math.trunc(x / y));
      case '%': if (y === 0) throw new Error(`line ${line}: integer remainder by zero`); return scalar('int', x % y);
      case '&': return scalar('int', x & y);
      case '|': return scalar('int', x | y);
      case '^': return scalar('int', x ^ y);
      case '<<': return scalar('int', x << y);
      case '>>': return scalar('int', x >> y);
    }
  } else {
    switch (op) {
      case '+': return scalar('float', x + y);
      case '-': return scalar('float', x - y);
      case '*': return scalar('float', x * y);
      case '/': return scalar('float', x / y);
    }
  }
  throw typeErr(line, `${a.t} ${op} ${b.t}`);
}

class Return { constructor(v) { this.v = v; } }

/**
 * compile parses GLSL source in the subset and returns { call(name, ...args) }:
 * args are JavaScript numbers and booleans, taken as the function's parameter
 * types (an int parameter must get an integer); the result is a number, a
 * boolean or, for a vector, an array.
 */
export function compile(src) {
  const { consts, funcs } = new Parser(src).program();
  const globals = new Map();
  const run = new Runner(funcs, globals);
  for (const c of consts) {
    let v = run.eval(c.init, [new Map()]);
    if (c.size !== null) {
      if (v.t !== c.type + '[]' || v.v.length !== c.size) throw typeErr(c.line, `const ${c.type} ${c.name}[${c.size}] = ${v.t} of ${v.v.length}`);
    } else if (v.t !== c.type) throw typeErr(c.line, `const ${c.type} ${c.name} = ${v.t}`);
    globals.set(c.name, { ...v, const: true });
  }
  return {
    functions: [...funcs.keys()],
    call(name, ...args) {
      const f = funcs.get(name);
      if (!f) throw new Error(`no function ${name}`);
      if (args.length !== f.params.length) throw new Error(`${name}: ${args.length} arguments for ${f.params.length} parameters`);
      const vals = args.map((a, k) => {
        const t = f.params[k].type;
        if (t === 'int' && !Number.isInteger(a)) throw new Error(`${name}: argument ${k} (${a}) is not an int`);
        if (t === 'bool' && typeof a !== 'boolean') throw new Error(`${name}: argument ${k} (${a}) is not a bool`);
        if (t === 'float' && typeof a !== 'number') throw new Error(`${name}: argument ${k} (${a}) is not a float`);
        if (!SCALARS.has(t)) throw new Error(`${name}: parameter ${k} is a ${t}`);
        return scalar(t, a);
      });
      return run.invoke(f, vals, f.line).v;
    },
  };
}

class Runner {
  constructor(funcs, globals) { this.funcs = funcs; this.globals = globals; this.steps = 0; }

  lookup(scopes, name, line) {
    for (let k = scopes.length - 1; k >= 0; k--) if (scopes[k].has(name)) return scopes[k];
    if (this.globals.has(name)) return this.globals;
    throw new Error(`line ${line}: ${name} is not declared`);
  }

  invoke(f, vals, line) {
    const scope = new Map();
    f.params.forEach((p, k) => {
      if (vals[k].t !== p.type) throw typeErr(line, `${f.name} takes ${p.type} for ${p.name}, given ${vals[k].t}`);
      scope.set(p.name, vals[k]);
    });
    try {
      this.exec(f.body, [scope]);
    } catch (e) {
      if (!(e instanceof Return)) throw e;
      if (e.v.t !== f.type) throw typeErr(line, `${f.name} returns ${e.v.t}, declared ${f.type}`);
      return e.v;
    }
    if (f.type !== 'void') throw new Error(`line ${f.line}: ${f.name} ends without a return`);
    return { t: 'void' };
  }

  cond(e, scopes, line) {
    const c = this.eval(e, scopes);
    if (c.t !== 'bool') throw typeErr(line, `a condition of type ${c.t}`);
    return c.v;
  }

  exec(s, scopes) {
    switch (s.s) {
      case 'block': {
        const inner = [...scopes, new Map()];
        for (const x of s.body) this.exec(x, inner);
        return;
      }
      case 'decl':
        for (const v of s.vars) {
          const top = scopes[scopes.length - 1];
          if (top.has(v.name)) throw new Error(`line ${s.line}: ${v.name} declared twice`);
          let val = { t: s.type, v: s.type === 'bool' ? false : 0, unset: true };
          if (v.init) {
            val = this.eval(v.init, scopes);
            if (val.t !== s.type) throw typeErr(s.line, `${s.type} ${v.name} = ${val.t}`);
          }
          top.set(v.name, val);
        }
        return;
      case 'if':
        if (this.cond(s.cond, scopes, s.line)) this.exec(s.then, [...scopes, new Map()]);
        else if (s.els) this.exec(s.els, [...scopes, new Map()]);
        return;
      case 'while':
        while (this.cond(s.cond, scopes, s.line)) {
          if (++this.steps > 1e6) throw new Error(`line ${s.line}: the loop ran a million times`);
          this.exec(s.body, [...scopes, new Map()]);
        }
        return;
      case 'return':
        throw new Return(s.e ? this.eval(s.e, scopes) : { t: 'void' });
      case 'expr':
        this.eval(s.e, scopes);
        return;
    }
    throw new Error(`statement ${s.s}`);
  }

  eval(e, scopes) {
    switch (e.e) {
      case 'num':
        if (/[.eE]/.test(e.v)) return scalar('float', Number(e.v));
        if (e.v.endsWith('u')) throw new Error(`line ${e.line}: uint is outside the evaluated subset`);
        return scalar('int', Number(e.v));
      case 'bool': return { t: 'bool', v: e.v };
      case 'var': {
        const v = this.lookup(scopes, e.name, e.line).get(e.name);
        if (v.unset) throw new Error(`line ${e.line}: ${e.name} is read before it is set`);
        return v;
      }
      case 'assign': {
        const scope = this.lookup(scopes, e.name, e.line);
        const old = scope.get(e.name);
        if (old.const) throw new Error(`line ${e.line}: ${e.name} is const`);
        let v = this.eval(e.value, scopes);
        if (e.op !== '=') {
          if (old.unset) throw new Error(`line ${e.line}: ${e.name} is read before it is set`);
          v = arith(e.op[0], old, v, e.line);
        }
        if (v.t !== old.t) throw typeErr(e.line, `${old.t} ${e.name} ${e.op} ${v.t}`);
        scope.set(e.name, v);
        return e.post ? old : v;
      }
      case 'cond': {
        const a = this.cond(e.cond, scopes, e.line) ? this.eval(e.a, scopes) : this.eval(e.b, scopes);
        return a;
      }
      case 'un': {
        const a = this.eval(e.a, scopes);
        if (e.op === '!') {
          if (a.t !== 'bool') throw typeErr(e.line, `!${a.t}`);
          return { t: 'bool', v: !a.v };
        }
        if (e.op === '~') {
          if (a.t !== 'int') throw typeErr(e.line, `~${a.t}`);
          return scalar('int', ~a.v);
        }
        if (a.t !== 'float' && a.t !== 'int') throw typeErr(e.line, `${e.op}${a.t}`);
        return scalar(a.t, e.op === '-' ? -a.v : a.v);
      }
      case 'bin': {
        if (e.op === '&&' || e.op === '||') { // short-circuit, as GLSL's
          const a = this.cond(e.a, scopes, e.line);
          if (e.op === '&&' ? !a : a) return { t: 'bool', v: a };
          return { t: 'bool', v: this.cond(e.b, scopes, e.line) };
        }
        const a = this.eval(e.a, scopes), b = this.eval(e.b, scopes);
        switch (e.op) {
          case '<': case '>': case '<=': case '>=':
            if (a.t !== b.t || !(a.t === 'float' || a.t === 'int')) throw typeErr(e.line, `${a.t} ${e.op} ${b.t}`);
            return { t: 'bool', v: e.op === '<' ? a.v < b.v : e.op === '>' ? a.v > b.v : e.op === '<=' ? a.v <= b.v : a.v >= b.v };
          case '==': case '!=':
            if (a.t !== b.t || !SCALARS.has(a.t)) throw typeErr(e.line, `${a.t} ${e.op} ${b.t}`);
            return { t: 'bool', v: (a.v === b.v) === (e.op === '==') };
        }
        return arith(e.op, a, b, e.line);
      }
      case 'index': {
        const a = this.eval(e.a, scopes), i = this.eval(e.i, scopes);
        if (i.t !== 'int') throw typeErr(e.line, `an index of type ${i.t}`);
        if (!a.t.endsWith('[]') && !VECTORS[a.t]) throw typeErr(e.line, `indexing a ${a.t}`);
        if (i.v < 0 || i.v >= a.v.length) throw new Error(`line ${e.line}: index ${i.v} out of range [0, ${a.v.length})`);
        return scalar(a.t.endsWith('[]') ? a.t.slice(0, -2) : 'float', a.v[i.v]);
      }
      case 'field': {
        const a = this.eval(e.a, scopes);
        if (!VECTORS[a.t] || e.k >= VECTORS[a.t]) throw typeErr(e.line, `.${'xyzw'[e.k]} of a ${a.t}`);
        return scalar('float', a.v[e.k]);
      }
      case 'array': {
        const args = e.args.map((x) => this.eval(x, scopes));
        if (args.length !== e.size) throw typeErr(e.line, `${e.type}[${e.size}] of ${args.length} values`);
        for (const a of args) if (a.t !== e.type) throw typeErr(e.line, `${e.type}[${e.size}] given a ${a.t}`);
        return { t: e.type + '[]', v: args.map((a) => a.v) };
      }
      case 'call': {
        const args = e.args.map((x) => this.eval(x, scopes));
        if (SCALARS.has(e.name)) {
          if (args.length !== 1) throw typeErr(e.line, `${e.name} of ${args.length} values`);
          return convert(e.name, args[0], e.line);
        }
        if (VECTORS[e.name]) {
          const n = VECTORS[e.name];
          if (args.length !== n || args.some((a) => a.t !== 'float')) throw new Error(`line ${e.line}: ${e.name} is evaluated from ${n} floats only`);
          return { t: e.name, v: args.map((a) => a.v) };
        }
        const f = this.funcs.get(e.name);
        if (f) return this.invoke(f, args, e.line);
        const b = BUILTINS[e.name];
        if (!b) throw new Error(`line ${e.line}: ${e.name} is outside the evaluated subset`);
        if (args.length !== b.length - 1) throw new Error(`line ${e.line}: ${e.name} of ${args.length} values`);
        return b(e.line, ...args);
      }
    }
    throw new Error(`line ${e.line}: expression ${e.e}`);
  }
}
