// One run of a message on a module instance: the HostContext its host functions see (./host/),
// its gas and what it leaves behind (storage writes, logs) until the engine applies them.
import type { Message } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import type { EngineEVM } from '../engine-evm.ts';
import type { Logger } from '../../node/logger.ts';
import { bytesToHex } from '../../util/hex.ts';
import { readValue } from './storage.ts';
import { BumpAllocator } from './host/memory.ts';
import { NeedsRead, WasmCallError, WasmOutOfGas, type HostContext, type RunningTx } from './host/context.ts';

/**
 * Gas left, kept in the prepared module's GAS_GLOBAL (the module charges its instructions there)
 * once the instance exists; host functions charge the same counter.
 */
export class GasMeter {
  private global: WebAssembly.Global | undefined;
  private left: bigint;
  constructor(limit: bigint) {
    this.left = limit;
  }
  attach(global: WebAssembly.Global | undefined): void {
    this.global = global;
    if (global !== undefined) global.value = this.left;
  }
  remaining(): bigint {
    return this.global === undefined ? this.left : (this.global.value as bigint);
  }
  use(gas: bigint): void {
    const left = this.remaining() - gas;
    this.set(left < 0n ? -1n : left);
    if (left < 0n) throw new WasmOutOfGas();
  }
  private set(v: bigint): void {
    if (this.global === undefined) this.left = v;
    else this.global.value = v;
  }
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
  readonly gas: GasMeter;
  /** storage writes of this run by hex key, in the order made (the last write of a key wins) */
  readonly writes = new Map<string, { key: Uint8Array; value: Uint8Array }>();
  readonly logs: [Uint8Array, Uint8Array[], Uint8Array][] = [];
  private memoryObject: WebAssembly.Memory | undefined;
  private allocator: BumpAllocator | undefined;

  constructor(private readonly env: RunEnv) {
    this.evm = env.evm;
    this.message = env.message;
    this.address = env.address;
    this.isInit = env.isInit;
    this.tx = env.tx;
    this.log = env.log;
    this.gas = new GasMeter(env.message.gasLimit);
  }

  /** The instance's memory, once it exists. */
  attachMemory(memory: WebAssembly.Memory): void {
    this.memoryObject = memory;
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
    this.gas.use(gas);
  }

  known<T>(key: string, read: () => Promise<T>): T {
    if (this.env.reads.has(key)) return this.env.reads.get(key) as T;
    throw new NeedsRead(key, read);
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
      return this.known(`state:${hex}`, () => readValue(this.evm.stateManager, this.address, k));
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
}
