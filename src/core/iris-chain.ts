// The chain as the iris engine sees it (src/consensus/iris/ports.ts), over the core: proposals are
// built and checked by the chain's one writer (src/core/block-import.ts) so they never interleave
// with a sync's imports, and a decided block is committed there with its seals.
import type { HeadInfo } from '../chain/chain.ts';
import { decodeBlock, encodeBlock } from '../chain/block-codec.ts';
import type { BlockImport, Candidate } from './block-import.ts';
import type { BlockExecutor } from '../exec/executor.ts';
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
  /** --miner.txtimeout: a proposal leaves out transactions slower than this */
  txBudgetMs: number;
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

  hashOf(encoded: Uint8Array): Uint8Array {
    return decodeBlock(encoded).hash;
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
    const { executor, pool, key, period, txBudgetMs } = this.o;
    const kept = await this.o.writer.buildProposal(async (head) => {
      const rules = await this.o.rules(head);
      const { header, hash, built } = await buildBlock(executor, head, rules, [...pool.executable()], key, period, txBudgetMs);
      if (built.included.length === 0 && !(period > 0 && rules.produceEmpty)) {
        await executor.rollback(head.header.stateRoot);
        return undefined;
      }
      const txs = built.included;
      return { block: { hash, header, txs: txs.map((t) => t.raw), senders: txs.map((t) => t.sender), txHashes: txs.map((t) => t.hash) }, built };
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
