// Hand-written wasm modules for the wasm tests and benches: WebAssembly text (wabt's parser) and a
// large module of real code whose size and shape are known.

/** WebAssembly text of ~100 KiB of code: `count` exported functions `f0…` of loops, branches,
 * calls, memory and float arithmetic (each calls the one before it). */
export function manyFunctionsWat(count = 1000): string {
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
  return `(module (memory 1) ${Array.from({ length: count }, (_, i) => fn(i)).join('\n')})`;
}
