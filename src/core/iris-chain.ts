// The chain as the iris engine sees it (src/consensus/iris/ports.ts), over the core: proposals are
// built and checked by the chain's one writer (src/core/block-import.ts) so they never interleave
// with a sync's imports, and a decided block is committed there with its seals.
import type { HeadInfo } from '../chain/chain.ts';
import { decodeBlock, encodeBlock } from '../chain/block-codec.ts';
import type { BlockImport, Candidate } from './block-import.ts';
import type { BlockExecutor, ExecutedBlock, ExecutionBudget } from '../exec/executor.ts';
import type { TxPool } from '../txpool/pool.ts';
import type { ChainEvents } from '../chain/events.ts';
import type { NodeKey } from '../crypto/node-key.ts';
import type { Chain } from '../chain/chain.ts';
import type { BlockRules } from '../consensus/block-rules.ts';
import { buildBlock } from '../consensus/block-builder.ts';
import { ProposalRefused, type IrisChain, type Proposal } from '../consensus/iris/ports.ts';

export interface CoreIrisChainOptions {
  chain: Chain;
  executor: BlockExecutor;
  pool: TxPool;
  events: ChainEvents;
  writer: BlockImport;
  key: NodeKey;
  /** the rules of the block on a parent (ChainCore.blockRules with --seal.empty) */
  rules: (parent: HeadInfo) => Promise<BlockRules>;
  /** istanbul.period (seconds) */
  period: number;
  /** --miner.txtimeout and --miner.buildtime: a proposal leaves out transactions slower than the one and stops at the other */
  budget: Pick<ExecutionBudget, 'txMs' | 'buildMs'>;
  /** transactions a proposal left out as invalid: dropped from the pool at once (a proposal may never be decided, S13) */
  onDropped: (invalid: ExecutedBlock['invalid']) => Promise<void>;
}

function proposalOf(c: Candidate): Proposal {
  const { header, hash, txs } = c.block;
  return { number: header.number, hash, encoded: encodeBlock(header, txs), proposer: header.miner };
}

export class CoreIrisChain implements IrisChain {
  constructor(private readonly o: CoreIrisChainOptions) {}

  head(): HeadInfo {
    return this.o.chain.head;
  }

  proposalOf(encoded: Uint8Array): Proposal {
    const { header, hash } = decodeBlock(encoded);
    return { number: header.number, hash, encoded, proposer: header.miner };
  }

  onHead(listener: (head: HeadInfo) => void): void {
    this.o.events.onBlock(() => listener(this.o.chain.head));
  }

  async validatorsAfter(parent: HeadInfo): Promise<Uint8Array[]> {
    return (await this.o.rules(parent)).validators;
  }

  async hasWork(): Promise<boolean> {
    return this.o.pool.pendingCount > 0 || (this.o.period > 0 && (await this.o.rules(this.o.chain.head)).produceEmpty);
  }

  onWork(listener: () => void): void {
    this.o.pool.onPending(() => listener());
  }

  async build(): Promise<Proposal | undefined> {
    const { executor, pool, key, period, budget } = this.o;
    const kept = await this.o.writer.buildProposal(async (head) => {
      const rules = await this.o.rules(head);
      // a build that only dropped transactions is tried once more on what is left: the engine
      // proposes again only on new work or in the next round (a round timeout per dropped loop)
      for (let attempt = 0; ; attempt++) {
        const { header, hash, built } = await buildBlock(executor, head, rules, [...pool.executable()], key, period, budget);
        // left out now: were they kept until a commit, every round's proposal would run them again
        await this.o.onDropped(built.invalid);
        if (built.included.length > 0 || (period > 0 && rules.produceEmpty)) {
          const txs = built.included;
          return { block: { hash, header, txs: txs.map((t) => t.raw), senders: txs.map((t) => t.sender), txHashes: txs.map((t) => t.hash) }, built };
        }
        await executor.rollback(head.header.stateRoot);
        if (attempt === 1 || built.invalid.length === 0 || pool.pendingCount === 0) return undefined;
      }
    });
    return kept && proposalOf(kept);
  }

  async verify(encoded: Uint8Array): Promise<Proposal> {
    try {
      return proposalOf(await this.o.writer.verifyProposal(encoded));
    } catch (e) {
      throw new ProposalRefused((e as Error).message);
    }
  }

  commit(proposal: Proposal, committedSeals: Uint8Array[]): Promise<void> {
    return this.o.writer.commitDecided(proposal.hash, proposal.encoded, committedSeals);
  }
}
