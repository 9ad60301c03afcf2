// What preparing a wasm contract costs (src/exec/wasm/prepare.ts): the metering's overhead on
// CPU-heavy code (the same module as compiled and as prepared, best of several runs), the rate an
// endless loop burns 50M gas, and the prepare time of a ~100 KiB module. Run on its own:
//   node --import tsx bench/wasm-prepare.ts
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import wabtInit from 'wabt';
import { DEFAULT_PREPARE_LIMITS, GAS_GLOBAL, prepareModule } from '../src/exec/wasm/prepare.ts';
import { manyFunctionsWat } from '../test/helpers/wasm-wat.ts';

const wabt = await wabtInit();
const wat = (text: string): Uint8Array => wabt.parseWat('bench.wat', text, { bulk_memory: true, sat_float_to_int: true }).toBinary({}).buffer;
const instantiate = (bytes: Uint8Array) => new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as Record<string, any>;

/** best wall time of `runs` calls, ms */
function best(runs: number, f: () => void): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

// hand-written CPU-heavy kernels: integer (a sieve over memory, a hash mix) and float (a harmonic sum)
const KERNELS = `(module (memory 2)
  (func (export "sieve") (param $n i32) (result i32) (local $i i32) (local $j i32) (local $c i32)
    (memory.fill (i32.const 0) (i32.const 1) (local.get $n))
    (local.set $i (i32.const 2))
    (block $done (loop $outer
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (if (i32.load8_u (local.get $i)) (then
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (local.set $j (i32.shl (local.get $i) (i32.const 1)))
        (block $inner_done (loop $inner
          (br_if $inner_done (i32.ge_u (local.get $j) (local.get $n)))
          (i32.store8 (local.get $j) (i32.const 0))
          (local.set $j (i32.add (local.get $j) (local.get $i)))
          (br $inner)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $outer)))
    (local.get $c))
  (func (export "mix") (param $n i32) (result i64) (local $h i64)
    (local.set $h (i64.const 0xcbf29ce484222325))
    (block $done (loop $l
      (br_if $done (i32.eqz (local.get $n)))
      (local.set $h (i64.mul (i64.xor (local.get $h) (i64.extend_i32_u (local.get $n))) (i64.const 0x100000001b3)))
      (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $l)))
    (local.get $h))
  (func (export "harmonic") (param $n i32) (result f64) (local $s f64)
    (block $done (loop $l
      (br_if $done (i32.eqz (local.get $n)))
      (local.set $s (f64.add (local.get $s) (f64.div (f64.const 1) (f64.convert_i32_u (local.get $n)))))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $l)))
    (local.get $s)))`;

// the same kernels in C, as clang -O2 compiles them (when clang is installed)
const C_KERNELS = `typedef unsigned long long u64;
static unsigned char heap[65536];
__attribute__((export_name("fib"))) u64 fib(int n) { u64 a = 0, b = 1; for (int i = 0; i < n; i++) { u64 t = a + b; a = b; b = t; } return a; }
__attribute__((export_name("ack"))) int ack(int m, int n) { return m == 0 ? n + 1 : n == 0 ? ack(m - 1, 1) : ack(m - 1, ack(m, n - 1)); }
__attribute__((export_name("sieve"))) int sieve(int n) { for (int i = 0; i < n; i++) heap[i] = 1; int c = 0;
  for (int i = 2; i < n; i++) if (heap[i]) { c++; for (int j = i * 2; j < n; j += i) heap[j] = 0; } return c; }
__attribute__((export_name("mean"))) double mean(int n) { double s = 0; for (int i = 1; i <= n; i++) s += 1.0 / i; return s / n; }
__attribute__((export_name("copy"))) int copy(int n) { int s = 0; for (int k = 0; k < 100; k++) { for (int i = 0; i < n; i++) heap[i] = (unsigned char)(i + k);
  __builtin_memcpy(heap + 8192, heap, n); for (int i = 0; i < n; i++) s += heap[8192 + i]; } return s; }
`;

function compileC(): Uint8Array | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-bench-'));
  try {
    writeFileSync(join(dir, 'k.c'), C_KERNELS);
    const cc = spawnSync('clang', ['--target=wasm32', '-O2', '-nostdlib', '-mbulk-memory', '-Wl,--no-entry', '-Wl,--export-dynamic',
      '-Wl,--allow-undefined', '-o', join(dir, 'k.wasm'), join(dir, 'k.c')]);
    return cc.status === 0 ? new Uint8Array(readFileSync(join(dir, 'k.wasm'))) : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function compare(title: string, bytes: Uint8Array, calls: [string, number[]][]): void {
  const raw = instantiate(bytes);
  const metered = instantiate(prepareModule(bytes, DEFAULT_PREPARE_LIMITS));
  console.log(`${title.padEnd(22)}compiled   prepared   overhead     gas/call   Mgas/s`);
  for (const [name, args] of calls) {
    const call = (ex: Record<string, any>) => () => {
      if (ex[GAS_GLOBAL]) ex[GAS_GLOBAL].value = 10n ** 15n;
      ex[name](...args);
    };
    // interleaved, best of 30: the machine is shared
    let a = Infinity;
    let b = Infinity;
    for (let i = 0; i < 30; i++) {
      a = Math.min(a, best(1, call(raw)));
      b = Math.min(b, best(1, call(metered)));
    }
    const gas = 10n ** 15n - metered[GAS_GLOBAL].value;
    console.log(`${`${name}(${args})`.padEnd(22)}${a.toFixed(2).padStart(8)} ms${b.toFixed(2).padStart(8)} ms${`${((b / a - 1) * 100).toFixed(0)} %`.padStart(10)}${String(gas).padStart(13)}${(Number(gas) / b / 1000).toFixed(0).padStart(9)}`);
  }
}

compare('wat kernel', wat(KERNELS), [['sieve', [100_000]], ['mix', [3_000_000]], ['harmonic', [3_000_000]]]);
const c = compileC();
if (c) compare('C kernel (clang -O2)', c, [['fib', [50_000_000]], ['sieve', [60_000]], ['mean', [3_000_000]], ['ack', [2, 400]], ['copy', [4_000]]]);
else console.log('(no clang: C kernels skipped)');

// an endless loop: how fast 50M gas burns, and wasm instructions a second meanwhile
const spin = instantiate(prepareModule(wat(`(module (func (export "spin") (local $x i32)
  (loop $l local.get $x i32.const 1 i32.add local.set $x br $l)))`), DEFAULT_PREPARE_LIMITS));
const spinMs = best(5, () => {
  spin[GAS_GLOBAL].value = 50_000_000n;
  try {
    spin.spin();
  } catch {
    // out of gas, as meant
  }
});
// an iteration: local.get 7 + i32.const 7 + i32.add 14 + local.set 13 + br 12 = 53 gas, 5 instructions
const iterations = 50_000_000 / 53;
console.log(`endless loop, 50M gas: ${spinMs.toFixed(1)} ms (${((iterations * 5) / spinMs / 1000).toFixed(0)}M wasm instructions/s)`);

// prepare time of a ~100 KiB module
const big = wat(manyFunctionsWat(1000));
const first = best(1, () => prepareModule(big, DEFAULT_PREPARE_LIMITS));
const warm = best(10, () => prepareModule(big, DEFAULT_PREPARE_LIMITS));
const out = prepareModule(big, DEFAULT_PREPARE_LIMITS);
console.log(`prepare ${big.length} bytes → ${out.length}: first ${first.toFixed(1)} ms, warm ${warm.toFixed(1)} ms`);
