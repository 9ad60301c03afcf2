// Block execution: runs transactions on the live state in one checkpoint per block and assembles
// the block ourselves (@ethereumjs's BlockBuilder is O(n²): 2,000 transactions took 460 s). Nothing reaches disk here: trie writes wait
// in the overlay DB until the chain commits the sealed block.
import { createVM, encodeReceipt, runTx, type VM } from '@ethereumjs/vm';
import { createBlock, paramsBlock, type Block } from '@ethereumjs/block';
import { Address, type Account } from '@ethereumjs/util';
import { equalBytes } from '../util/hex.ts';
import type { Common } from '@ethereumjs/common';
import type { Header } from '../chain/header.ts';
import { EMPTY_UNCLES_HASH } from '../chain/header.ts';
import type { StoredReceipt } from '../chain/types.ts';
import type { PooledTx } from '../tx/pooled-tx.ts';
import type { OverlayTrieDB } from '../state/trie-db.ts';
import { newStateManager, type CachedMerkleStateManager } from '../state/state-manager.ts';
import { StateView } from '../state/reader.ts';
import { EngineEVM } from './engine-evm.ts';
import { systemContracts } from './native/index.ts';
import { codeEngines } from './interpreters.ts';
import type { WasmEngineEnv } from './wasm/engine.ts';
import { ISTANBUL_DIGEST } from '../chain/istanbul-extra.ts';
import { orderedTrieRoot } from '../chain/ordered-trie.ts';
import { shareableCommon } from '../tx/common.ts';
import { DirectTransfers, EMPTY_BLOOM, TRANSFER_GAS } from './value-transfer.ts';
import type { BlockHashSource } from './block-hashes.ts';
import { watchInterpreterSteps, YIELD_EVERY_MS } from './execution-watch.ts';

export interface BlockContext {
  parent: Header;
  parentHash: Uint8Array;
  timestamp: bigint;
  coinbase: Uint8Array;
  gasLimit: bigint;
  extraData: Uint8Array;
  /** the chain's per-transaction gas limit: a transaction above it is invalid */
  txGasLimit: bigint;
  /** the gas pool's size when below gasLimit: the block gas bound (S13) */
  gasBound: bigint;
}

/**
 * How long a block's execution may take, counting execution only (time spent letting I/O run is
 * not counted, as in ExecutionWatch's budgets). Unset fields do not bound.
 */
export interface ExecutionBudget {
  /** one transaction (--miner.txtimeout): a slower one is halted, undone and reported invalid (`overBudget`) */
  txMs?: number;
  /**
   * building (--miner.buildtime, S13): past it no further transaction is started and the block
   * is sealed with what ran; one halted by it is left for a later block, or reported over budget
   * when it had the whole build time to itself
   */
  buildMs?: number;
  /** verifying a proposal (the round timeout): a transaction halted by it is invalid, so the block is refused */
  verifyMs?: number;
}

export interface ExecutedBlock {
  /** header without seals (extraData as given in the context) */
  header: Header;
  included: PooledTx[];
  receipts: StoredReceipt[];
  creators: [Uint8Array, Uint8Array][];
  /** transactions that cannot execute (e.g. nonce or balance no longer valid, over the time budget: `overBudget`), with the reason */
  invalid: { ptx: PooledTx; reason: string; overBudget?: true }[];
  /** building stopped at the build time (ExecutionBudget.buildMs) with transactions left to run */
  cut: boolean;
  /** nonce and balance after the block of every account it wrote, by lowercase hex address */
  accounts: Map<string, { nonce: bigint; balance: bigint }>;
  /** the same accounts as they are after the block (undefined: deleted), for the head's read view */
  written: Map<string, Account | undefined>;
}

/** What a block keeps of one executed transaction, whichever path ran it. */
interface TxOutcome {
  gasSpent: bigint;
  status: 0 | 1;
  logs: [Uint8Array, Uint8Array[], Uint8Array][];
  bloom: Uint8Array;
  created: Uint8Array | null;
}

/** What every EVM of a chain is built with, from its genesis and the node. */
export interface ChainExecConfig {
  /** the genesis' config.txGasLimit (what the system contracts answer while TxGasLimit is unset) */
  txGasLimit: bigint;
  /** the genesis' config.interpreter: which code runs on which engine (src/exec/interpreters.ts) */
  interpreter: string;
  /** what the wasm VM needs of the node */
  wasm: WasmEngineEnv;
}

export async function createEvmVM(common: Common, stateManager: CachedMerkleStateManager, hashes: BlockHashSource, chain: ChainExecConfig): Promise<VM> {
  const evm = new EngineEVM({ common, stateManager, blockchain: hashes as never }, systemContracts(chain.txGasLimit, (a) => chain.wasm.creatorOf(a)), codeEngines(chain.interpreter, chain.wasm));
  await watchInterpreterSteps(evm);
  return createVM({ common, stateManager, evm });
}

/** The base fee every block context carries: the chain prices gas by --gasprice, not EIP-1559 (BASEFEE reads it). */
export const EVM_BLOCK_BASE_FEE = 0n;

/** The blob base fee BLOBBASEFEE reads: no blobs, so no excess blob gas, so EIP-4844's minimum (Prague keeps it) */
export const EVM_BLOB_BASE_FEE = 1n;

/** per VM Common, the one its block contexts share (a header built on it does not copy it) */
const blockCommons = new WeakMap<Common, Common>();

/** The header context @ethereumjs needs to run transactions of a block at `number`. */
/** `fields`: eth_simulateV1's block overrides (src/exec/simulate.ts); a chain block keeps the defaults. */
export function evmBlock(common: Common, number: bigint, timestamp: bigint, coinbase: Uint8Array, gasLimit: bigint, fields: { baseFeePerGas?: bigint; mixHash?: Uint8Array } = {}): Block {
  let shared = blockCommons.get(common);
  if (!shared) blockCommons.set(common, (shared = shareableCommon(common, paramsBlock)));
  return createBlock(
    { header: { number, timestamp, coinbase, gasLimit, baseFeePerGas: fields.baseFeePerGas ?? EVM_BLOCK_BASE_FEE, mixHash: fields.mixHash ?? ISTANBUL_DIGEST, difficulty: 0n } },
    { common: shared, skipConsensusFormatValidation: true },
  );
}

export class BlockExecutor {
  /** transactions applied as plain value transfers (src/exec/value-transfer.ts) instead of runTx */
  transfersApplied = 0;

  /**
   * The contracts each executed block created, oldest first, with the state root it left, until
   * the chain's store has them: a block executed before its parent commits (the importer executes
   * a group, then commits it; the sealer runs ahead of a commit) must see its parent's creators
   * (CNS, firewall, migrate and wasm isOwner ask for them).
   */
  private uncommittedCreators: { root: Uint8Array; creators: [Uint8Array, Uint8Array][] }[] = [];

  private constructor(
    readonly common: Common,
    readonly trieDb: OverlayTrieDB,
    private readonly state: CachedMerkleStateManager,
    private readonly vm: VM,
    private readonly directTransfers: boolean,
    /** the creator of a contract in a committed block */
    private readonly committedCreator: (address: Uint8Array) => Uint8Array | undefined,
  ) {}

  /** `directTransfers: false` runs plain value transfers through runTx too (the reference, for tests). */
  static async create(common: Common, trieDb: OverlayTrieDB, headStateRoot: Uint8Array, hashes: BlockHashSource, chain: ChainExecConfig, directTransfers = true): Promise<BlockExecutor> {
    const state = newStateManager(trieDb, common, headStateRoot);
    state.trackWritten = true; // the pool re-bases the accounts each block wrote (P6)
    const vm = await createEvmVM(common, state, hashes, chain);
    return new BlockExecutor(common, trieDb, state, vm, directTransfers, (a) => chain.wasm.creatorOf(a));
  }

  /**
   * Runs `txs` (per sender in nonce order) on top of the parent state and assembles the header.
   * Past the `budget` (ExecutionBudget) a transaction is halted and undone: reported invalid (it
   * never enters a block, so which node ran it how fast decides nothing other validators see), or
   * left for a later block when the build time ran out under it. `directTransfers`: whether plain
   * value transfers skip runTx (default: as created; an imported block's transactions are given,
   * so the reasons to keep runTx at period 0 do not apply to it).
   */
  async execute(ctx: BlockContext, txs: Iterable<PooledTx>, budget: ExecutionBudget = {}, directTransfers = this.directTransfers): Promise<ExecutedBlock> {
    const number = ctx.parent.number + 1n;
    // the EVM's block context, made for the first transaction runTx runs (a block of transfers needs none)
    let block: Block | undefined;
    const transfers = directTransfers ? new DirectTransfers(this.state, new Address(ctx.coinbase)) : undefined;
    const evm = this.vm.evm as EngineEVM;
    const watch = evm.executionWatch;
    const included: PooledTx[] = [];
    const receipts: StoredReceipt[] = [];
    const invalid: ExecutedBlock['invalid'] = [];
    const creators: [Uint8Array, Uint8Array][] = [];
    const pending = this.uncommittedCreators;
    while (pending.length > 0 && pending[0]!.creators.every(([a]) => this.committedCreator(a) !== undefined)) pending.shift();
    evm.blockCreators = new Map(pending.flatMap((g) => g.creators.map(([a, c]) => [new Address(a).toString(), c] as const)));
    const skippedSenders = new Set<string>();
    const blooms: Uint8Array[] = [];
    let gasUsed = 0n;
    // the gas pool (geth's rule) holds the smaller of the header's limit and the chain's bound
    const gasPool = ctx.gasBound < ctx.gasLimit ? ctx.gasBound : ctx.gasLimit;
    const { txMs = Infinity, buildMs = Infinity, verifyMs = Infinity } = budget;
    const blockMs = buildMs < verifyMs ? buildMs : verifyMs;
    const started = performance.now();
    let yielded = 0;
    const yieldedBefore = watch.yieldedMs;
    /** execution time of the block so far, yields left out */
    const spent = () => performance.now() - started - yielded - (watch.yieldedMs - yieldedBefore);
    let cut = false;
    let lastYield = performance.now();
    this.state.takeWritten(); // what an earlier, rolled-back execution wrote does not count
    await this.state.checkpoint();
    try {
      for (const ptx of txs) {
        // @ethereumjs awaits only microtasks, so a long block would starve the sockets: let I/O
        // (requests, admissions for the next block) run every couple of milliseconds.
        if (performance.now() - lastYield > YIELD_EVERY_MS) {
          const before = performance.now();
          await new Promise((resolve) => setImmediate(resolve));
          lastYield = performance.now();
          yielded += lastYield - before;
        }
        if (skippedSenders.has(ptx.senderHex)) continue;
        const left = blockMs - spent();
        if (buildMs !== Infinity && left <= 0) {
          cut = true;
          break;
        }
        // Gas pool rule (geth): the whole gas limit must fit in what the block has left.
        if (gasUsed + ptx.gasLimit > gasPool) {
          skippedSenders.add(ptx.senderHex);
          continue;
        }
        if (ptx.gasLimit > ctx.txGasLimit) {
          invalid.push({ ptx, reason: `transaction gas limit too high: gas ${ptx.gasLimit} exceeds the chain's per-transaction limit ${ctx.txGasLimit}` });
          skippedSenders.add(ptx.senderHex);
          continue;
        }
        const price = effectiveGasPrice(ptx);
        let outcome: TxOutcome;
        if (transfers && (await transfers.apply(ptx, price))) {
          outcome = { gasSpent: TRANSFER_GAS, status: 1, logs: [], bloom: EMPTY_BLOOM, created: null };
          this.transfersApplied++;
        } else {
          // runTx reads and writes the state manager: what the direct path holds goes there first
          await transfers?.flush();
          block ??= evmBlock(this.common, number, ctx.timestamp, ctx.coinbase, ctx.gasLimit);
          let result;
          // a checkpoint of its own, so that a transaction halted by the budget leaves no trace
          await this.state.checkpoint();
          // the block's time left bounds this one too
          const allowance = txMs < left ? txMs : left;
          // halted by the build time after others ran: it did not have the whole build time to itself
          const leftForLater = allowance < txMs && buildMs !== Infinity && included.length > 0;
          watch.limit({ budgetMs: allowance });
          try {
            result = await runTx(this.vm, { tx: ptx.tx, block, blockGasUsed: gasUsed, skipHardForkValidation: true, skipBlockGasLimitValidation: true });
          } catch (e) {
            await this.state.revert();
            evm.takeCreations();
            invalid.push({ ptx, reason: (e as Error).message.split(' (')[0]! });
            skippedSenders.add(ptx.senderHex);
            continue;
          } finally {
            watch.unlimit();
          }
          if (watch.expired) {
            await this.state.revert();
            evm.takeCreations();
            if (leftForLater) {
              // the build time ran out under it: sealed without it, it may fit a later block
              cut = true;
              break;
            }
            invalid.push({ ptx, reason: overBudgetReason(allowance, txMs, buildMs, verifyMs), overBudget: true });
            skippedSenders.add(ptx.senderHex);
            continue;
          }
          await this.state.commit();
          const r = result.receipt as { status: 0 | 1; logs: [Uint8Array, Uint8Array[], Uint8Array][] };
          outcome = { gasSpent: result.totalGasSpent, status: r.status, logs: r.logs, bloom: result.bloom.bitvector, created: result.createdAddress?.bytes ?? null };
        }
        gasUsed += outcome.gasSpent;
        receipts.push({
          status: outcome.status,
          gasUsed: outcome.gasSpent,
          cumulativeGasUsed: gasUsed,
          logs: outcome.logs,
          contractAddress: outcome.created,
          from: ptx.sender,
          to: ptx.to?.bytes ?? null,
          type: ptx.type,
          effectiveGasPrice: price,
        });
        blooms.push(outcome.bloom);
        for (const [addr, creator] of evm.takeCreations()) {
          creators.push([addr.bytes, creator.bytes]);
          evm.blockCreators.set(addr.toString(), creator.bytes);
        }
        included.push(ptx);
      }
      await transfers?.flush();
      await this.state.commit();
    } catch (e) {
      await this.state.revert();
      throw e;
    }
    const stateRoot = await this.state.getStateRoot();
    // read back from the state manager's cache (no trie walk): the pool's view after this block
    const accounts = new Map<string, { nonce: bigint; balance: bigint }>();
    const written = new Map<string, Account | undefined>();
    for (const [hex, address] of this.state.takeWritten()) {
      const a = await this.state.getAccount(address);
      accounts.set(hex, { nonce: a?.nonce ?? 0n, balance: a?.balance ?? 0n });
      written.set(hex, a);
    }
    // A contract created and then reverted by an outer frame never existed: keep only live code.
    const liveCreators: [Uint8Array, Uint8Array][] = [];
    for (const c of creators) if ((await this.state.getCode(new Address(c[0]))).length > 0) liveCreators.push(c);
    const header: Header = {
      parentHash: ctx.parentHash,
      sha3Uncles: EMPTY_UNCLES_HASH,
      miner: ctx.coinbase,
      stateRoot,
      transactionsRoot: orderedTrieRoot(included.map((t) => t.raw)),
      receiptsRoot: orderedTrieRoot(receipts.map((r, i) => encodeReceipt({ status: r.status, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: blooms[i]!, logs: r.logs }, r.type as 0))),
      logsBloom: orBlooms(blooms),
      difficulty: 1n,
      number,
      gasLimit: ctx.gasLimit,
      gasUsed,
      timestamp: ctx.timestamp,
      extraData: ctx.extraData,
      mixHash: ISTANBUL_DIGEST,
      nonce: new Uint8Array(8),
      baseFeePerGas: 0n,
    };
    this.uncommittedCreators.push({ root: stateRoot, creators: liveCreators });
    return { header, included, receipts, creators: liveCreators, invalid, cut, accounts, written };
  }

  /**
   * The live state as a read view, when the executor stands at `root` (between blocks: the block
   * importer asks for each block's rules on the state its parent left): its reads hit the caches of
   * the blocks executed before, where a new view walks the trie from the root. Only until the
   * executor runs again.
   */
  viewAt(root: Uint8Array): StateView | undefined {
    return this.state.isAt(root) ? new StateView(root, () => this.state) : undefined;
  }

  /** Undo a block that was executed but not committed: forget its trie writes and state. */
  async rollback(parentStateRoot: Uint8Array): Promise<void> {
    // the creators of the blocks after the parent go; a parent not among them left none pending
    // (a block that changes nothing leaves its parent's root: it created nothing, the last one counts)
    const pending = this.uncommittedCreators;
    let keep = pending.length;
    while (keep > 0 && !equalBytes(pending[keep - 1]!.root, parentStateRoot)) keep--;
    pending.length = keep;
    this.trieDb.discard();
    // the caches' unflushed writes go too: setStateRoot flushes first, and their tries' nodes were
    // just discarded (a refused block whose transactions created contracts failed here with
    // "missing trie node")
    this.state.clearCaches();
    await this.state.setStateRoot(parentStateRoot, true);
  }

  /** Stops the EVM's precompile thread. */
  close(): Promise<void> {
    return (this.vm.evm as EngineEVM).close();
  }
}

/** Why a transaction halted at `allowance` ms is left out: the bound that gave it that much. */
function overBudgetReason(allowance: number, txMs: number, buildMs: number, verifyMs: number): string {
  if (verifyMs !== Infinity && allowance < txMs) return `the block's execution passed the ${verifyMs} ms a proposal may take to verify (the round timeout)`;
  if (allowance < txMs) return `execution exceeded the proposer's block build time of ${buildMs} ms (--miner.buildtime)`;
  return `execution exceeded the proposer's time budget of ${txMs} ms (--miner.txtimeout)`;
}

/** What each unit of gas cost the sender: base fee (always 0) + min(tip, fee cap − base fee). */
export function effectiveGasPrice(ptx: PooledTx): bigint {
  return ptx.tipCap < ptx.gasPrice ? ptx.tipCap : ptx.gasPrice;
}

function orBlooms(blooms: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(256);
  // a transfer's bloom is EMPTY_BLOOM itself: nothing to add (0.9 % of a sync's event loop, N17)
  for (const b of blooms) if (b !== EMPTY_BLOOM) for (let i = 0; i < 256; i++) out[i] = out[i]! | b[i]!;
  return out;
}
