// The native system contracts as a CodeEngine: EngineEVM hands every message addressed to a system
// contract here (those accounts have no code; EngineEVM._loadCode marks them), and this engine
// decodes Venachain's call encoding, runs the TypeScript method, charges the flat gas and answers
// as Venachain does. A failed call reverts: its storage writes and events go with it, eth_call
// answers its message as a revert reason.
import { EVMError, type ExecResult, type Message } from '@ethereumjs/evm';
import { Account, Address } from '@ethereumjs/util';
import type { CodeEngine, EngineEVM } from '../engine-evm.ts';
import { CallCodecError, decodeArg, decodeCall, encodeEventData, encodeReturn, eventTopic, TX_TYPE_CALL } from '../../codec/venachain-call.ts';
import { type ArgsOf, type ContractAbi, type MethodSignature, type ResultOf } from '../../codec/system-contracts-abi.ts';
import { bytesToHex, concatBytes, hexToBytes, padLeft } from '../../util/hex.ts';
import { SlotStore, type Slots } from './slot-store.ts';
import { FIREWALL_MANAGEMENT, Firewalls, systemState, type SystemState } from './system-state.ts';
import { deployRefusal } from './deploy-permission.ts';
import { firewallRefusal, type FirewallEnv } from './firewall-check.ts';
import { CachedMerkleStateManager, SlotLimitError } from '../../state/state-manager.ts';

const FIREWALL_ADDRESS = new Address(hexToBytes(FIREWALL_MANAGEMENT));

/** Code EngineEVM gives a message to a system contract: never stored, recognised by identity. */
export const NATIVE_CODE = new Uint8Array([0xfe]);

/** What a method sees of its call. Addresses are lowercase 0x hex. */
export interface NativeCall {
  /** the immediate caller (UserManagement's permission subject) */
  caller: string;
  /** the transaction's sender (NodeManagement's and ParameterManagement's permission subject) */
  origin: string;
  txType: bigint;
  /** the number of the block the call runs in */
  blockNumber: bigint;
  /** what the node applies while TxGasLimit / BlockGasLimit were never set: the getters answer the limits in force */
  unsetLimits: { txGasLimit: bigint; blockGasLimit: bigint };
  /** the system contracts' state, writable (writes in a static call fail the call) */
  state: SystemState;
  /** whether a contract's init() runs in this message tree (CNS' cnsRegisterFromInit) */
  fromInit: boolean;
  /** the creator of a contract (lowercase 0x hex), undefined for an account no contract created */
  creatorOf(address: string): string | undefined;
  /** one log at the contract's address: topics [keccak256(topic)], data RLP([code, message]) */
  emit(topic: string, code: bigint, message: string): void;
  /** the gas the message has beyond the contract's flat price */
  gasLeft: bigint;
  /** charges gas beyond the flat price (work that grows with the state it meets); past gasLeft the call runs out of gas */
  charge(gas: bigint): void;
  /** writes every non-zero slot of `src` into `dest`'s storage (others stay): how many; more than `limit` runs out of gas */
  copyStorage(src: string, dest: string, limit: number): Promise<number>;
}

export interface NativeMethod extends MethodSignature {
  /** `args` decoded by `params` (decodeArg); throw NativeCallError to fail the call */
  run(call: NativeCall, args: unknown[]): Promise<bigint | string>;
}

export interface NativeContract {
  name: string;
  /** lowercase 0x hex */
  address: string;
  /** Venachain's flat gas of each of its methods */
  gas: bigint;
  methods: Readonly<Record<string, NativeMethod>>;
  /** a contract that takes the whole message instead of methods (calls by name: cns-invoke.ts) */
  runMessage?(evm: EngineEVM, message: Message, env: FirewallEnv & { state: SystemState }): Promise<ExecResult>;
}

/** An implementation of every method of `abi`, with its arguments typed by the signature. */
export type Implementation<A extends ContractAbi> = { [M in keyof A]: (call: NativeCall, ...args: ArgsOf<A[M]>) => Promise<ResultOf<A[M]>> };

/** The methods of a contract: each signature of `abi` with its implementation (the compiler checks none is missing). */
export function implement<A extends ContractAbi>(abi: A, impl: Implementation<A>): Record<string, NativeMethod> {
  return Object.fromEntries(
    Object.entries(abi).map(([name, sig]) => [name, { ...sig, run: (call: NativeCall, args: unknown[]) => (impl[name] as (c: NativeCall, ...a: unknown[]) => Promise<bigint | string>)(call, ...args) }]),
  );
}

/** The call fails: status 0, state and events reverted; eth_call answers `message` as the revert reason. */
export class NativeCallError extends Error {}

/** The call needs more gas than it has: it fails as the EVM's out of gas does, using all of it. */
export class NativeOutOfGas extends Error {}

/** Error(string), Solidity's revert payload: what eth_call and receipts' readers decode. */
function revertData(message: string): Uint8Array {
  // the selector, then the string as a txType-2 return encodes it (offset, length, padded data)
  return concatBytes(hexToBytes('0x08c379a0'), encodeReturn(TX_TYPE_CALL, message));
}

/** One account's storage inside the EVM: the account is created with nonce 1 on the first write, so EIP-161 never removes it. */
class EvmSlots implements Slots {
  private readonly address: Address;
  constructor(
    private readonly evm: EngineEVM,
    address: string,
    private readonly isStatic: boolean,
  ) {
    this.address = new Address(hexToBytes(address));
  }
  async get(slot: Uint8Array): Promise<Uint8Array> {
    return padLeft(await this.evm.stateManager.getStorage(this.address, slot), 32);
  }
  async put(slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (this.isStatic) throw new NativeCallError('state change in a static call');
    const sm = this.evm.stateManager;
    const account = await sm.getAccount(this.address);
    if (account === undefined || account.nonce === 0n) {
      const a = account ?? new Account();
      a.nonce = 1n;
      await this.evm.journal.putAccount(this.address, a);
    }
    await sm.putStorage(this.address, slot, value);
  }
}

/** ContractDataProcessor's copy, through the node's state manager (it journals the writes like any SSTORE). */
async function copyStorage(evm: EngineEVM, isStatic: boolean, src: string, dest: string, limit: number): Promise<number> {
  if (isStatic) throw new NativeCallError('state change in a static call');
  const sm = evm.stateManager;
  if (!(sm instanceof CachedMerkleStateManager)) throw new Error('copying storage needs the node state manager');
  try {
    return await sm.copyStorage(new Address(hexToBytes(src)), new Address(hexToBytes(dest)), limit);
  } catch (e) {
    if (e instanceof SlotLimitError) throw new NativeOutOfGas(e.message);
    throw e;
  }
}

/** The system contracts' state as the running EVM sees it (writes in a static call fail the call). */
function evmSystemState(evm: EngineEVM, isStatic: boolean): SystemState {
  return systemState((a) => new EvmSlots(evm, a, isStatic));
}

/** A failed message: status 0, its state and logs reverted, `reason` its revert reason. */
export function revert(reason: string, gasUsed: bigint): ExecResult {
  return { returnValue: revertData(reason), executionGasUsed: gasUsed, exceptionError: new EVMError(EVMError.errorMessages.REVERT) };
}

export class NativeContracts implements CodeEngine {
  readonly name = 'native';
  private readonly byAddress: Map<string, NativeContract>;

  constructor(
    contracts: readonly NativeContract[],
    /** the genesis' config.txGasLimit, in force while TxGasLimit was never set */
    private readonly chainTxGasLimit: bigint,
    /** the creator of a contract committed in an earlier block (AccountBaseInfo.Creator) */
    private readonly committedCreator: (address: Uint8Array) => Uint8Array | undefined = () => undefined,
  ) {
    this.byAddress = new Map(contracts.map((c) => [c.address.toLowerCase(), c]));
  }

  /** Whether a message to `address` (lowercase 0x hex) runs here. */
  handles(address: string): boolean {
    return this.byAddress.has(address);
  }

  claims(code: Uint8Array): boolean {
    return code === NATIVE_CODE;
  }

  async run(evm: EngineEVM, message: Message): Promise<Awaited<ReturnType<EngineEVM['runInterpreter']>>> {
    // a DELEGATECALL into a system contract runs the contract all the same: its state is its own
    const target = message.codeAddress ?? message.to!;
    const contract = this.byAddress.get(bytesToHex(target.bytes))!;
    const data = message.data;
    // Venachain charges nothing for an empty input (a plain value transfer to the address)
    if (data.length === 0) return { returnValue: new Uint8Array(0), executionGasUsed: 0n };
    if (message.gasLimit < contract.gas) {
      return { returnValue: new Uint8Array(0), executionGasUsed: message.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
    }
    if (contract.runMessage !== undefined) return contract.runMessage(evm, message, { ...this.firewallEnv(evm), state: evmSystemState(evm, message.isStatic) });
    const logs: [Uint8Array, Uint8Array[], Uint8Array][] = [];
    const fail = (reason: string) => revert(reason, contract.gas);
    let charged = 0n;
    try {
      const { txType, funcName, args } = decodeCall(data);
      const method = Object.hasOwn(contract.methods, funcName) ? contract.methods[funcName] : undefined;
      if (method === undefined) return fail(`${contract.name}: no method ${JSON.stringify(funcName)}`);
      if (args.length !== method.params.length) {
        return fail(`${contract.name}.${funcName}: takes ${method.params.length} argument(s), got ${args.length}`);
      }
      const values = args.map((bytes, i) => {
        try {
          return decodeArg(method.params[i]!, bytes);
        } catch (e) {
          throw new NativeCallError(`${contract.name}.${funcName}: argument ${i + 1} (${method.params[i]}): ${(e as Error).message}`);
        }
      });
      // the transaction's origin and block as the EVM keeps them for the running transaction or call
      const running = evm as unknown as { _tx?: { origin?: Address }; _block?: { header: { number: bigint; gasLimit: bigint } } };
      const origin = running._tx?.origin ?? message.caller;
      const call: NativeCall = {
        caller: bytesToHex(message.caller.bytes),
        origin: bytesToHex(origin.bytes),
        txType,
        blockNumber: running._block?.header.number ?? 0n,
        // unset, the block gas limit carries on from block to block: this block's is the one in force
        unsetLimits: { txGasLimit: this.chainTxGasLimit, blockGasLimit: running._block?.header.gasLimit ?? 0n },
        state: evmSystemState(evm, message.isStatic),
        fromInit: evm.initsRunning > 0,
        creatorOf: (a) => this.creatorOf(evm, a),
        emit: (topic, code, msg) => logs.push([target.bytes, [eventTopic(topic)], encodeEventData(code, msg)]),
        gasLeft: message.gasLimit - contract.gas,
        charge(gas) {
          charged += gas;
          if (charged > this.gasLeft) throw new NativeOutOfGas();
        },
        copyStorage: (src, dest, limit) => copyStorage(evm, message.isStatic, src, dest, limit),
      };
      const result = await method.run(call, values);
      return { returnValue: encodeReturn(txType, result), executionGasUsed: contract.gas + charged, logs };
    } catch (e) {
      if (e instanceof NativeOutOfGas) return { returnValue: new Uint8Array(0), executionGasUsed: message.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) };
      if (e instanceof NativeCallError || e instanceof CallCodecError) return fail(e.message);
      throw e;
    }
  }

  /**
   * The result of a contract-creation transaction of `sender` refused by Venachain's deploy
   * permission (deploy-permission.ts), or undefined when it may deploy. Nothing is charged beyond
   * the intrinsic gas, as Venachain charges nothing.
   */
  async refuseDeploy(evm: EngineEVM, sender: Address): Promise<ExecResult | undefined> {
    const refusal = await deployRefusal(evmSystemState(evm, true), bytesToHex(sender.bytes));
    return refusal === undefined ? undefined : revert(refusal, 0n);
  }

  /**
   * The result of a transaction's (or eth_call's) message to `message.to` refused by that
   * contract's firewall (firewall-check.ts), or undefined when it passes. Nothing is charged
   * beyond the intrinsic gas, no value moves, as in Venachain.
   */
  async refuseCall(evm: EngineEVM, message: Message): Promise<ExecResult | undefined> {
    // no firewall was ever set on this chain while FirewallManagement's account does not exist:
    // one cached account read instead of the whole check (G12)
    if ((await evm.stateManager.getAccount(FIREWALL_ADDRESS)) === undefined) return undefined;
    const to = bytesToHex(message.to!.bytes);
    const refusal = await firewallRefusal(this.firewallEnv(evm), to, bytesToHex(message.caller.bytes), message.data);
    return refusal === undefined ? undefined : revert(refusal, 0n);
  }

  /** lowercase 0x hex; the running transaction's creations first, then the chain's */
  private creatorOf(evm: EngineEVM, address: string): string | undefined {
    const a = new Address(hexToBytes(address));
    const creator = evm.pendingCreator(a) ?? this.committedCreator(a.bytes);
    return creator === undefined ? undefined : bytesToHex(creator);
  }

  /** what the firewall check reads, read-only */
  private firewallEnv(evm: EngineEVM): FirewallEnv {
    return {
      firewalls: new Firewalls(new SlotStore(new EvmSlots(evm, FIREWALL_MANAGEMENT, true))),
      hasCode: async (a) => (await evm.stateManager.getCode(new Address(hexToBytes(a)))).length > 0,
      creatorOf: (a) => this.creatorOf(evm, a),
    };
  }
}
