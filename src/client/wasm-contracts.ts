// Venachain wasm contracts for applications: deploy data, calls and results encoded by the shared
// codec (src/codec/wasm-abi.ts) from a contract's ABI JSON, events read from logs, and helpers
// that deploy and call through a ChainClient. Typed from the ABI: given as a literal (`as const`),
// a wrong function name, argument count or argument type does not compile; read from a file, the
// checks happen at run time with the same messages.
//
//   const token = wasmContract(abi);
//   const { address } = await deployWasm(client, { from, wasm, abi });
//   const { ok, events } = await sendWasm(client, { from, to: address, call: token.call('transfer', '0x…', 10n) });
//   const balance = await callWasm(client, address, token.call('balanceOf', '0x…'));   // bigint
import { RLP } from '@ethereumjs/rlp';
import {
  decodeWasmReturn,
  encodeWasmCall,
  encodeWasmDeploy,
  findWasmFunction,
  isWasmStringType,
  parseWasmAbi,
  TX_TYPE_CALL,
  TX_TYPE_DEPLOY,
  wasmArgWidth,
  wasmReturnType,
  WasmAbiError,
  type WasmAbi,
  type WasmAbiEntry,
  type WasmValue,
} from '../codec/wasm-abi.ts';
import { beValue, eventTopic } from '../codec/venachain-call.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { waitForReceipt, type SystemClient } from './system-contracts.ts';
import { toQuantity } from './quantity.ts';
import type { Log, Receipt } from '../../generated/types.ts';

/** An ABI entry as a literal gives it (only the fields the types read). */
interface AbiShape {
  readonly name: string;
  readonly type: string;
  readonly inputs?: readonly { readonly name?: string; readonly type: string }[];
  readonly outputs?: readonly { readonly name?: string; readonly type: string }[];
}

/** The TypeScript value of an ABI type: strings string, floats number, bool boolean, integers bigint (numbers accepted going in). */
export type WasmTypeValue<T extends string> = string extends T
  ? WasmValue
  : T extends 'string' | 'int128_s' | 'uint128_s' | 'int256_s' | 'uint256_s'
    ? string
    : T extends 'float32' | 'float64'
      ? number
      : T extends 'bool'
        ? boolean
        : bigint;

type ArgInput<T extends string> = WasmTypeValue<T> extends bigint ? bigint | number : WasmTypeValue<T> extends boolean ? boolean | bigint | number : WasmTypeValue<T>;

type FunctionEntry<A extends readonly AbiShape[], N extends string> = Extract<A[number], { readonly name: N; readonly type: 'function' }>;

/** The names of the ABI's functions (any string for an ABI whose types are not literal). */
export type WasmFunctionName<A extends readonly AbiShape[]> = string extends A[number]['name'] ? string : Extract<A[number], { readonly type: 'function' }>['name'];

/** A function's arguments as a tuple, by its ABI inputs. */
export type WasmArgs<A extends readonly AbiShape[], N extends string> = string extends A[number]['name']
  ? readonly WasmValue[]
  : FunctionEntry<A, N>['inputs'] extends infer I extends readonly { readonly type: string }[]
    ? { -readonly [K in keyof I]: I[K] extends { readonly type: infer T extends string } ? ArgInput<T> : never }
    : [];

/** A function's decoded result: its first output's value, undefined for none. */
export type WasmResult<A extends readonly AbiShape[], N extends string> = string extends A[number]['name']
  ? WasmValue | undefined
  : FunctionEntry<A, N>['outputs'] extends readonly [{ readonly type: infer T extends string }, ...unknown[]]
    ? WasmTypeValue<T>
    : undefined;

/** A call to one function, ready for eth_call or a transaction (no `to`: the contract's address is the caller's to give). */
export interface WasmCall<N extends string = string, R = WasmValue | undefined> {
  readonly method: N;
  /** Venachain's call encoding, 0x hex */
  readonly data: string;
  /** the txType it was encoded with: decides how the answer is encoded */
  readonly txType: bigint;
  /** the function's return type ("void" for none) */
  readonly returns: string;
  /** the contract's ABI (its events are read from a mined call's receipt) */
  readonly abi: WasmAbi;
  /** never set: carries the decoded result's type to callWasm */
  readonly result?: R;
}

/** An event of a wasm contract read from a log: its ABI entry's name and arguments. */
export interface WasmEvent {
  name: string;
  /** the arguments by input name (by position where the ABI names none) */
  args: Record<string, WasmValue>;
  values: WasmValue[];
}

export interface WasmContract<A extends readonly AbiShape[]> {
  readonly abi: WasmAbi;
  /** The deploy data of `wasm` with this ABI: RLP([txType, wasm, ABI JSON]), 0x hex (send with no `to`). */
  encodeDeploy(wasm: Uint8Array, txType?: bigint): string;
  /** Call data of `method(...args)`, 0x hex (txType 2: integers answer as a 32-byte word, strings ABI-encoded). */
  encodeCall<N extends WasmFunctionName<A>>(method: N, args: WasmArgs<A, N>, txType?: bigint): string;
  /** The call of `method(...args)` with what decoding its answer needs. */
  call<N extends WasmFunctionName<A>>(method: N, ...args: WasmArgs<A, N>): WasmCall<N, WasmResult<A, N>>;
  /** Reads `method`'s answer (0x hex or bytes) as the txType of its call asked. */
  decodeResult<N extends WasmFunctionName<A>>(method: N, answer: string | Uint8Array, txType?: bigint): WasmResult<A, N>;
  /** A log read as one of this ABI's events; undefined when it is none of them. */
  decodeEvent(log: Pick<Log, 'topics' | 'data'>): WasmEvent | undefined;
}

function functionOf(abi: WasmAbi, method: string): WasmAbiEntry {
  const entry = findWasmFunction(abi, method);
  if (entry === undefined) throw new WasmAbiError(`the ABI has no function ${JSON.stringify(method)}`);
  return entry;
}

/** One RLP item of event data as its input's type: the encoding of the AssemblyScript SDK's RlpList (and BCWasm's events). */
function eventValue(type: string, bytes: Uint8Array): WasmValue {
  if (isWasmStringType(type)) return new TextDecoder().decode(bytes);
  if (type === 'float32' || type === 'float64') {
    const view = new DataView(new ArrayBuffer(8));
    const width = type === 'float32' ? 4 : 8;
    if (bytes.length !== width) throw new WasmAbiError(`a ${type} event argument must be ${width} bytes, got ${bytes.length}`);
    new Uint8Array(view.buffer).set(bytes);
    return type === 'float32' ? view.getFloat32(0) : view.getFloat64(0);
  }
  const width = wasmArgWidth(type);
  if (width === undefined) throw new WasmAbiError(`unknown event argument type ${JSON.stringify(type)}`);
  const v = beValue(bytes);
  if (type === 'bool') return v !== 0n;
  // negative integers travel as 8 bytes two's complement (128-bit ones as 16)
  return type.startsWith('int') ? BigInt.asIntN(width * 8, BigInt.asIntN(Math.max(64, width * 8), v)) : v;
}

/** The encoders and decoders of one contract, from its ABI (JSON text, bytes, or the parsed array; `as const` for typed calls). */
export function wasmContract<const A extends readonly AbiShape[]>(abiJson: A | string | Uint8Array): WasmContract<A> {
  const abi = parseWasmAbi(abiJson);
  const events = new Map(abi.filter((e) => e.type === 'event').map((e) => [bytesToHex(eventTopic(e.name)), e]));
  const encodeCall = (method: string, args: readonly unknown[], txType = TX_TYPE_CALL): string => bytesToHex(encodeWasmCall(abi, method, args as WasmValue[], txType));
  return {
    abi,
    // the ABI deployed as given (parsing fills absent fields)
    encodeDeploy: (wasm, txType = TX_TYPE_DEPLOY) => bytesToHex(encodeWasmDeploy(wasm, typeof abiJson === 'string' || abiJson instanceof Uint8Array ? abiJson : JSON.stringify(abiJson), txType)),
    encodeCall,
    call: (method, ...args) => ({ method, data: encodeCall(method, args), txType: TX_TYPE_CALL, returns: wasmReturnType(functionOf(abi, method)), abi }),
    decodeResult: (method, answer, txType = TX_TYPE_CALL) => {
      const bytes = typeof answer === 'string' ? hexToBytes(answer) : answer;
      return decodeWasmReturn(wasmReturnType(functionOf(abi, method)), txType, bytes) as WasmResult<A, typeof method>;
    },
    decodeEvent: (log) => {
      const entry = log.topics.length === 1 ? events.get(log.topics[0]!.toLowerCase()) : undefined;
      if (entry === undefined) return undefined;
      let items: unknown;
      try {
        items = RLP.decode(hexToBytes(log.data));
      } catch {
        return undefined;
      }
      if (!Array.isArray(items) || items.length !== entry.inputs.length || !items.every((i) => i instanceof Uint8Array)) return undefined;
      let values: WasmValue[];
      try {
        values = entry.inputs.map((p, i) => eventValue(p.type, items[i] as Uint8Array));
      } catch (e) {
        if (e instanceof WasmAbiError) return undefined;
        throw e;
      }
      return { name: entry.name, values, args: Object.fromEntries(entry.inputs.map((p, i) => [p.name || String(i), values[i]!])) };
    },
  };
}

// ---- through a client ----

export interface WasmDeployOptions {
  /** an account the node holds unlocked (eth_sendTransaction) */
  from: string;
  wasm: Uint8Array;
  abi: WasmAbi | readonly AbiShape[] | string | Uint8Array;
  /** default: the node's (its per-transaction gas limit) */
  gas?: bigint;
  timeoutMs?: number;
}

/** A mined wasm transaction: its receipt, and this contract's events in it. */
export interface WasmOutcome {
  receipt: Receipt;
  /** status 1 */
  ok: boolean;
  events: WasmEvent[];
}

function outcome(contract: Pick<WasmContract<readonly AbiShape[]>, 'decodeEvent'>, receipt: Receipt): WasmOutcome {
  const events = receipt.logs.map((l) => contract.decodeEvent(l)).filter((e): e is WasmEvent => e !== undefined);
  return { receipt, ok: receipt.status === '0x1', events };
}

/** Deploys a wasm contract from an account the node holds and waits for it to be mined; rejects when the deploy failed. */
export async function deployWasm(client: SystemClient, options: WasmDeployOptions): Promise<WasmOutcome & { address: string }> {
  const contract = wasmContract(options.abi as readonly AbiShape[]);
  const hash = await client.eth.sendTransaction({ from: options.from, data: contract.encodeDeploy(options.wasm), gas: gasOf(options.gas) });
  const result = outcome(contract, await waitForReceipt(client, hash, options.timeoutMs));
  if (!result.ok || !result.receipt.contractAddress) throw new Error(`the deploy failed (transaction ${hash}, status ${result.receipt.status})`);
  return { ...result, address: result.receipt.contractAddress };
}

/** Runs a call with eth_call (at `block`, default latest) and decodes its answer; a failing call rejects with the node's RpcError. */
export async function callWasm<R>(client: SystemClient, to: string, call: WasmCall<string, R>, options: { from?: string; block?: string } = {}): Promise<R> {
  const answer = await client.eth.call({ from: options.from, to, data: call.data }, options.block ?? 'latest');
  return decodeWasmReturn(call.returns, call.txType, hexToBytes(answer)) as R;
}

/** Sends a call (with `value` wei, default none) from an account the node holds (eth_sendTransaction), waits for it to be mined and reads its events. */
export async function sendWasm(
  client: SystemClient,
  options: { from: string; to: string; call: WasmCall<string, unknown>; value?: bigint; gas?: bigint; timeoutMs?: number },
): Promise<WasmOutcome> {
  const value = options.value === undefined ? undefined : toQuantity(options.value);
  const hash = await client.eth.sendTransaction({ from: options.from, to: options.to, data: options.call.data, value, gas: gasOf(options.gas) });
  return outcome(wasmContract(options.call.abi), await waitForReceipt(client, hash, options.timeoutMs));
}

function gasOf(gas: bigint | undefined): string | undefined {
  return gas === undefined ? undefined : toQuantity(gas);
}
