// What the main thread and a wasm thread (./wasm-thread.ts) say to each other. A run goes to the
// thread as one RunRequest; while it runs, the thread posts HostRequests (a value only the main
// thread can read, an inner call) and blocks until the answer is on its reply port, posts prints
// without waiting, and ends with RunDone. Everything is structured-cloned: plain data only.
import type { Log } from '@ethereumjs/evm';
import type { ModuleSignatures } from './signatures.ts';

/** One argument as the export receives it, before conversion to the export's parameter type. */
export type PlannedArg = { value: number | bigint } | { string: Uint8Array } | { returnSlot: true };

/** The export to run and its arguments (engine.ts makes it from the call data and the ABI). */
export interface Plan {
  entry: string;
  args: PlannedArg[];
  /** the ABI return type (init: void) */
  returnType: string;
  txType: bigint;
}

/** The running block and transaction, as known when the message starts. */
export interface RunningTx {
  origin: Uint8Array;
  gasPrice: bigint;
  number: bigint;
  timestamp: bigint;
  gasLimit: bigint;
  coinbase: Uint8Array;
}

/** The message as a run sees it. */
export interface RunMessage {
  /** the contract whose code runs: the owner of the storage and the logs (20 bytes) */
  address: Uint8Array;
  caller: Uint8Array;
  value: bigint;
  isStatic: boolean;
  /** whether this run is the deploy's init() */
  isInit: boolean;
  gasLimit: bigint;
  /** the gas a value transfer's callee gets (the EVM's callStipendGas) */
  callStipend: bigint;
}

export interface RunRequest {
  type: 'run';
  /** the module's code hash; `compiled` comes with the first run of that hash on this thread */
  hash: string;
  compiled?: { module: WebAssembly.Module; sigs: ModuleSignatures };
  /** modules the thread may drop (the main thread keeps a bounded count on each thread) */
  forget?: string[];
  plan: Plan;
  message: RunMessage;
  tx: RunningTx;
}

/** A storage write of the run: key, value. */
export type Write = [Uint8Array, Uint8Array];

export type InnerCallKind = 'call' | 'delegate' | 'transfer';

/** What a host function needs from the main thread. */
export type HostRequest =
  | { op: 'storage'; key: Uint8Array }
  | { op: 'balance' }
  | { op: 'nonce' }
  | { op: 'blockHash'; number: bigint }
  | { op: 'creator'; address: Uint8Array }
  /** an inner call; the run's writes and logs so far go first, in order (the callee may read them, the receipt keeps the order) */
  | { op: 'call'; kind: InnerCallKind; target: Uint8Array; params: Uint8Array; value: bigint; gasLimit: bigint; writes: Write[]; logs: Log[] };

export interface InnerCallAnswer {
  ok: boolean;
  returnValue: Uint8Array;
  gasUsed: bigint;
}

export type Outcome = { value: bigint | Uint8Array } | { failure: string } | { outOfGas: true };

/** Posted by the thread: a request it blocks on, a debug print, the run's end, or a failure of the thread itself. */
export type ThreadMessage =
  | { type: 'request'; request: HostRequest }
  | { type: 'print'; line: string }
  | { type: 'done'; outcome: Outcome; gasLeft: bigint; writes: Write[]; logs: Log[] }
  | { type: 'crashed'; error: string }
  | { type: 'ready' };

/** The reply to a HostRequest, on the thread's reply port. */
export type HostAnswer = { value: unknown };
