// Read-only execution for eth_call and eth_estimateGas, never touching the state the sealer is
// writing. View-like messages run on the view interpreter (src/exec/view-calls.ts, A17); the rest
// on an @ethereumjs VM of its own, one at a time: its journals are a stack, and two interleaved
// calls would revert each other's writes. Nothing a call does is kept.
import type { VM } from '@ethereumjs/vm';
import { createTx } from '@ethereumjs/tx';
import { Address } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { OverlayTrieDB } from '../state/trie-db.ts';
import { newStateManager, ReadMemoStateManager, type CachedMerkleStateManager } from '../state/state-manager.ts';
import { createEvmVM, evmBlock } from './executor.ts';
import { makeTxCommon } from './common.ts';
import type { BlockHashSource } from './block-hashes.ts';
import { CallCache, callKey } from './call-cache.ts';
import { StateNeeded, ViewCalls } from './view-calls.ts';
import type { EngineEVM } from './engine-evm.ts';
import type { StateReader } from '../state/reader.ts';
import { ExecutionWatch } from './execution-watch.ts';

export interface CallRequest {
  from?: Uint8Array;
  to?: Uint8Array;
  gas?: bigint;
  gasPrice?: bigint;
  value?: bigint;
  data?: Uint8Array;
}

export interface CallContext {
  stateRoot: Uint8Array;
  number: bigint;
  timestamp: bigint;
  coinbase: Uint8Array;
  gasLimit: bigint;
}

export interface CallOutcome {
  success: boolean;
  returnValue: Uint8Array;
  /** gas used by execution (no intrinsic gas) */
  executionGasUsed: bigint;
  /** error name from the EVM when !success (e.g. 'revert', 'out of gas') */
  error?: string;
}

export class CallError extends Error {}

/** The call's deadline (--rpc.evmtimeout) passed before it finished; the API names the timeout. */
export class CallTimeout extends CallError {}

export class CallRunner {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly results = new CallCache();
  private root: Uint8Array | undefined;
  /** @ethereumjs Block for the last call context: building one copies a Common (~100 µs) */
  private block: { key: string; block: ReturnType<typeof evmBlock> } | undefined;

  private readonly txCommon: Common;

  private constructor(
    private readonly common: Common,
    private readonly state: CachedMerkleStateManager,
    private readonly vm: VM,
    /** the view interpreter's fast path (A17); undefined runs every message on @ethereumjs */
    readonly views: ViewCalls | undefined,
  ) {
    this.txCommon = makeTxCommon(common.chainId());
  }

  /** `fastViews: false` runs every message on @ethereumjs (the reference, for tests). */
  static async create(common: Common, trieDb: OverlayTrieDB, hashes: BlockHashSource, reader: StateReader, chainTxGasLimit: bigint, fastViews = true): Promise<CallRunner> {
    const state = newStateManager(trieDb, common, undefined, ReadMemoStateManager);
    const vm = await createEvmVM(common, state, hashes, chainTxGasLimit);
    const evm = vm.evm as EngineEVM;
    const views = fastViews ? new ViewCalls(reader, common.chainId(), (code) => evm.claimedElsewhere(code)) : undefined;
    return new CallRunner(common, state, vm, views);
  }

  /**
   * Runs the message against the state at ctx.stateRoot and discards every change. Past
   * `deadline` (performance.now() ms) a message on @ethereumjs halts with CallTimeout; the view
   * interpreter runs synchronously, bounded by gas (~125 ms at the 50M cap).
   */
  call(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline = Infinity): Promise<CallOutcome> {
    const views = this.views;
    if (views !== undefined) {
      // the interpreter answers before the result cache: running a view is as cheap as its key
      const fast = views.tryCall(req, ctx, gasLimit);
      if (fast instanceof StateNeeded) return views.complete(fast, req, ctx, gasLimit).then((answer) => answer ?? this.cachedOrEthereumjs(req, ctx, gasLimit, deadline));
      if (fast !== undefined) return Promise.resolve(fast);
    }
    return this.cachedOrEthereumjs(req, ctx, gasLimit, deadline);
  }

  private cachedOrEthereumjs(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline: number): Promise<CallOutcome> {
    const key = callKey(req, ctx, gasLimit);
    const hit = this.results.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    return this.onEthereumjs(req, ctx, gasLimit, deadline).then((outcome) => {
      this.results.set(key, outcome);
      return outcome;
    });
  }

  /** Stops the EVM's precompile thread. */
  close(): Promise<void> {
    return (this.vm.evm as EngineEVM).close();
  }

  /** Queues the message for the @ethereumjs VM (one at a time, see above). */
  private onEthereumjs(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline: number): Promise<CallOutcome> {
    const run = this.queue.then(() => this.runNow(req, ctx, gasLimit, deadline));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async runNow(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline: number): Promise<CallOutcome> {
    // its time ran out while calls before it ran
    if (performance.now() > deadline) throw new CallTimeout();
    if (this.root === undefined || Buffer.compare(this.root, ctx.stateRoot) !== 0) {
      await this.state.setStateRoot(ctx.stateRoot, true);
      this.root = ctx.stateRoot;
    }
    const key = `${ctx.number}:${ctx.timestamp}:${ctx.gasLimit}`;
    if (this.block?.key !== key) this.block = { key, block: evmBlock(this.common, ctx.number, ctx.timestamp, ctx.coinbase, ctx.gasLimit) };
    const evm = this.vm.evm as EngineEVM;
    const watch = evm.executionWatch;
    await evm.journal.checkpoint();
    watch.limit({ deadline });
    try {
      const res = await evm.runCall({
        block: this.block.block,
        caller: new Address(req.from ?? new Uint8Array(20)),
        origin: new Address(req.from ?? new Uint8Array(20)),
        to: req.to ? new Address(req.to) : undefined,
        data: req.data ?? new Uint8Array(0),
        value: req.value ?? 0n,
        gasLimit,
        gasPrice: req.gasPrice ?? 0n,
      });
      if (watch.expired) throw new CallTimeout();
      const ex = res.execResult;
      return {
        success: ex.exceptionError === undefined,
        returnValue: ex.returnValue,
        executionGasUsed: ex.executionGasUsed,
        error: ex.exceptionError?.error,
      };
    } finally {
      watch.unlimit();
      await evm.journal.revert();
      evm.takeCreations();
    }
  }

  /**
   * The intrinsic gas of a transaction carrying this message, and the least gas limit such a
   * transaction may have (the intrinsic gas or EIP-7623's calldata floor, whichever is higher).
   */
  txGas(req: CallRequest): { intrinsic: bigint; minimum: bigint } {
    // on the shared transaction Common: with the VM's own, createTx deep-copies it (~120 µs)
    const tx = createTx({ to: req.to, data: req.data, value: req.value, gasLimit: 2n ** 60n }, { common: this.txCommon });
    return { intrinsic: tx.getIntrinsicGas(), minimum: tx.getMinimumGasLimit() };
  }

  /**
   * Smallest gas limit with which the message succeeds: a binary search over execution gas, first
   * probing the gas the unbounded run used plus the 63/64 headroom (geth's shortcut).
   * Returns the failing outcome when even `cap` fails. The whole search ends by `deadline`.
   */
  async estimate(req: CallRequest, ctx: CallContext, cap: bigint, deadline = Infinity): Promise<{ gas: bigint } | { failure: CallOutcome }> {
    const { intrinsic, minimum } = this.txGas(req);
    if (cap < minimum) throw new CallError(`gas required exceeds allowance (${cap})`);
    // probes the view interpreter answers settle through microtasks only: without a look between
    // them the ~20 probes of a search held the event loop back to back
    const pace = new ExecutionWatch();
    pace.limit({ deadline });
    const succeeds = async (gas: bigint) => {
      if (!(await pace.look())) throw new CallTimeout();
      return (await this.call(req, ctx, gas, deadline)).success;
    };
    const top = await this.call(req, ctx, cap - intrinsic, deadline);
    if (!top.success) return { failure: top };
    let lo = top.executionGasUsed - 1n;
    let hi = cap - intrinsic;
    const optimistic = ((top.executionGasUsed + 2300n) * 64n) / 63n;
    if (optimistic < hi) {
      if (await succeeds(optimistic)) hi = optimistic;
      else lo = optimistic;
    }
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n;
      if (await succeeds(mid)) hi = mid;
      else lo = mid;
    }
    const gas = intrinsic + hi;
    return { gas: gas > minimum ? gas : minimum };
  }
}
