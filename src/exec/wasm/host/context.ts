// What a host function sees of the running call: the module's memory, gas, the message and the
// EVM it runs in, the contract's storage, its logs. The engine (../engine.ts) builds one context per
// run of a message; each file of this folder exports a table of host functions keyed by import
// name (module `env`), which ./index.ts merges and adapts to each module's import signatures.
//
// Host functions are synchronous (wasm cannot await), but the state behind the EVM is read with
// awaits. A host function that needs such a value asks `known(key, read)`: a value read by an
// earlier run of the same message is answered at once; otherwise NeedsRead unwinds the run, the
// engine awaits `read`, and runs the message again from its start with the value known. A run has
// no effect outside itself until it ends (storage writes and logs wait in the context), so a rerun
// is the same computation with one more value known. An inner call (./cross-vm.ts) is such a read:
// it runs once, after the run's writes so far are applied (the same writes on every rerun), and
// what the run reads after it is read anew.
import type { Log, Message } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import type { EngineEVM } from '../../engine-evm.ts';
import type { Logger } from '../../../node/logger.ts';

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

/**
 * Thrown by a host function that needs a value only an await can read (see the file comment): not
 * a failure, and not an Error, so that throwing it captures no stack trace.
 */
export class NeedsRead {
  constructor(
    readonly key: string,
    readonly read: () => Promise<unknown>,
  ) {}
}

/** The running block and transaction as the EVM keeps them. */
export interface RunningTx {
  origin: Address;
  gasPrice: bigint;
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  coinbase: Address;
}

export interface HostContext {
  readonly evm: EngineEVM;
  readonly message: Message;
  /** the contract whose code runs: the owner of the storage and of the logs */
  readonly address: Address;
  /** whether this run is the deploy's init() */
  readonly isInit: boolean;
  readonly tx: RunningTx;
  /** the node's `wasm` logger (debug prints go to its debug level) */
  readonly log: Logger;
  /** the contract's creator, by address (AccountBaseInfo.Creator); undefined for an account no contract created */
  creatorOf(address: Address): Uint8Array | undefined;
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
  /** a value only an await can read, known from an earlier run of this message, else NeedsRead */
  known<T>(key: string, read: () => Promise<T>): T;
  /** the host's own allocator over the module's memory (env.malloc), for modules without their own */
  hostMalloc(size: number): number;
  /** this contract's storage: reads through `known`, writes kept until the call succeeds */
  readonly storage: {
    get(key: Uint8Array): Uint8Array;
    set(key: Uint8Array, value: Uint8Array): void;
  };
  /** adds a log at the contract's address (kept until the call succeeds) */
  emit(topics: Uint8Array[], data: Uint8Array): void;
  /** adds the logs of an inner call, in order after the run's own so far (kept until the call succeeds) */
  addLogs(logs: readonly Log[]): void;
  /**
   * Applies the run's storage writes so far to the state: an inner call (./cross-vm.ts) must see
   * them (a delegate call runs on this storage; a callee may call back). Same writes on every rerun.
   */
  flushWrites(): Promise<void>;
  /** After an inner call: the writes flushed before it are not applied again, and values read before it are read anew. */
  innerCallDone(): void;
}

/** A pointer or length argument: the unsigned 32-bit value. */
export function u32(v: HostArg): number {
  return typeof v === 'bigint' ? Number(BigInt.asUintN(32, v)) : v >>> 0;
}
