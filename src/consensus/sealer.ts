// Single-validator istanbul sealing. With `period` > 0 a block every `period` seconds (empty ones
// only with --seal.empty); with `period` 0 a block as soon as executable transactions wait, all of
// them in one block. Blocks carry the istanbul extra with the proposer seal and this validator's
// committed seal, exactly as the multi-node BFT will produce them.
import type { Account } from '@ethereumjs/util';
import type { Chain, HeadInfo } from '../chain/chain.ts';
import type { BlockRecord } from '../chain/types.ts';
import type { BlockExecutor, ExecutedBlock } from '../exec/executor.ts';
import { OverBudgetDrops } from '../txpool/over-budget.ts';
import type { TxPool } from '../txpool/pool.ts';
import type { NodeKey } from '../crypto/node-key.ts';
import type { ChainEvents } from '../chain/events.ts';
import type { Logger } from '../util/logger.ts';
import { bytesToHex, equalBytes } from '../util/hex.ts';
import { buildBlock, withCommittedSeals } from './block-builder.ts';
import { committedSeal } from './seals.ts';
import type { BlockRulesSource } from './block-rules.ts';

export interface SealerOptions {
  chain: Chain;
  executor: BlockExecutor;
  pool: TxPool;
  key: NodeKey;
  events: ChainEvents;
  period: number;
  /** the validator set, gas limits and empty-block rule of the block on a parent */
  rules: BlockRulesSource;
  /** most execution time one transaction may take in a block this node proposes (--miner.txtimeout); slower ones are dropped */
  txBudgetMs: number;
  /** called after each committed block, before events fan out (state readers move their head; `written`: the accounts the block wrote) */
  onCommitted: (block: BlockRecord, written: ReadonlyMap<string, Account | undefined>) => void;
  log: Logger;
}

export class Sealer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private wanted = false;
  /** the next block's validator set is not this node alone (aloneInSet) */
  private paused = false;
  private stopped = false;
  /** the last sealed block; ahead of the chain head while its commit is in flight */
  private tip: HeadInfo | undefined;
  /** commit and announcement of the tip (commits run in block order, one behind execution) */
  private committing: Promise<void> = Promise.resolve();
  /** commit of the block before the tip: a new block waits for it, so at most one commit is in flight */
  private settled: Promise<void> = Promise.resolve();
  /** hashes of transactions in the block being committed: not offered to the next block */
  private readonly inFlight = new Set<string>();
  /** transactions dropped for the time budget, which admission refuses when they come back */
  readonly overBudget: OverBudgetDrops;

  constructor(private readonly o: SealerOptions) {
    this.overBudget = new OverBudgetDrops(o.txBudgetMs);
  }

  start(): void {
    if (this.o.period === 0) {
      this.o.pool.onPending(() => this.trigger());
      if (this.o.pool.pendingCount > 0) this.trigger();
    } else {
      this.schedule();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.committing;
  }

  /**
   * Next block at parent timestamp + period; when that moment has passed without a block (nothing
   * was pending), the next look is one period from now rather than at once, so an idle node whose
   * head is old does not spin.
   */
  private schedule(idle = false): void {
    if (this.stopped) return;
    const parentTs = Number(this.parent().header.timestamp) * 1000;
    const periodMs = this.o.period * 1000;
    const delay = idle ? periodMs : Math.max(0, parentTs + periodMs - Date.now());
    this.timer = setTimeout(() => this.trigger(), delay);
  }

  /**
   * Seal soon; coalesces triggers that arrive while a block is being built. The loop starts on a
   * later turn, never inside the caller (pool listeners fire in the middle of pool updates).
   */
  trigger(): void {
    if (this.stopped) return;
    this.wanted = true;
    if (this.running) return;
    this.running = (async () => {
      await new Promise((resolve) => setImmediate(resolve));
      let progressed = false;
      while (this.wanted && !this.stopped) {
        this.wanted = false;
        progressed = false;
        try {
          progressed = await this.sealOnce();
        } catch (e) {
          this.o.log.error(`sealing failed: ${(e as Error).stack ?? e}`);
        }
        if (progressed && this.o.period === 0 && this.o.pool.pendingCount > this.inFlight.size) this.wanted = true;
      }
      this.running = undefined;
      if (this.o.period > 0) this.schedule(!progressed);
    })();
  }

  /**
   * Builds and seals one block on top of the tip and starts its commit without waiting for it:
   * the next block executes while this one's LMDB commit runs on the write thread (a small block
   * commits synchronously instead, Chain.commitBlock). Returns false when there was nothing to do.
   */
  private async sealOnce(): Promise<boolean> {
    const { chain, executor, pool, key } = this.o;
    // Executing ahead of more than one commit piles up blocks whose trie nodes live only in memory
    // (every trie read scans them) and splits the load into small blocks that each pay the
    // per-block costs: wait, and let the transactions arriving meanwhile join this block
    // (measured, 10,000 transfers at period 0: ~2,100–2,200 tx/s unbounded, 2,300–2,900 waiting).
    await this.settled;
    const parent = this.parent();
    const rules = await this.o.rules(parent);
    // asked first: every node runs a sealer, and one that does not seal alone (a follower, an iris
    // validator) must not copy the pool at each cue
    if (!this.aloneInSet(rules.validators, parent.header.number + 1n)) return false;
    const txs = [...pool.executable()].filter((t) => !this.inFlight.has(t.hashHex));
    const sealEmpty = this.o.period > 0 && rules.produceEmpty;
    if (txs.length === 0 && !sealEmpty) return false;
    // the head moved without this sealer (the iris engine or an import wrote it while the set was
    // larger than this node): build on the head's state, whatever the executor last ran. Only now:
    // while the set is larger, the executor holds the iris engine's candidate, not this sealer's
    if (this.tip === undefined || !equalBytes(parent.hash, this.tip.hash)) await executor.rollback(parent.header.stateRoot);
    const t0 = performance.now();
    // `txs` is a snapshot: transactions admitted while this block executes wait for the next one
    const { header: proposed, hash, built } = await buildBlock(executor, parent, rules, txs, key, this.o.period, this.o.txBudgetMs);
    if (built.included.length === 0 && !sealEmpty) {
      await executor.rollback(parent.header.stateRoot);
      await this.committing;
      await pool.onBlock([], built.invalid.map((i) => i.ptx));
      this.dropped(built.invalid);
      return built.invalid.length > 0;
    }
    const header = withCommittedSeals(proposed, [committedSeal(hash, key.privateKey)]);
    const block: BlockRecord = { hash, header, txs: built.included.map((t) => t.raw), senders: built.included.map((t) => t.sender), txHashes: built.included.map((t) => t.hash) };
    const trieNodes = executor.trieDb.seal();
    const executedMs = performance.now() - t0;
    this.tip = { hash, header };
    for (const t of built.included) this.inFlight.add(t.hashHex);
    const previous = this.committing;
    this.settled = previous;
    this.committing = (async () => {
      await previous;
      const t1 = performance.now();
      try {
        await chain.commitBlock(block, built.receipts, executor.trieDb, trieNodes, built.creators);
      } catch (e) {
        // the executed state is now ahead of what is on disk: stop rather than build on it
        this.stopped = true;
        this.o.log.error(`block #${header.number} could not be committed; sealing stopped: ${(e as Error).message}`, { number: header.number });
        return;
      }
      const commitMs = performance.now() - t1;
      this.o.onCommitted(block, built.written);
      await pool.onBlock(built.included, built.invalid.map((i) => i.ptx), built.accounts);
      for (const t of built.included) this.inFlight.delete(t.hashHex);
      this.dropped(built.invalid);
      this.o.events.emitBlock({ block, receipts: built.receipts });
      this.o.log.debug(`sealed block #${header.number}: ${block.txs.length} txs, execute ${executedMs.toFixed(1)} ms, commit ${commitMs.toFixed(1)} ms`, { number: header.number, hash: block.hash, txs: block.txs.length });
    })();
    return true;
  }

  /** The block to build on: the tip while its commit is in flight, else the head (which others may have moved). */
  private parent(): HeadInfo {
    const head = this.o.chain.head;
    return this.tip && this.tip.header.number > head.header.number ? this.tip : head;
  }

  /**
   * Whether this node alone is the validator set of block `number`: a lone node cannot reach the
   * quorum of a larger set (nor seal for a set without it), so it pauses until the set is itself
   * again. The set follows the chain's state, so only blocks from other validators can shrink it:
   * they come with the network and the multi-validator consensus. Logs each change once.
   */
  private aloneInSet(validators: readonly Uint8Array[], number: bigint): boolean {
    const alone = validators.length === 1 && equalBytes(validators[0]!, this.o.key.address);
    if (alone === this.paused) {
      this.paused = !alone;
      const why = validators.some((v) => equalBytes(v, this.o.key.address)) ? 'this node alone cannot reach its quorum' : 'this node is not in it';
      this.o.log.info(
        alone
          ? `the validator set of block #${number} is this node alone again: sealing resumed`
          : `the validator set of block #${number} is ${validators.map(bytesToHex).join(', ')}: ${why}, sealing paused`,
        { number },
      );
    }
    return alone;
  }

  private dropped(invalid: ExecutedBlock['invalid']): void {
    for (const i of invalid) {
      if (i.overBudget) this.overBudget.remember(i.ptx.hashHex);
      this.o.log.warn(`dropped ${i.ptx.hashHex}: ${i.reason}`, { tx: i.ptx.hashHex });
    }
  }
}
