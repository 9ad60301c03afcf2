// Calls between wasm and Solidity contracts on an `interpreter: all` chain, in Venachain's
// encodings (accounts/abi/type.go, common/bytes.go). Pure (RLP, keccak, the shared call codec), so
// the SDK can carry it.
//
// Solidity → wasm: the Solidity contract sends JSON as call data,
//     {"func_name": "get", "func_params": ["int64(5)", "string(hello)"]}
//   which reaches the wasm contract as RLP([14, funcName, arg…]): txType 14 answers strings raw and
//   integers as one 32-byte word. Each param is "type(value)"; the argument bytes by type (Go's
//   StringConverter): int/uint/int32/uint32 → 4 bytes big-endian (the value wrapped to 32 bits),
//   int64/uint64 → 8 (the value must fit int64), float32 → 4, float64 → 8, bool → 1 (true/false)
//   and every other type — string, but also int8/int16/uint8/uint16 — the value's text itself.
// wasm → Solidity: the wasm contract passes bcwasmCall RLP([txType, funcName, "type(value)"…]),
//   which reaches the Solidity contract as the 4-byte selector of funcName(type,…) and the
//   arguments ABI-encoded. Types: address, bool, string, int8…int256 and uint8…uint256 in the
//   eight widths 8/16/32/64/128/256 (Venachain's SolInputTypeConversion takes no others).
// What the wasm side reads back (as Venachain's `all` chains read it; its wasm-only chains skip the
//   Solidity-style step, which here is always taken): bcwasmCallInt64 takes a 32-byte word whose
//   top 24 bytes are a sign extension as the int64 in its last 8 (another 32-byte word reads 0),
//   any other answer's first 8 bytes (0 when shorter); bcwasmCallString takes an ABI-encoded
//   string's text (32-byte offset word starting with 0, length word, data) and any other answer
//   as it is.
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { abiString, beBytes, beValue, CallCodecError, TX_TYPE_SOL_COMPATIBLE_WASM } from './venachain-call.ts';

const utf8 = new TextEncoder();
const utf8Lenient = new TextDecoder();

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** "type(value)" split as Venachain's SpliceParam does (greedy: the last "(" opens the value). */
function spliceParam(param: string): { type: string; value: string } {
  if (param === '') throw new CallCodecError('a func_param is empty: it must be "type(value)"');
  const match = /(.*)\((.*)\)/.exec(param);
  if (match === null) throw new CallCodecError(`func_param ${JSON.stringify(param)} is not "type(value)"`);
  return { type: match[1]!, value: match[2]! };
}

/** Go's strconv.ParseInt(s, 10, 64). */
function parseInt64(text: string, what: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(text)) throw new CallCodecError(`${what}: ${JSON.stringify(text)} is not a decimal integer`);
  const n = BigInt(text.replace(/^\+/, ''));
  if (n < INT64_MIN || n > INT64_MAX) throw new CallCodecError(`${what}: ${text} is out of int64's range`);
  return n;
}

/** Go's strconv.ParseFloat for decimal text and inf/infinity/nan (hex floats are refused). */
function parseFloat(text: string, what: string, single: boolean): number {
  const word = text.replace(/^[+-]/, '').toLowerCase();
  const negative = text.startsWith('-');
  if (word === 'inf' || word === 'infinity') return negative ? -Infinity : Infinity;
  if (word === 'nan') return NaN;
  if (!/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text)) throw new CallCodecError(`${what}: ${JSON.stringify(text)} is not a decimal number`);
  const value = single ? Math.fround(Number(text)) : Number(text);
  if (!Number.isFinite(value)) throw new CallCodecError(`${what}: ${text} is out of ${single ? 'float32' : 'float64'}'s range`);
  return value;
}

/** One wasm argument's bytes from a Solidity caller's "type(value)" (Venachain's StringConverter). */
function wasmArgFromText(type: string, value: string): Uint8Array {
  const what = `${type}(${value})`;
  switch (type) {
    case 'int32':
    case 'uint32':
    case 'uint':
    case 'int':
      return beBytes(parseInt64(value, what), 4);
    case 'int64':
    case 'uint64':
      return beBytes(parseInt64(value, what), 8);
    case 'float32': {
      const out = new Uint8Array(4);
      new DataView(out.buffer).setFloat32(0, parseFloat(value, what, true));
      return out;
    }
    case 'float64': {
      const out = new Uint8Array(8);
      new DataView(out.buffer).setFloat64(0, parseFloat(value, what, false));
      return out;
    }
    case 'bool':
      if (value !== 'true' && value !== 'false') throw new CallCodecError(`${what}: a bool is true or false`);
      return new Uint8Array([value === 'true' ? 1 : 0]);
    default:
      return utf8.encode(value);
  }
}

/**
 * The wasm call data a Solidity contract's JSON call data stands for (Venachain's
 * WasmInput.GenerateInputData): RLP([14, func_name, arg…]). Throws CallCodecError naming what is
 * wrong; the call then fails, as Venachain's finds no interpreter for it.
 */
export function wasmCallFromSolidity(data: Uint8Array): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8Lenient.decode(data));
  } catch (e) {
    throw new CallCodecError(`a call from a Solidity contract to a wasm contract must be JSON {"func_name", "func_params"}: ${(e as Error).message}`);
  }
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new CallCodecError('a call from a Solidity contract to a wasm contract must be a JSON object {"func_name", "func_params"}');
  let funcName: unknown = '';
  let funcParams: unknown = [];
  // Go's encoding/json matches field names without case; the last match wins
  for (const [key, value] of Object.entries(parsed ?? {})) {
    if (key.toLowerCase() === 'func_name') funcName = value ?? '';
    if (key.toLowerCase() === 'func_params') funcParams = value ?? [];
  }
  if (typeof funcName !== 'string') throw new CallCodecError('func_name must be a string');
  if (funcName === '') throw new CallCodecError('func_name is missing');
  if (!Array.isArray(funcParams) || !funcParams.every((p) => typeof p === 'string')) throw new CallCodecError('func_params must be an array of "type(value)" strings');
  const args = (funcParams as string[]).map((p) => {
    const { type, value } = spliceParam(p);
    return wasmArgFromText(type, value);
  });
  return RLP.encode([beBytes(TX_TYPE_SOL_COMPATIBLE_WASM, 8), utf8.encode(funcName), ...args]);
}

type SolidityArg = { type: string; head: Uint8Array; tail?: Uint8Array };

/** One Solidity argument from a wasm caller's "type(value)" (Venachain's SolInputTypeConversion), ABI-encoded. */
function solidityArg(type: string, value: string): SolidityArg {
  const what = `${type}(${value})`;
  if (type === 'address') {
    if (!/^(0x|0X)?[0-9a-fA-F]{1,40}$/.test(value)) throw new CallCodecError(`${what}: an address is up to 40 hex digits`);
    return { type, head: beBytes(BigInt('0x' + value.replace(/^0x/i, '')), 32) };
  }
  if (type === 'bool') {
    if (value !== 'true' && value !== 'false') throw new CallCodecError(`${what}: a bool is true or false`);
    return { type, head: beBytes(value === 'true' ? 1n : 0n, 32) };
  }
  if (type === 'string') return { type, head: new Uint8Array(32), tail: abiString(utf8.encode(value)).subarray(32) };
  const int = /^(u?)int(8|16|32|64|128|256)$/.exec(type);
  if (int === null) throw new CallCodecError(`${what}: a wasm contract can pass a Solidity contract address, bool, string, int8…int256 or uint8…uint256`);
  const unsigned = int[1] === 'u';
  const bits = BigInt(int[2]!);
  if (!/^[+-]?[0-9]+$/.test(value)) throw new CallCodecError(`${what}: not a decimal integer`);
  const n = BigInt(value.replace(/^\+/, ''));
  const [min, max] = unsigned ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
  if (n < min || n > max) throw new CallCodecError(`${what}: out of ${type}'s range`);
  return { type, head: beBytes(n, 32) };
}

/**
 * The Solidity call data a wasm contract's RLP([txType, funcName, "type(value)"…]) stands for
 * (Venachain's ParseWasmCallSolInput): selector of funcName(types) and the ABI-encoded arguments.
 */
export function solidityCallFromWasm(data: Uint8Array): Uint8Array {
  let items: unknown;
  try {
    items = RLP.decode(data);
  } catch (e) {
    throw new CallCodecError(`a wasm contract's call to a Solidity contract must be RLP [txType, funcName, "type(value)"…]: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || items.length < 2) throw new CallCodecError('a wasm contract\'s call to a Solidity contract must be an RLP list [txType, funcName, "type(value)"…]');
  if (!items.every((i) => i instanceof Uint8Array)) throw new CallCodecError('a wasm contract\'s call to a Solidity contract must hold byte strings, not lists');
  const [, name, ...params] = items as Uint8Array[];
  const args = params.map((p) => {
    const { type, value } = spliceParam(utf8Lenient.decode(p));
    return solidityArg(type, value);
  });
  const selector = keccak_256(utf8.encode(`${utf8Lenient.decode(name!)}(${args.map((a) => a.type).join(',')})`)).subarray(0, 4);
  const heads = args.length * 32;
  const out: Uint8Array[] = [selector];
  let tailOffset = heads;
  for (const a of args) {
    out.push(a.tail === undefined ? a.head : beBytes(BigInt(tailOffset), 32));
    tailOffset += a.tail?.length ?? 0;
  }
  for (const a of args) if (a.tail !== undefined) out.push(a.tail);
  const bytes = new Uint8Array(out.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of out) {
    bytes.set(b, at);
    at += b.length;
  }
  return bytes;
}

/** What bcwasmCallInt64 returns for a callee's answer (Venachain's WasmCallResultCompatibleSolInt64, then BytesToInt64). */
export function int64FromReturn(ret: Uint8Array): bigint {
  let bytes = ret;
  if (ret.length === 32) {
    const top = ret.subarray(0, 24);
    bytes = top.every((b) => b === 0) || top.every((b) => b === 0xff) ? ret.subarray(24) : new Uint8Array(0);
  }
  return bytes.length < 8 ? 0n : BigInt.asIntN(64, beValue(bytes.subarray(0, 8)));
}

/** The bytes bcwasmCallString hands the contract for a callee's answer (Venachain's WasmCallResultCompatibleSolString). */
export function stringFromReturn(ret: Uint8Array): Uint8Array {
  if (ret.length < 64 || ret[0] !== 0) return ret;
  const length = beValue(ret.subarray(32, 64));
  if (BigInt(ret.length) < 64n + length) return ret;
  return ret.subarray(64, 64 + Number(length));
}
