// @chain-node/wasm-contract: write Venachain wasm contracts in AssemblyScript. The host functions of
// env.ts with AssemblyScript's types: strings (UTF-16 here, UTF-8 NUL-terminated to the chain),
// addresses as "0x…" text, a typed storage map, RLP for events and call data, and the globals the
// build's transform (../transform.ts) calls from the code it generates for each exported function.
import * as env from "./env";

export { env };

// ---- strings: the chain speaks UTF-8, NUL-terminated ----

/** The length of the NUL-terminated string at `ptr`. */
export function strlen(ptr: usize): usize {
  let end = ptr;
  while (load<u8>(end) != 0) end++;
  return end - ptr;
}

/** An AssemblyScript string from a NUL-terminated UTF-8 one (a string argument of a call). */
export function fromCString(ptr: usize): string {
  return String.UTF8.decodeUnsafe(ptr, strlen(ptr));
}

/** A NUL-terminated UTF-8 copy of `s`; the pointer stays valid for the call (the runtime never frees). */
export function toCString(s: string): usize {
  return changetype<usize>(String.UTF8.encode(s, true));
}

function utf8(s: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(s));
}

// ---- failing a call ----

/** Fails the call with `message` in the node's debug log: every state change of the call is undone. */
export function revert(message: string): void {
  print(message);
  env.abort();
  unreachable();
}

/** Fails the call with `message` unless `condition` holds. */
export function require(condition: bool, message: string): void {
  if (!condition) revert(message);
}

/** Writes `message` to the node's debug log. */
export function print(message: string): void {
  const bytes = String.UTF8.encode(message);
  env.prints_l(changetype<usize>(bytes), <u32>bytes.byteLength);
}

// ---- addresses: "0x" and 40 lowercase hex digits ----

/** "0x…" lowercase hex of `len` bytes at `ptr`. Written as ASCII bytes, then decoded once: each string concatenation would copy. */
export function hexOf(ptr: usize, len: usize): string {
  const n = <i32>len;
  const out = new Uint8Array(2 + 2 * n);
  out[0] = 0x30; // 0
  out[1] = 0x78; // x
  for (let i = 0; i < n; i++) {
    const b = load<u8>(ptr + <usize>i);
    out[2 + 2 * i] = hexChar(b >> 4);
    out[3 + 2 * i] = hexChar(b & 15);
  }
  return String.UTF8.decodeUnsafe(out.dataStart, out.length);
}

function hexChar(nibble: u8): u8 {
  return nibble < 10 ? 0x30 + nibble : 0x57 + nibble;
}

function hexDigit(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** The 20 bytes of an address given as "0x" and 40 hex digits (any case); fails the call otherwise. */
export function addressBytes(address: string): Uint8Array {
  // the message is built only on failure: a concatenation per call costs gas
  if (address.length != 42 || !address.startsWith("0x")) revert("not an address (0x and 40 hex digits): " + address);
  const out = new Uint8Array(20);
  for (let i = 0; i < 20; i++) {
    const hi = hexDigit(address.charCodeAt(2 + 2 * i));
    const lo = hexDigit(address.charCodeAt(3 + 2 * i));
    if (hi < 0 || lo < 0) revert("not an address (0x and 40 hex digits): " + address);
    out[i] = <u8>((hi << 4) | lo);
  }
  return out;
}

/** The address in this library's form: lowercase "0x…" (so it can key a Storage). */
export function normalizeAddress(address: string): string {
  const bytes = addressBytes(address);
  return hexOf(bytes.dataStart, 20);
}

/** The account or contract calling this one. */
export function caller(): string {
  const buf = new Uint8Array(20);
  env.caller(buf.dataStart);
  return hexOf(buf.dataStart, 20);
}

/** The transaction's sender. */
export function origin(): string {
  const buf = new Uint8Array(20);
  env.origin(buf.dataStart);
  return hexOf(buf.dataStart, 20);
}

/** This contract's address. */
export function contractAddress(): string {
  const buf = new Uint8Array(20);
  env.address(buf.dataStart);
  return hexOf(buf.dataStart, 20);
}

/** The block's sealer. */
export function coinbase(): string {
  const buf = new Uint8Array(20);
  env.coinbase(buf.dataStart);
  return hexOf(buf.dataStart, 20);
}

export function blockNumber(): u64 {
  return <u64>env.number();
}

/** Seconds since the epoch. */
export function timestamp(): u64 {
  return <u64>env.timestamp();
}

export function gasLimit(): u64 {
  return <u64>env.gasLimit();
}

export function gasPrice(): u64 {
  return <u64>env.gasPrice();
}

/** The nonce of the caller's account. */
export function callerNonce(): u64 {
  return <u64>env.getCallerNonce();
}

/** Whether `account` created this contract. The host answers 0 for yes. */
export function isOwner(account: string): bool {
  const self = new Uint8Array(20);
  env.address(self.dataStart);
  const who = addressBytes(account);
  return env.isOwner(self.dataStart, 20, who.dataStart, 20) == 0;
}

/** Whether this runs in `init` (the deploy). The host answers 0 for yes. */
export function isFromInit(): bool {
  return env.isFromInit() == 0;
}

/** The 32-byte hash of block `number` as "0x…". */
export function blockHash(number: u64): string {
  const buf = new Uint8Array(32);
  env.blockHash(<i64>number, buf.dataStart);
  return hexOf(buf.dataStart, 32);
}

/** A 32-byte big-endian amount the chain wrote, as u64; fails the call when it does not fit. */
function amount32(buf: Uint8Array): u64 {
  let v: u64 = 0;
  for (let i = 0; i < 32; i++) {
    if (i < 24) {
      if (buf[i] != 0) revert("amount above 2^64-1");
    }
    else v = (v << 8) | buf[i];
  }
  return v;
}

/** The value (wei) sent with this call. */
export function callValue(): u64 {
  const buf = new Uint8Array(32);
  env.callValue(buf.dataStart);
  return amount32(buf);
}

/** This contract's balance (wei). */
export function balance(): u64 {
  const buf = new Uint8Array(32);
  env.balance(buf.dataStart);
  return amount32(buf);
}

/** Sends `amount` wei from this contract to `to`; false when the chain refuses (e.g. too little balance). */
export function transferValue(to: string, amount: u64): bool {
  const addr = addressBytes(to);
  const value = new Uint8Array(32);
  for (let i = 0; i < 8; i++) value[31 - i] = <u8>(amount >> (8 * i));
  return env.callTransfer(addr.dataStart, 20, value.dataStart) == 0;
}

/** keccak256 of `data`. */
export function sha3(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  env.sha3(data.dataStart, data.length, out.dataStart, 32);
  return out;
}

// ---- state ----

/** Stores `value` under `key` (both raw bytes). */
export function setStateBytes(key: Uint8Array, value: Uint8Array): void {
  env.setState(key.dataStart, key.length, value.dataStart, value.length);
}

/** The bytes under `key`; empty when it holds nothing. */
export function getStateBytes(key: Uint8Array): Uint8Array {
  const size = env.getStateSize(key.dataStart, key.length);
  const out = new Uint8Array(<i32>size);
  if (size > 0) env.getState(key.dataStart, key.length, out.dataStart, size);
  return out;
}

/**
 * The bytes a value is stored as: integers and floats little-endian at their width (as a C
 * contract's memcpy), bool 1 byte, strings UTF-8, Uint8Array as is (the one other reference type
 * taken).
 */
export function encodeValue<T>(value: T): Uint8Array {
  if (isString<T>()) return utf8(changetype<string>(value));
  if (isReference<T>()) return changetype<Uint8Array>(value);
  if (isBoolean<T>()) {
    const out = new Uint8Array(1);
    out[0] = value ? 1 : 0;
    return out;
  }
  if (isInteger<T>() || isFloat<T>()) {
    const out = new Uint8Array(sizeof<T>());
    store<T>(out.dataStart, value);
    return out;
  }
  ERROR("a stored value must be an integer, a float, bool, string or Uint8Array");
  return new Uint8Array(0);
}

/** The value encodeValue wrote; fails the call when the bytes do not have the type's width. */
export function decodeValue<T>(bytes: Uint8Array): T {
  if (isString<T>()) return changetype<T>(String.UTF8.decodeUnsafe(bytes.dataStart, bytes.length));
  if (isReference<T>()) return changetype<T>(bytes);
  if (isBoolean<T>()) {
    require(bytes.length == 1, "a stored bool must be 1 byte");
    return <T>(bytes[0] != 0);
  }
  if (isInteger<T>() || isFloat<T>()) {
    require(bytes.length == sizeof<T>(), "a stored value has another width than its type");
    return load<T>(bytes.dataStart);
  }
  ERROR("a stored value must be an integer, a float, bool, string or Uint8Array");
  return changetype<T>(0);
}

/**
 * A map in the contract's state: the value of `key` is stored under the prefix's UTF-8 followed
 * by the key's bytes (encodeValue of each). An absent key reads as the default given to get().
 */
export class Storage<K, V> {
  constructor(public readonly prefix: string) {}

  private keyBytes(key: K): Uint8Array {
    const p = utf8(this.prefix);
    const k = encodeValue<K>(key);
    const out = new Uint8Array(p.length + k.length);
    out.set(p);
    out.set(k, p.length);
    return out;
  }

  has(key: K): bool {
    const k = this.keyBytes(key);
    return env.getStateSize(k.dataStart, k.length) > 0;
  }

  get(key: K, fallback: V): V {
    const bytes = getStateBytes(this.keyBytes(key));
    return bytes.length == 0 ? fallback : decodeValue<V>(bytes);
  }

  set(key: K, value: V): void {
    setStateBytes(this.keyBytes(key), encodeValue<V>(value));
  }

  /** Empties the key (it then reads as absent). */
  delete(key: K): void {
    setStateBytes(this.keyBytes(key), new Uint8Array(0));
  }
}

/** One value in the contract's state (a Storage of a single key). */
export class StorageValue<V> {
  private readonly key: Uint8Array;
  constructor(name: string) {
    this.key = utf8(name);
  }

  get(fallback: V): V {
    const bytes = getStateBytes(this.key);
    return bytes.length == 0 ? fallback : decodeValue<V>(bytes);
  }

  set(value: V): void {
    setStateBytes(this.key, encodeValue<V>(value));
  }
}

// ---- RLP: event data (and the frame of call data) ----

/** The low `width` bytes of v, big-endian; leading zeros dropped when `minimal`. */
function bigEndian(v: u64, width: i32, minimal: bool = false): Uint8Array {
  let n = width;
  if (minimal) {
    n = 0;
    for (let x = v; x != 0; x >>= 8) n++;
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[n - 1 - i] = <u8>(v >> (8 * i));
  return out;
}

/**
 * An RLP list being built, as BCWasm encodes event data (call data: CallData): strings as their UTF-8,
 * unsigned integers minimal big-endian, negative ones as 8 bytes two's complement, bool as 1 or
 * empty, floats as their IEEE 754 bits big-endian, Uint8Array as is.
 */
export class RlpList {
  private items: Uint8Array[] = [];

  add<T>(value: T): RlpList {
    this.items.push(RlpList.itemBytes<T>(value));
    return this;
  }

  private static itemBytes<T>(value: T): Uint8Array {
    if (isString<T>()) return utf8(changetype<string>(value));
    if (isReference<T>()) return changetype<Uint8Array>(value);
    if (isBoolean<T>()) return bigEndian(value ? 1 : 0, 1, true);
    if (isFloat<T>()) {
      if (sizeof<T>() == 4) return bigEndian(<u64>reinterpret<u32>(<f32>value), 4);
      return bigEndian(reinterpret<u64>(<f64>value), 8);
    }
    if (isInteger<T>()) {
      if (isSigned<T>() && <i64>value < 0) return bigEndian(<u64>(<i64>value), 8);
      return bigEndian(<u64>value, 8, true);
    }
    ERROR("an RLP item must be an integer, a float, bool, string or Uint8Array");
    return new Uint8Array(0);
  }

  private static prefixed(offset: u8, payload: Uint8Array): Uint8Array {
    const len = payload.length;
    let head: Uint8Array;
    if (len < 56) {
      head = new Uint8Array(1);
      head[0] = offset + <u8>len;
    } else {
      const lenBytes = bigEndian(<u64>len, 4, true);
      head = new Uint8Array(1 + lenBytes.length);
      head[0] = offset + 55 + <u8>lenBytes.length;
      head.set(lenBytes, 1);
    }
    const out = new Uint8Array(head.length + len);
    out.set(head);
    out.set(payload, head.length);
    return out;
  }

  /** The list's RLP bytes. */
  encode(): Uint8Array {
    let total = 0;
    const encoded = new Array<Uint8Array>(this.items.length);
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i];
      encoded[i] = item.length == 1 && item[0] < 0x80 ? item : RlpList.prefixed(0x80, item);
      total += encoded[i].length;
    }
    const payload = new Uint8Array(total);
    let at = 0;
    for (let i = 0; i < encoded.length; i++) {
      payload.set(encoded[i], at);
      at += encoded[i].length;
    }
    return RlpList.prefixed(0xc0, payload);
  }
}

/** Logs one event: topics = [keccak256(name)], data as given (an @event function sends RLP of its arguments). */
export function emitEvent(name: string, data: Uint8Array): void {
  const topic = utf8(name);
  env.emitEvent(topic.dataStart, topic.length, data.dataStart, data.length);
}

// ---- calling other contracts ----

/** txType of an ordinary call, the one Venachain's own inner calls send. */
export const TX_TYPE_CALL: i64 = 2;

/**
 * Call data for another contract: RLP([txType 2 as 8 bytes, funcName, arg…]) with each argument
 * as a wasm callee reads it — integers big-endian at their type's width, bool 1 byte, floats their
 * IEEE 754 bits, strings UTF-8. For a Solidity callee add strings "type(value)", e.g.
 * `add<string>("uint256(5)")`.
 */
export class CallData {
  private readonly list: RlpList = new RlpList();

  constructor(funcName: string) {
    this.list.add<Uint8Array>(bigEndian(<u64>TX_TYPE_CALL, 8)).add<string>(funcName);
  }

  add<T>(value: T): CallData {
    if (isString<T>()) this.list.add<string>(changetype<string>(value));
    else if (isReference<T>()) this.list.add<Uint8Array>(changetype<Uint8Array>(value));
    else if (isBoolean<T>()) this.list.add<Uint8Array>(bigEndian(value ? 1 : 0, 1));
    else if (isFloat<T>()) this.list.add<Uint8Array>(sizeof<T>() == 4 ? bigEndian(<u64>reinterpret<u32>(<f32>value), 4) : bigEndian(reinterpret<u64>(<f64>value), 8));
    else if (isInteger<T>()) this.list.add<Uint8Array>(bigEndian(<u64>value, <i32>sizeof<T>()));
    else ERROR("a call argument must be an integer, a float, bool, string or Uint8Array");
    return this;
  }

  encode(): Uint8Array {
    return this.list.encode();
  }
}

/** Calls the contract at `address` with `data` (new CallData(…).add…encode()), ignoring what it answers; the call's value goes along. */
export function callContract(address: string, data: Uint8Array): void {
  env.bcwasmCall(addressBytes(address).dataStart, data.dataStart, data.length);
}

/** Calls a function answering an integer; 0 when the call fails. */
export function callContractInt64(address: string, data: Uint8Array): i64 {
  return env.bcwasmCallInt64(addressBytes(address).dataStart, data.dataStart, data.length);
}

/** Calls a function answering a string; "" when the call fails. */
export function callContractString(address: string, data: Uint8Array): string {
  const ptr = env.bcwasmCallString(addressBytes(address).dataStart, data.dataStart, data.length);
  return ptr == 0 ? "" : fromCString(ptr);
}

// ---- what the build's transform generates code against (not for contracts to call) ----

/** The exported `malloc` the node copies a call's string arguments through. */
// @ts-ignore: decorator
@global export function __contract_malloc(size: usize): usize {
  return heap.alloc(size);
}

// @ts-ignore: decorator
@global export function __contract_string_in(ptr: usize): string {
  return fromCString(ptr);
}

// @ts-ignore: decorator
@global export function __contract_string_out(s: string): usize {
  return toCString(s);
}

// @ts-ignore: decorator
@global export function __contract_rlp(): RlpList {
  return new RlpList();
}

// @ts-ignore: decorator
@global export function __contract_emit(name: string, data: RlpList): void {
  emitEvent(name, data.encode());
}

/** AssemblyScript's abort (assert, bounds checks, …) routed here by `--use abort=…`: logs where, then fails the call. */
// @ts-ignore: decorator
@global export function __contract_abort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let text = "abort: " + (message === null ? "" : message);
  if (fileName !== null) text += ` at ${fileName}:${line}:${column}`;
  print(text);
  env.abort();
  unreachable();
}
