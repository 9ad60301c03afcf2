// Venachain's wasm contract encodings, one module for the node's wasm engine, the operator CLI and
// the client SDK. Pure (RLP and the shared call codec only) so the SDK carries it.
//
//   deploy data = RLP([txType as 8 bytes big-endian, wasm bytes, ABI JSON bytes])  (the stored code too)
//   call data   = RLP([txType, funcName, arg1, …])                  (encodeCall of venachain-call.ts)
//   arguments   = fixed-width big-endian by ABI type: int8/uint8/bool 1 byte, int16/uint16 2,
//                 int32/uint32/int/uint 4, int64/uint64 8, float32 4 and float64 8 (IEEE 754 bits),
//                 int128/uint128/float128 16; strings (string, int128_s … uint256_s) their bytes
//   return      = by txType: 9 raw (integers and floats 8 bytes, 128-bit 16, strings their bytes);
//                 14 strings raw, the rest as otherwise; otherwise one 32-byte word (integers two's
//                 complement, floats their 8 bytes right-aligned) and strings ABI-encoded
//   ABI JSON    = [{name, inputs:[{name,type}], outputs:[{name,type}], constant:"true"|"false", type:"function"|"event"}]
//
// Venachain's interpreter (core/vm/interpreter_life.go) answers nothing for a `bool`, `int16` or
// `uint` return; here they are integers like the others, so such a call answers a value where
// Venachain answers 0x.
import { RLP } from '@ethereumjs/rlp';
import { abiString, beBytes, beValue, CallCodecError, encodeCall, TX_TYPE_CALL, TX_TYPE_RAW_RETURN, TX_TYPE_SOL_COMPATIBLE_WASM } from './venachain-call.ts';

export { TX_TYPE_CALL, TX_TYPE_RAW_RETURN, TX_TYPE_SOL_COMPATIBLE_WASM };

/** txType of a wasm deploy as Venachain's vcl sends it (the field left at zero). */
export const TX_TYPE_DEPLOY = 0n;

/** The first 8 bytes of every wasm module this chain runs: "\0asm" and version 1. */
export const WASM_MAGIC = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

export interface WasmAbiParam {
  name: string;
  type: string;
}

export interface WasmAbiEntry {
  name: string;
  inputs: WasmAbiParam[];
  outputs: WasmAbiParam[];
  /** "true" for a function that only reads */
  constant: string;
  /** "function" (callable) or "event" */
  type: string;
}

export type WasmAbi = readonly WasmAbiEntry[];

/** A value of an argument or return: integers bigint, floats number, bool boolean, strings string. */
export type WasmValue = bigint | number | boolean | string;

export class WasmAbiError extends CallCodecError {}

const utf8 = new TextEncoder();
const utf8Lenient = new TextDecoder();

const INT_WIDTHS: Readonly<Record<string, number>> = {
  int8: 1, uint8: 1, bool: 1,
  int16: 2, uint16: 2,
  int32: 4, uint32: 4, int: 4, uint: 4,
  int64: 8, uint64: 8,
  int128: 16, uint128: 16,
};
const FLOAT_WIDTHS: Readonly<Record<string, number>> = { float32: 4, float64: 8, float128: 16 };
/** Types passed as a NUL-terminated string (the `_s` ones carry big integers as decimal text). */
const STRING_TYPES = new Set(['string', 'int128_s', 'uint128_s', 'int256_s', 'uint256_s']);

/** Whether `type` is an argument type a call can carry. */
export function isWasmArgType(type: string): boolean {
  return Object.hasOwn(INT_WIDTHS, type) || Object.hasOwn(FLOAT_WIDTHS, type) || STRING_TYPES.has(type);
}

export function isWasmStringType(type: string): boolean {
  return STRING_TYPES.has(type);
}

/** The byte width of a fixed-width argument type, or undefined for strings and unknown types. */
export function wasmArgWidth(type: string): number | undefined {
  return INT_WIDTHS[type] ?? FLOAT_WIDTHS[type];
}

function isSigned(type: string): boolean {
  return type.startsWith('int');
}

function startsWithMagic(bytes: Uint8Array): boolean {
  return bytes.length >= WASM_MAGIC.length && WASM_MAGIC.every((b, i) => bytes[i] === b);
}

function describe(value: unknown): string {
  return typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
}

// ---- the ABI ----

function param(p: unknown, where: string): WasmAbiParam {
  if (typeof p !== 'object' || p === null) throw new WasmAbiError(`${where} must be an object {name, type}`);
  const { name, type } = p as Record<string, unknown>;
  if (typeof type !== 'string') throw new WasmAbiError(`${where}.type must be a string`);
  if (name !== undefined && typeof name !== 'string') throw new WasmAbiError(`${where}.name must be a string`);
  return { name: name ?? '', type };
}

function params(list: unknown, where: string): WasmAbiParam[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new WasmAbiError(`${where} must be an array`);
  return list.map((p, i) => param(p, `${where}[${i}]`));
}

/**
 * Reads and checks an ABI: JSON text (or its UTF-8 bytes) or the parsed array. Missing `inputs`,
 * `outputs`, `constant` read as empty, as Venachain's JSON decoding leaves them; a function's
 * argument types must be ones a call can carry.
 */
export function parseWasmAbi(abi: string | Uint8Array | unknown): WasmAbi {
  let value = abi;
  if (typeof abi === 'string' || abi instanceof Uint8Array) {
    const text = typeof abi === 'string' ? abi : utf8Lenient.decode(abi);
    try {
      value = JSON.parse(text) as unknown;
    } catch (e) {
      throw new WasmAbiError(`the ABI is not JSON: ${(e as Error).message}`);
    }
  }
  if (!Array.isArray(value)) throw new WasmAbiError('the ABI must be a JSON array of {name, inputs, outputs, constant, type}');
  return value.map((entry: unknown, i): WasmAbiEntry => {
    const where = `ABI entry ${i}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new WasmAbiError(`${where} must be an object`);
    const e = entry as Record<string, unknown>;
    if (typeof e.name !== 'string' || e.name === '') throw new WasmAbiError(`${where}: name must be a non-empty string`);
    if (typeof e.type !== 'string') throw new WasmAbiError(`${where} (${e.name}): type must be a string ("function" or "event")`);
    if (e.constant !== undefined && typeof e.constant !== 'string') throw new WasmAbiError(`${where} (${e.name}): constant must be "true" or "false"`);
    const parsed: WasmAbiEntry = {
      name: e.name,
      inputs: params(e.inputs, `${where} (${e.name}).inputs`),
      outputs: params(e.outputs, `${where} (${e.name}).outputs`),
      constant: (e.constant as string | undefined) ?? '',
      type: e.type,
    };
    if (parsed.type === 'function') {
      for (const p of parsed.inputs) {
        if (!isWasmArgType(p.type)) throw new WasmAbiError(`${where} (${e.name}): argument ${JSON.stringify(p.name)} has type ${JSON.stringify(p.type)}, which no call can carry`);
      }
    }
    return parsed;
  });
}

/** The callable entry named `funcName` (Venachain matches names without case), or undefined. */
export function findWasmFunction(abi: WasmAbi, funcName: string): WasmAbiEntry | undefined {
  const lower = funcName.toLowerCase();
  return abi.find((e) => e.type.toLowerCase() === 'function' && e.name.toLowerCase() === lower);
}

/** A function's return type: its first output's, or "void". */
export function wasmReturnType(entry: WasmAbiEntry): string {
  return entry.outputs[0]?.type ?? 'void';
}

// ---- deploy data and stored code ----

export interface WasmDeploy {
  txType: bigint;
  wasm: Uint8Array;
  /** the ABI JSON bytes as deployed */
  abiJson: Uint8Array;
}

/** Deploy data (and the code the chain stores): RLP([txType, wasm, ABI JSON]). The ABI is checked first. */
export function encodeWasmDeploy(wasm: Uint8Array, abiJson: string | Uint8Array | WasmAbi, txType: bigint = TX_TYPE_DEPLOY): Uint8Array {
  if (!startsWithMagic(wasm)) throw new WasmAbiError('not a wasm module: it must start with \\0asm and version 1');
  const abiBytes = typeof abiJson === 'string' ? utf8.encode(abiJson) : abiJson instanceof Uint8Array ? abiJson : utf8.encode(JSON.stringify(abiJson));
  parseWasmAbi(abiBytes);
  return RLP.encode([beBytes(txType, 8), wasm, abiBytes]);
}

/** Reads deploy data / stored code; throws WasmAbiError naming what is wrong. The ABI is not parsed (parseWasmAbi). */
export function decodeWasmDeploy(code: Uint8Array): WasmDeploy {
  let items: unknown;
  try {
    items = RLP.decode(code);
  } catch (e) {
    throw new WasmAbiError(`wasm deploy data is not RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || items.length < 3) throw new WasmAbiError('wasm deploy data must be an RLP list [txType, wasm, abi]');
  const [type, wasm, abiJson] = items as unknown[];
  if (!(type instanceof Uint8Array) || !(wasm instanceof Uint8Array) || !(abiJson instanceof Uint8Array)) {
    throw new WasmAbiError('wasm deploy data items must be byte strings, not lists');
  }
  if (!startsWithMagic(wasm)) throw new WasmAbiError('the second item of wasm deploy data must be a wasm module (\\0asm, version 1)');
  // Venachain's BytesToInt64: fewer than 8 bytes read as 0, more keep the first 8
  return { txType: type.length < 8 ? 0n : BigInt.asIntN(64, beValue(type.subarray(0, 8))), wasm, abiJson };
}

/** Venachain's test for wasm code: an RLP list of ≥ 3 items whose second starts with the wasm magic. */
export function isWasmCode(code: Uint8Array): boolean {
  // a cheap look first: an RLP list prefix (EVM code starting 0xc0–0xff is rare) and the magic somewhere
  if (code.length < 12 || code[0]! < 0xc0) return false;
  try {
    decodeWasmDeploy(code);
    return true;
  } catch {
    return false;
  }
}

// ---- arguments ----

function integerOf(type: string, value: WasmValue): bigint {
  if (typeof value === 'boolean' && type === 'bool') return value ? 1n : 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) return value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value);
  throw new WasmAbiError(`a ${type} argument must be an integer, got ${describe(value)}`);
}

/** The bytes of one argument of ABI type `type`. */
export function encodeWasmArg(type: string, value: WasmValue): Uint8Array {
  if (STRING_TYPES.has(type)) {
    if (typeof value !== 'string') throw new WasmAbiError(`a ${type} argument must be a string, got ${describe(value)}`);
    if (value.includes('\0')) throw new WasmAbiError(`a ${type} argument cannot contain NUL (the contract reads it NUL-terminated)`);
    return utf8.encode(value);
  }
  if (type === 'float32' || type === 'float64') {
    if (typeof value !== 'number') throw new WasmAbiError(`a ${type} argument must be a number, got ${describe(value)}`);
    const out = new Uint8Array(type === 'float32' ? 4 : 8);
    const view = new DataView(out.buffer);
    if (type === 'float32') view.setFloat32(0, value);
    else view.setFloat64(0, value);
    return out;
  }
  if (type === 'float128') {
    if (typeof value !== 'bigint') throw new WasmAbiError('a float128 argument must be its IEEE 754 binary128 bits as a bigint');
    return beBytes(value, 16);
  }
  const width = INT_WIDTHS[type];
  if (width === undefined) throw new WasmAbiError(`unknown argument type ${JSON.stringify(type)}`);
  const n = integerOf(type, value);
  const bits = BigInt(width * 8);
  const [min, max] = type === 'bool' ? [0n, 1n] : isSigned(type) ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
  if (n < min || n > max) throw new WasmAbiError(`${n} is out of range for ${type} (${min}…${max})`);
  return beBytes(n, width);
}

/**
 * An argument's value from its bytes (the callee's side of encodeWasmArg): integers bigint (signed
 * by type), floats number, bool boolean, strings UTF-8 text (lenient: a contract sees raw bytes).
 * Fixed-width types must be exactly their width — shorter ones make Venachain's interpreter fail too.
 */
export function decodeWasmArg(type: string, bytes: Uint8Array): WasmValue {
  if (STRING_TYPES.has(type)) return utf8Lenient.decode(bytes);
  const width = wasmArgWidth(type);
  if (width === undefined) throw new WasmAbiError(`unknown argument type ${JSON.stringify(type)}`);
  if (bytes.length !== width) throw new WasmAbiError(`a ${type} argument must be ${width} byte(s), got ${bytes.length}`);
  if (type === 'float32') return new DataView(bytes.buffer, bytes.byteOffset, 4).getFloat32(0);
  if (type === 'float64') return new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0);
  const v = beValue(bytes);
  if (type === 'bool') return v !== 0n;
  return isSigned(type) ? BigInt.asIntN(width * 8, v) : v;
}

/**
 * Call data for `funcName` of `abi` with `args` checked and encoded by its inputs. The function
 * must be in the ABI with type "function".
 */
export function encodeWasmCall(abi: WasmAbi | string | Uint8Array, funcName: string, args: readonly WasmValue[] = [], txType: bigint = TX_TYPE_CALL): Uint8Array {
  const parsed = Array.isArray(abi) ? (abi as WasmAbi) : parseWasmAbi(abi);
  const entry = findWasmFunction(parsed, funcName);
  if (entry === undefined) throw new WasmAbiError(`the ABI has no function ${JSON.stringify(funcName)}`);
  if (args.length !== entry.inputs.length) throw new WasmAbiError(`${entry.name} takes ${entry.inputs.length} argument(s), got ${args.length}`);
  const encoded = entry.inputs.map((p, i) => {
    try {
      return encodeWasmArg(p.type, args[i]!);
    } catch (e) {
      throw new WasmAbiError(`${entry.name}: argument ${i + 1} (${p.name || p.type}): ${(e as Error).message}`);
    }
  });
  return encodeCall(entry.name, encoded, txType);
}

// ---- returns ----

function word(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

/**
 * The return data of a function returning `type`, as the call's txType asks. `value`: an integer
 * type's value (bigint; void: 0n), a float's IEEE 754 bits (bigint: float32 its 32 bits), a
 * 128-bit type's 16 bytes big-endian (bigint), a string type's bytes. Unknown types return nothing
 * (as Venachain's).
 */
export function encodeWasmReturn(type: string, txType: bigint, value: bigint | Uint8Array): Uint8Array {
  const raw = txType === TX_TYPE_RAW_RETURN;
  if (STRING_TYPES.has(type)) {
    const bytes = value instanceof Uint8Array ? value : utf8.encode(String(value));
    return raw || txType === TX_TYPE_SOL_COMPATIBLE_WASM ? bytes : abiString(bytes);
  }
  if (typeof value !== 'bigint') throw new WasmAbiError(`a ${type} return must be given as a bigint`);
  if (type === 'int128' || type === 'uint128' || type === 'float128') {
    const bytes = beBytes(value, 16);
    return raw ? bytes : word(bytes);
  }
  if (type === 'float32' || type === 'float64') {
    const bytes = beBytes(value, 8);
    return raw ? bytes : word(bytes);
  }
  if (type !== 'void' && !Object.hasOwn(INT_WIDTHS, type)) return new Uint8Array(0);
  // integers: 8 bytes raw, else a 32-byte two's complement word (Venachain's U256 of the int64)
  return raw ? beBytes(value, 8) : beBytes(value, 32);
}

/**
 * Reads a return value (the caller's side of encodeWasmReturn): integers bigint (signed by type),
 * floats number, bool boolean, strings text; `void` and an empty answer to a non-string type
 * (a transfer, txType 0) undefined.
 */
export function decodeWasmReturn(type: string, txType: bigint, bytes: Uint8Array): WasmValue | undefined {
  const raw = txType === TX_TYPE_RAW_RETURN;
  if (STRING_TYPES.has(type)) {
    if (raw || txType === TX_TYPE_SOL_COMPATIBLE_WASM) return utf8Lenient.decode(bytes);
    if (bytes.length === 0) return undefined;
    if (bytes.length < 64) throw new WasmAbiError(`a string return must be at least 64 bytes (offset, length), got ${bytes.length}`);
    const offset = Number(beValue(bytes.subarray(0, 32)));
    const length = Number(beValue(bytes.subarray(offset, offset + 32)));
    if (offset + 32 + length > bytes.length) throw new WasmAbiError('a string return is shorter than its length word');
    return utf8Lenient.decode(bytes.subarray(offset + 32, offset + 32 + length));
  }
  if (type === 'void' || bytes.length === 0) return undefined;
  const is128 = type === 'int128' || type === 'uint128' || type === 'float128';
  const width = raw ? (is128 ? 16 : 8) : 32;
  if (bytes.length !== width) throw new WasmAbiError(`a ${type} return must be ${width} bytes, got ${bytes.length}`);
  const v = beValue(bytes);
  if (type === 'float32') return new DataView(beBytes(v, 4).buffer).getFloat32(0);
  if (type === 'float64') return new DataView(beBytes(v, 8).buffer).getFloat64(0);
  if (type === 'float128') return BigInt.asUintN(128, v);
  const intWidth = INT_WIDTHS[type];
  if (intWidth === undefined) throw new WasmAbiError(`unknown return type ${JSON.stringify(type)}`);
  if (type === 'bool') return v !== 0n;
  // a return travels as int64 (128-bit as 16 bytes): read it back at the declared width
  const n = BigInt.asIntN(is128 ? 128 : 64, BigInt.asUintN(is128 ? 128 : 64, v));
  return isSigned(type) ? BigInt.asIntN(intWidth * 8, n) : BigInt.asUintN(intWidth * 8, n);
}
