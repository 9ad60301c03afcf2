// The wasm VM as a CodeEngine (src/exec/engine-evm.ts hands it every message whose code is a wasm
// contract: RLP([txType, wasm, ABI JSON]), src/codec/wasm-abi.ts). A deploy prepares and compiles
// the module (./module-cache.ts), runs its init() and stores the whole RLP blob as the code; a call
// decodes Venachain's call data by the ABI, plans the export's arguments, runs it and encodes the
// return by the call's txType.
//
// A message runs exactly once, on a wasm thread (./thread-pool.ts, ./wasm-thread.ts), while this
// thread's event loop stays free: the main thread only serves the run's requests — storage keys the
// run has not read yet, balance, nonce, block hashes, creators, and inner calls (./inner-call.ts),
// before which the run's storage writes and logs so far are applied here, in order. The rest come
// with the run's end. A wasm frame reached while serving an inner call takes another thread; at most
// MAX_WASM_NESTING wasm frames nest in one message tree (the next fails), whatever threads exist.
//
// Gas: the prepared module charges its instructions to its GAS_GLOBAL, host functions charge the
// same counter (./run-context.ts). Out of gas consumes the message's gas, as the EVM's does; any
// other failure (a trap, abort(), a bad argument) reverts with a reason eth_call shows and keeps
// the rest. The EVM's deadline (./execution-watch.ts: eth_call's --rpc.evmtimeout, the proposer's
// --miner.txtimeout) ends a run by ending its thread; an endless loop ends by gas.
import { AsyncLocalStorage } from 'node:async_hooks';
import { EVMError, type ExecResult, type Log, type Message } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { RLP } from '@ethereumjs/rlp';
import type { CodeEngine, EngineEVM } from '../engine-evm.ts';
import type { Logger } from '../../util/logger.ts';
import { CallCodecError, decodeCall } from '../../codec/venachain-call.ts';
import { decodeWasmArg, encodeWasmReturn, findWasmFunction, isWasmCode, isWasmStringType, wasmReturnType } from '../../codec/wasm-abi.ts';
import { revert } from '../native/engine.ts';
import { EXECUTION_TIMEOUT } from '../execution-watch.ts';
import { compiledContract, type CompiledContract } from './module-cache.ts';
import { WasmModuleError } from './prepare.ts';
import { WasmCallError } from './host/context.ts';
import { runInnerCall, wasmCallData } from './inner-call.ts';
import { readValue, writeValue } from './storage.ts';
import { giveBack, takeThread } from './thread-pool.ts';
import { is128 } from './run.ts';
import type { HostRequest, Plan, PlannedArg, RunMessage, RunningTx, ThreadMessage, Write } from './thread-protocol.ts';
import { bytesToHex } from '../../util/hex.ts';

type InterpreterResult = Awaited<ReturnType<EngineEVM['runInterpreter']>>;

/** Venachain's largest contract code (params.MaxCodeSize): the deploy's whole RLP blob. */
export const WASM_MAX_CODE_SIZE = 512 * 1024;
/** Venachain's code deposit gas per byte (params.CreateDataGas). */
export const WASM_CREATE_DATA_GAS = 20n;

/**
 * wasm frames that may nest in one message tree (wasm → wasm, or through EVM frames between):
 * each holds a thread while it waits for the frames below it (~10–15 MB, ~40 ms to start from the
 * bundle, ~0.5 s from the sources). A consensus rule: the frame past it fails.
 */
export const MAX_WASM_NESTING = 16;

/** The wasm frames running in the current message tree, where this async flow is. */
const wasmNesting = new AsyncLocalStorage<number>();

/** What the engine needs of the node. */
export interface WasmEngineEnv {
  /** debug prints of contracts go here (module `wasm`) */
  log: Logger;
  /** the creator of a contract committed in an earlier block (AccountBaseInfo.Creator) */
  creatorOf(address: Uint8Array): Uint8Array | undefined;
}

function timedOut(message: Message): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: message.gasLimit, exceptionError: new EVMError(EXECUTION_TIMEOUT as never) };
}

function outOfGas(message: Message): ExecResult {
  return { returnValue: new Uint8Array(0), executionGasUsed: message.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
}

export class WasmEngine implements CodeEngine {
  readonly name = 'wasm';

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
    const nesting = (wasmNesting.getStore() ?? 0) + 1;
    if (nesting > MAX_WASM_NESTING) return revert(`more than ${MAX_WASM_NESTING} wasm contract frames nested in one call`, 0n);
    return wasmNesting.run(nesting, () => this.runOnThread(evm, message, compiled, plan, isInit));
  }

  private async runOnThread(evm: EngineEVM, message: Message, compiled: CompiledContract, plan: Plan, isInit: boolean): Promise<InterpreterResult> {
    const code = message.code as Uint8Array;
    const address = message.to!;
    const running = evm as unknown as { _tx?: { origin: Address; gasPrice: bigint }; _block?: { header: { number: bigint; timestamp: bigint; gasLimit: bigint; coinbase: Address } } };
    const header = running._block?.header;
    const tx: RunningTx = {
      origin: (running._tx?.origin ?? message.caller).bytes,
      gasPrice: running._tx?.gasPrice ?? 0n,
      number: header?.number ?? 0n,
      timestamp: header?.timestamp ?? 0n,
      gasLimit: header?.gasLimit ?? 0n,
      coinbase: header?.coinbase.bytes ?? new Uint8Array(20),
    };
    const runMessage: RunMessage = {
      address: address.bytes,
      caller: message.caller.bytes,
      value: message.value,
      isStatic: message.isStatic,
      isInit,
      gasLimit: message.gasLimit,
      callStipend: BigInt(evm.common.param('callStipendGas')),
    };
    /** the run's logs in the order of execution, its own and its callees' */
    const logs: Log[] = [];
    const apply = async (writes: Write[], more: readonly Log[]) => {
      for (const [key, value] of writes) await writeValue(evm.stateManager, address, key, value);
      logs.push(...more);
    };
    const serve = async (request: HostRequest): Promise<unknown> => {
      switch (request.op) {
        case 'storage':
          return readValue(evm.stateManager, address, request.key);
        case 'balance':
          return (await evm.stateManager.getAccount(address))?.balance ?? 0n;
        case 'nonce':
          return (await evm.stateManager.getAccount(message.caller))?.nonce ?? 0n;
        case 'blockHash':
          return (await evm.blockchain.getBlock(Number(request.number))).hash();
        case 'creator': {
          const a = new Address(request.address);
          // while init() runs, the contract's creator is not recorded yet: it is the deploy's caller
          return isInit && a.equals(address) ? message.caller.bytes : (evm.pendingCreator(a) ?? this.env.creatorOf(a.bytes));
        }
        case 'call': {
          await apply(request.writes, request.logs);
          const { logs: calleeLogs, ...answer } = await runInnerCall(evm, message, address, request);
          logs.push(...calleeLogs);
          return answer;
        }
      }
    };

    const thread = await takeThread();
    /** the request being served: a run past its deadline ends only after it (it may be changing the state) */
    let serving: Promise<unknown> | undefined;
    const work = (async () => {
      thread.start({ type: 'run', hash: compiled.hash, plan, message: runMessage, tx }, compiled);
      for (;;) {
        const m: ThreadMessage = await thread.next();
        if (m.type === 'request') {
          serving = serve(m.request);
          thread.reply(await serving);
          serving = undefined;
        } else if (m.type === 'print') {
          this.env.log.debug(m.line, { contract: bytesToHex(address.bytes) });
        } else if (m.type === 'done') {
          return m;
        } else {
          throw new Error(m.type === 'crashed' ? `wasm thread failed: ${m.error}` : `wasm thread: unexpected ${m.type}`);
        }
      }
    })();
    let done: Extract<ThreadMessage, { type: 'done' }> | undefined;
    try {
      done = await evm.executionWatch.waitFor(work);
    } catch (e) {
      await thread.end();
      throw e;
    }
    if (done === undefined) {
      await serving?.catch(() => {});
      await thread.end();
      return timedOut(message);
    }
    giveBack(thread);

    const { outcome } = done;
    const used = message.gasLimit - (done.gasLeft < 0n ? 0n : done.gasLeft);
    if ('outOfGas' in outcome) return outOfGas(message);
    if ('failure' in outcome) return revert(outcome.failure, used);
    await apply(done.writes, done.logs);
    // callees' selfdestructs and creations (./inner-call.ts merges them into the message) reach the transaction
    const effects = { logs, selfdestruct: message.selfdestruct, createdAddresses: message.createdAddresses };
    if (!isInit) return { returnValue: encodeWasmReturn(plan.returnType, plan.txType, outcome.value), executionGasUsed: used, ...effects };
    // the stored code is the deploy blob; its deposit is Venachain's (20 gas a byte, up to 512
    // KiB) where @ethereumjs charges createDataGas a byte and stops at EIP-170's 24 KiB
    evm.liftCodeSizeLimit();
    const deposit = BigInt(code.length);
    return { returnValue: code, executionGasUsed: used + deposit * WASM_CREATE_DATA_GAS - deposit * evm.common.param('createDataGas'), ...effects };
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

function safeRlp(data: Uint8Array): unknown {
  try {
    return RLP.decode(data);
  } catch {
    return undefined;
  }
}
