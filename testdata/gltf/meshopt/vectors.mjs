// Writes codec test vectors for bonebake's meshopt decoder: for each case an
// encoded stream (NAME.enc), what meshoptimizer's own decoder makes of it
// (NAME.dec), and cases.json with the parameters, into the folder given as its
// argument. Run by make.sh.
import fs from 'node:fs';
import { MeshoptEncoder as E } from 'meshoptimizer/encoder';

// The scalar build of meshoptimizer's decoder (the C reference compiled to
// WebAssembly), not the SIMD one: loaded with WebAssembly SIMD reported missing.
// The SIMD build rounds a few filter outputs differently by one unit.
const validate = WebAssembly.validate;
WebAssembly.validate = () => false;
const { MeshoptDecoder: D } = await import('meshoptimizer/decoder');
WebAssembly.validate = validate;

const out = process.argv[2] || 'vectors';
await E.ready;
await D.ready;

let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);

const cases = [];
function add(name, mode, filter, count, stride, enc) {
	const dec = new Uint8Array(count * stride);
	D.decodeGltfBuffer(dec, count, stride, enc, mode, filter === 'NONE' ? undefined : filter);
	fs.writeFileSync(`${out}/${name}.enc`, enc);
	fs.writeFileSync(`${out}/${name}.dec`, dec);
	cases.push({ name, mode, filter, count, stride });
}
fs.mkdirSync(out, { recursive: true });

// Vertex codec: smooth float data (a wavy strip), noisy bytes and mixed
// elements, over block boundaries, every level, versions 0 and 1.
function smooth(count, floats) {
	const f = new Float32Array(count * floats);
	for (let i = 0; i < count; i++)
		for (let k = 0; k < floats; k++) f[i * floats + k] = Math.sin(i * 0.05 + k) * (k + 1) + (k === 0 ? i * 0.01 : 0);
	return new Uint8Array(f.buffer);
}
function noisy(count, stride, spread) {
	const b = new Uint8Array(count * stride);
	for (let i = 0; i < b.length; i++) b[i] = (i % stride) * 7 + Math.floor(rand() * spread);
	return b;
}
for (const version of [0, 1]) {
	for (const level of [0, 1, 2, 3]) {
		for (const [what, count, stride, data] of [
			['pos', 1, 12, smooth(1, 3)],
			['pos', 300, 12, smooth(300, 3)],
			['mat', 40, 64, smooth(40, 16)],
			['uv', 1000, 8, smooth(1000, 2)],
			['noise', 700, 16, noisy(700, 16, 256)],
			['small', 517, 4, noisy(517, 4, 5)],
			['const', 200, 20, noisy(200, 20, 1)],
		]) {
			const enc = E.encodeVertexBufferLevel(data, count, stride, level, version);
			add(`vertex_v${version}_l${level}_${what}_${count}x${stride}`, 'ATTRIBUTES', 'NONE', count, stride, enc);
		}
	}
}

// A larger mesh-like stream (position, packed normal, uv) for the benchmark.
for (const version of [0, 1]) {
	const count = 8192, f = smooth(count, 4);
	add(`bench_v${version}_${count}x16`, 'ATTRIBUTES', 'NONE', count, 16, E.encodeVertexBufferLevel(f, count, 16, 2, version));
}

// Index codec and sequence codec on a grid and a shuffled grid.
function grid(n) {
	const idx = [];
	for (let y = 0; y < n; y++)
		for (let x = 0; x < n; x++) {
			const a = y * (n + 1) + x;
			idx.push(a, a + 1, a + n + 1, a + 1, a + n + 2, a + n + 1);
		}
	return new Uint32Array(idx);
}
function shuffledTris(idx) {
	const t = [];
	for (let i = 0; i < idx.length; i += 3) t.push([idx[i], idx[i + 1], idx[i + 2]]);
	for (let i = t.length - 1; i > 0; i--) {
		const j = Math.floor(rand() * (i + 1));
		[t[i], t[j]] = [t[j], t[i]];
	}
	return new Uint32Array(t.flat());
}
function sized(idx, size) {
	return new Uint8Array((size === 2 ? Uint16Array.from(idx) : Uint32Array.from(idx)).buffer);
}
for (const [what, idx] of [['grid', grid(20)], ['shuffled', shuffledTris(grid(30))], ['big', shuffledTris(grid(45))]]) {
	for (const size of [2, 4]) {
		add(`triangles_${what}_${size}`, 'TRIANGLES', 'NONE', idx.length, size, E.encodeIndexBuffer(sized(idx, size), idx.length, size));
		add(`indices_${what}_${size}`, 'INDICES', 'NONE', idx.length, size, E.encodeIndexSequence(sized(idx, size), idx.length, size));
	}
}

// Filters: encode with the filter encoder, then the vertex codec.
function unit(count, comps) {
	const f = new Float32Array(count * comps);
	for (let i = 0; i < count; i++) {
		let v = [], l = 0;
		for (let k = 0; k < comps; k++) {
			v.push(rand() * 2 - 1);
			l += v[k] * v[k];
		}
		for (let k = 0; k < comps; k++) f[i * comps + k] = v[k] / Math.sqrt(l);
	}
	return f;
}
const N = 333;
for (const version of [0, 1]) {
	for (const [stride, bits] of [[4, 8], [8, 12], [8, 16]]) {
		const f = unit(N, 4);
		const filtered = E.encodeFilterOct(f, N, stride, bits);
		add(`oct_v${version}_${stride}_${bits}`, 'ATTRIBUTES', 'OCTAHEDRAL', N, stride, E.encodeVertexBufferLevel(filtered, N, stride, 2, version));
	}
	for (const bits of [8, 12, 16]) {
		const filtered = E.encodeFilterQuat(unit(N, 4), N, 8, bits);
		add(`quat_v${version}_${bits}`, 'ATTRIBUTES', 'QUATERNION', N, 8, E.encodeVertexBufferLevel(filtered, N, 8, 2, version));
	}
	for (const mode of ['Separate', 'SharedVector', 'SharedComponent', 'Clamped']) {
		const f = new Float32Array(N * 3);
		for (let i = 0; i < f.length; i++) f[i] = (rand() - 0.5) * 10 ** Math.floor(rand() * 8 - 4);
		const filtered = E.encodeFilterExp(f, N, 12, 15, mode);
		add(`exp_v${version}_${mode}`, 'ATTRIBUTES', 'EXPONENTIAL', N, 12, E.encodeVertexBufferLevel(filtered, N, 12, 2, version));
	}
	for (const [stride, bits] of [[4, 8], [8, 12], [8, 16]]) {
		const f = new Float32Array(N * 4);
		for (let i = 0; i < f.length; i++) f[i] = rand();
		const filtered = E.encodeFilterColor(f, N, stride, bits);
		add(`color_v${version}_${stride}_${bits}`, 'ATTRIBUTES', 'COLOR', N, stride, E.encodeVertexBufferLevel(filtered, N, stride, 2, version));
	}
}
fs.writeFileSync(`${out}/cases.json`, JSON.stringify(cases, null, 1) + '\n');
console.log(`${cases.length} cases`);
