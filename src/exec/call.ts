// Read-only execution for eth_call and eth_estimateGas, never touching the state the sealer is
// writing. View-like messages run on the view interpreter (src/exec/view-calls.ts, A17); the rest
// on an @ethereumjs VM of its own, one at a time: its journals are a stack, and two interleaved
// calls would revert each other's writes. Nothing a call does is kept.
import type { VM } from '@ethereumjs/vm';
import { createTx, type AccessListBytes } from '@ethereumjs/tx';
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
import { bytesToHex } from '../util/hex.ts';

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

/** Addresses → storage slots, as unprefixed lower-case hex (how the EVM's journal keys them). */
export type AccessMap = Map<string, Set<string>>;

/** A message run as a transaction declaring an access list would run, and what it accessed. */
export interface AccessTrace {
  outcome: CallOutcome;
  /** every address and slot the message warmed, the declared ones included */
  accessed: AccessMap;
  /** the refund the transaction would get (before EIP-3529's cap) */
  gasRefund: bigint;
  /** the new contract's address, for a creation */
  created?: Uint8Array;
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

  /** The precompiles' addresses, as the journal keys them (unprefixed lower-case hex). */
  precompileAddresses(): string[] {
    return [...this.vm.evm.precompiles.keys()];
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

  /**
   * Runs the message on @ethereumjs (never the view interpreter, which records no accesses, nor
   * the result cache) as a transaction declaring `declared` as its EIP-2930 access list.
   */
  traceAccesses(req: CallRequest, ctx: CallContext, gasLimit: bigint, declared: AccessMap, deadline = Infinity): Promise<AccessTrace> {
    const run = this.queue.then(() => this.runOnEvm(req, ctx, gasLimit, deadline, declared));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async runNow(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline: number): Promise<CallOutcome> {
    return (await this.runOnEvm(req, ctx, gasLimit, deadline)).outcome;
  }

  /** With `declared`, the journal reports what the message accesses (its own record, kept for EIP-2929 gas anyway). */
  private async runOnEvm(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline: number, declared?: AccessMap): Promise<AccessTrace> {
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
    if (declared) this.warmAsTransaction(req, ctx, declared);
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
        outcome: {
          success: ex.exceptionError === undefined,
          returnValue: ex.returnValue,
          executionGasUsed: ex.executionGasUsed,
          error: ex.exceptionError?.error,
        },
        accessed: evm.journal.accessList ?? new Map(),
        gasRefund: ex.gasRefund ?? 0n,
        created: res.createdAddress?.bytes,
      };
    } finally {
      watch.unlimit();
      await evm.journal.revert();
      evm.takeCreations();
      if (declared) {
        // the always-warm set outlives reverts: leave none of this run's behind
        evm.journal.cleanJournal();
        delete evm.journal.accessList;
      }
    }
  }

  /**
   * What runTx warms before a transaction runs (EIP-2929: sender, recipient and precompiles;
   * EIP-3651: coinbase), outside the reported list, then the declared list, inside it.
   */
  private warmAsTransaction(req: CallRequest, ctx: CallContext, declared: AccessMap): void {
    const journal = this.vm.evm.journal;
    journal.startReportingAccessList();
    for (const address of this.precompileAddresses()) journal.addAlwaysWarmAddress(address);
    for (const address of [req.from ?? new Uint8Array(20), req.to, ctx.coinbase]) if (address) journal.addAlwaysWarmAddress(bytesToHex(address));
    for (const [address, slots] of declared) {
      journal.addAlwaysWarmAddress(address, true);
      for (const slot of slots) journal.addAlwaysWarmSlot(address, slot, true);
    }
  }

  /**
   * The intrinsic gas of a transaction carrying this message (with `accessList`: an EIP-2930 one,
   * which pays for the list), and the least gas limit such a transaction may have (the intrinsic
   * gas or EIP-7623's calldata floor, whichever is higher).
   */
  txGas(req: CallRequest, accessList?: AccessListBytes): { intrinsic: bigint; minimum: bigint } {
    // on the shared transaction Common: with the VM's own, createTx deep-copies it (~120 µs)
    const fields = { to: req.to, data: req.data, value: req.value, gasLimit: 2n ** 60n };
    const tx = createTx(accessList ? { ...fields, type: 1, accessList } : fields, { common: this.txCommon });
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
