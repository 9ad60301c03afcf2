// What preparing a wasm contract costs (src/exec/wasm/prepare.ts): the metering's overhead on
// CPU-heavy code (the same module as compiled and as prepared, best of several runs), the rate an
// endless loop burns 50M gas, and the prepare time of a ~100 KiB module. Run on its own:
//   node --import tsx bench/wasm-prepare.ts
import wabtInit from 'wabt';
import { DEFAULT_PREPARE_LIMITS, GAS_GLOBAL, prepareModule } from '../src/exec/wasm/prepare.ts';

const WA = (globalThis as unknown as {
  WebAssembly: { Module: new (b: Uint8Array) => object; Instance: new (m: object, i: object) => { exports: Record<string, any> } };
}).WebAssembly;
const wabt = await wabtInit();
const wat = (text: string): Uint8Array => wabt.parseWat('bench.wat', text, { bulk_memory: true, sat_float_to_int: true }).toBinary({}).buffer;
const instantiate = (bytes: Uint8Array) => new WA.Instance(new WA.Module(bytes), {}).exports;

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

// CPU-heavy kernels: integer (a sieve over memory, a hash mix) and float (a harmonic sum)
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

const kernels = wat(KERNELS);
const raw = instantiate(kernels);
const metered = instantiate(prepareModule(kernels, DEFAULT_PREPARE_LIMITS));
console.log('kernel              compiled   prepared   overhead   gas/call');
for (const [name, arg] of [['sieve', 100_000], ['mix', 3_000_000], ['harmonic', 3_000_000]] as const) {
  const call = (ex: Record<string, any>) => () => {
    ex[GAS_GLOBAL] && (ex[GAS_GLOBAL].value = 10n ** 15n);
    ex[name](arg);
  };
  best(5, call(raw));
  best(5, call(metered));
  const a = best(15, call(raw));
  const b = best(15, call(metered));
  metered[GAS_GLOBAL].value = 10n ** 15n;
  metered[name](arg);
  const gas = 10n ** 15n - metered[GAS_GLOBAL].value;
  console.log(`${`${name}(${arg})`.padEnd(20)}${a.toFixed(2).padStart(8)} ms${b.toFixed(2).padStart(8)} ms${`${((b / a - 1) * 100).toFixed(0)} %`.padStart(10)}${String(gas).padStart(12)}`);
}

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
const fn = (i: number) => `(func $f${i} (export "f${i}") (param $n i32) (result i32) (local $i i32) (local $x f64)
  (block $out (loop $l
    (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
    (i32.store (i32.and (local.get $i) (i32.const 0xfff)) (i32.mul (local.get $i) (i32.const ${i})))
    (local.set $x (f64.add (local.get $x) (f64.convert_i32_u (i32.load (i32.const 16)))))
    (if (i32.and (local.get $i) (i32.const 1)) (then (local.set $x (f64.mul (local.get $x) (f64.const 0.5))))
      (else (local.set $x (f64.sqrt (local.get $x)))))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (br $l)))
  ${i > 0 ? `(drop (call $f${i - 1} (i32.const 0)))` : ''}
  (i32.add (local.get $i) (i32.trunc_sat_f64_u (local.get $x))))`;
const big = wat(`(module (memory 1) ${Array.from({ length: 1000 }, (_, i) => fn(i)).join('\n')})`);
const first = best(1, () => prepareModule(big, DEFAULT_PREPARE_LIMITS));
const warm = best(10, () => prepareModule(big, DEFAULT_PREPARE_LIMITS));
const out = prepareModule(big, DEFAULT_PREPARE_LIMITS);
console.log(`prepare ${big.length} bytes → ${out.length}: first ${first.toFixed(1)} ms, warm ${warm.toFixed(1)} ms`);
