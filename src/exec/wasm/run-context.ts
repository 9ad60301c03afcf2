// One run of a message on a module instance, on a wasm thread: the HostContext its host functions
// see, its gas (the prepared module's GAS_GLOBAL, which host functions charge too), the storage
// writes and logs it has made since it last handed them to the main thread, and the values the
// main thread has answered (kept until the next inner call, which may change them).
import type { Log } from '@ethereumjs/evm';
import { bytesToHex } from '../../util/hex.ts';
import { BumpAllocator } from './host/memory.ts';
import { WasmCallError, WasmOutOfGas, type HostContext } from './host/context.ts';
import type { HostRequest, InnerCallAnswer, InnerCallKind, RunMessage, RunningTx, Write } from './thread-protocol.ts';

/** The main thread as a run reaches it: `request` blocks until the answer is there. */
export interface MainLink {
  request(request: HostRequest): unknown;
  print(line: string): void;
}

export class RunContext implements HostContext {
  /** storage writes not handed to the main thread yet, by hex key, in the order of last writes */
  private readonly writes = new Map<string, Write>();
  private logs: Log[] = [];
  /** values the main thread answered since the last inner call */
  private readonly answers = new Map<string, unknown>();
  private memoryObject: WebAssembly.Memory | undefined;
  /** the prepared module's GAS_GLOBAL: gas left (-1 once short); the module charges its instructions there */
  private gasLeft: WebAssembly.Global | undefined;
  private allocator: BumpAllocator | undefined;
  private contractMalloc: ((size: number) => number) | undefined;

  constructor(
    readonly message: RunMessage,
    readonly tx: RunningTx,
    private readonly main: MainLink,
  ) {}

  /** The instance's memory, gas counter (set to the message's gas) and own allocator, once it exists. */
  attach(memory: WebAssembly.Memory, gasLeft: WebAssembly.Global, malloc?: (size: number) => number): void {
    this.memoryObject = memory;
    this.gasLeft = gasLeft;
    this.contractMalloc = malloc;
    gasLeft.value = this.message.gasLimit;
  }

  /** Gas left: the message's until the instance exists, negative once short. */
  gasRemaining(): bigint {
    return this.gasLeft === undefined ? this.message.gasLimit : (this.gasLeft.value as bigint);
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

  hostMalloc(size: number): number {
    this.allocator ??= new BumpAllocator(this.memoryObject!);
    return this.allocator.malloc(size);
  }

  malloc(size: number): number {
    return this.contractMalloc ? this.contractMalloc(size) : this.hostMalloc(size);
  }

  /** A value of the main thread's, asked once per run until the next inner call. */
  private answer<T>(key: string, request: HostRequest): T {
    if (this.answers.has(key)) return this.answers.get(key) as T;
    const value = this.main.request(request) as T;
    this.answers.set(key, value);
    return value;
  }

  balance(): bigint {
    return this.answer('balance', { op: 'balance' });
  }

  callerNonce(): bigint {
    return this.answer('nonce', { op: 'nonce' });
  }

  blockHash(number: bigint): Uint8Array {
    return this.answer(`blockhash:${number}`, { op: 'blockHash', number });
  }

  creatorOf(address: Uint8Array): Uint8Array | undefined {
    return this.answer(`creator:${bytesToHex(address)}`, { op: 'creator', address: address.slice() });
  }

  readonly storage = {
    get: (key: Uint8Array): Uint8Array => {
      const hex = bytesToHex(key);
      const written = this.writes.get(hex);
      if (written !== undefined) return written[1];
      return this.answer(`state:${hex}`, { op: 'storage', key: key.slice() });
    },
    set: (key: Uint8Array, value: Uint8Array): void => {
      if (this.message.isStatic) throw new WasmCallError('setState in a static call');
      const hex = bytesToHex(key);
      // re-inserted so that the map's order is the order of last writes
      this.writes.delete(hex);
      this.writes.set(hex, [key, value]);
    },
  };

  emit(topics: Uint8Array[], data: Uint8Array): void {
    if (this.message.isStatic) throw new WasmCallError('emitEvent in a static call');
    this.logs.push([this.message.address, topics, data]);
  }

  print(line: string): void {
    this.main.print(line);
  }

  innerCall(kind: InnerCallKind, target: Uint8Array, params: Uint8Array, value: bigint, gasLimit: bigint): InnerCallAnswer {
    const { writes, logs } = this.handOver();
    const answer = this.main.request({ op: 'call', kind, target: target.slice(), params: params.slice(), value, gasLimit, writes, logs }) as InnerCallAnswer;
    // the callee may have changed what the run read (a delegate call writes this storage, a callee may call back)
    this.answers.clear();
    return answer;
  }

  /** The writes and logs made since the last hand-over, which the main thread applies now. */
  handOver(): { writes: Write[]; logs: Log[] } {
    const writes = [...this.writes.values()];
    this.writes.clear();
    const logs = this.logs;
    this.logs = [];
    return { writes, logs };
  }
}
