// The compiler builtins C and C++ contracts import for 128-bit integers (__int128) and long double
// (binary128): wasm has neither, so clang lowers each operation to a call of compiler-rt's helper,
// which a wasm contract cannot link and imports from `env` instead (Venachain's life provides them
// in life/resolver/compiler_builtins.go; this is our table with its semantics and gas).
//
// wasm32's calling convention for them (what clang 14 emits, checked with -nostdlib):
//   a 128-bit argument   = two i64, low half first
//   a 128-bit result     = a leading i32 pointer to 16 bytes the callee writes, little-endian
//   comparisons          = (a.lo, a.hi, b.lo, b.hi) → i32
// Integers are BigInts, long doubles go through binary128.ts (exact, no host float). Where
// Venachain's implementations disagree with C's ideal (a float out of an integer's range), its
// results are kept: softfloat's for 32/64-bit conversions (the type's minimum for signed, all ones
// for unsigned), compiler-rt's saturation for 128-bit ones. A division by zero traps (Venachain's
// C asserts and the process dies; a failed call is the chain's way). Beyond Venachain's table we
// also give the helpers clang 14 imports that life does not have (__floattitf, __floatuntitf,
// __floattisf, __floatuntisf, __fixunsdfti, __fixunssfti), at their siblings' gas.
import {
  add128,
  BINARY128,
  BINARY32,
  BINARY64,
  compare128,
  div128,
  f128FromF32,
  f128FromF64,
  f128FromInteger,
  f128ToF32,
  f128ToF64,
  f32Bits,
  f32FromInteger,
  f64Bits,
  isNaN128,
  mul128,
  neg128,
  sub128,
  truncate,
  type FloatFormat,
} from './binary128.ts';
import { u32, WasmCallError, type HostArg, type HostContext, type HostTable } from './context.ts';

const MASK64 = (1n << 64n) - 1n;
const MASK128 = (1n << 128n) - 1n;

/** The 128 bits of an (i64 low, i64 high) argument pair (V8 hands i64 over as signed BigInts). */
function join(lo: HostArg, hi: HostArg): bigint {
  return ((BigInt(hi) & MASK64) << 64n) | (BigInt(lo) & MASK64);
}

/** An i64 argument as a signed bigint. */
function i64(v: HostArg): bigint {
  return BigInt.asIntN(64, BigInt(v));
}

/** Writes a 128-bit result to the 16 bytes at `ptr`, little-endian (wasm32's layout of __int128 and long double). */
function write128(ctx: HostContext, ptr: HostArg, value: bigint): void {
  const bytes = new Uint8Array(16);
  let v = value & MASK128;
  for (let i = 0; i < 16; i++) {
    bytes[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  ctx.write(u32(ptr), bytes);
}

function divisor(b: bigint): bigint {
  if (b === 0n) throw new WasmCallError('128-bit integer division by zero');
  return b;
}

function signed128(bits: bigint): bigint {
  return BigInt.asIntN(128, bits);
}

/** Venachain's gas of each builtin (compiler_builtins.go's *GasCost). */
export const BUILTIN_GAS: Readonly<Record<string, number>> = {
  __ashlti3: 20,
  __ashrti3: 328,
  __lshlti3: 24,
  __lshrti3: 21,
  __divti3: 403,
  __udivti3: 344,
  __modti3: 523,
  __umodti3: 347,
  __multi3: 324,
  __addtf3: 309,
  __subtf3: 308,
  __multf3: 360,
  __divtf3: 395,
  __negtf2: 15,
  __floatsitf: 326,
  __floatunsitf: 282,
  __floatditf: 323,
  __floatunditf: 278,
  __floattitf: 323,
  __floatuntitf: 278,
  __floattidf: 154,
  __floatuntidf: 139,
  __floattisf: 154,
  __floatuntisf: 139,
  __floatsidf: 85,
  __extendsftf2: 279,
  __extenddftf2: 305,
  __fixtfti: 333,
  __fixtfdi: 126,
  __fixtfsi: 101,
  __fixunstfti: 338,
  __fixunstfdi: 116,
  __fixunstfsi: 97,
  __fixsfti: 314,
  __fixdfti: 290,
  __fixunssfti: 314,
  __fixunsdfti: 290,
  __trunctfdf2: 100,
  __trunctfsf2: 109,
  __eqtf2: 158,
  __netf2: 126,
  __getf2: 110,
  __gttf2: 111,
  __lttf2: 108,
  __letf2: 146,
  __cmptf2: 113,
  __unordtf2: 16,
};

/** softfloat's f128_to_i32/i64 truncating (x86 build): NaN and out-of-range give the type's minimum. */
function toSigned(a: bigint, bits: number): bigint {
  const t = truncate(a, BINARY128);
  const min = -(1n << BigInt(bits - 1));
  if (t.nan || t.value < min || t.value > -min - 1n) return min;
  return t.value;
}

/** softfloat's f128_to_ui32/ui64 truncating: NaN, out-of-range and negatives below -1 give all ones. */
function toUnsigned(a: bigint, bits: number): bigint {
  const t = truncate(a, BINARY128);
  const max = (1n << BigInt(bits)) - 1n;
  if (t.nan || t.value < 0n || t.value > max) return max;
  return t.value;
}

/** compiler-rt's __fix*ti: below 1 → 0, exponent ≥ 128 (NaN, infinity included) → saturated by sign, else wrapped. */
function toI128(bits: bigint, f: FloatFormat): bigint {
  const t = truncate(bits, f);
  if (t.exponent < 0) return 0n;
  if (t.exponent >= 128) return t.negative ? -(1n << 127n) : (1n << 127n) - 1n;
  return signed128(t.value);
}

/** compiler-rt's __fixuns*ti: negative (even -0.5) or below 1 → 0, exponent ≥ 128 → all ones. */
function toU128(bits: bigint, f: FloatFormat): bigint {
  const t = truncate(bits, f);
  if (t.negative || t.exponent < 0) return 0n;
  if (t.exponent >= 128) return MASK128;
  return t.value & MASK128;
}

/**
 * Venachain's comparison results: -1 below, 0 equal, 1 above, and for an unordered pair (a NaN)
 * the value each helper's C caller reads as false (eq/ne/le/cmp 1, ge -1, gt/lt 0).
 */
function comparison(ifNaN: number) {
  return (_: HostContext, alo: HostArg, ahi: HostArg, blo: HostArg, bhi: HostArg): number => compare128(join(alo, ahi), join(blo, bhi)) ?? ifNaN;
}

const builtins: Record<string, (ctx: HostContext, ...args: HostArg[]) => number | bigint | void> = {
  // 128-bit integers: (result*, a.lo, a.hi, b.lo, b.hi) or (result*, a.lo, a.hi, shift)
  __multi3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, join(alo, ahi) * join(blo, bhi)),
  __divti3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, signed128(join(alo, ahi)) / divisor(signed128(join(blo, bhi)))),
  __modti3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, signed128(join(alo, ahi)) % divisor(signed128(join(blo, bhi)))),
  __udivti3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, join(alo, ahi) / divisor(join(blo, bhi))),
  __umodti3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, join(alo, ahi) % divisor(join(blo, bhi))),
  // shifts of 128 or more: zero, or the sign for an arithmetic right shift (clang never emits them)
  __ashlti3: (ctx, r, lo, hi, s) => write128(ctx, r, u32(s) >= 128 ? 0n : join(lo, hi) << BigInt(u32(s))),
  __lshlti3: (ctx, r, lo, hi, s) => write128(ctx, r, u32(s) >= 128 ? 0n : join(lo, hi) << BigInt(u32(s))),
  __lshrti3: (ctx, r, lo, hi, s) => write128(ctx, r, u32(s) >= 128 ? 0n : join(lo, hi) >> BigInt(u32(s))),
  __ashrti3: (ctx, r, lo, hi, s) => write128(ctx, r, signed128(join(lo, hi)) >> BigInt(Math.min(u32(s), 127))),

  // long double arithmetic: (result*, a.lo, a.hi, b.lo, b.hi)
  __addtf3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, add128(join(alo, ahi), join(blo, bhi))),
  __subtf3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, sub128(join(alo, ahi), join(blo, bhi))),
  __multf3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, mul128(join(alo, ahi), join(blo, bhi))),
  __divtf3: (ctx, r, alo, ahi, blo, bhi) => write128(ctx, r, div128(join(alo, ahi), join(blo, bhi))),
  __negtf2: (ctx, r, lo, hi) => write128(ctx, r, neg128(join(lo, hi))),

  // comparisons: (a.lo, a.hi, b.lo, b.hi) → i32
  __eqtf2: comparison(1),
  __netf2: comparison(1),
  __getf2: comparison(-1),
  __gttf2: comparison(0),
  __lttf2: comparison(0),
  __letf2: comparison(1),
  __cmptf2: comparison(1),
  __unordtf2: (_, alo, ahi, blo, bhi) => (isNaN128(join(alo, ahi)) || isNaN128(join(blo, bhi)) ? 1 : 0),

  // conversions into long double: (result*, value)
  __extendsftf2: (ctx, r, x) => write128(ctx, r, f128FromF32(Number(x))),
  __extenddftf2: (ctx, r, x) => write128(ctx, r, f128FromF64(Number(x))),
  __floatsitf: (ctx, r, i) => write128(ctx, r, f128FromInteger(BigInt(Number(i) | 0))),
  __floatunsitf: (ctx, r, i) => write128(ctx, r, f128FromInteger(BigInt(u32(i)))),
  __floatditf: (ctx, r, i) => write128(ctx, r, f128FromInteger(i64(i))),
  __floatunditf: (ctx, r, i) => write128(ctx, r, f128FromInteger(BigInt(i) & MASK64)),
  __floattitf: (ctx, r, lo, hi) => write128(ctx, r, f128FromInteger(signed128(join(lo, hi)))),
  __floatuntitf: (ctx, r, lo, hi) => write128(ctx, r, f128FromInteger(join(lo, hi))),

  // conversions out of long double: (a.lo, a.hi) → value
  __trunctfdf2: (_, lo, hi) => f128ToF64(join(lo, hi)),
  __trunctfsf2: (_, lo, hi) => f128ToF32(join(lo, hi)),
  __fixtfsi: (_, lo, hi) => Number(toSigned(join(lo, hi), 32)),
  __fixtfdi: (_, lo, hi) => toSigned(join(lo, hi), 64),
  __fixunstfsi: (_, lo, hi) => Number(BigInt.asIntN(32, toUnsigned(join(lo, hi), 32))),
  __fixunstfdi: (_, lo, hi) => BigInt.asIntN(64, toUnsigned(join(lo, hi), 64)),
  __fixtfti: (ctx, r, lo, hi) => write128(ctx, r, toI128(join(lo, hi), BINARY128)),
  __fixunstfti: (ctx, r, lo, hi) => write128(ctx, r, toU128(join(lo, hi), BINARY128)),

  // 128-bit integers and the host formats
  __floattidf: (_, lo, hi) => Number(signed128(join(lo, hi))), // Number(bigint) rounds to nearest even
  __floatuntidf: (_, lo, hi) => Number(join(lo, hi)),
  __floattisf: (_, lo, hi) => f32FromInteger(signed128(join(lo, hi))),
  __floatuntisf: (_, lo, hi) => f32FromInteger(join(lo, hi)),
  __floatsidf: (_, i) => Number(i) | 0,
  __fixdfti: (ctx, r, x) => write128(ctx, r, toI128(f64Bits(Number(x)), BINARY64)),
  __fixsfti: (ctx, r, x) => write128(ctx, r, toI128(f32Bits(Number(x)), BINARY32)),
  __fixunsdfti: (ctx, r, x) => write128(ctx, r, toU128(f64Bits(Number(x)), BINARY64)),
  __fixunssfti: (ctx, r, x) => write128(ctx, r, toU128(f32Bits(Number(x)), BINARY32)),
};

/** The builtins (module `env`), each charging Venachain's gas before it runs. */
export const compilerBuiltinsHost: HostTable = Object.fromEntries(
  Object.entries(builtins).map(([name, fn]) => {
    const gas = BigInt(BUILTIN_GAS[name]!);
    return [name, (ctx: HostContext, ...args: HostArg[]) => (ctx.useGas(gas), fn(ctx, ...args))];
  }),
);
