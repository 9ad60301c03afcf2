// Read-only execution for eth_call and eth_estimateGas, never touching the state the sealer is
// writing. View-like messages run on the view interpreter (src/exec/view-calls.ts, A17); the rest
// on an @ethereumjs VM of its own, one at a time: its journals are a stack, and two interleaved
// calls would revert each other's writes. Nothing a call does is kept.
import { runTx, type VM } from '@ethereumjs/vm';
import { createTx, createTxFromRLP, type AccessListBytes } from '@ethereumjs/tx';
import { EVMError, Message, type EVMResult, type InterpreterStep } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { OverlayTrieDB } from '../state/trie-db.ts';
import { newStateManager, ReadMemoStateManager, type CachedMerkleStateManager } from '../state/state-manager.ts';
import { createEvmVM, evmBlock, type ChainExecConfig } from './executor.ts';
import { makeTxCommon } from '../tx/common.ts';
import type { BlockHashSource } from './block-hashes.ts';
import { CallCache, callKey } from './call-cache.ts';
import { StateNeeded, ViewCalls } from './view-calls.ts';
import type { EngineEVM } from './engine-evm.ts';
import type { StateReader } from '../state/reader.ts';
import { ExecutionWatch } from './execution-watch.ts';
import { bytesToHex } from '../util/hex.ts';
import type { EvmTracer, TxEnd } from './tracer.ts';
import { CallError, CallTimeout, TraceTooLarge } from './call-errors.ts';
import { applyStateOverrides, type StateOverrides } from './state-override.ts';
import { simulateBlocks, type SimulatedBlock, type SimulatedBlockSpec, type SimulationOptions } from './simulate.ts';
import { checkInitCodeSize, DECODE_OPTIONS } from '../tx/init-code.ts';

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

/** What a message run on @ethereumjs does besides running (see runOnEvm). */
interface RunOptions {
  declared?: AccessMap;
  tracer?: EvmTracer;
  overrides?: StateOverrides;
}

export { CallError, CallTimeout, TraceTooLarge };

/** EIP-3529: a transaction's refund is at most a fifth of the gas it used. */
const MAX_REFUND_QUOTIENT = 5n;

/** The gas a transaction that spent `spent` is charged once its refund is taken off. */
export function gasAfterRefund(spent: bigint, refund: bigint): bigint {
  const cap = spent / MAX_REFUND_QUOTIENT;
  return spent - (refund < cap ? refund : cap);
}

/**
 * Hands the EVM's events to the tracer until the returned function detaches it (again: a no-op);
 * that function returns what a tracer's state-reading step threw (the EVM's emitter cannot carry it).
 */
function attach(vm: VM, tracer: EvmTracer): () => unknown {
  const evm = vm.evm as EngineEVM;
  let failure: unknown;
  // halted like an expired deadline, so every frame unwinds through @ethereumjs's own reverts
  const halt = () => {
    if (tracer.tooLarge !== undefined || failure !== undefined) evm.executionWatch.halt();
  };
  // the emitter awaits a listener that takes a second argument (its resolve) and no other
  const step = tracer.readsState
    ? (e: InterpreterStep, resolve?: () => void) => {
        (tracer.step!(e) as Promise<void>)
          .catch((err: unknown) => void (failure ??= err))
          .finally(() => {
            halt();
            resolve?.();
          });
      }
    : (e: InterpreterStep) => {
        tracer.step?.(e);
        halt();
      };
  const enter = (m: Message) => tracer.enter?.(m);
  const exit = (r: EVMResult) => tracer.exit?.(r);
  evm.events.on('step', step);
  evm.events.on('beforeMessage', enter);
  evm.events.on('afterMessage', exit);
  return () => {
    evm.events.off('step', step);
    evm.events.off('beforeMessage', enter);
    evm.events.off('afterMessage', exit);
    return failure;
  };
}

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
    /**
     * The chain's precompiles as the journal keys them (unprefixed lower-case hex), taken when the
     * EVM is made: a call with `movePrecompileToAddress` edits the EVM's table while it runs, and
     * requests outside the queue must not see that.
     */
    private readonly precompiles: readonly string[],
  ) {
    this.txCommon = makeTxCommon(common.chainId());
  }

  /** `fastViews: false` runs every message on @ethereumjs (the reference, for tests). */
  static async create(common: Common, trieDb: OverlayTrieDB, hashes: BlockHashSource, reader: StateReader, chain: ChainExecConfig, fastViews = true): Promise<CallRunner> {
    const state = newStateManager(trieDb, common, undefined, ReadMemoStateManager);
    const vm = await createEvmVM(common, state, hashes, chain);
    const evm = vm.evm as EngineEVM;
    const precompiles = [...evm.precompiles.keys()];
    const views = fastViews ? new ViewCalls(reader, common.chainId(), (code) => evm.claimedElsewhere(code), precompiles.map((address) => BigInt('0x' + address))) : undefined;
    return new CallRunner(common, state, vm, views, precompiles);
  }

  /**
   * Runs the message against the state at ctx.stateRoot and discards every change. Past
   * `deadline` (performance.now() ms) a message on @ethereumjs halts with CallTimeout; the view
   * interpreter runs synchronously, bounded by gas (~125 ms at the 50M cap). A call with state
   * overrides runs on @ethereumjs, past the view interpreter (which reads the real state) and the
   * result cache (whose key does not name them).
   */
  call(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline = Infinity, overrides?: StateOverrides): Promise<CallOutcome> {
    if (overrides !== undefined && overrides.length > 0) return this.queued(async () => (await this.runOnEvm(req, ctx, gasLimit, deadline, { overrides })).outcome);
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
  precompileAddresses(): readonly string[] {
    return this.precompiles;
  }

  /** Stops the EVM's precompile thread. */
  close(): Promise<void> {
    return (this.vm.evm as EngineEVM).close();
  }

  /** Runs `work` on the @ethereumjs VM once what was queued before it ends (one at a time, see above). */
  private queued<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private onEthereumjs(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline: number): Promise<CallOutcome> {
    return this.queued(async () => (await this.runOnEvm(req, ctx, gasLimit, deadline)).outcome);
  }

  /**
   * Runs the message on @ethereumjs (never the view interpreter, which records no accesses, nor
   * the result cache) as a transaction declaring `declared` as its EIP-2930 access list.
   */
  traceAccesses(req: CallRequest, ctx: CallContext, gasLimit: bigint, declared: AccessMap, deadline = Infinity): Promise<AccessTrace> {
    return this.queued(() => this.runOnEvm(req, ctx, gasLimit, deadline, { declared }));
  }

  /** Runs the message on @ethereumjs (never the view interpreter or the cache) with `tracer` recording it, after `overrides`. */
  traceCall(req: CallRequest, ctx: CallContext, gasLimit: bigint, tracer: EvmTracer, deadline = Infinity, overrides?: StateOverrides): Promise<AccessTrace> {
    return this.queued(() => this.runOnEvm(req, ctx, gasLimit, deadline, { tracer, overrides }));
  }

  /**
   * Replays a stored block's transactions (`raws`, signed, in block order, possibly the first few
   * only) on the state before the block, as the block executor ran them, and discards every change.
   * The transactions with a tracer are recorded, and their ends returned in order. Each
   * transaction has `timeoutMs` to run (geth's per-transaction trace timeout).
   */
  replay(ctx: CallContext, raws: readonly Uint8Array[], tracers: readonly (EvmTracer | undefined)[], timeoutMs: number): Promise<TxEnd[]> {
    return this.queued(() => this.replayNow(ctx, raws, tracers, timeoutMs));
  }

  /**
   * eth_simulateV1: runs the blocks on the state at base.stateRoot (src/exec/simulate.ts) inside
   * one checkpoint, reverted at the end, on this VM and its queue.
   */
  simulate(base: CallContext, baseHash: Uint8Array, blocks: readonly SimulatedBlockSpec[], options: SimulationOptions): Promise<SimulatedBlock[]> {
    return this.queued(async () => {
      if (performance.now() > options.deadline) throw new CallTimeout();
      await this.atRoot(base.stateRoot);
      await this.state.checkpoint();
      try {
        return await simulateBlocks(this.vm, this.state, this.common, this.txCommon, base, baseHash, blocks, options);
      } finally {
        await this.state.revert();
        (this.vm.evm as EngineEVM).takeCreations();
      }
    });
  }

  private async replayNow(ctx: CallContext, raws: readonly Uint8Array[], tracers: readonly (EvmTracer | undefined)[], timeoutMs: number): Promise<TxEnd[]> {
    await this.atRoot(ctx.stateRoot);
    const block = this.blockFor(ctx);
    const evm = this.vm.evm as EngineEVM;
    const watch = evm.executionWatch;
    const ends: TxEnd[] = [];
    let blockGasUsed = 0n;
    await this.state.checkpoint();
    try {
      for (let i = 0; i < raws.length; i++) {
        const tx = createTxFromRLP(raws[i]!, { common: this.txCommon, ...DECODE_OPTIONS });
        const tracer = tracers[i];
        await tracer?.start?.(this.state, [tx.getSenderAddress().bytes, ...(tx.to ? [tx.to.bytes] : []), ctx.coinbase]);
        const detach = tracer && attach(this.vm, tracer);
        watch.limit({ deadline: performance.now() + timeoutMs });
        let result;
        let failure: unknown;
        try {
          result = await runTx(this.vm, { tx, block, blockGasUsed, skipHardForkValidation: true, skipBlockGasLimitValidation: true });
        } finally {
          watch.unlimit();
          failure = detach?.();
        }
        if (failure !== undefined) throw failure;
        if (tracer?.tooLarge !== undefined) throw new TraceTooLarge(tracer.tooLarge);
        if (watch.expired) throw new CallTimeout();
        const created = evm.takeCreations().map(([address]) => address.bytes);
        await tracer?.end?.(this.state, created);
        blockGasUsed += result.totalGasSpent;
        const ex = result.execResult;
        if (tracer) ends.push({ gasUsed: result.totalGasSpent, gasLimit: tx.gasLimit, returnValue: ex.returnValue, error: ex.exceptionError?.error });
      }
      return ends;
    } finally {
      await this.state.revert();
      evm.takeCreations();
    }
  }

  /** Points the state manager at `root` (a no-op when it is there already: its caches stay warm). */
  private async atRoot(root: Uint8Array): Promise<void> {
    if (this.root === undefined || Buffer.compare(this.root, root) !== 0) {
      await this.state.setStateRoot(root, true);
      this.root = root;
    }
  }

  private blockFor(ctx: CallContext): ReturnType<typeof evmBlock> {
    const key = `${ctx.number}:${ctx.timestamp}:${ctx.gasLimit}:${bytesToHex(ctx.coinbase)}`;
    if (this.block?.key !== key) this.block = { key, block: evmBlock(this.common, ctx.number, ctx.timestamp, ctx.coinbase, ctx.gasLimit) };
    return this.block.block;
  }

  /**
   * With `declared`, the journal reports what the message accesses (its own record, kept for
   * EIP-2929 gas anyway); with `tracer`, the tracer records the execution; `overrides` are
   * written inside the message's checkpoint, so its revert removes them.
   */
  private async runOnEvm(req: CallRequest, ctx: CallContext, gasLimit: bigint, deadline: number, { declared, tracer, overrides }: RunOptions = {}): Promise<AccessTrace> {
    // its time ran out while calls before it ran
    if (performance.now() > deadline) throw new CallTimeout();
    await this.atRoot(ctx.stateRoot);
    const block = this.blockFor(ctx);
    const evm = this.vm.evm as EngineEVM;
    const watch = evm.executionWatch;
    await evm.journal.checkpoint();
    let restorePrecompiles: (() => void) | undefined;
    let detach: (() => unknown) | undefined;
    try {
      if (overrides) restorePrecompiles = await applyStateOverrides(overrides, this.state, evm);
      this.warmAsTransaction(req, ctx, declared);
      const from = req.from ?? new Uint8Array(20);
      await tracer?.start?.(this.state, [from, ...(req.to ? [req.to] : []), ctx.coinbase]);
      detach = tracer && attach(this.vm, tracer);
      watch.limit({ deadline });
      const value = req.value ?? 0n;
      // A creation whose value the sender cannot pay: @ethereumjs throws out of runCall with its own
      // checkpoint open, after raising the sender's nonce (it returns the same halt for a call). It
      // is never run, and fails as such a call does; the leaked checkpoint had kept the raised nonce
      // for every later call on this state (found by the RPC fuzzer: a block replay then refused a
      // nonce, eth_estimateGas and others answered internal errors).
      const halted = !req.to && value > 0n && ((await this.state.getAccount(new Address(from)))?.balance ?? 0n) < value;
      let res: EVMResult;
      if (halted) {
        res = { execResult: { returnValue: new Uint8Array(0), executionGasUsed: 0n, exceptionError: new EVMError(EVMError.errorMessages.INSUFFICIENT_BALANCE) } };
        // the tracer sees the failed frame the EVM's events would have shown (callTracer answers one)
        tracer?.enter?.(new Message({ caller: new Address(from), value, data: req.data ?? new Uint8Array(0), gasLimit, depth: 0 }));
        tracer?.exit?.(res);
      } else {
        res = await evm.runCall({
          block,
          caller: new Address(from),
          origin: new Address(from),
          to: req.to ? new Address(req.to) : undefined,
          data: req.data ?? new Uint8Array(0),
          value,
          gasLimit,
          gasPrice: req.gasPrice ?? 0n,
        });
      }
      const failure = detach?.();
      if (failure !== undefined) throw failure;
      if (tracer?.tooLarge !== undefined) throw new TraceTooLarge(tracer.tooLarge);
      if (watch.expired) throw new CallTimeout();
      await tracer?.end?.(this.state, evm.takeCreations().map(([address]) => address.bytes));
      const ex = res.execResult;
      return {
        outcome: {
          success: ex.exceptionError === undefined,
          returnValue: ex.returnValue,
          executionGasUsed: ex.executionGasUsed,
          error: ex.exceptionError?.error,
        },
        // a message never run accessed nothing (its would-be created address, reported, would never let createAccessList's search settle)
        accessed: (!halted && evm.journal.accessList) || new Map(),
        gasRefund: ex.gasRefund ?? 0n,
        created: res.createdAddress?.bytes,
      };
    } finally {
      detach?.();
      watch.unlimit();
      restorePrecompiles?.();
      await evm.journal.revert();
      evm.takeCreations();
      // the always-warm set outlives reverts: leave none of this run's behind
      evm.journal.cleanJournal();
      delete evm.journal.accessList;
    }
  }

  /**
   * What runTx warms before a transaction runs (EIP-2929: sender, recipient and precompiles;
   * EIP-3651: coinbase), so a call uses the gas the transaction would (geth's eth_call warms them
   * too); with `declared`, those stay outside the reported list and the declared list goes inside it.
   */
  private warmAsTransaction(req: CallRequest, ctx: CallContext, declared?: AccessMap): void {
    const journal = this.vm.evm.journal;
    if (declared) journal.startReportingAccessList();
    for (const address of this.precompileAddresses()) journal.addAlwaysWarmAddress(address);
    for (const address of [req.from ?? new Uint8Array(20), req.to, ctx.coinbase]) if (address) journal.addAlwaysWarmAddress(bytesToHex(address));
    if (!declared) return;
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
    const tx = createTx(accessList ? { ...fields, type: 1, accessList } : fields, { common: this.txCommon, ...DECODE_OPTIONS });
    checkInitCodeSize(tx);
    return { intrinsic: tx.getIntrinsicGas(), minimum: tx.getMinimumGasLimit() };
  }

  /**
   * Smallest gas limit with which the message succeeds: a binary search over execution gas, first
   * probing the gas the unbounded run used plus the 63/64 headroom (geth's shortcut).
   * Returns the failing outcome when even `cap` fails. The whole search ends by `deadline`.
   */
  async estimate(req: CallRequest, ctx: CallContext, cap: bigint, deadline = Infinity, overrides?: StateOverrides): Promise<{ gas: bigint } | { failure: CallOutcome }> {
    const { intrinsic, minimum } = this.txGas(req);
    if (cap < minimum) throw new CallError(`gas required exceeds allowance (${cap})`);
    // probes the view interpreter answers settle through microtasks only: without a look between
    // them the ~20 probes of a search held the event loop back to back
    const pace = new ExecutionWatch();
    pace.limit({ deadline });
    const succeeds = async (gas: bigint) => {
      if (!(await pace.look())) throw new CallTimeout();
      return (await this.call(req, ctx, gas, deadline, overrides)).success;
    };
    const top = await this.call(req, ctx, cap - intrinsic, deadline, overrides);
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
