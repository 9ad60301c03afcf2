// eth_simulateV1's execution (execution-apis; geth's internal/ethapi/simulate.go for what the spec
// leaves open): blocks of calls run as transactions, one after another on one state, each block
// with its own overridden context and state overrides. The caller (CallRunner.simulate) holds one
// checkpoint around the whole run and reverts it: nothing a simulation does is kept.
import { encodeReceipt, runTx, type VM } from '@ethereumjs/vm';
import { createTx, type AccessListBytes, type TypedTransaction } from '@ethereumjs/tx';
import type { Message, EVMResult } from '@ethereumjs/evm';
import { Account, Address, KECCAK256_NULL } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { CachedMerkleStateManager } from '../state/state-manager.ts';
import type { EngineEVM } from './engine-evm.ts';
import { evmBlock } from './executor.ts';
import { applyStateOverrides, type StateOverrides } from './state-override.ts';
import { DECODE_OPTIONS } from '../tx/init-code.ts';
import { isWasmCode } from '../codec/wasm-abi.ts';
import { CallError, CallTimeout } from './call-errors.ts';
import type { CallContext } from './call.ts';
import { EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, encodeHeader, type Header } from '../chain/header.ts';
import type { BlockRecord, LogRecord } from '../chain/types.ts';
import { orderedTrieRoot } from '../chain/ordered-trie.ts';
import { logsBloom } from '../chain/bloom.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { bigIntToBytes, equalBytes, hexToBytes, padLeft } from '../util/hex.ts';

/** geth's and execution-apis' limit: as many blocks as BLOCKHASH reaches */
export const MAX_SIMULATED_BLOCKS = 256;
/** geth's step between simulated blocks' timestamps when none is given */
const TIMESTAMP_INCREMENT = 12n;
/** ERC-20's Transfer(address,address,uint256), the event traceTransfers reports ETH moves as */
const TRANSFER_TOPIC = hexToBytes('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
/** the address execution-apis has those events come from */
export const TRANSFER_LOG_ADDRESS = hexToBytes('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
const DELEGATION_PREFIX = hexToBytes('ef0100');
/** EIP-3860 */
const MAX_INIT_CODE_SIZE = 49_152;

export interface SimulatedCall {
  from?: Uint8Array;
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  value?: bigint;
  data?: Uint8Array;
  nonce?: bigint;
  accessList?: AccessListBytes;
}

export interface SimulatedBlockSpec {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
  stateOverrides?: StateOverrides;
  calls: readonly SimulatedCall[];
}

export interface SimulationOptions {
  /** check nonces, balances and fees as for a transaction (else: as eth_call) */
  validation: boolean;
  /** report ETH moves as Transfer logs from TRANSFER_LOG_ADDRESS */
  traceTransfers: boolean;
  /** gas all calls together may use (--rpc.gascap) */
  gasCap: bigint;
  /** performance.now() ms by which the whole simulation ends */
  deadline: number;
}

export interface SimulatedCallResult {
  success: boolean;
  returnValue: Uint8Array;
  /** the transaction's gas (intrinsic included, refund taken off) */
  gasUsed: bigint;
  logs: LogRecord[];
  /** the EVM's error name when !success ('revert', 'out of gas', …) */
  error?: string;
}

export interface SimulatedBlock {
  record: BlockRecord;
  calls: SimulatedCallResult[];
}

/** Why a simulation was refused: execution-apis gives each its own error code (the API's mapping). */
export type SimulationFailure =
  | 'nonceTooLow'
  | 'nonceTooHigh'
  | 'feeTooLow'
  | 'intrinsicGas'
  | 'insufficientFunds'
  | 'blockGasLimit'
  | 'blockNumberOrder'
  | 'blockTimestampOrder'
  | 'senderNotEoa'
  | 'initCodeSize'
  | 'tooManyBlocks'
  /** fields no transaction may have (a nonce of 2^64 - 1 or more, a tip above the fee cap, gas × price beyond 2^256) */
  | 'invalidFields';

export class SimulationError extends CallError {
  constructor(
    readonly failure: SimulationFailure,
    message: string,
  ) {
    super(message);
  }
}

interface BlockPlan extends SimulatedBlockSpec {
  number: bigint;
  time: bigint;
}

/**
 * The blocks to run: numbers and times filled in (one more, 12 s later, than the block before),
 * checked to increase, and the gaps between numbers filled with empty blocks as geth does.
 */
function plan(base: CallContext, specs: readonly SimulatedBlockSpec[]): BlockPlan[] {
  const out: BlockPlan[] = [];
  let number = base.number;
  let time = base.timestamp;
  for (const spec of specs) {
    const next = spec.number ?? number + 1n;
    if (next <= number) throw new SimulationError('blockNumberOrder', `block numbers must be in order: ${next} <= ${number}`);
    if (next - base.number > BigInt(MAX_SIMULATED_BLOCKS)) throw new SimulationError('tooManyBlocks', `too many blocks: more than ${MAX_SIMULATED_BLOCKS} after block ${base.number}`);
    for (let n = number + 1n; n < next; n++) out.push({ number: n, time: (time += TIMESTAMP_INCREMENT), calls: [] });
    const t = spec.time ?? time + TIMESTAMP_INCREMENT;
    if (t < time) throw new SimulationError('blockTimestampOrder', `block timestamps must not decrease: ${t} < ${time}`);
    out.push({ ...spec, number: next, time: t });
    number = next;
    time = t;
  }
  return out;
}

/**
 * Records ETH moves as Transfer logs, frame by frame: a reverted or failed frame's moves are
 * dropped with it. They come before the transaction's own logs (geth interleaves them in order).
 */
class TransferRecorder {
  /** per open frame: its own move (if it moved ETH) and the moves of the frames it called that succeeded */
  private frames: { own?: LogRecord; logs: LogRecord[] }[] = [{ logs: [] }];
  readonly enter = (m: Message) => {
    const own: LogRecord | undefined =
      m.value > 0n && !m.delegatecall ? [TRANSFER_LOG_ADDRESS, [TRANSFER_TOPIC, padLeft(m.caller.bytes, 32), padLeft(m.to?.bytes ?? new Uint8Array(20), 32)], padLeft(bigIntToBytes(m.value), 32)] : undefined;
    this.frames.push({ own, logs: own ? [own] : [] });
  };
  readonly exit = (r: EVMResult) => {
    const frame = this.frames.pop()!;
    // a creation's address is known once it ran
    if (r.createdAddress && frame.own) frame.own[1][2] = padLeft(r.createdAddress.bytes, 32);
    if (r.execResult.exceptionError === undefined) this.frames[this.frames.length - 1]!.logs.push(...frame.logs);
  };
  take(): LogRecord[] {
    const logs = this.frames[0]!.logs;
    this.frames = [{ logs: [] }];
    return logs;
  }
}

/** The transaction a call runs as: EIP-1559 when it names 1559 fees, EIP-2930 with an access list, else legacy. */
function callTx(call: SimulatedCall, nonce: bigint, gasLimit: bigint, common: Common): TypedTransaction {
  const fields = { nonce, gasLimit, to: call.to, value: call.value ?? 0n, data: call.data ?? new Uint8Array(0) };
  let tx: TypedTransaction;
  try {
    tx =
      call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined
        ? createTx({ ...fields, type: 2, maxFeePerGas: call.maxFeePerGas ?? call.maxPriorityFeePerGas ?? 0n, maxPriorityFeePerGas: call.maxPriorityFeePerGas ?? 0n, accessList: call.accessList ?? [] }, { common, freeze: false, ...DECODE_OPTIONS })
        : createTx(call.accessList ? { ...fields, type: 1, gasPrice: call.gasPrice ?? 0n, accessList: call.accessList } : { ...fields, gasPrice: call.gasPrice ?? 0n }, { common, freeze: false, ...DECODE_OPTIONS });
  } catch (e) {
    // @ethereumjs's constructor checks (found by the RPC fuzzer: they were internal errors); its
    // message ends with a dump of the transaction, which the client sent
    throw new SimulationError('invalidFields', (e as Error).message.replace(/ \(tx type=[\s\S]*$/, ''));
  }
  // unsigned: the sender is the call's `from`, as eth_call takes it (execution-apis: no signature checks)
  const sender = new Address(call.from ?? new Uint8Array(20));
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender });
  return tx;
}

/** Runs the blocks on `vm` (whose state `state` is, inside the caller's checkpoint). */
export async function simulateBlocks(vm: VM, state: CachedMerkleStateManager, blockCommon: Common, txCommon: Common, base: CallContext, baseHash: Uint8Array, specs: readonly SimulatedBlockSpec[], o: SimulationOptions): Promise<SimulatedBlock[]> {
  const blocks = plan(base, specs);
  const evm = vm.evm as EngineEVM;
  const watch = evm.executionWatch;
  const restores: (() => void)[] = [];
  const transfers = o.traceTransfers ? new TransferRecorder() : undefined;
  if (transfers) {
    evm.events.on('beforeMessage', transfers.enter);
    evm.events.on('afterMessage', transfers.exit);
  }
  let budget = o.gasCap;
  let parentHash = baseHash;
  const out: SimulatedBlock[] = [];
  watch.limit({ deadline: o.deadline });
  try {
    for (const b of blocks) {
      if (b.stateOverrides) restores.push(await applyStateOverrides(b.stateOverrides, state, evm));
      const gasLimit = b.gasLimit ?? base.gasLimit;
      const coinbase = b.feeRecipient ?? base.coinbase;
      const baseFee = b.baseFeePerGas ?? 0n;
      const block = evmBlock(blockCommon, b.number, b.time, coinbase, gasLimit, { baseFeePerGas: baseFee, mixHash: b.prevRandao });
      let freeBlock: typeof block | undefined;
      const results: SimulatedCallResult[] = [];
      const txs: Uint8Array[] = [];
      const senders: Uint8Array[] = [];
      const receipts: Uint8Array[] = [];
      const allLogs: LogRecord[] = [];
      let gasUsed = 0n;
      for (const call of b.calls) {
        const from = call.from ?? new Uint8Array(20);
        const account = (await state.getAccount(new Address(from))) ?? new Account();
        const nonce = call.nonce ?? account.nonce;
        if (o.validation && nonce < account.nonce) throw new SimulationError('nonceTooLow', `nonce too low: address 0x${Buffer.from(from).toString('hex')}, tx: ${nonce} state: ${account.nonce}`);
        if (o.validation && nonce > account.nonce) throw new SimulationError('nonceTooHigh', `nonce too high: address 0x${Buffer.from(from).toString('hex')}, tx: ${nonce} state: ${account.nonce}`);
        const remaining = gasLimit - gasUsed;
        let gas = call.gas ?? (remaining < budget ? remaining : budget);
        if (gas > budget) gas = budget;
        if (gasUsed + gas > gasLimit) throw new SimulationError('blockGasLimit', `block gas limit reached: ${gasUsed} + ${gas} > ${gasLimit}`);
        const tx = callTx(call, nonce, gas, txCommon);
        // a wasm deploy's data is the contract, not initcode (src/tx/init-code.ts)
        if (!call.to && (call.data?.length ?? 0) > MAX_INIT_CODE_SIZE && !isWasmCode(call.data!)) throw new SimulationError('initCodeSize', `max initcode size exceeded: ${call.data!.length} > ${MAX_INIT_CODE_SIZE}`);
        const minimum = tx.getMinimumGasLimit();
        if (gas < minimum) throw new SimulationError('intrinsicGas', `intrinsic gas too low: have ${gas}, want ${minimum}`);
        const price = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice;
        // geth's NoBaseFee (eth_call): without validation a call offering no fee runs with a base fee of 0
        const free = !o.validation && price === 0n;
        if (!free && price < baseFee) throw new SimulationError('feeTooLow', `max fee per gas less than block base fee: maxFeePerGas: ${price}, baseFee: ${baseFee}`);
        const cost = gas * price + tx.value;
        if (account.balance < cost) throw new SimulationError('insufficientFunds', `insufficient funds for gas * price + value: address 0x${Buffer.from(from).toString('hex')} have ${account.balance} want ${cost}`);
        if (!equalBytes(account.codeHash, KECCAK256_NULL) && !equalBytes((await state.getCode(new Address(from))).subarray(0, 3), DELEGATION_PREFIX)) {
          throw new SimulationError('senderNotEoa', `sender not an eoa: address 0x${Buffer.from(from).toString('hex')}`);
        }
        const result = await runTx(vm, { tx, block: free ? (freeBlock ??= evmBlock(blockCommon, b.number, b.time, coinbase, gasLimit, { mixHash: b.prevRandao })) : block, blockGasUsed: gasUsed, skipNonce: true, skipHardForkValidation: true, skipBlockGasLimitValidation: true });
        if (watch.expired) throw new CallTimeout();
        evm.takeCreations();
        gasUsed += result.totalGasSpent;
        budget -= result.totalGasSpent;
        const ex = result.execResult;
        const success = ex.exceptionError === undefined;
        const logs = [...(transfers?.take() ?? []), ...(success ? (ex.logs ?? []) : [])] as LogRecord[];
        results.push({ success, returnValue: ex.returnValue, gasUsed: result.totalGasSpent, logs, error: ex.exceptionError?.error });
        allLogs.push(...logs);
        txs.push(tx.serialize());
        senders.push(from);
        receipts.push(encodeReceipt(result.receipt, tx.type));
      }
      const header: Header = {
        parentHash,
        sha3Uncles: EMPTY_UNCLES_HASH,
        miner: coinbase,
        // not computed: the simulated state is never written out to the trie (see the openrpc description)
        stateRoot: new Uint8Array(32),
        transactionsRoot: orderedTrieRoot(txs),
        receiptsRoot: txs.length > 0 ? orderedTrieRoot(receipts) : EMPTY_TRIE_ROOT,
        logsBloom: logsBloom(allLogs),
        difficulty: 0n,
        number: b.number,
        gasLimit,
        gasUsed,
        timestamp: b.time,
        extraData: new Uint8Array(0),
        mixHash: block.header.mixHash,
        nonce: new Uint8Array(8),
        baseFeePerGas: baseFee,
      };
      const hash = keccak256(encodeHeader(header));
      out.push({ record: { hash, header, txs, senders }, calls: results });
      parentHash = hash;
    }
    return out;
  } finally {
    watch.unlimit();
    if (transfers) {
      evm.events.off('beforeMessage', transfers.enter);
      evm.events.off('afterMessage', transfers.exit);
    }
    for (const restore of restores.reverse()) restore();
  }
}
