// One run of a message on a module instance: the HostContext its host functions see (./host/),
// its gas (shared with the prepared module's own charges) and what it leaves behind (storage writes, logs) until the engine applies them.
import type { Log, Message } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import type { EngineEVM } from '../engine-evm.ts';
import type { Logger } from '../../node/logger.ts';
import { bytesToHex } from '../../util/hex.ts';
import { readValue, writeValue } from './storage.ts';
import { BumpAllocator } from './host/memory.ts';
import { NeedsRead, WasmCallError, WasmOutOfGas, type HostContext, type RunningTx } from './host/context.ts';

/** The HostContext.known key of the storage value under `hexKey`. */
export function storageReadKey(hexKey: string): string {
  return `state:${hexKey}`;
}

/** What a run of the message needs from outside it. */
export interface RunEnv {
  evm: EngineEVM;
  message: Message;
  address: Address;
  isInit: boolean;
  tx: RunningTx;
  log: Logger;
  creatorOf(address: Address): Uint8Array | undefined;
  /** values read by earlier runs of the same message (HostContext.known) */
  reads: Map<string, unknown>;
}

export class RunContext implements HostContext {
  readonly evm: EngineEVM;
  readonly message: Message;
  readonly address: Address;
  readonly isInit: boolean;
  readonly tx: RunningTx;
  readonly log: Logger;
  /** storage writes of this run by hex key, in the order made (the last write of a key wins) */
  readonly writes = new Map<string, { key: Uint8Array; value: Uint8Array }>();
  readonly logs: Log[] = [];
  /** the storage keys this run read from the state (not its own writes) by hex key, in order */
  readonly storageReads = new Map<string, Uint8Array>();
  private memoryObject: WebAssembly.Memory | undefined;
  /** the prepared module's GAS_GLOBAL: gas left (-1 once short); the module charges its instructions there */
  private gasLeft: WebAssembly.Global | undefined;
  private allocator: BumpAllocator | undefined;
  /** inner calls (host/cross-vm.ts) made so far by this run */
  private innerCalls = 0;

  constructor(private readonly env: RunEnv) {
    this.evm = env.evm;
    this.message = env.message;
    this.address = env.address;
    this.isInit = env.isInit;
    this.tx = env.tx;
    this.log = env.log;
  }

  /** The instance's memory and gas counter, once it exists; the counter starts at the message's gas. */
  attach(memory: WebAssembly.Memory, gasLeft: WebAssembly.Global): void {
    this.memoryObject = memory;
    this.gasLeft = gasLeft;
    gasLeft.value = this.message.gasLimit;
  }

  /** Gas left: the message's until the instance exists, negative once short. */
  gasRemaining(): bigint {
    return this.gasLeft === undefined ? this.message.gasLimit : (this.gasLeft.value as bigint);
  }

  creatorOf(address: Address): Uint8Array | undefined {
    return this.env.creatorOf(address);
  }

  memory(): Uint8Array {
    return new Uint8Array(this.memoryObject!.buffer);
  }

  bytes(ptr: number, len: number): Uint8Array {
    const m = this.memory();
    if (ptr + len > m.length) throw new WasmCallError(`memory access out of bounds: ${len} bytes at ${ptr} (memory ${m.length} bytes)`);
    return m.subarray(ptr, ptr + len);
  }

  cString(ptr: number): Uint8Array {
    const m = this.memory();
    if (ptr > m.length) throw new WasmCallError(`memory access out of bounds: a string at ${ptr} (memory ${m.length} bytes)`);
    const end = m.indexOf(0, ptr);
    return m.subarray(ptr, end < 0 ? m.length : end);
  }

  write(ptr: number, data: Uint8Array): void {
    this.bytes(ptr, data.length).set(data);
  }

  useGas(gas: bigint): void {
    const left = this.gasRemaining() - gas;
    this.gasLeft!.value = left < 0n ? -1n : left;
    if (left < 0n) throw new WasmOutOfGas();
  }

  known<T>(key: string, read: () => Promise<T>): T {
    // a value read before an inner call may have changed in it: after one, values are read anew
    const k = this.innerCalls === 0 ? key : `${this.innerCalls}:${key}`;
    if (this.env.reads.has(k)) return this.env.reads.get(k) as T;
    throw new NeedsRead(k, read);
  }

  async flushWrites(): Promise<void> {
    for (const { key, value } of this.writes.values()) await writeValue(this.evm.stateManager, this.address, key, value);
  }

  innerCallDone(): void {
    this.writes.clear();
    this.innerCalls++;
  }

  hostMalloc(size: number): number {
    this.allocator ??= new BumpAllocator(this.memoryObject!);
    return this.allocator.malloc(size);
  }

  readonly storage = {
    get: (key: Uint8Array): Uint8Array => {
      const hex = bytesToHex(key);
      const written = this.writes.get(hex);
      if (written !== undefined) return written.value;
      const k = key.slice();
      const value = this.known(storageReadKey(hex), () => readValue(this.evm.stateManager, this.address, k));
      this.storageReads.set(hex, k);
      return value;
    },
    set: (key: Uint8Array, value: Uint8Array): void => {
      if (this.message.isStatic) throw new WasmCallError('setState in a static call');
      const hex = bytesToHex(key);
      // re-inserted so that the map's order is the order of last writes
      this.writes.delete(hex);
      this.writes.set(hex, { key, value });
    },
  };

  emit(topics: Uint8Array[], data: Uint8Array): void {
    if (this.message.isStatic) throw new WasmCallError('emitEvent in a static call');
    this.logs.push([this.address.bytes, topics, data]);
  }

  addLogs(logs: readonly Log[]): void {
    this.logs.push(...logs);
  }
}
