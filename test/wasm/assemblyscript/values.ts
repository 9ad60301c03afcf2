// A contract for test/wasm-assemblyscript.test.ts: every ABI type through an exported signature,
// stored and read back with Storage, logged in an event, AssemblyScript's own abort, the chain
// context, sha3, calls to another contract and a value transfer.
import {
  CallData, Storage, StorageValue, balance, blockNumber, callContractInt64, callContractString, callValue, caller, contractAddress,
  hexOf, isFromInit, isOwner, origin, print, sha3, timestamp, transferValue,
} from "@chain-node/wasm-contract";

const last = new Storage<string, i64>("last:");
const names = new Storage<i32, string>("name:");
const deployedInInit = new StorageValue<bool>("init");

export function init(): void {
  deployedInInit.set(isFromInit());
}

// @ts-ignore: decorator
@event declare function Values(a: i8, b: u16, c: i32, d: i64, e: bool, f: f64, s: string): void;

// @ts-ignore: decorator
@constant export function sum(a: i8, b: u8, c: i16, d: u16, e: i32, f: u32, g: i64, h: u64): i64 {
  return <i64>a + <i64>b + <i64>c + <i64>d + <i64>e + <i64>f + g + <i64>h;
}

// @ts-ignore: decorator
@constant export function negate8(a: i8): i8 {
  return -a;
}

// @ts-ignore: decorator
@constant export function half(x: f64): f64 {
  return x / 2;
}

// @ts-ignore: decorator
@constant export function not(b: bool): bool {
  return !b;
}

// @ts-ignore: decorator
@constant export function greet(name: string): string {
  return "héllo, " + name + " ✓";
}

export function remember(key: i32, name: string, value: i64): void {
  names.set(key, name);
  last.set(name, value);
  Values(<i8>value, <u16>value, <i32>value, value, value < 0, <f64>value / 4, name);
}

// @ts-ignore: decorator
@constant export function nameOf(key: i32): string {
  return names.get(key, "");
}

// @ts-ignore: decorator
@constant export function valueOf(name: string): i64 {
  return last.get(name, -1);
}

/** Fails through AssemblyScript's own abort (an assertion). */
export function mustBePositive(x: i32): i32 {
  assert(x > 0, "x must be positive");
  return x;
}

// @ts-ignore: decorator
@constant export function where(): string {
  print("where: " + contractAddress());
  return contractAddress() + "@" + blockNumber().toString();
}

/** The chain context as one line: "origin caller value balance callerIsOwner fromInit(init) fromInit(now) timestamp>0". */
// @ts-ignore: decorator
@constant export function context(): string {
  return origin() + " " + caller() + " " + callValue().toString() + " " + balance().toString() + " " + isOwner(caller()).toString() + " " +
    deployedInInit.get(false).toString() + " " + isFromInit().toString() + " " + (timestamp() > 0).toString();
}

/** sum(-1, 2, -3, 4, -5, 6, -7, 8) of the contract at `target`: 4. */
export function callSum(target: string): i64 {
  const data = new CallData("sum").add<i8>(-1).add<u8>(2).add<i16>(-3).add<u16>(4).add<i32>(-5).add<u32>(6).add<i64>(-7).add<u64>(8);
  return callContractInt64(target, data.encode());
}

/** greet(name) of the contract at `target`. */
export function callGreet(target: string, name: string): string {
  return callContractString(target, new CallData("greet").add<string>(name).encode());
}

/** keccak256 of the UTF-8 of `s`, as "0x…". */
// @ts-ignore: decorator
@constant export function hash(s: string): string {
  const digest = sha3(Uint8Array.wrap(String.UTF8.encode(s)));
  return hexOf(digest.dataStart, 32);
}

/** Sends `amount` wei of this contract's balance to `to`. */
export function payout(to: string, amount: u64): bool {
  return transferValue(to, amount);
}
