// Venachain's contract call encoding, one module for every place that speaks it: the native system
// contracts (src/exec/native), the wasm engine (later), the operator CLI and the client SDK. Pure:
// RLP and keccak only, nothing of the node, so the SDK can carry it.
//
//   call data  = RLP([txType as 8 bytes big-endian, funcName, arg1, …])   (every item a byte string)
//   arguments  = by the callee's parameter type: string = UTF-8 bytes, integers = big-endian (the
//                callee left-pads or cuts to its width), records = JSON text, addresses = "0x…" text
//   return     = by txType: 9 (CALL_CONTRACT_FLAG) → integers as 8 bytes big-endian, strings raw;
//                14 (SOL_COMPATIBLE_WASM) → strings raw (integers as one 32-byte word); otherwise
//                integers as one 32-byte word and strings ABI-like (offset 0x20, length, data padded)
//   event data = RLP([code, message]), topic = keccak256(topic name)
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';

/** txType of an ordinary contract call (what Venachain's own inner calls send). */
export const TX_TYPE_CALL = 2n;
/** txType asking for raw returns: integers as 8 bytes, strings as their bytes (common.CallContractFlag). */
export const TX_TYPE_RAW_RETURN = 9n;
/** txType of a Solidity-compatible wasm call: strings raw, integers as a 32-byte word. */
export const TX_TYPE_SOL_COMPATIBLE_WASM = 14n;

/** A parameter type of a native contract method (Go types of Venachain's system contracts). */
export type ParamType = 'string' | 'int16' | 'int32' | 'int64' | 'uint16' | 'uint32' | 'uint64' | 'address' | 'json';

/** What a method returns: an integer or a string (JSON results are strings). */
export type ReturnKind = 'int' | 'string';

export class CallCodecError extends Error {}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** `n` as `width` bytes big-endian (two's complement for negatives). */
export function beBytes(n: bigint, width: number): Uint8Array {
  const out = new Uint8Array(width);
  let v = BigInt.asUintN(width * 8, n);
  for (let i = width - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Big-endian bytes as an unsigned integer. */
export function beValue(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/** Bytes of an integer argument: minimal big-endian (Venachain pads or cuts on its side), two's complement for negatives. */
function intBytes(type: ParamType, n: bigint): Uint8Array {
  const width = intWidth(type);
  if (n >= 0n) {
    const hex = n === 0n ? '' : n.toString(16);
    if (hex.length > width * 2) throw new CallCodecError(`${n} does not fit ${type}`);
    return beBytes(n, Math.ceil(hex.length / 2));
  }
  if (type.startsWith('u')) throw new CallCodecError(`${n} is negative; ${type} is unsigned`);
  return beBytes(n, width);
}

function intWidth(type: ParamType): number {
  return type.endsWith('16') ? 2 : type.endsWith('32') ? 4 : 8;
}

/** Encodes one argument for a parameter of `type`. */
export function encodeArg(type: ParamType, value: string | bigint | number | object): Uint8Array {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw new CallCodecError(`a string argument must be a string, got ${typeof value}`);
      return utf8.encode(value);
    case 'address':
      if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) throw new CallCodecError(`an address argument must be 0x and 40 hex digits, got ${JSON.stringify(value)}`);
      return utf8.encode(value);
    case 'json':
      return utf8.encode(typeof value === 'string' ? value : JSON.stringify(value));
    default:
      if (typeof value !== 'bigint' && !(typeof value === 'number' && Number.isSafeInteger(value))) throw new CallCodecError(`an ${type} argument must be an integer`);
      return intBytes(type, BigInt(value));
  }
}

/** Call data: RLP([txType (8 bytes), funcName, args…]). */
export function encodeCall(funcName: string, args: readonly Uint8Array[] = [], txType: bigint = TX_TYPE_CALL): Uint8Array {
  return RLP.encode([beBytes(txType, 8), utf8.encode(funcName), ...args]);
}

export interface DecodedCall {
  txType: bigint;
  funcName: string;
  args: Uint8Array[];
}

/** Decodes call data; throws CallCodecError when it is not an RLP list of byte strings with a txType and a name. */
export function decodeCall(data: Uint8Array): DecodedCall {
  let items: unknown;
  try {
    items = RLP.decode(data);
  } catch (e) {
    throw new CallCodecError(`call data is not RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || items.length < 2) throw new CallCodecError('call data must be an RLP list [txType, funcName, args…]');
  if (!items.every((i) => i instanceof Uint8Array)) throw new CallCodecError('call data items must be byte strings, not lists');
  const [type, name, ...args] = items as Uint8Array[];
  // Venachain's BytesToInt64: fewer than 8 bytes read as 0, more keep the first 8
  const txType = type!.length < 8 ? 0n : beValue(type!.subarray(0, 8));
  let funcName: string;
  try {
    funcName = utf8Strict.decode(name!);
  } catch {
    throw new CallCodecError('the function name is not UTF-8');
  }
  return { txType, funcName, args };
}

/** An argument's value for a parameter of `type` (Venachain's ConvertBytesTo); throws CallCodecError with the reason. */
export function decodeArg(type: ParamType, bytes: Uint8Array): string | bigint | unknown {
  switch (type) {
    case 'string':
      try {
        return utf8Strict.decode(bytes);
      } catch {
        throw new CallCodecError('not UTF-8 text');
      }
    case 'address': {
      const text = new TextDecoder().decode(bytes);
      if (!/^(0x)?[0-9a-fA-F]{40}$/.test(text)) throw new CallCodecError(`not an address: ${JSON.stringify(text.slice(0, 64))}`);
      return '0x' + text.replace(/^0x/, '').toLowerCase();
    }
    case 'json': {
      const text = new TextDecoder().decode(bytes);
      try {
        return JSON.parse(text) as unknown;
      } catch (e) {
        throw new CallCodecError(`not JSON: ${(e as Error).message}`);
      }
    }
    default: {
      const width = intWidth(type);
      const cut = bytes.length > width ? bytes.subarray(bytes.length - width) : bytes;
      const v = beValue(cut);
      return type.startsWith('u') ? v : BigInt.asIntN(width * 8, v);
    }
  }
}

/** A string return as Solidity's ABI encodes it: offset 0x20, length, data padded to 32 bytes. */
export function abiString(bytes: Uint8Array): Uint8Array {
  const padded = Math.ceil(bytes.length / 32) * 32;
  const out = new Uint8Array(64 + padded);
  out[31] = 0x20;
  out.set(beBytes(BigInt(bytes.length), 32), 32);
  out.set(bytes, 64);
  return out;
}

/** A method's return value as the caller's txType asks for it. */
export function encodeReturn(txType: bigint, value: bigint | string): Uint8Array {
  if (typeof value === 'bigint') return txType === TX_TYPE_RAW_RETURN ? beBytes(value, 8) : beBytes(value, 32);
  const bytes = utf8.encode(value);
  return txType === TX_TYPE_RAW_RETURN || txType === TX_TYPE_SOL_COMPATIBLE_WASM ? bytes : abiString(bytes);
}

/** Reads a return value encoded for `txType` (the caller's side of encodeReturn). Integers are signed, as Venachain's are. */
export function decodeReturn(txType: bigint, kind: ReturnKind, bytes: Uint8Array): bigint | string {
  if (kind === 'int') {
    const width = txType === TX_TYPE_RAW_RETURN ? 8 : 32;
    if (bytes.length !== width) throw new CallCodecError(`an integer return must be ${width} bytes, got ${bytes.length}`);
    return BigInt.asIntN(width * 8, beValue(bytes));
  }
  if (txType === TX_TYPE_RAW_RETURN || txType === TX_TYPE_SOL_COMPATIBLE_WASM) return new TextDecoder().decode(bytes);
  if (bytes.length < 64) throw new CallCodecError(`a string return must be at least 64 bytes (offset, length), got ${bytes.length}`);
  const offset = Number(beValue(bytes.subarray(0, 32)));
  const length = Number(beValue(bytes.subarray(offset, offset + 32)));
  if (offset + 32 + length > bytes.length) throw new CallCodecError('a string return is shorter than its length word');
  return new TextDecoder().decode(bytes.subarray(offset + 32, offset + 32 + length));
}

/** An event's topic: keccak256 of its name. */
export function eventTopic(name: string): Uint8Array {
  return keccak_256(utf8.encode(name));
}

/** An event's data: RLP([code, message]). */
export function encodeEventData(code: bigint, message: string): Uint8Array {
  return RLP.encode([code, utf8.encode(message)]);
}

/** Reads an event's data: { code, message }. */
export function decodeEventData(data: Uint8Array): { code: bigint; message: string } {
  const items = RLP.decode(data) as unknown;
  if (!Array.isArray(items) || items.length !== 2 || !(items[0] instanceof Uint8Array) || !(items[1] instanceof Uint8Array)) {
    throw new CallCodecError('event data must be RLP([code, message])');
  }
  return { code: beValue(items[0]), message: new TextDecoder().decode(items[1]) };
}

/**
 * A call by name: `call` (RLP([txType, funcName, args…])) with `name` ("name" or "name:version")
 * after its txType, for the zero address (Venachain's CnsInvokeAddress) to pass on to the
 * contract CNS registers under that name. Throws CallCodecError when `call` is not such a list.
 */
export function encodeCallByName(name: string, call: Uint8Array): Uint8Array {
  const items = RLP.decode(call) as unknown;
  if (!Array.isArray(items) || items.length < 2 || !items.every((i) => i instanceof Uint8Array)) throw new CallCodecError('a call by name wraps a Venachain call RLP([txType, funcName, args…])');
  return RLP.encode([items[0], utf8.encode(name), ...items.slice(1)]);
}
