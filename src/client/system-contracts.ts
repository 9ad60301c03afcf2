// The system contracts (UserManagement, NodeManagement, ParameterManagement, CnsManagement,
// FirewallManagement) for applications:
// calls encoded and answers decoded by the one signature table (src/codec/system-contracts-abi.ts),
// typed so that a wrong method, argument count or argument type does not compile, and helpers that
// run them over a ChainClient. The operator CLI (src/admin-command.ts) is built on these.
//
//   const answer = await callSystem(client, systemCall('NodeManagement', 'getAllNodes'));
//   const { ok, events, reason } = await sendSystem(client, systemCall('UserManagement', 'addChainAdminByAddress', addr), { from });
import {
  CNS_CALL_GAS,
  CNS_MANAGEMENT_ABI,
  FIREWALL_CALL_GAS,
  FIREWALL_MANAGEMENT_ABI,
  EVIDENCE_MANAGEMENT_ABI,
  CONTRACT_DATA_PROCESSOR_ABI,
  GROUP_MANAGEMENT_ABI,
  NODE_MANAGEMENT_ABI,
  PARAMETER_MANAGEMENT_ABI,
  SYSTEM_CALL_GAS,
  USER_MANAGEMENT_ABI,
  type ArgsOf,
  type ContractAbi,
  type MethodSignature,
} from '../codec/system-contracts-abi.ts';
import { CallCodecError, decodeEventData, decodeReturn, encodeArg, encodeCall, encodeCallByName, eventTopic, TX_TYPE_CALL, type ParamType } from '../codec/venachain-call.ts';
import { CNS_INVOKE, CNS_MANAGEMENT, CONTRACT_DATA_PROCESSOR, EVIDENCE_MANAGEMENT, FIREWALL_MANAGEMENT, GROUP_MANAGEMENT, NODE_MANAGEMENT, PARAMETER_MANAGEMENT, USER_MANAGEMENT, type CnsRecord, type EvidenceRecord, type GroupRecord, type NodeRecord, type RoleName, type UserRecord } from '../codec/system-contracts.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { fromQuantity, toQuantity } from './quantity.ts';
import { RpcError } from './errors.ts';
import type { EthApi } from '../../generated/client/api.ts';
import type { Log, Receipt } from '../../generated/types.ts';

/** Each system contract's address, signature table and flat gas per call, by Venachain's contract name. */
export const SYSTEM_CONTRACT_ABIS = {
  UserManagement: { address: USER_MANAGEMENT, abi: USER_MANAGEMENT_ABI, gas: SYSTEM_CALL_GAS },
  NodeManagement: { address: NODE_MANAGEMENT, abi: NODE_MANAGEMENT_ABI, gas: SYSTEM_CALL_GAS },
  ParameterManagement: { address: PARAMETER_MANAGEMENT, abi: PARAMETER_MANAGEMENT_ABI, gas: SYSTEM_CALL_GAS },
  CnsManagement: { address: CNS_MANAGEMENT, abi: CNS_MANAGEMENT_ABI, gas: CNS_CALL_GAS },
  FirewallManagement: { address: FIREWALL_MANAGEMENT, abi: FIREWALL_MANAGEMENT_ABI, gas: FIREWALL_CALL_GAS },
  GroupManagement: { address: GROUP_MANAGEMENT, abi: GROUP_MANAGEMENT_ABI, gas: SYSTEM_CALL_GAS },
  EvidenceManagement: { address: EVIDENCE_MANAGEMENT, abi: EVIDENCE_MANAGEMENT_ABI, gas: SYSTEM_CALL_GAS },
  ContractDataProcessor: { address: CONTRACT_DATA_PROCESSOR, abi: CONTRACT_DATA_PROCESSOR_ABI, gas: SYSTEM_CALL_GAS },
} as const satisfies Record<string, { address: string; abi: ContractAbi; gas: bigint }>;

export type SystemContractName = keyof typeof SYSTEM_CONTRACT_ABIS;
export type SystemAbi<C extends SystemContractName> = (typeof SYSTEM_CONTRACT_ABIS)[C]['abi'];
export type SystemMethod<C extends SystemContractName> = keyof SystemAbi<C> & string;
type Signature<C extends SystemContractName, M extends SystemMethod<C>> = SystemAbi<C>[M] extends MethodSignature ? SystemAbi<C>[M] : never;

/** A method's arguments, as systemCall takes them: strings and addresses as text, integers as bigint, records as objects or JSON text. */
export type SystemArgs<C extends SystemContractName, M extends SystemMethod<C>> = ArgsOf<Signature<C, M>>;

/** NodeManagement's answer to its queries: Venachain's `{"code":0,"msg":"success","data":…}`. */
export interface NodeManagementAnswer<D = NodeRecord[]> {
  code: number;
  msg: string;
  data: D;
}

/** A node as NodeManagement's enode lists give it (Venachain's untagged Go field names). */
export interface EnodeNode {
  PublicKey: string;
  IP: string;
  Port: number;
}

/** CnsManagement's list queries: Venachain's result JSON, code 1 with data [] when nothing matched. */
export interface CnsAnswer {
  code: number;
  msg: string;
  data: CnsRecord[];
}

/** A firewall rule as FirewallManagement answers it (0xff…ff = any address, "*" = any function). */
export interface FwRuleJson {
  Addr: string;
  FuncName: string;
}

/** FirewallManagement's __sys_FwStatus / __sys_FwExport (Venachain's FwStatus; empty lists are null). */
export interface FwStatus {
  ContractAddr: string;
  Active: boolean;
  AcceptedList: FwRuleJson[] | null;
  RejectedList: FwRuleJson[] | null;
}

/** ParameterManagement's VRFParams (Venachain's common.VRFParams). */
export interface VrfParams {
  electionEpoch: number;
  nextElectionBlock: number;
  validatorCount: number;
}

/** What the JSON text of the methods answering JSON objects or arrays parses to. */
interface JsonAnswers {
  UserManagement: {
    getRolesByAddress: RoleName[];
    getRolesByName: RoleName[];
    getAddrListOfRole: string[];
    getUserByAddress: UserRecord;
    getUserByName: UserRecord;
    getAllUsers: UserRecord[];
  };
  NodeManagement: {
    getAllNodes: NodeManagementAnswer;
    getNodes: NodeManagementAnswer;
    getNormalEnodeNodes: NodeManagementAnswer<EnodeNode[]>;
    getDeletedEnodeNodes: NodeManagementAnswer<EnodeNode[]>;
  };
  ParameterManagement: {
    getVRFParams: VrfParams;
  };
  CnsManagement: {
    getRegisteredContracts: CnsAnswer;
    getRegisteredContractsByName: CnsAnswer;
    getRegisteredContractsByAddress: CnsAnswer;
    getRegisteredContractsByOrigin: CnsAnswer;
    getContractInfoByAddress: CnsAnswer;
  };
  FirewallManagement: {
    __sys_FwStatus: FwStatus;
    __sys_FwExport: FwStatus;
  };
  GroupManagement: {
    getAllGroups: GroupRecord[] | null;
    getGroupByID: GroupRecord;
  };
  EvidenceManagement: {
    getEvidence: { code: number; msg: string; data: EvidenceRecord };
  };
  ContractDataProcessor: Record<never, never>;
}

/** The methods whose answer is JSON text: decoded, it is parsed (the others' text stays text, getStrParam's JSON included). */
const JSON_METHODS = {
  UserManagement: ['getRolesByAddress', 'getRolesByName', 'getAddrListOfRole', 'getUserByAddress', 'getUserByName', 'getAllUsers'],
  NodeManagement: ['getAllNodes', 'getNodes', 'getNormalEnodeNodes', 'getDeletedEnodeNodes'],
  ParameterManagement: ['getVRFParams'],
  CnsManagement: ['getRegisteredContracts', 'getRegisteredContractsByName', 'getRegisteredContractsByAddress', 'getRegisteredContractsByOrigin', 'getContractInfoByAddress'],
  FirewallManagement: ['__sys_FwStatus', '__sys_FwExport'],
  GroupManagement: ['getAllGroups', 'getGroupByID'],
  EvidenceManagement: ['getEvidence'],
  ContractDataProcessor: [],
} as const satisfies { [C in SystemContractName]: readonly (keyof JsonAnswers[C])[] };

/** A string answer decoded without knowing its method at compile time: parsed JSON, or text. */
export type JsonOrText = string | unknown[] | Record<string, unknown>;

/** A method's decoded result: an integer as bigint, a JSON answer as its parsed type, other text as string. */
export type SystemResult<C extends SystemContractName, M extends SystemMethod<C>> = Signature<C, M>['returns'] extends 'int'
  ? bigint
  : M extends keyof JsonAnswers[C]
    ? JsonAnswers[C][M]
    : string;

/** A call to one method, ready for eth_call or a transaction; carries its contract and method for decoding. */
export interface SystemCall<C extends SystemContractName = SystemContractName, M extends string = string> {
  readonly contract: C;
  readonly method: M;
  /** the contract's address */
  readonly to: string;
  /** Venachain's call encoding, 0x hex */
  readonly data: string;
  /** gas to send it with, when its work grows with the state (ContractDataProcessor.migrate: estimate it); default systemCallGas's */
  readonly gas?: bigint;
}

function signatureOf(contract: SystemContractName, method: string): MethodSignature {
  const table = SYSTEM_CONTRACT_ABIS[contract]?.abi as ContractAbi | undefined;
  if (table === undefined) throw new CallCodecError(`no system contract "${contract}" (one of ${Object.keys(SYSTEM_CONTRACT_ABIS).join(', ')})`);
  const sig = Object.hasOwn(table, method) ? table[method] : undefined;
  if (sig === undefined) throw new CallCodecError(`${contract} has no method "${method}"`);
  return sig;
}

/** Whether `contract` has `method` (the tables grow as the contracts do). */
export function hasSystemMethod(contract: SystemContractName, method: string): boolean {
  return Object.hasOwn(SYSTEM_CONTRACT_ABIS[contract].abi, method);
}

/**
 * The call of `contract.method(...args)`, checked at run time against the table (for callers
 * whose method is chosen at run time, like the CLI); systemCall is its typed face.
 */
export function encodeSystemCall(contract: SystemContractName, method: string, args: readonly unknown[]): SystemCall {
  const sig = signatureOf(contract, method);
  if (args.length !== sig.params.length) throw new CallCodecError(`${contract}.${method} takes ${sig.params.length} argument(s), got ${args.length}`);
  const encoded = sig.params.map((type, i) => {
    try {
      return encodeArg(type, args[i] as string | bigint | number | object);
    } catch (e) {
      throw new CallCodecError(`${contract}.${method} argument ${i + 1} (${type}): ${(e as Error).message}`);
    }
  });
  return { contract, method, to: SYSTEM_CONTRACT_ABIS[contract].address, data: bytesToHex(encodeCall(method, encoded, TX_TYPE_CALL)) };
}

/** `{ to, data }` (and the names) of `contract.method(...args)`, txType 2 (Venachain's ordinary call). */
export function systemCall<C extends SystemContractName, M extends SystemMethod<C>>(contract: C, method: M, ...args: SystemArgs<C, M>): SystemCall<C, M> {
  return encodeSystemCall(contract, method, args) as SystemCall<C, M>;
}

/** Reads a method's return data (0x hex) as the txType of its call asked (default 2, systemCall's). */
export function decodeSystemResult<C extends SystemContractName, M extends SystemMethod<C>>(contract: C, method: M, returnHex: string, txType: bigint = TX_TYPE_CALL): SystemResult<C, M> {
  return decodeResultOf(contract, method, returnHex, txType) as SystemResult<C, M>;
}

function decodeResultOf(contract: SystemContractName, method: string, returnHex: string, txType: bigint): bigint | JsonOrText {
  const value = decodeReturn(txType, signatureOf(contract, method).returns, hexToBytes(returnHex));
  if (typeof value === 'bigint' || !(JSON_METHODS[contract] as readonly string[]).includes(method)) return value;
  try {
    return JSON.parse(value) as unknown[] | Record<string, unknown>;
  } catch (e) {
    throw new CallCodecError(`${contract}.${method} answered text that is not JSON: ${(e as Error).message}`);
  }
}

/** An event of a system contract: Venachain's one log, topic = keccak256(name), data = RLP([code, message]). */
export interface SystemEvent {
  contract: SystemContractName;
  /** the topic's name (a method, a parameter key, or NodeManagement's "Notify"); undefined if none of those */
  topic: string | undefined;
  /** the topic as logged (0x hex) */
  topicHash: string;
  /** 0 = success */
  code: bigint;
  message: string;
}

/** ParameterManagement's parameters: each key with its setter and getter. Venachain names one pair after a shorter key. */
export interface SystemParameter {
  key: string;
  setter: string;
  getter: string;
  /** the setter's argument: an integer type, or 'string' (VRFParams' JSON, a contract name) */
  type: ParamType;
}

const SHORTER_KEYS: Readonly<Record<string, string>> = { CheckContractDeployPermission: 'IsCheckContractDeployPermission' };
const GENERIC_SETTERS = new Set(['setIntParam', 'setStrParam']);

/** The parameters ParameterManagement's table has a setter and a getter for, in table order. */
export function systemParameters(): SystemParameter[] {
  return Object.keys(PARAMETER_MANAGEMENT_ABI)
    .filter((m) => m.startsWith('set') && !GENERIC_SETTERS.has(m) && hasSystemMethod('ParameterManagement', 'get' + m.slice(3)))
    .map((setter) => {
      const name = setter.slice(3);
      const type = (PARAMETER_MANAGEMENT_ABI as ContractAbi)[setter]!.params[0]!;
      return { key: SHORTER_KEYS[name] ?? name, setter, getter: 'get' + name, type };
    });
}

let topicNames: Map<string, string> | undefined;
/** keccak256(name) → name for every name a system contract logs under. */
function knownTopics(): Map<string, string> {
  if (topicNames) return topicNames;
  const names = new Set<string>(['Notify', '[CNS] Notify', ...systemParameters().map((p) => p.key)]);
  for (const { abi } of Object.values(SYSTEM_CONTRACT_ABIS)) for (const m of Object.keys(abi)) names.add(m);
  topicNames = new Map([...names].map((n) => [bytesToHex(eventTopic(n)), n]));
  return topicNames;
}

/** A log read as a system contract's event; undefined when it is not one (another address, another shape). */
export function decodeSystemEvent(log: Pick<Log, 'address' | 'topics' | 'data'>): SystemEvent | undefined {
  const address = log.address.toLowerCase();
  const contract = (Object.keys(SYSTEM_CONTRACT_ABIS) as SystemContractName[]).find((c) => SYSTEM_CONTRACT_ABIS[c].address === address);
  if (contract === undefined || log.topics.length !== 1) return undefined;
  const topicHash = log.topics[0]!.toLowerCase();
  try {
    const { code, message } = decodeEventData(hexToBytes(log.data));
    return { contract, topic: knownTopics().get(topicHash), topicHash, code, message };
  } catch {
    return undefined;
  }
}

/** The zero address: a call sent there with callByName's data reaches the contract CNS registers under the name. */
export const CNS_INVOKE_ADDRESS = CNS_INVOKE;

/**
 * `call` (a wasm call from wasmContract, or any `{ data }` in Venachain's encoding) made by name:
 * to CNS_INVOKE_ADDRESS, reaching the contract registered as `name` ("token", or "token:1.0.0.1"
 * for one version). Its answer decodes as the direct call's: `callWasm(client, CNS_INVOKE_ADDRESS,
 * callByName('token', c.call('balanceOf', addr)))`. A Solidity contract takes "type(value)" arguments.
 */
export function callByName<T extends { readonly data: string }>(name: string, call: T): T & { readonly to: string } {
  return { ...call, to: CNS_INVOKE, data: bytesToHex(encodeCallByName(name, hexToBytes(call.data))) };
}

/** Gas that always covers a system call sent as a transaction: intrinsic, calldata at its dearest (EIP-7623's floor), the contract's flat charge. */
export function systemCallGas(call: SystemCall): bigint {
  if (call.gas !== undefined) return call.gas;
  return 21_000n + 40n * BigInt((call.data.length - 2) / 2) + SYSTEM_CONTRACT_ABIS[call.contract].gas;
}

/** What the SDK's helpers need of a client: ChainClient has it. */
export interface SystemClient {
  readonly eth: Pick<EthApi, 'call' | 'sendTransaction' | 'getTransactionReceipt'>;
}

export interface SystemCallOptions {
  from?: string;
  /** a block number (quantity) or tag; default latest */
  block?: string;
}

/** Runs a call with eth_call (at `block`, default latest) and decodes its answer; a failing call rejects with the node's RpcError (its message is the reason). */
export function callSystem<C extends SystemContractName, M extends SystemMethod<C>>(client: SystemClient, call: SystemCall<C, M>, options?: SystemCallOptions): Promise<SystemResult<C, M>>;
/** The same for a call made by encodeSystemCall (method chosen at run time). */
export function callSystem(client: SystemClient, call: SystemCall, options?: SystemCallOptions): Promise<bigint | JsonOrText>;
export async function callSystem(client: SystemClient, call: SystemCall, options: SystemCallOptions = {}): Promise<bigint | JsonOrText> {
  const answer = await client.eth.call({ from: options.from, to: call.to, data: call.data }, options.block ?? 'latest');
  return decodeResultOf(call.contract, call.method, answer, TX_TYPE_CALL);
}

/** A mined system call: its receipt, its events, and for a failed one (status 0) the contract's reason. */
export interface SystemOutcome {
  receipt: Receipt;
  /** status 1 and no event with a non-zero code */
  ok: boolean;
  events: SystemEvent[];
  /** why it failed: the contract's message (eth_call of the same call at the block before), or a failing event's */
  reason: string | undefined;
}

/** The contract's words in the node's refusal of a system call: "eth_call: execution reverted: <reason>" → "<reason>". */
export function systemErrorReason(e: RpcError): string {
  return e.message
    .slice(e.method.length + 2)
    .replace(/^execution reverted: /, '')
    .trim();
}

/** Polls for a transaction's receipt every 100 ms (a block period may be 0 or seconds). */
export async function waitForReceipt(client: SystemClient, hash: string, timeoutMs = 60_000): Promise<Receipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await client.eth.getTransactionReceipt(hash);
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} after ${timeoutMs / 1000} s: is the node sealing blocks?`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Reads a mined system call's receipt: its events, and the reason when it failed. */
export async function systemOutcome(client: SystemClient, call: SystemCall, receipt: Receipt): Promise<SystemOutcome> {
  const events = receipt.logs.map(decodeSystemEvent).filter((e): e is SystemEvent => e !== undefined);
  const failing = events.find((e) => e.code !== 0n);
  if (receipt.status === '0x1') return { receipt, ok: failing === undefined, events, reason: failing?.message };
  // a failed call keeps no logs: the reason is what the same call answers on the state before its
  // block — the state it ran on, unless an earlier transaction of the same block changed it
  let reason = 'the call failed, though it succeeds on the state before its block';
  try {
    await client.eth.call({ from: receipt.from, to: call.to, data: call.data }, toQuantity(fromQuantity(receipt.blockNumber) - 1n));
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    reason = systemErrorReason(e);
  }
  return { receipt, ok: false, events, reason };
}

/** Sends a system call from an account the node holds unlocked (eth_sendTransaction), waits for it to be mined and reads the outcome. */
export async function sendSystem(client: SystemClient, call: SystemCall, options: { from: string; timeoutMs?: number }): Promise<SystemOutcome> {
  const hash = await client.eth.sendTransaction({ from: options.from, to: call.to, data: call.data, gas: toQuantity(systemCallGas(call)) });
  return systemOutcome(client, call, await waitForReceipt(client, hash, options.timeoutMs));
}
