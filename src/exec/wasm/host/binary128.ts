// IEEE 754 binary128 ("long double" in wasm32 C) arithmetic, exact, over the format's 128 bits as a
// bigint. The C toolchain lowers every long-double operation to a compiler-builtin import
// (compiler-builtins.ts), and the chain must compute them the same on every node: so no host
// float is involved anywhere — significands are BigInts, every result is the exact value rounded
// once to nearest, ties to even (the only rounding mode C programs see). Every NaN result is the
// one canonical NaN Venachain's softfloat produces for an invalid operation (sign set, quiet bit
// set), whatever the operands' payloads: payload propagation is where float implementations differ.
// binary64 and binary32 go through the same code, for the conversions.

export interface FloatFormat {
  /** stored fraction bits (the significand has one more, implicit, for normal numbers) */
  fracBits: number;
  expBits: number;
}

export const BINARY128: FloatFormat = { fracBits: 112, expBits: 15 };
export const BINARY64: FloatFormat = { fracBits: 52, expBits: 11 };
export const BINARY32: FloatFormat = { fracBits: 23, expBits: 8 };

/** softfloat's default NaN on x86 (defaultNaNF128UI64 = 0xFFFF800000000000, low word 0) */
const F128_NAN = 0xffff8000_00000000_00000000_00000000n;

/** A number unpacked: finite values are (-1)^sign · sig · 2^exp. */
type Unpacked = { sign: 0 | 1; kind: 'zero' } | { sign: 0 | 1; kind: 'inf' } | { sign: 0 | 1; kind: 'nan' } | { sign: 0 | 1; kind: 'finite'; sig: bigint; exp: number };

function bitLength(n: bigint): number {
  if (n === 0n) return 0;
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

function bias(f: FloatFormat): number {
  return (1 << (f.expBits - 1)) - 1;
}

function unpack(bits: bigint, f: FloatFormat): Unpacked {
  const fracMask = (1n << BigInt(f.fracBits)) - 1n;
  const maxBiased = (1 << f.expBits) - 1;
  const sign = Number((bits >> BigInt(f.fracBits + f.expBits)) & 1n) as 0 | 1;
  const biased = Number((bits >> BigInt(f.fracBits)) & BigInt(maxBiased));
  const frac = bits & fracMask;
  if (biased === maxBiased) return frac === 0n ? { sign, kind: 'inf' } : { sign, kind: 'nan' };
  if (biased === 0) return frac === 0n ? { sign, kind: 'zero' } : { sign, kind: 'finite', sig: frac, exp: 1 - bias(f) - f.fracBits };
  return { sign, kind: 'finite', sig: frac | (1n << BigInt(f.fracBits)), exp: biased - bias(f) - f.fracBits };
}

function signBit(sign: 0 | 1, f: FloatFormat): bigint {
  return BigInt(sign) << BigInt(f.fracBits + f.expBits);
}

function infinity(sign: 0 | 1, f: FloatFormat): bigint {
  return signBit(sign, f) | (BigInt((1 << f.expBits) - 1) << BigInt(f.fracBits));
}

/**
 * The format's bits of (-1)^sign · sig · 2^exp (sig ≥ 0), rounded to nearest, ties to even:
 * overflow gives infinity, tiny values go subnormal (rounded at the subnormal quantum) or to zero.
 */
function round(sign: 0 | 1, sig: bigint, exp: number, f: FloatFormat): bigint {
  if (sig === 0n) return signBit(sign, f);
  // q: the exponent of the result's last significand bit; never below the subnormals' quantum
  const qMin = 1 - bias(f) - f.fracBits;
  const top = exp + bitLength(sig) - 1;
  let q = Math.max(top - f.fracBits, qMin);
  let m: bigint;
  if (exp >= q) {
    m = sig << BigInt(exp - q);
  } else {
    if (q - exp > bitLength(sig)) {
      // below half the last place: rounds to zero (no mask of thousands of bits for it)
      return signBit(sign, f);
    }
    const shift = BigInt(q - exp);
    m = sig >> shift;
    const rest = sig & ((1n << shift) - 1n);
    const half = 1n << (shift - 1n);
    if (rest > half || (rest === half && (m & 1n) === 1n)) m += 1n;
    if (m === 1n << BigInt(f.fracBits + 1)) {
      m >>= 1n;
      q += 1;
    }
  }
  // a subnormal m (below 2^fracBits) sits at q = qMin: biased exponent 0; a normal one adds its
  // implicit bit to q - qMin, which makes the biased exponent: one formula for both
  const biasedBelow = q - qMin;
  const biased = biasedBelow + Number(m >> BigInt(f.fracBits));
  if (biased >= (1 << f.expBits) - 1) return infinity(sign, f);
  return signBit(sign, f) | ((BigInt(biasedBelow) << BigInt(f.fracBits)) + m);
}

export function isNaN128(a: bigint): boolean {
  return unpack(a, BINARY128).kind === 'nan';
}

/** The exponent of a finite number's top significand bit. */
function top(x: { sig: bigint; exp: number }): number {
  return x.exp + bitLength(x.sig) - 1;
}

export function add128(a: bigint, b: bigint): bigint {
  const x = unpack(a, BINARY128);
  const y = unpack(b, BINARY128);
  if (x.kind === 'nan' || y.kind === 'nan') return F128_NAN;
  if (x.kind === 'inf' || y.kind === 'inf') {
    if (x.kind === 'inf' && y.kind === 'inf' && x.sign !== y.sign) return F128_NAN;
    return x.kind === 'inf' ? a : b;
  }
  if (x.kind === 'zero' && y.kind === 'zero') return signBit((x.sign & y.sign) as 0 | 1, BINARY128);
  if (x.kind === 'zero') return b;
  if (y.kind === 'zero') return a;
  // an operand whose top bit lies more than 118 bits below the other's only nudges the rounding:
  // it stands in as its sign and one bit at 2^(top-118), below a quarter of the result's last place
  // either way (the same rounding), which keeps the shifts below short (exponents span 32,766 bits)
  const [big, small] = top(x) >= top(y) ? [x, y] : [y, x];
  const floor = top(big) - 118;
  const tiny = top(small) < floor ? { ...small, sig: 1n, exp: floor } : small;
  const exp = Math.min(big.exp, tiny.exp);
  const sx = (big.sig << BigInt(big.exp - exp)) * (big.sign ? -1n : 1n);
  const sy = (tiny.sig << BigInt(tiny.exp - exp)) * (tiny.sign ? -1n : 1n);
  const sum = sx + sy;
  // an exact zero sum is +0 when rounding to nearest
  if (sum === 0n) return 0n;
  return round(sum < 0n ? 1 : 0, sum < 0n ? -sum : sum, exp, BINARY128);
}

export function neg128(a: bigint): bigint {
  return a ^ (1n << 127n);
}

export function sub128(a: bigint, b: bigint): bigint {
  return add128(a, neg128(b));
}

export function mul128(a: bigint, b: bigint): bigint {
  const x = unpack(a, BINARY128);
  const y = unpack(b, BINARY128);
  const sign = (x.sign ^ y.sign) as 0 | 1;
  if (x.kind === 'nan' || y.kind === 'nan') return F128_NAN;
  if (x.kind === 'inf' || y.kind === 'inf') return x.kind === 'zero' || y.kind === 'zero' ? F128_NAN : infinity(sign, BINARY128);
  if (x.kind === 'zero' || y.kind === 'zero') return signBit(sign, BINARY128);
  return round(sign, x.sig * y.sig, x.exp + y.exp, BINARY128);
}

export function div128(a: bigint, b: bigint): bigint {
  const x = unpack(a, BINARY128);
  const y = unpack(b, BINARY128);
  const sign = (x.sign ^ y.sign) as 0 | 1;
  if (x.kind === 'nan' || y.kind === 'nan') return F128_NAN;
  if (x.kind === 'inf') return y.kind === 'inf' ? F128_NAN : infinity(sign, BINARY128);
  if (y.kind === 'inf') return signBit(sign, BINARY128);
  if (y.kind === 'zero') return x.kind === 'zero' ? F128_NAN : infinity(sign, BINARY128);
  if (x.kind === 'zero') return signBit(sign, BINARY128);
  // a quotient of at least 116 bits, then one sticky bit below it that says whether anything
  // remained: the rounding position is always above it, so rounding sees the exact value's side
  const k = Math.max(0, 116 + bitLength(y.sig) - bitLength(x.sig) + 1);
  const num = x.sig << BigInt(k);
  const quotient = num / y.sig;
  const sticky = num % y.sig === 0n ? 0n : 1n;
  return round(sign, (quotient << 1n) | sticky, x.exp - y.exp - k - 1, BINARY128);
}

/** -1, 0 or 1 as a is below, equal to or above b (+0 equals -0); undefined when either is NaN. */
export function compare128(a: bigint, b: bigint): -1 | 0 | 1 | undefined {
  if (isNaN128(a) || isNaN128(b)) return undefined;
  const key = (v: bigint) => {
    const magnitude = v & ((1n << 127n) - 1n);
    return v >> 127n ? -magnitude : magnitude;
  };
  const d = key(a) - key(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** A binary64 or binary32 value's bits widened exactly to binary128 (NaN → the canonical NaN). */
function widen(bits: bigint, from: FloatFormat): bigint {
  const x = unpack(bits, from);
  if (x.kind === 'nan') return F128_NAN;
  if (x.kind === 'inf') return infinity(x.sign, BINARY128);
  if (x.kind === 'zero') return signBit(x.sign, BINARY128);
  return round(x.sign, x.sig, x.exp, BINARY128);
}

/** binary128 narrowed to a smaller format's bits, rounded to nearest even (NaN → that format's quiet NaN). */
function narrow(a: bigint, to: FloatFormat): bigint {
  const x = unpack(a, BINARY128);
  if (x.kind === 'nan') return infinity(0, to) | (1n << BigInt(to.fracBits - 1));
  if (x.kind === 'inf') return infinity(x.sign, to);
  if (x.kind === 'zero') return signBit(x.sign, to);
  return round(x.sign, x.sig, x.exp, to);
}

const scratch = new DataView(new ArrayBuffer(8));

export function f64Bits(x: number): bigint {
  scratch.setFloat64(0, x);
  return scratch.getBigUint64(0);
}

function f64FromBits(bits: bigint): number {
  scratch.setBigUint64(0, bits);
  return scratch.getFloat64(0);
}

export function f32Bits(x: number): bigint {
  scratch.setFloat32(0, x);
  return BigInt(scratch.getUint32(0));
}

function f32FromBits(bits: bigint): number {
  scratch.setUint32(0, Number(bits));
  return scratch.getFloat32(0);
}

export function f128FromF64(x: number): bigint {
  return widen(f64Bits(x), BINARY64);
}

export function f128FromF32(x: number): bigint {
  return widen(f32Bits(x), BINARY32);
}

export function f128ToF64(a: bigint): number {
  return f64FromBits(narrow(a, BINARY64));
}

export function f128ToF32(a: bigint): number {
  return f32FromBits(narrow(a, BINARY32));
}

/** An integer rounded to binary128 (exact below 2^113). */
export function f128FromInteger(n: bigint): bigint {
  return round(n < 0n ? 1 : 0, n < 0n ? -n : n, 0, BINARY128);
}

/** An integer rounded to binary32 bits: once, from the exact integer (not through binary64). */
export function f32FromInteger(n: bigint): number {
  return f32FromBits(round(n < 0n ? 1 : 0, n < 0n ? -n : n, 0, BINARY32));
}

/**
 * A value of format `f` truncated toward zero, with its unbiased exponent, which compiler-rt's
 * saturation rules read. Infinity reads as ±2^(bias+1) (beyond every integer type), NaN as
 * magnitude 0 with that exponent and `nan` set.
 */
export function truncate(bits: bigint, f: FloatFormat): { value: bigint; exponent: number; negative: boolean; nan: boolean } {
  const x = unpack(bits, f);
  const negative = x.sign === 1;
  if (x.kind === 'nan') return { value: 0n, exponent: bias(f) + 1, negative, nan: true };
  if (x.kind === 'zero') return { value: 0n, exponent: -bias(f), negative, nan: false };
  const [sig, exp] = x.kind === 'inf' ? [1n, bias(f) + 1] : [x.sig, x.exp];
  const magnitude = exp >= 0 ? sig << BigInt(exp) : sig >> BigInt(-exp);
  return { value: negative ? -magnitude : magnitude, exponent: exp + bitLength(sig) - 1, negative, nan: false };
}
