// The 128-bit integer and long double compiler builtins (src/exec/wasm/host/compiler-builtins.ts)
// under a real clang-compiled module: every operation below runs through the module's `env`
// imports. Oracles: BigInt arithmetic for the integers, known binary128 bit patterns and f64
// arithmetic where it is exact, and — for a few hundred random operand pairs over the whole
// exponent range — the results clang folds at compile time (APFloat), which owe nothing to the
// code under test. Skips without clang.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_GAS, compilerBuiltinsHost } from '../src/exec/wasm/host/compiler-builtins.ts';
import { hostImports } from '../src/exec/wasm/host/index.ts';
import { WasmCallError } from '../src/exec/wasm/host/context.ts';
import { RunContext, type MainLink } from '../src/exec/wasm/run-context.ts';
import type { RunMessage, RunningTx } from '../src/exec/wasm/thread-protocol.ts';
import { moduleSignatures } from '../src/exec/wasm/signatures.ts';
import { clangAvailable } from './helpers/wasm-c.ts';
import { prng } from './helpers/prng.ts';

const SOURCE = fileURLToPath(new URL('./wasm/contracts/builtins.c', import.meta.url));
const CASES = 300;
const M64 = (1n << 64n) - 1n;
const M128 = (1n << 128n) - 1n;

/** A binary128 value as a C hex-float literal clang reads exactly. */
function literal(bits: bigint): string {
  const sign = bits >> 127n ? '-' : '';
  const biased = Number((bits >> 112n) & 0x7fffn);
  const frac = (bits & ((1n << 112n) - 1n)).toString(16).padStart(28, '0');
  if (biased === 0x7fff) return frac === '0'.repeat(28) ? `${sign}__builtin_infl()` : '__builtin_nanl("")';
  if (biased === 0) return `${sign}0x0.${frac}p-16382L`;
  return `${sign}0x1.${frac}p${biased - 16383}L`;
}

/** Random operands: any exponent, nearby exponents (cancellation), the edges (overflow, subnormals), integers, specials. */
function operands(seed: number): [bigint, bigint][] {
  const rand = prng(seed);
  const bits = (n: number) => {
    let v = 0n;
    for (let i = 0; i < n; i += 16) v = (v << 16n) | BigInt(Math.floor(rand() * 65536));
    return v & ((1n << BigInt(n)) - 1n);
  };
  const make = (sign: bigint, biased: number, frac: bigint) => (sign << 127n) | (BigInt(biased) << 112n) | frac;
  const specials = [0n, 1n << 127n, make(0n, 0x7fff, 0n), make(1n, 0x7fff, 0n), make(0n, 0x7fff, 1n), make(0n, 0, 1n), make(0n, 0x7ffe, (1n << 112n) - 1n)];
  const pairs: [bigint, bigint][] = [];
  for (let i = 0; i < CASES; i++) {
    const kind = i % 6;
    const exp = kind === 0 ? 1 + Math.floor(rand() * 0x7ffe) : kind === 3 ? Math.floor(rand() * 40) : kind === 4 ? 0x7ffe - Math.floor(rand() * 4) : 16383 + Math.floor(rand() * 200) - 100;
    const a = make(bits(1), exp, bits(112));
    let b: bigint;
    if (kind === 1) b = make(bits(1), exp + Math.floor(rand() * 5) - 2, bits(112)); // cancellation
    else if (kind === 2) b = BigInt.asUintN(128, a + BigInt(Math.floor(rand() * 5) - 2)); // neighbours
    else if (kind === 5) b = specials[Math.floor(rand() * specials.length)]!;
    else b = make(bits(1), kind === 3 ? 0x3fff + Math.floor(rand() * 200) : 1 + Math.floor(rand() * 0x7ffe), bits(112));
    pairs.push(i % 12 === 11 ? [b, a] : [a, b]);
  }
  return pairs;
}

function casesHeader(pairs: [bigint, bigint][]): string {
  const list = (f: (a: string, b: string) => string) => `{${pairs.map(([a, b]) => f(literal(a), literal(b))).join(',\n')}}`;
  return [
    `#define CASES ${pairs.length}`,
    `static volatile long double A[CASES] = ${list((a) => a)};`,
    `static volatile long double B[CASES] = ${list((_, b) => b)};`,
    `static const long double EXPECTED[4][CASES] = {${['+', '-', '*', '/'].map((op) => list((a, b) => `(${a}) ${op} (${b})`)).join(',\n')}};`,
  ].join('\n');
}

interface Module {
  exports: Record<string, any>;
  /** gas charged by host functions, and how many times each was called */
  gas: { used(): bigint; calls: Map<string, number> };
  read128(ptr: number, index: number): bigint;
  out(index: number): bigint;
}

const GAS = 10n ** 12n;

/** The module instantiated as the engine links it (hostImports: every host function adapted to the module's signatures), on a real RunContext. */
function instantiate(wasm: Uint8Array): Module {
  const module = new WebAssembly.Module(wasm);
  assert.equal(WebAssembly.Module.imports(module).filter((i) => !Object.hasOwn(compilerBuiltinsHost, i.name)), [], 'the module imports only builtins');
  // a run's context outside any thread or EVM: the builtins use memory and gas only
  const noMain: MainLink = {
    request: () => assert.unreachable('a builtin asked the main thread'),
    print: () => assert.unreachable('a builtin printed'),
  };
  const ctx = new RunContext({ gasLimit: GAS } as RunMessage, {} as RunningTx, noMain);
  const calls = new Map<string, number>();
  const imports = hostImports(module, moduleSignatures(wasm), ctx);
  for (const [name, fn] of Object.entries(imports.env!)) {
    imports.env![name] = (...args: unknown[]) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return (fn as (...a: unknown[]) => unknown)(...args);
    };
  }
  const instance = new WebAssembly.Instance(module, imports);
  const exports = instance.exports as Record<string, any>;
  // the module is not prepared (no gas global of its own): the host functions' gas counter alone
  ctx.attach(exports.memory, new WebAssembly.Global({ value: 'i64', mutable: true }, 0n));
  const read128 = (ptr: number, index: number) => {
    const view = new DataView(ctx.memory().buffer);
    return (view.getBigUint64(ptr + index * 16 + 8, true) << 64n) | view.getBigUint64(ptr + index * 16, true);
  };
  return { exports, gas: { used: () => GAS - ctx.gasRemaining(), calls }, read128, out: (i) => read128(exports.results(), i) };
}

/** i64 halves of a 128-bit value, as a wasm export takes them */
const halves = (v: bigint): [bigint, bigint] => [BigInt.asIntN(64, v & M64), BigInt.asIntN(64, (v >> 64n) & M64)];
const f128 = (hex: string) => BigInt('0x' + hex.replace(/_/g, ''));
const ONE = f128('3fff0000_00000000_00000000_00000000');
const THREE = f128('40008000_00000000_00000000_00000000');
const TEN = f128('40024000_00000000_00000000_00000000');
const NAN = f128('ffff8000_00000000_00000000_00000000');
const INF = f128('7fff0000_00000000_00000000_00000000');

let dir = '';
let mod: Module | undefined;
let pairs: [bigint, bigint][] = [];

test.before(() => {
  if (!clangAvailable()) return;
  dir = mkdtempSync(join(tmpdir(), 'wasm-builtins-'));
  pairs = operands(23);
  writeFileSync(join(dir, 'cases.h'), casesHeader(pairs));
  const wasmPath = join(dir, 'builtins.wasm');
  execFileSync('clang', ['--target=wasm32', '-O2', '-nostdlib', '-I', dir, '-Wl,--no-entry', '-Wl,--export-all', '-Wl,--allow-undefined', '-o', wasmPath, SOURCE]);
  mod = instantiate(new Uint8Array(readFileSync(wasmPath)));
});

test.after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const withModule = (name: string, fn: (m: Module) => void) =>
  test(name, () => {
    if (mod === undefined) return console.log(`  skipped (no clang): ${name}`);
    fn(mod);
  });

withModule('128-bit integers: multiply, divide, remainder, shifts (signed and unsigned) against BigInt', (m) => {
  const cases: [bigint, bigint, number][] = [
    [(1n << 100n) + 12345n, -987654321987654321n, 3],
    [-(1n << 126n) + 7n, 3n, 127],
    [-170141183460469231731687303715884105728n, -1n, 64], // INT128_MIN / -1 wraps, as libgcc's does
    [0x0123456789abcdef_fedcba9876543210n, 0x1_0000_0000_0000_0001n, 1],
    [-5n, 3n, 0],
    [12345678901234567890123456789n, -97n, 100],
  ];
  for (const [a, b, s] of cases) {
    m.exports.int_ops(...halves(a), ...halves(b), s);
    const ua = a & M128;
    const ub = b & M128;
    const expected = [a * b, BigInt.asIntN(128, a / b), a % b, ua / ub, ua % ub, a << BigInt(s), a >> BigInt(s), ua >> BigInt(s)];
    expected.forEach((e, i) => assert.is(m.out(i), e & M128, `op ${i} of ${a}, ${b}, ${s}`));
  }
});

withModule('a 128-bit division by zero traps instead of answering', (m) => {
  assert.throws(() => m.exports.int_ops(...halves(7n), ...halves(0n), 1), (e: Error) => e instanceof WasmCallError && /division by zero/.test(e.message));
});

withModule('long double arithmetic: known binary128 results and f64-exact ones', (m) => {
  m.exports.ld_ops(...halves(ONE), ...halves(THREE));
  assert.is(m.out(3), f128('3ffd5555_55555555_55555555_55555555'), '1/3 rounds down');
  m.exports.ld_ops(...halves(ONE), ...halves(TEN));
  assert.is(m.out(3), f128('3ffb9999_99999999_99999999_9999999a'), '1/10 rounds up');
  assert.is(m.out(1), f128('c0022000_00000000_00000000_00000000'), '1 - 10 = -9');
  assert.is(m.out(4), f128('bfff0000_00000000_00000000_00000000'), '-1');
  // 1.5 and 2.25 (exact in f64): sum, difference, product and quotient are exact in binary128 too
  m.exports.ld_from(1.5, 2.25, 0, 0, 0n, 0n, 0n, 0n, 0n, 0n);
  const a = m.out(0);
  const b = m.out(1);
  m.exports.ld_ops(...halves(a), ...halves(b));
  assert.is(m.exports.ld_to_double(...halves(m.out(0))), 3.75);
  assert.is(m.exports.ld_to_double(...halves(m.out(1))), -0.75);
  assert.is(m.exports.ld_to_double(...halves(m.out(2))), 3.375);
  assert.is(m.exports.ld_to_double(...halves(m.out(3))), 1.5 / 2.25, 'f64 rounding of the binary128 quotient');
  // specials: inf - inf and 0/0 are the canonical NaN, 1/0 is infinity, 1/-inf is -0
  m.exports.ld_ops(...halves(INF), ...halves(INF));
  assert.is(m.out(1), NAN);
  assert.is(m.out(0), INF);
  m.exports.ld_ops(...halves(0n), ...halves(0n));
  assert.is(m.out(3), NAN);
  m.exports.ld_ops(...halves(ONE), ...halves(0n));
  assert.is(m.out(3), INF);
  m.exports.ld_ops(...halves(ONE), ...halves(INF | (1n << 127n)));
  assert.is(m.out(3), 1n << 127n, '-0');
});

withModule('long double comparisons, NaN unordered', (m) => {
  const bitsOf = (r: number) => ({ eq: r & 1, ne: (r >> 1) & 1, lt: (r >> 2) & 1, le: (r >> 3) & 1, gt: (r >> 4) & 1, ge: (r >> 5) & 1, un: (r >> 6) & 1 });
  assert.equal(bitsOf(m.exports.ld_compare(...halves(ONE), ...halves(THREE))), { eq: 0, ne: 1, lt: 1, le: 1, gt: 0, ge: 0, un: 0 });
  assert.equal(bitsOf(m.exports.ld_compare(...halves(TEN), ...halves(THREE))), { eq: 0, ne: 1, lt: 0, le: 0, gt: 1, ge: 1, un: 0 });
  assert.equal(bitsOf(m.exports.ld_compare(...halves(0n), ...halves(1n << 127n))), { eq: 1, ne: 0, lt: 0, le: 1, gt: 0, ge: 1, un: 0 }, '+0 == -0');
  assert.equal(bitsOf(m.exports.ld_compare(...halves(NAN), ...halves(ONE))), { eq: 0, ne: 1, lt: 0, le: 0, gt: 0, ge: 0, un: 1 });
  assert.equal(bitsOf(m.exports.ld_compare(...halves(ONE | (1n << 127n)), ...halves(THREE | (1n << 127n)))), { eq: 0, ne: 1, lt: 0, le: 0, gt: 1, ge: 1, un: 0 }, '-1 > -3');
});

withModule('conversions to and from long double', (m) => {
  m.exports.ld_from(0.1, 0.1, -7, 4000000000, -(1n << 62n), 0xffffffffffffffffn - (1n << 64n), ...halves(-(1n << 120n) - 1n), ...halves((1n << 128n) - 1n));
  assert.is(m.out(0), f128('3ffb9999_99999999_a0000000_00000000'), 'f64 0.1 widens exactly');
  assert.is(m.out(1), f128('3ffb9999_9a000000_00000000_00000000'), 'f32 0.1 widens exactly');
  assert.is(m.out(2), f128('c001c000_00000000_00000000_00000000'), '-7');
  assert.is(m.out(3), f128('401edcd6_50000000_00000000_00000000'), '4e9');
  assert.is(m.out(4), f128('c03d0000_00000000_00000000_00000000'), '-2^62');
  assert.is(m.out(5), f128('403effff_ffffffff_fffe0000_00000000'), '2^64 - 1');
  assert.is(m.out(6), f128('c0770000_00000000_00000000_00000000'), '-(2^120 + 1) rounds to -2^120 (113-bit significand)');
  assert.is(m.out(7), f128('407f0000_00000000_00000000_00000000'), '2^128 - 1 rounds up to 2^128');

  // out to f64/f32: rounded to nearest even
  assert.is(m.exports.ld_to_double(...halves(f128('3ffd5555_55555555_55555555_55555555'))), 1 / 3);
  assert.is(m.exports.ld_to_float(...halves(f128('3ffd5555_55555555_55555555_55555555'))), Math.fround(1 / 3));
  assert.is(m.exports.ld_to_double(...halves(f128('3fff0000_00000000_08000000_00000000'))), 1, 'a tie rounds to even (down)');
  assert.is(m.exports.ld_to_double(...halves(f128('3fff0000_00000000_18000000_00000000'))), 1 + 2 * 2 ** -52, 'a tie rounds to even (up)');
  assert.is(m.exports.ld_to_double(...halves(f128('7ffe0000_00000000_00000000_00000000'))), Infinity, 'beyond f64: infinity');
  assert.is(m.exports.ld_to_double(...halves(f128('3bcd0000_00000000_00000000_00000000'))), 2 ** -1074, 'f64 smallest subnormal');
  assert.ok(Number.isNaN(m.exports.ld_to_double(...halves(NAN))));

  // out to integers: truncation; out of range → Venachain's (softfloat's x86) values
  const minus = (v: bigint) => v | (1n << 127n);
  const seven5 = f128('4001e000_00000000_00000000_00000000'); // 7.5
  assert.is(m.exports.ld_to_int(...halves(minus(seven5))), -7);
  assert.is(m.exports.ld_to_uint(...halves(seven5)), 7);
  assert.is(m.exports.ld_to_ll(...halves(f128('403d0000_00000000_00000000_00000000'))), 1n << 62n);
  assert.is(m.exports.ld_to_ull(...halves(f128('403effff_ffffffff_fffe0000_00000000'))), -1n, '2^64 - 1 (i64 -1)');
  assert.is(m.exports.ld_to_int(...halves(f128('401e0000_00000000_00000000_00000000'))), -(2 ** 31), '2^31 overflows to INT_MIN');
  assert.is(m.exports.ld_to_int(...halves(NAN)), -(2 ** 31), 'NaN → INT_MIN');
  assert.is(m.exports.ld_to_uint(...halves(minus(ONE))), -1, '-1 → UINT_MAX');
  assert.is(m.exports.ld_to_uint(...halves(f128('bffe0000_00000000_00000000_00000000'))), 0, '-0.5 → 0');
  assert.is(m.exports.ld_to_ll(...halves(INF)), -(1n << 63n), 'inf → INT64_MIN');
  m.exports.ld_to_128(...halves(minus(f128('40770000_00000000_00000000_00000001'))));
  assert.is(m.out(0), (-(1n << 120n) - (1n << 8n)) & M128, '-(2^120 + 2^8)');
  assert.is(m.out(1), 0n, 'negative → 0 unsigned');
  m.exports.ld_to_128(...halves(INF));
  assert.is(m.out(0), (1n << 127n) - 1n, 'saturates');
  assert.is(m.out(1), M128);

  // 128-bit integers and f64/f32
  assert.is(m.exports.i128_to_double(...halves(-(1n << 100n) - 1n)), -(2 ** 100));
  assert.is(m.exports.u128_to_double(...halves(M128)), 2 ** 128);
  assert.is(m.exports.i128_to_float(...halves((1n << 24n) + 1n)), 2 ** 24, 'a tie rounds to even');
  assert.is(m.exports.u128_to_float(...halves((1n << 24n) + 3n)), 2 ** 24 + 4);
  assert.is(m.exports.i128_to_float(...halves((1n << 100n) + (1n << 76n) + 1n)), Math.fround(2 ** 100 + 2 ** 77), 'rounded once (up, past the tie)');
  m.exports.float_to_128(-1e30, 3e38);
  assert.is(m.out(0), -1000000000000000019884624838656n & M128);
  assert.is(m.out(1), 0n);
  assert.is(m.out(2), BigInt(Math.fround(3e38)), 'f32 3e38 is beyond i128 (exponent 127): compiler-rt\'s shift wraps');
});

withModule(`${CASES} random operand pairs: + - * / as clang folds them at compile time`, (m) => {
  m.exports.fold_check();
  const got = m.exports.fold_results();
  const want = m.exports.fold_expected();
  const ops = ['+', '-', '*', '/'];
  const isNaN = (v: bigint) => ((v >> 112n) & 0x7fffn) === 0x7fffn && (v & ((1n << 112n) - 1n)) !== 0n;
  let nan = 0;
  for (let op = 0; op < 4; op++) {
    for (let i = 0; i < pairs.length; i++) {
      const g = m.read128(got, op * pairs.length + i);
      const w = m.read128(want, op * pairs.length + i);
      const [a, b] = pairs[i]!;
      const what = `${literal(a)} ${ops[op]} ${literal(b)}`;
      if (isNaN(w)) {
        nan++;
        assert.is(g, NAN, `${what}: the canonical NaN`);
      } else assert.is(g.toString(16), w.toString(16), what);
    }
  }
  assert.ok(nan < pairs.length, 'most results are numbers');
});

withModule('every call charges the builtin its Venachain gas', (m) => {
  const before = m.gas.used();
  const calls = new Map(m.gas.calls);
  m.exports.ld_ops(...halves(ONE), ...halves(THREE));
  let expected = 0n;
  for (const [name, n] of m.gas.calls) expected += BigInt(BUILTIN_GAS[name]!) * BigInt(n - (calls.get(name) ?? 0));
  assert.is(m.gas.used() - before, expected);
  assert.is(expected, BigInt(BUILTIN_GAS.__addtf3! + BUILTIN_GAS.__subtf3! + BUILTIN_GAS.__multf3! + BUILTIN_GAS.__divtf3!), 'four helpers (negation is inline)');
});

test.run();
