// prepareModule (src/exec/wasm/prepare.ts): hand-written modules (wabt) and modules clang and
// AssemblyScript compile here, prepared and run in V8 — the function's real output, instantiated.
// Exact gas of straight-line code and of loops, out of gas, an endless loop's end, the call-depth,
// memory and table caps, every refusal, damaged modules, the NaN rule, and that compiled contracts
// (and Venachain's own binaries, where its checkout is) still compute the same.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wabtInit from 'wabt';
import {
  DEFAULT_PREPARE_LIMITS, DEPTH_GLOBAL, GAS_GLOBAL, MAX_TABLE_ENTRIES, prepareModule, TRAP_CALL_DEPTH, TRAP_GLOBAL, TRAP_OUT_OF_GAS,
  WasmModuleError, type PrepareLimits,
} from '../src/exec/wasm/prepare.ts';
import { COPY_WORD_GAS, MEMORY_PAGE_GAS, TABLE_ELEMENT_GAS } from '../src/exec/wasm/gas-costs.ts';
import { prng } from './helpers/prng.ts';
import { manyFunctionsWat } from './helpers/wasm-wat.ts';
import { paced, slowdown } from './helpers/pace.ts';

/** an instance's exports as these tests use them: functions, globals, the memory */
type Exports = Record<string, ((...args: unknown[]) => unknown) & WebAssembly.Global & WebAssembly.Memory>;

let wabt: Awaited<ReturnType<typeof wabtInit>>;
test.before(async () => {
  wabt = await wabtInit();
});

const LIMITS: PrepareLimits = { maxMemoryPages: 16, maxCallDepth: 1000 };
const ALL_FEATURES = { exceptions: true, simd: true, threads: true, tail_call: true, multi_memory: true, bulk_memory: true, reference_types: true, multi_value: true };

function wat(text: string): Uint8Array {
  const module = wabt.parseWat('test.wat', text, ALL_FEATURES);
  try {
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}

function instantiate(bytes: Uint8Array, imports: WebAssembly.Imports = {}): Exports {
  return new WebAssembly.Instance(new WebAssembly.Module(bytes), imports).exports as Exports;
}

function prepared(text: string, limits = LIMITS, imports: WebAssembly.Imports = {}): Exports {
  const out = prepareModule(wat(text), limits);
  assert.ok(WebAssembly.validate(out), 'the prepared module is valid');
  return instantiate(out, imports);
}

/** runs an export with `gas`: its result, the gas it used, the trap global, the error if it trapped */
function run(ex: Exports, name: string, args: unknown[], gas = 10_000_000n) {
  ex[GAS_GLOBAL].value = gas;
  let result: unknown;
  let error: Error | undefined;
  try {
    result = ex[name](...args);
  } catch (err) {
    error = err as Error;
  }
  return { result, used: gas - (ex[GAS_GLOBAL].value as bigint), left: ex[GAS_GLOBAL].value, trap: ex[TRAP_GLOBAL].value, error };
}

const COUNTER = `(module
  (memory (export "memory") 1)
  (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
  (func (export "count") (param $n i32) (result i32) (local $i i32)
    (block $done (loop $next
      local.get $i local.get $n i32.ge_u br_if $done
      local.get $i i32.const 1 i32.add local.set $i
      br $next))
    local.get $i))`;

test('a straight-line body costs the sum of its instructions, charged before it runs', () => {
  const ex = prepared(COUNTER);
  // local.get 7 + local.get 7 + i32.add 14 + the function's end (a return) 15
  const r = run(ex, 'add', [2, 3]);
  assert.is(r.result, 5);
  assert.is(r.used, 43n);
  assert.is(r.trap, 0);
  // exactly enough gas is enough; one less traps before the body runs
  assert.is(run(ex, 'add', [2, 3], 43n).left, 0n);
  const short = run(ex, 'add', [2, 3], 42n);
  assert.instance(short.error, WebAssembly.RuntimeError);
  assert.is(short.left, -1n);
  assert.is(short.trap, TRAP_OUT_OF_GAS);
});

test('a loop pays its body at every iteration', () => {
  const ex = prepared(COUNTER);
  // per iteration: [local.get 7, local.get 7, i32.ge_u 14, br_if 18] = 46 and
  // [local.get 7, i32.const 7, i32.add 14, local.set 13, br 12] = 53; the test once more at the
  // exit (46) and [local.get 7, end 15] = 22 after the loop: 99 n + 68
  for (const n of [0, 1, 10, 1000]) {
    const r = run(ex, 'count', [n]);
    assert.is(r.result, n);
    assert.is(r.used, BigInt(99 * n + 68), `n = ${n}`);
  }
});

test('out of gas in a loop: the globals say so, the gas used is all of it', () => {
  const ex = prepared(COUNTER);
  const r = run(ex, 'count', [1_000_000], 50_000n);
  assert.instance(r.error, WebAssembly.RuntimeError);
  assert.match(r.error!.message, /unreachable/);
  assert.is(r.left, -1n);
  assert.is(r.trap, TRAP_OUT_OF_GAS);
});

test('an endless loop ends by gas: 50M gas in well under a second', async () => {
  const pace = await slowdown();
  const ex = prepared(`(module (func (export "spin") (local $x i32)
    (loop $l local.get $x i32.const 1 i32.add local.set $x br $l)))`);
  const t0 = performance.now();
  const r = run(ex, 'spin', [], 50_000_000n);
  const ms = performance.now() - t0;
  assert.is(r.trap, TRAP_OUT_OF_GAS);
  const bound = await paced(500, pace);
  assert.ok(ms < bound, `took ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms at this machine's pace)`);
});

test("imported globals and functions keep their indices: the module's own globals and calls still reach theirs", () => {
  const ex = prepared(`(module
    (import "env" "twice" (func $twice (param i32) (result i32)))
    (import "env" "__dso_handle" (global $dso i32))
    (global $own (mut i32) (i32.const 5))
    (func (export "sum") (result i32) (global.set $own (i32.add (global.get $own) (i32.const 1)))
      (call $twice (i32.add (global.get $dso) (global.get $own)))))`, LIMITS, { env: { twice: (x: number) => 2 * x, __dso_handle: new WebAssembly.Global({ value: 'i32' }, 100) } });
  assert.is(run(ex, 'sum', []).result, 212);
  assert.is(run(ex, 'sum', []).result, 214);
});

test('every exit undoes the depth count: returns from nested blocks, branches to the function label', () => {
  const ex = prepared(`(module
    (func (export "early") (param i32) (result i32)
      (block (block (br_if 1 (local.get 0)) (return (i32.const 7))))
      (if (i32.eq (local.get 0) (i32.const 2)) (then (br 1 (i32.const 9))))
      i32.const 8)
    (func (export "pair") (param i32) (result i32 i64) (if (local.get 0) (then (return (i32.const 1) (i64.const 2)))) i32.const 3 i64.const 4))`);
  assert.is(run(ex, 'early', [0]).result, 7);
  assert.is(run(ex, 'early', [2]).result, 9);
  assert.is(run(ex, 'early', [1]).result, 8);
  assert.equal(run(ex, 'pair', [1]).result, [1, 2n]);
  assert.equal(run(ex, 'pair', [0]).result, [3, 4n]);
  assert.is(ex[DEPTH_GLOBAL].value, 0);
});

const RECURSE = `(module (func $leaf (result i32) (i32.const 0)) (func $rec (export "rec") (param i32) (result i32)
  (if (i32.eqz (local.get 0)) (then (return (call $leaf))))
  (i32.add (call $rec (i32.sub (local.get 0) (i32.const 1))) (i32.const 1))))`;

test('the call depth is capped: maxCallDepth frames run, one more traps with the depth reason', () => {
  const bytes = prepareModule(wat(RECURSE), { maxMemoryPages: 16, maxCallDepth: 1000 });
  // rec(n) nests n + 1 calls of weight 1, then a call of a small leaf (not counted: nothing runs above it)
  const ok = run(instantiate(bytes), 'rec', [999]);
  assert.is(ok.result, 999);
  const over = instantiate(bytes);
  const r = run(over, 'rec', [1000]);
  assert.instance(r.error, WebAssembly.RuntimeError);
  assert.is(r.trap, TRAP_CALL_DEPTH);
});

/** recursion of a function with `locals` i64 locals and an operand stack `stack` deep at the call */
function bigFrame(locals: number, stack: number): string {
  const useLocals = locals ? `(local ${'i64 '.repeat(locals)}) (local.set 1 (i64.const 1)) (local.set ${locals} (i64.const 2))` : '';
  return `(module (func $r (export "r") (param i32) (result i32) ${useLocals}
    ${'(i64.const 7) '.repeat(stack)}
    (local.set 0 (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
      (else (i32.add (call $r (i32.sub (local.get 0) (i32.const 1))) (i32.const 1)))))
    ${'drop '.repeat(stack)}
    (local.get 0)))`;
}

test("the default depth cap traps before V8's stack overflows, whatever the frame size", () => {
  // beneath ~250 KB of JavaScript frames (the node's own stack below a contract)
  const underJs = (depth: number, f: () => void): void => (depth === 0 ? f() : underJs(depth - 1, f));
  for (const [locals, stack] of [[0, 0], [31, 0], [200, 0], [3000, 0], [0, 200], [0, 2000], [1000, 1000]]) {
    const ex = instantiate(prepareModule(wat(bigFrame(locals, stack)), DEFAULT_PREPARE_LIMITS));
    let r: ReturnType<typeof run> | undefined;
    underJs(2000, () => {
      r = run(ex, 'r', [1_000_000], 10n ** 12n);
    });
    assert.is(r!.error?.constructor, WebAssembly.RuntimeError, `locals ${locals}, stack ${stack}: ${r!.error}`);
    assert.is(r!.trap, TRAP_CALL_DEPTH, `locals ${locals}, stack ${stack}`);
  }
});

test('memory: the maximum is clamped to the cap, grow past it answers -1, each page grown costs gas', () => {
  const text = (memory: string) => `(module (memory (export "memory") ${memory})
    (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
    (func (export "copy") (param i32) (memory.copy (i32.const 0) (i32.const 100) (local.get 0))))`;
  for (const memory of ['1', '1 65536']) {
    const ex = prepared(text(memory));
    const base = run(ex, 'grow', [0]).used;
    assert.is(run(ex, 'grow', [16]).result, -1, 'past the cap of 16 pages');
    assert.is(run(ex, 'grow', [16]).used, base, 'a failed grow costs no pages');
    const r = run(ex, 'grow', [15]);
    assert.is(r.result, 1);
    assert.is(r.used - base, 15n * MEMORY_PAGE_GAS);
    assert.is(ex.memory.buffer.byteLength, 16 * 65536);
    assert.is(run(ex, 'grow', [1]).result, -1);
    // memory.copy: per started 32-byte word
    const copy0 = run(ex, 'copy', [0]).used;
    assert.is(run(ex, 'copy', [33]).used - copy0, 2n * COPY_WORD_GAS);
    assert.is(run(ex, 'copy', [65536]).used - copy0, 2048n * COPY_WORD_GAS);
  }
  assert.is(run(prepared(text('2 4')), 'grow', [3]).result, -1, 'a lower maximum of its own stays');
  assert.throws(() => prepareModule(wat(text('17')), LIMITS), /memory starts at 17 pages of 64 KiB, above the chain's cap of 16/);
});

test('tables: the maximum is clamped too, table.grow past it answers -1, each entry grown costs gas', () => {
  // a funcref local starts null: the one way a contract can grow a table
  const text = (table: string) => `(module (table $t ${table} funcref)
    (func (export "grow") (param i32) (result i32) (local $null funcref) (table.grow $t (local.get $null) (local.get 0))))`;
  for (const table of ['1', '1 1000000']) {
    const ex = prepared(text(table));
    const base = run(ex, 'grow', [0]).used;
    const r = run(ex, 'grow', [1000]);
    assert.is(r.result, 1);
    assert.is(r.used - base, 1000n * TABLE_ELEMENT_GAS);
    assert.is(run(ex, 'grow', [MAX_TABLE_ENTRIES - 1001]).result, 1001);
    assert.is(run(ex, 'grow', [1]).result, -1, `past ${MAX_TABLE_ENTRIES} entries`);
  }
  assert.throws(() => prepareModule(wat(text(String(MAX_TABLE_ENTRIES + 1))), LIMITS), /table starts with 65537 entries, above the chain's cap of 65536/);
});

test('refusals name what the module has', () => {
  const refused: [string, RegExp][] = [
    ['(module (func (drop (v128.const i32x4 1 2 3 4))))', /SIMD/],
    ['(module (memory 1 1 shared))', /shared memory \(threads\)/],
    ['(module (memory 1) (func (drop (i32.atomic.load (i32.const 0)))))', /threads \/ atomics/],
    ['(module (tag $e) (func (throw $e)))', /exception/],
    ['(module (func $f (return_call $f)))', /tail calls/],
    ['(module (memory 1) (memory 1))', /memory count of 2/],
    ['(module (import "env" "memory" (memory 1)))', /imports its memory \(env\.memory\)/],
    ['(module (import "env" "table" (table 1 funcref)))', /imports a table \(env\.table\)/],
    ['(module (func $s) (start $s))', /start function/],
    ['(module (func (drop (ref.null func))))', /reference types/],
    ['(module (global (export "__gas_left") i32 (i32.const 0)))', /__gas_left, a name the chain reserves/],
    ['(module (func (result i32) (i64.const 1)))', /^invalid wasm module: .*type/i],
  ];
  for (const [text, reason] of refused) {
    const bytes = wat(text);
    assert.throws(() => prepareModule(bytes, LIMITS), (err: Error) => err instanceof WasmModuleError && reason.test(err.message), text);
  }
  for (const garbage of [new Uint8Array(), new Uint8Array([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0]), new TextEncoder().encode('not wasm')]) {
    assert.throws(() => prepareModule(garbage, LIMITS), (err: Error) => err instanceof WasmModuleError && /^invalid wasm module/.test(err.message));
  }
});

test('damaged modules: prepareModule refuses with WasmModuleError or returns a valid module, never anything else', () => {
  const seeds = [wat(COUNTER), wat(RECURSE), wat(`(module (memory 1) (table 2 funcref) (elem (i32.const 0) $a $b)
    (func $a (result f64) (f64.sqrt (f64.const 2))) (func $b (result f64) (f64.const 1))
    (func (export "pick") (param i32) (result f64) (call_indirect (result f64) (local.get 0)))
    (func (export "fill") (param i32) (memory.fill (i32.const 0) (i32.const 7) (local.get 0)) (drop (memory.grow (i32.const 1)))))`)];
  const random = prng(23);
  let refused = 0;
  for (let i = 0; i < 3000; i++) {
    const bytes = seeds[i % seeds.length].slice();
    for (let flips = 1 + Math.floor(random() * 3); flips > 0; flips--) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
    try {
      assert.ok(WebAssembly.validate(prepareModule(bytes, LIMITS)), `seed ${i}: the prepared module is valid`);
    } catch (err) {
      if (!(err instanceof WasmModuleError)) throw err;
      refused++;
    }
  }
  assert.ok(refused > 0 && refused < 3000);
});

test('NaN rule: every NaN an operation makes is the canonical one (positive, quiet, no payload)', () => {
  const text = `(module (memory (export "memory") 1)
    (func (export "div0") (result i64) (i64.reinterpret_f64 (f64.div (f64.const 0) (f64.const 0))))
    (func (export "payload") (result i64) (i64.reinterpret_f64 (f64.add (f64.reinterpret_i64 (i64.const 0x7ff4000000000001)) (f64.const 1))))
    (func (export "sign") (result f64) (f64.copysign (f64.const 1) (f64.sqrt (f64.const -1))))
    (func (export "f32") (result i32) (i32.reinterpret_f32 (f32.mul (f32.const inf) (f32.const 0))))
    (func (export "store") (result i64) (f64.store (i32.const 8) (f64.sub (f64.const inf) (f64.const inf))) (i64.load (i32.const 8)))
    (func (export "moved") (result i64) (i64.reinterpret_f64 (f64.neg (f64.reinterpret_i64 (i64.const 0x7ff4000000000001)))))
    (func (export "plain") (result f64) (f64.add (f64.const 1.5) (f64.div (f64.const 9) (f64.const 4)))))`;
  const canonical = { div0: 0x7ff8000000000000n, payload: 0x7ff8000000000000n, sign: 1, f32: 0x7fc00000, store: 0x7ff8000000000000n };
  const raw = instantiate(wat(text));
  const ex = prepared(text);
  for (const [name, value] of Object.entries(canonical)) assert.is(run(ex, name, []).result, value, name);
  // the rule is needed: V8 here keeps the input's payload through arithmetic (and on x86 makes
  // negative NaNs), so the unprepared module shows bits that differ by machine
  assert.is.not(raw.payload(), canonical.payload);
  // bit moves (neg, abs, copysign, loads, stores, reinterpret) are exact in wasm and left alone;
  // ordinary arithmetic is untouched
  assert.is(run(ex, 'moved', []).result, 0xfff4000000000001n - (1n << 64n));
  assert.is(run(ex, 'plain', []).result, 3.75);
});

/**
 * The same calls on the module as compiled and as prepared give the same results; the gas each
 * uses is the same on a second instance.
 */
function sameResults(bytes: Uint8Array, calls: [string, unknown[]][], imports: WebAssembly.Imports = {}, start?: string): void {
  const raw = instantiate(bytes, imports);
  if (start) raw[start]();
  const expected = calls.map(([name, args]) => raw[name](...args));
  const prepared = prepareModule(bytes, DEFAULT_PREPARE_LIMITS);
  const gasOf = (ex: Exports) => {
    if (start) run(ex, start, []);
    return calls.map(([name, args], i) => {
      const r = run(ex, name, args);
      assert.is(r.error, undefined, `${name}(${args}): ${r.error} (trap ${r.trap}, gas used ${r.used})`);
      assert.equal(r.result, expected[i], `${name}(${args})`);
      assert.ok(r.used > 0n);
      return r.used;
    });
  };
  assert.equal(gasOf(instantiate(prepared, imports)), gasOf(instantiate(prepared, imports)));
}

const C_SOURCE = `typedef unsigned long long u64;
static unsigned char heap[4096];
__attribute__((export_name("fib"))) u64 fib(int n) { u64 a = 0, b = 1; for (int i = 0; i < n; i++) { u64 t = a + b; a = b; b = t; } return a; }
__attribute__((export_name("ack"))) int ack(int m, int n) { return m == 0 ? n + 1 : n == 0 ? ack(m - 1, 1) : ack(m - 1, ack(m, n - 1)); }
__attribute__((export_name("sieve"))) int sieve(int n) { for (int i = 0; i < n; i++) heap[i] = 1; int c = 0;
  for (int i = 2; i < n; i++) if (heap[i]) { c++; for (int j = i * 2; j < n; j += i) heap[j] = 0; } return c; }
__attribute__((export_name("mean"))) double mean(int n) { double s = 0; for (int i = 1; i <= n; i++) s += 1.0 / i; return s / n; }
__attribute__((export_name("copy"))) int copy(int n) { for (int i = 0; i < n; i++) heap[i] = (unsigned char)i;
  __builtin_memcpy(heap + 2048, heap, n); int s = 0; for (int i = 0; i < n; i++) s += heap[2048 + i]; return s; }
`;

const hasClang = spawnSync('clang', ['--version']).status === 0;

test('a clang-compiled C module prepares and computes the same', () => {
  if (!hasClang) return console.log('  (skipped: no clang)');
  const dir = mkdtempSync(join(tmpdir(), 'wasm-prepare-'));
  try {
    writeFileSync(join(dir, 'c.c'), C_SOURCE);
    const cc = spawnSync('clang', ['--target=wasm32', '-O2', '-nostdlib', '-mbulk-memory', '-Wl,--no-entry', '-Wl,--export-dynamic',
      '-Wl,--allow-undefined', '-o', join(dir, 'c.wasm'), join(dir, 'c.c')], { encoding: 'utf8' });
    assert.is(cc.status, 0, cc.stderr);
    sameResults(new Uint8Array(readFileSync(join(dir, 'c.wasm'))), [
      ['fib', [90]], ['ack', [2, 3]], ['sieve', [4000]], ['mean', [1000]], ['copy', [1500]], ['copy', [0]],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an AssemblyScript module prepares and computes the same (its start function exported, not a start section)', () => {
  const source = `
    let calls: i64 = 0;
    export function fib(n: i32): i64 { let a: i64 = 0, b: i64 = 1; for (let i = 0; i < n; i++) { const t = a + b; a = b; b = t; } calls++; return a; }
    export function words(n: i32): i32 { let s = ""; for (let i = 0; i < n; i++) s += i.toString() + ","; calls++; return s.length; }
    export function halves(n: i32): f64 { const a = new Array<f64>(n); for (let i = 0; i < n; i++) a[i] = <f64>i * 0.5; let s = 0.0; for (let i = 0; i < n; i++) s += a[i]; return s; }
    export function count(): i64 { return calls; }`;
  // asc's default features (bulk memory, sign extension, non-trapping conversions, mutable
  // globals) and its incremental collector; in a plain node process (binaryen loads ~10x slower
  // under tsx)
  const dir = mkdtempSync(join(tmpdir(), 'wasm-prepare-'));
  try {
    writeFileSync(join(dir, 'contract.ts'), source);
    const compiled = spawnSync(process.execPath, [join('node_modules', 'assemblyscript', 'bin', 'asc.js'), join(dir, 'contract.ts'),
      '-o', join(dir, 'contract.wasm'), '-O3', '--runtime', 'incremental', '--exportStart', '_start', '--noColors'], { encoding: 'utf8' });
    assert.is(compiled.status, 0, compiled.stderr);
    const abort = () => {
      throw new Error('abort');
    };
    sameResults(new Uint8Array(readFileSync(join(dir, 'contract.wasm'))), [['fib', [50]], ['words', [50]], ['halves', [1000]], ['count', []]],
      { env: { abort } }, '_start');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("Venachain's own BCWasm binaries prepare and compile, their imports unchanged (when /work/vena is there)", () => {
  const root = '/work/vena/src';
  if (!existsSync(root)) return console.log('  (skipped: no Venachain checkout)');
  const files = ['cmd/ptransfer/contracts/BcToken.wasm', 'life/contract/getsettest.wasm', 'life/contract/numberstest.wasm', 'perf_test/data/nodeRegister.wasm']
    .map((f) => join(root, f)).filter(existsSync);
  assert.ok(files.length > 0);
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(file));
    const out = prepareModule(bytes, DEFAULT_PREPARE_LIMITS);
    assert.equal(WebAssembly.Module.imports(new WebAssembly.Module(out)), WebAssembly.Module.imports(new WebAssembly.Module(bytes)), file);
  }
});

test('a ~100 KiB module of 1,000 functions prepares and runs (its prepare time: bench/wasm-prepare.ts)', () => {
  const bytes = wat(manyFunctionsWat(1000));
  const out = prepareModule(bytes, DEFAULT_PREPARE_LIMITS);
  assert.ok(bytes.length > 90_000, `${bytes.length} bytes`);
  assert.is(run(instantiate(out), 'f999', [100]).error, undefined);
});

test.run();
