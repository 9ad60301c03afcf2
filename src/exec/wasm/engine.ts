// The wasm VM as a CodeEngine (src/exec/engine-evm.ts hands it every message whose code is a wasm
// contract: RLP([txType, wasm, ABI JSON]), src/codec/wasm-abi.ts). A deploy prepares and compiles
// the module (./module-cache.ts), runs its init() and stores the whole RLP blob as the code; a call
// decodes Venachain's call data by the ABI, passes the arguments as wasm values (strings copied
// into the module's memory through its allocator), runs the export on a fresh instance and encodes
// the return by the call's txType.
//
// Gas: the prepared module charges its instructions to its GAS_GLOBAL, host functions charge the
// same counter (./run-context.ts). Out of gas consumes the message's gas, as the EVM's does; any
// other failure (a trap, abort(), a bad argument) reverts with a reason eth_call shows and keeps
// the rest. Host functions are synchronous: a value that needs an await is read between runs and
// the message runs again from its start (./host/context.ts), so nothing a run does reaches the
// state until its last run succeeds.
import { EVMError, type ExecResult, type Message } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';
import type { CodeEngine, EngineEVM } from '../engine-evm.ts';
import type { Logger } from '../../node/logger.ts';
import { CallCodecError, decodeCall } from '../../codec/venachain-call.ts';
import { decodeWasmArg, encodeWasmReturn, findWasmFunction, isWasmCode, isWasmStringType, wasmReturnType } from '../../codec/wasm-abi.ts';
import { revert } from '../native/engine.ts';
import { EXECUTION_TIMEOUT } from '../execution-watch.ts';
import { compiledContract, type CompiledContract } from './module-cache.ts';
import { GAS_GLOBAL, TRAP_GLOBAL, WasmModuleError } from './prepare.ts';
import { toWasmValue, type FuncSig } from './signatures.ts';
import { hostImports } from './host/index.ts';
import { wasmCallData } from './host/cross-vm.ts';
import { NeedsRead, WasmCallError, WasmOutOfGas, type RunningTx } from './host/context.ts';
import { readValue, writeValue } from './storage.ts';
import { RunContext, storageReadKey, type RunEnv } from './run-context.ts';
import { bytesToHex } from '../../util/hex.ts';

type InterpreterResult = Awaited<ReturnType<EngineEVM['runInterpreter']>>;

/** Venachain's largest contract code (params.MaxCodeSize): the deploy's whole RLP blob. */
export const WASM_MAX_CODE_SIZE = 512 * 1024;
/** Venachain's code deposit gas per byte (params.CreateDataGas). */
export const WASM_CREATE_DATA_GAS = 20n;

/** Contract functions whose usual storage reads are remembered, keys each, longest key remembered (bounds the memo to ~4 MiB). */
const USUAL_READS = { functions: 1024, keys: 16, keyBytes: 256 };

/** What the engine needs of the node. */
export interface WasmEngineEnv {
  /** debug prints of contracts go here (module `wasm`) */
  log: Logger;
  /** the creator of a contract committed in an earlier block (AccountBaseInfo.Creator) */
  creatorOf(address: Uint8Array): Uint8Array | undefined;
}

/** One argument as the export receives it, before conversion to the export's parameter type. */
type PlannedArg = { value: number | bigint } | { string: Uint8Array } | { returnSlot: true };

interface Plan {
  entry: string;
  args: PlannedArg[];
  /** the ABI return type (init: void) */
  returnType: string;
  txType: bigint;
}

function timedOut(message: Message): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: message.gasLimit, exceptionError: new EVMError(EXECUTION_TIMEOUT as never) };
}

function outOfGas(message: Message): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: message.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
}

export class WasmEngine implements CodeEngine {
  readonly name = 'wasm';
  /**
   * The storage keys the last successful message to each contract function read (by
   * "address:function"). The next message reads them before its first run: most calls read the
   * same keys again, and each key known up front saves a run (an instance costs ~0.3–0.7 ms for a
   * 33 KB module). A value read up front is the value a rerun would read: reads see the state as
   * the message found it, the message's own writes come from its run.
   */
  private readonly usualReads = new Map<string, Uint8Array[]>();

  constructor(private readonly env: WasmEngineEnv) {}

  claims(code: Uint8Array): boolean {
    return isWasmCode(code);
  }

  async run(evm: EngineEVM, message: Message): Promise<InterpreterResult> {
    const code = message.code as Uint8Array;
    const isInit = message.isCreate === true;
    if (isInit && code.length > WASM_MAX_CODE_SIZE) return revert(`wasm contract code is ${code.length} bytes; the most is ${WASM_MAX_CODE_SIZE}`, 0n);
    let compiled: CompiledContract;
    try {
      compiled = await compiledContract(code);
    } catch (e) {
      if (e instanceof WasmModuleError) return revert(`wasm contract refused: ${e.message}`, 0n);
      throw e;
    }
    let plan: Plan | undefined;
    try {
      plan = isInit ? { entry: 'init', args: [], returnType: 'void', txType: 0n } : callPlan(compiled, await wasmCallData(evm, message));
    } catch (e) {
      if (e instanceof WasmCallError || e instanceof CallCodecError) return revert(e.message, 0n);
      throw e;
    }
    // txType 0 (a transfer to the contract) runs nothing (Venachain's rule)
    if (plan === undefined) return { returnValue: new Uint8Array(0), executionGasUsed: 0n };
    if (!isInit && !compiled.sigs.exports.has(plan.entry)) return revert(`the contract exports no function ${JSON.stringify(plan.entry)}`, 0n);
    if (isInit && !compiled.sigs.exports.has('init')) return revert('a wasm contract must export init()', 0n);

    const running = evm as unknown as { _tx?: { origin: Address; gasPrice: bigint }; _block?: { header: { number: bigint; timestamp: bigint; gasLimit: bigint; coinbase: Address } } };
    const header = running._block?.header;
    const tx: RunningTx = {
      origin: running._tx?.origin ?? message.caller,
      gasPrice: running._tx?.gasPrice ?? 0n,
      number: header?.number ?? 0n,
      timestamp: header?.timestamp ?? 0n,
      gasLimit: header?.gasLimit ?? 0n,
      coinbase: header?.coinbase ?? new Address(new Uint8Array(20)),
    };
    const env: RunEnv = {
      evm,
      message,
      address: message.to!,
      isInit,
      tx,
      log: this.env.log,
      // while init() runs, the contract's creator is not recorded yet: it is the deploy's caller
      creatorOf: (a) => (isInit && a.equals(message.to!) ? message.caller.bytes : (evm.pendingCreator(a) ?? this.env.creatorOf(a.bytes))),
      reads: new Map(),
    };
    const usual = `${env.address}:${plan.entry}`;
    for (const key of this.usualReads.get(usual) ?? []) env.reads.set(storageReadKey(bytesToHex(key)), await readValue(evm.stateManager, env.address, key));
    for (;;) {
      const ctx = new RunContext(env);
      let outcome: Outcome;
      try {
        outcome = execute(compiled, ctx, plan);
      } catch (e) {
        if (e instanceof NeedsRead) {
          env.reads.set(e.key, await e.read());
          // reruns are bounded by gas (every read costs thousands), and by the EVM's deadline too
          if (!(await evm.executionWatch.look())) return timedOut(message);
          continue;
        }
        throw e;
      }
      const used = message.gasLimit - (ctx.gasRemaining() < 0n ? 0n : ctx.gasRemaining());
      if ('outOfGas' in outcome) return outOfGas(message);
      if ('failure' in outcome) return revert(outcome.failure, used);
      for (const { key, value } of ctx.writes.values()) await writeValue(evm.stateManager, env.address, key, value);
      this.rememberReads(usual, [...ctx.storageReads.values()]);
      if (!isInit) return { returnValue: encodeWasmReturn(plan.returnType, plan.txType, outcome.value), executionGasUsed: used, logs: ctx.logs };
      // the stored code is the deploy blob; its deposit is Venachain's (20 gas a byte, up to 512
      // KiB) where @ethereumjs charges createDataGas a byte and stops at EIP-170's 24 KiB
      evm.liftCodeSizeLimit();
      const deposit = BigInt(code.length);
      return { returnValue: code, executionGasUsed: used + deposit * WASM_CREATE_DATA_GAS - deposit * evm.common.param('createDataGas'), logs: ctx.logs };
    }
  }

  private rememberReads(usual: string, keys: Uint8Array[]): void {
    this.usualReads.delete(usual);
    const kept = keys.filter((k) => k.length <= USUAL_READS.keyBytes).slice(0, USUAL_READS.keys);
    if (kept.length === 0) return;
    this.usualReads.set(usual, kept);
    if (this.usualReads.size > USUAL_READS.functions) this.usualReads.delete(this.usualReads.keys().next().value!);
  }
}

/** The call's entry and arguments, or undefined for a transfer (txType 0); WasmCallError names what is wrong. */
function callPlan(compiled: CompiledContract, data: Uint8Array): Plan | undefined {
  if (data.length === 0) throw new WasmCallError('no call data: a wasm contract is called with RLP([txType, funcName, args…])');
  let call;
  try {
    call = decodeCall(data);
  } catch (e) {
    // RLP([txType 0]) alone is a transfer to the contract (a txType of fewer than 8 bytes reads as 0, as Venachain's BytesToInt64)
    const items = safeRlp(data);
    const only = Array.isArray(items) && items.length === 1 ? items[0] : undefined;
    if (only instanceof Uint8Array && (only.length < 8 || only.subarray(0, 8).every((b) => b === 0))) return undefined;
    throw e;
  }
  const entry = findWasmFunction(compiled.abi, call.funcName);
  if (entry === undefined) throw new WasmCallError(`the contract's ABI has no function ${JSON.stringify(call.funcName)}`);
  if (call.txType === 0n) return undefined;
  if (call.args.length !== entry.inputs.length) throw new WasmCallError(`${entry.name} takes ${entry.inputs.length} argument(s), got ${call.args.length}`);
  const args: PlannedArg[] = [];
  const returnType = wasmReturnType(entry);
  if (is128(returnType)) args.push({ returnSlot: true });
  entry.inputs.forEach((p, i) => {
    const bytes = call.args[i]!;
    if (isWasmStringType(p.type)) return args.push({ string: bytes });
    let v;
    try {
      v = decodeWasmArg(p.type, bytes);
    } catch (e) {
      throw new WasmCallError(`${entry.name}: argument ${i + 1} (${p.name || p.type}): ${(e as Error).message}`);
    }
    if (typeof v === 'boolean') return args.push({ value: v ? 1 : 0 });
    if (typeof v === 'number') return args.push({ value: v });
    // a 128-bit integer travels as two i64: low, then high (clang's wasm32 ABI)
    if (is128(p.type)) return args.push({ value: BigInt.asIntN(64, v as bigint) }, { value: BigInt.asIntN(64, (v as bigint) >> 64n) });
    return args.push({ value: v as bigint });
  });
  return { entry: call.funcName, args, returnType, txType: call.txType };
}

function is128(type: string): boolean {
  return type === 'int128' || type === 'uint128' || type === 'float128';
}

function safeRlp(data: Uint8Array): unknown {
  try {
    return RLP.decode(data);
  } catch {
    return undefined;
  }
}

type Outcome = { value: bigint | Uint8Array } | { failure: string } | { outOfGas: true };

/** One run of `plan` on a fresh instance. Throws only NeedsRead (and errors of the node itself). */
function execute(compiled: CompiledContract, ctx: RunContext, plan: Plan): Outcome {
  let instance: WebAssembly.Instance | undefined;
  try {
    instance = new WebAssembly.Instance(compiled.module, hostImports(compiled.module, compiled.sigs, ctx));
    const exports = instance.exports;
    ctx.attach(exports.memory as WebAssembly.Memory, exports[GAS_GLOBAL] as WebAssembly.Global);
    const sig = compiled.sigs.exports.get(plan.entry)!;
    if (sig.params.length !== plan.args.length) {
      return { failure: `the contract's ${plan.entry} takes ${sig.params.length} wasm parameter(s); its ABI entry gives ${plan.args.length}` };
    }
    let returnSlot = 0;
    const args = plan.args.map((a, i) => {
      const type = sig.params[i]!;
      if ('value' in a) {
        // a float argument to an integer parameter: its bits (as Venachain's interpreter passes them)
        if (typeof a.value === 'number' && (type === 'i32' || type === 'i64')) return toWasmValue(type, floatBits(a.value, type));
        return toWasmValue(type, a.value);
      }
      if ('string' in a) {
        const ptr = allocate(compiled, exports, ctx, a.string.length + 1);
        ctx.write(ptr, a.string);
        ctx.write(ptr + a.string.length, new Uint8Array(1));
        return toWasmValue(type, ptr);
      }
      returnSlot = allocate(compiled, exports, ctx, 16);
      return toWasmValue(type, returnSlot);
    });
    const raw = (exports[plan.entry] as (...a: unknown[]) => unknown)(...args) as number | bigint | undefined;
    if (ctx.gasRemaining() < 0n) return { outOfGas: true };
    return { value: returnValue(ctx, plan.returnType, sig, raw, returnSlot) };
  } catch (e) {
    if (e instanceof NeedsRead) throw e;
    if (e instanceof WasmOutOfGas) return { outOfGas: true };
    if (e instanceof WasmCallError) return { failure: e.message };
    if (e instanceof WebAssembly.RuntimeError) {
      const trap = instance?.exports[TRAP_GLOBAL] as WebAssembly.Global | undefined;
      if (trap?.value === 1 || ctx.gasRemaining() < 0n) return { outOfGas: true };
      if (trap?.value === 2) return { failure: 'wasm call depth exceeded' };
      return { failure: `wasm trap: ${e.message}` };
    }
    if (e instanceof RangeError && /call stack/i.test(e.message)) return { failure: 'wasm call stack exhausted' };
    if (e instanceof WebAssembly.LinkError) return { failure: `the wasm module does not link: ${e.message}` };
    throw e;
  }
}

/** Memory for an argument: through the contract's own `malloc` export when it has one, else the host's allocator. */
function allocate(compiled: CompiledContract, exports: WebAssembly.Exports, ctx: RunContext, size: number): number {
  const malloc = exports.malloc;
  const sig = compiled.sigs.exports.get('malloc');
  if (typeof malloc !== 'function' || sig === undefined || sig.params.length !== 1) return ctx.hostMalloc(size);
  const ptr = Number((malloc as (n: number | bigint) => number | bigint)(toWasmValue(sig.params[0]!, size)));
  return ptr >>> 0;
}

function floatBits(v: number, type: 'i32' | 'i64'): bigint {
  const view = new DataView(new ArrayBuffer(8));
  if (type === 'i32') {
    view.setFloat32(0, v);
    return BigInt(view.getUint32(0));
  }
  view.setFloat64(0, v);
  return view.getBigUint64(0);
}

/** The export's result as encodeWasmReturn takes it for the ABI's return type. */
function returnValue(ctx: RunContext, type: string, sig: FuncSig, raw: number | bigint | undefined, returnSlot: number): bigint | Uint8Array {
  if (isWasmStringType(type)) return ctx.cString(Number(raw ?? 0) >>> 0).slice();
  if (is128(type)) {
    const le = ctx.bytes(returnSlot, 16);
    let v = 0n;
    for (let i = 15; i >= 0; i--) v = (v << 8n) | BigInt(le[i]!);
    return type === 'int128' ? BigInt.asIntN(128, v) : v;
  }
  if (raw === undefined) return 0n;
  if (type === 'float32' || type === 'float64') {
    const result = sig.results[0];
    if (result === 'f32') return floatBits(Number(raw), 'i32');
    if (result === 'f64') return floatBits(Number(raw), 'i64');
    return BigInt.asUintN(result === 'i32' ? 32 : 64, BigInt(raw));
  }
  const width = { int8: 8, uint8: 8, bool: 8, int16: 16, uint16: 16, int32: 32, uint32: 32, int: 32, uint: 32 }[type] ?? 64;
  const v = BigInt(raw);
  return type.startsWith('u') ? BigInt.asUintN(width, v) : BigInt.asIntN(width, v);
}
