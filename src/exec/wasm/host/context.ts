// What a host function sees of the running call: the module's memory, gas, the message, the
// contract's storage, its logs, and the main thread. Each file of this folder exports a table of
// host functions keyed by import name (module `env`), which ./index.ts merges and adapts to each
// module's import signatures.
//
// A message runs once, on a wasm thread (../wasm-thread.ts), and host functions are synchronous.
// What the thread knows it answers itself: memory, gas, builtins, hashes, the chain context known
// when the message started, the run's own storage writes. A value only the main thread can read
// (a storage key not read yet, a balance, a nonce, a block hash, a creator) and an inner call are
// requests: the thread posts one and blocks until the main thread, which is free meanwhile, has
// answered (../run-context.ts).
import type { InnerCallAnswer, InnerCallKind, RunMessage, RunningTx } from '../thread-protocol.ts';

/** An argument of a host function as V8 passes it: i32 and floats as Number, i64 as BigInt. */
export type HostArg = number | bigint;

/** Returns are adapted to the import's declared result type (an i64 result may be given as a number and the reverse). */
export type HostFunction = (ctx: HostContext, ...args: HostArg[]) => number | bigint | void;

/** Host functions by import name (module `env`). */
export type HostTable = Readonly<Record<string, HostFunction>>;

/** The call fails: status 0, state and logs reverted, `message` the revert reason eth_call shows. */
export class WasmCallError extends Error {}

/** The call ran out of gas: it fails and consumes all its gas, as the EVM's out of gas does. */
export class WasmOutOfGas extends Error {
  constructor() {
    super('out of gas');
  }
}

export interface HostContext {
  readonly message: RunMessage;
  readonly tx: RunningTx;
  /** The module's memory as it is now; a memory.grow replaces the buffer, so take it anew after any call into the module. */
  memory(): Uint8Array;
  /** `len` bytes at `ptr` (a view), or WasmCallError when outside the memory */
  bytes(ptr: number, len: number): Uint8Array;
  /** the bytes at `ptr` up to the first NUL (a view) */
  cString(ptr: number): Uint8Array;
  /** copies `data` to `ptr`, or WasmCallError when outside the memory */
  write(ptr: number, data: Uint8Array): void;
  /** charges host gas; throws WasmOutOfGas (which unwinds through the module) when short */
  useGas(gas: bigint): void;
  /** gas left to the run (what an inner call can be given) */
  gasRemaining(): bigint;
  /** the host's own allocator over the module's memory (env.malloc), for modules without their own */
  hostMalloc(size: number): number;
  /**
   * Memory the host fills for the contract (a string argument, an inner call's string answer):
   * through the contract's exported `malloc` when it has one — a second allocator in the same
   * memory would hand out the same bytes — else the host's.
   */
  malloc(size: number): number;
  /** the running contract's balance, the caller's nonce, a block's hash, a contract's creator: read on the main thread */
  balance(): bigint;
  callerNonce(): bigint;
  blockHash(number: bigint): Uint8Array;
  /** the contract's creator (AccountBaseInfo.Creator); undefined for an account no contract created */
  creatorOf(address: Uint8Array): Uint8Array | undefined;
  /** this contract's storage: the run's own writes first, else the state (read on the main thread) */
  readonly storage: {
    get(key: Uint8Array): Uint8Array;
    set(key: Uint8Array, value: Uint8Array): void;
  };
  /** adds a log at the contract's address */
  emit(topics: Uint8Array[], data: Uint8Array): void;
  /** a debug line on the node's log (module `wasm`), naming the contract */
  print(line: string): void;
  /** runs an inner call on the main thread (../inner-call.ts), the run's writes and logs so far applied first */
  innerCall(kind: InnerCallKind, target: Uint8Array, params: Uint8Array, value: bigint, gasLimit: bigint): InnerCallAnswer;
}

/**
 * Gas for lengths a contract chooses, on top of Venachain's flat prices (decision W10): Venachain
 * charges a memcpy of 16 MiB, a sha3 of 16 MiB or a 16 MiB state value as it charges one byte, so
 * a loop of them buys seconds of every validator's CPU (or megabytes of state) for little gas.
 * The rates are the EVM's: a copy as memory.copy's 3 a word, hashing as KECCAK256's 6 a word, log
 * data as LOG's 8 a byte, each storage slot past a short value's one as SSTORE's 20,000 (written)
 * or a cold SLOAD's 2,100 (read). A value under 32 bytes (one slot) pays Venachain's price alone.
 */
export const LENGTH_GAS = { copyWord: 3n, hashWord: 6n, logByte: 8n, storeSlot: 20_000n, loadSlot: 2_100n } as const;

/** Started 32-byte words of `bytes`. */
export function words(bytes: number): bigint {
  return BigInt(Math.ceil(bytes / 32));
}

/** Storage slots a value of `bytes` takes beyond its head slot (../storage.ts: 32 bytes or more → one slot per word). */
export function extraSlots(bytes: number): bigint {
  return bytes < 32 ? 0n : words(bytes);
}

/** A pointer or length argument: the unsigned 32-bit value. */
export function u32(v: HostArg): number {
  return typeof v === 'bigint' ? Number(BigInt.asUintN(32, v)) : v >>> 0;
}
