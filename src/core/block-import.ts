// Blocks from peers onto the chain: each is checked against the istanbul rules
// (src/consensus/block-verify.ts), executed on its parent's state, must reproduce its header
// exactly (state, transactions and receipts roots, bloom, gas used…), and is then committed as the
// sealer commits its own. One batch runs as a pipeline: the senders and seals of every block are
// recovered from the start (on the recovery threads when the node has them) while blocks execute in
// order, and what executed while the previous commit ran commits next, in one LMDB transaction.
//
// The chain has one writer: a node that seals alone does not import (with one validator only it
// seals, followers import); everything else that writes runs here, one step at a time: the sync's
// chunks, gossiped blocks, and the iris engine's steps (a proposal executed — this node's own or a
// peer's — kept as the candidate until the validators decide it, then committed with their seals).
import type { Common } from '@ethereumjs/common';
import type { Account } from '@ethereumjs/util';
import type { Chain, CommittableBlock, HeadInfo } from '../chain/chain.ts';
import type { BlockRecord } from '../chain/types.ts';
import { decodeBlock, type WireBlock } from '../chain/block-codec.ts';
import type { Header } from '../chain/header.ts';
import type { BlockExecutor, ExecutedBlock } from '../exec/executor.ts';
import type { StateReader } from '../state/reader.ts';
import type { TxPool } from '../txpool/pool.ts';
import { pooledFromFacts, type PooledTx } from '../tx/pooled-tx.ts';
import type { SignatureRecovery } from '../tx/signature-recovery.ts';
import type { ChainEvents } from '../chain/events.ts';
import type { BlockRulesSource } from '../consensus/block-rules.ts';
import { BlockRuleError, checkLink, checkProposer, checkSeals, sealSigners, type SealSigners } from '../consensus/block-verify.ts';
import { withCommittedSeals } from '../consensus/block-builder.ts';
import type { BlockRefusal, ImportOutcome } from './chain-door.ts';
import type { Logger } from '../util/logger.ts';
import { bytesToHex, equalBytes } from '../util/hex.ts';
import { keccak256 } from '../crypto/keccak.ts';

export interface BlockImportOptions {
  chain: Chain;
  executor: BlockExecutor;
  state: StateReader;
  pool: TxPool;
  events: ChainEvents;
  /** the Common transactions are decoded with */
  common: Common;
  recovery: SignatureRecovery;
  rules: BlockRulesSource;
  /** whether this node seals now: the sealer is then the chain's writer */
  sealing: () => boolean;
  /** whether plain transfers skip runTx (BlockExecutor.execute) */
  directTransfers: boolean;
  /**
   * Most execution time a proposal may take to verify (the round timeout: past it the round is
   * lost anyway); a decided block has none, its work being bounded by the block gas bound (S13)
   */
  verifyMs: number;
  log: Logger;
}

/** A block's signature work: its seals' signers and its decoded transactions, or why they are wrong. */
type Recovered = { signers: SealSigners; txs: PooledTx[] } | { problem: string };

/** The header fields execution reproduces, in the order a mismatch is reported. */
const REPRODUCED: (keyof Header)[] = ['stateRoot', 'receiptsRoot', 'transactionsRoot', 'logsBloom', 'gasUsed', 'parentHash', 'sha3Uncles', 'difficulty', 'mixHash', 'nonce', 'baseFeePerGas'];

/**
 * Executed blocks, and their transactions, waiting for their commit beyond these make the next
 * block wait: every trie read that misses the newest ones scans the uncommitted generations, and
 * they are held in memory. Small blocks execute faster than LMDB's write thread commits them (a
 * group's commit, fsync included, ~0.1 s): with at most 64 blocks, a 10,000-block import of
 * 10-transfer blocks waited 7.2 s of 32 s here; with 256, 297 / 287 → 351 / 339 blocks/s
 * (alternating runs). Large blocks stop at the transaction bound long before.
 */
const MAX_UNCOMMITTED = 256;
const MAX_UNCOMMITTED_TXS = 16_384;

class Refused extends Error {
  constructor(
    reason: string,
    readonly peerFault: boolean,
  ) {
    super(reason);
  }
}

interface Executed extends CommittableBlock {
  built: ExecutedBlock;
}

/**
 * A block executed for the consensus and not yet decided: its trie writes stay pending in the
 * executor (not sealed into a generation), so dropping it is a rollback to the head.
 */
export interface Candidate {
  /** the proposal's header (proposer seal, no committed seals) */
  block: BlockRecord;
  built: ExecutedBlock;
}

export class BlockImport {
  /** the write running now (an import or a consensus step): the next one waits for it */
  private queue: Promise<unknown> = Promise.resolve();
  /** the proposal executed last and not decided yet (its state is the executor's) */
  private candidate: Candidate | undefined;
  /** a commit failed: the executed state is ahead of the disk, so nothing more is imported */
  private broken: string | undefined;
  /** where imported transactions' senders came from: the pool's admission, or recovered here */
  readonly senders = { pool: 0, recovered: 0 };

  constructor(private readonly o: BlockImportOptions) {}

  /** Verifies, executes and commits encoded blocks in order; stops at the first refused (ChainDoor.importBlocks). */
  importBlocks(encoded: readonly Uint8Array[]): Promise<ImportOutcome> {
    return this.exclusive(() => this.run(encoded));
  }

  /**
   * Consensus: `build` executes this node's proposal on the head (the executor is at the head's
   * state when it runs); what it returns is kept as the candidate.
   */
  buildProposal(build: (head: HeadInfo) => Promise<Candidate | undefined>): Promise<Candidate | undefined> {
    return this.exclusive(async () => {
      await this.dropCandidate();
      this.candidate = await build(this.o.chain.head);
      return this.candidate;
    });
  }

  /**
   * Consensus: checks a peer's proposal (link to the head, time, a proposer seal by a member of
   * its set — its committed seals do not exist yet) and executes it on the head, reproducing its
   * header; kept as the candidate. Throws with the reason when it is not a valid next block.
   */
  verifyProposal(encoded: Uint8Array): Promise<Candidate> {
    return this.exclusive(async () => {
      await this.dropCandidate();
      this.candidate = await this.executeProposal(encoded);
      return this.candidate;
    });
  }

  /**
   * Consensus: writes the decided block (hash `hash`, `encoded` as proposed) with its committed
   * seals; from the kept candidate, or executed again when another one replaced it. Nothing to do
   * when the chain already holds it (an import got there first).
   */
  commitDecided(hash: Uint8Array, encoded: Uint8Array, committedSeals: Uint8Array[]): Promise<void> {
    return this.exclusive(async () => {
      const { chain, executor } = this.o;
      if (chain.block(hash) !== undefined) return;
      if (!this.candidate || !equalBytes(this.candidate.block.hash, hash)) {
        await this.dropCandidate();
        this.candidate = await this.executeProposal(encoded);
      }
      const { block, built } = this.candidate;
      this.candidate = undefined;
      const header = withCommittedSeals(block.header, committedSeals);
      const ok = await this.commit([{ block: { ...block, header }, receipts: built.receipts, creators: built.creators, trieNodes: executor.trieDb.seal(), built }]);
      if (!ok) throw new Error(this.broken);
    });
  }

  /** Runs `write` as the chain's one writer, the executor at the head after it (a state sync moving the head to its pivot). */
  asWriter(write: () => Promise<void>): Promise<void> {
    return this.exclusive(async () => {
      await this.dropCandidate();
      await write();
    });
  }

  /** Runs one write when no other runs (the chain's writer queue). */
  private exclusive<T>(write: () => Promise<T>): Promise<T> {
    const run = this.queue.then(write);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Forgets the undecided candidate: the executor goes back to the head's state. */
  private async dropCandidate(): Promise<void> {
    if (!this.candidate) return;
    this.candidate = undefined;
    await this.o.executor.rollback(this.o.chain.head.header.stateRoot);
  }

  private async executeProposal(encoded: Uint8Array): Promise<Candidate> {
    if (this.broken) throw new Refused(this.broken, false);
    let block: WireBlock;
    try {
      block = decodeBlock(encoded);
    } catch (e) {
      throw new Refused((e as Error).message, true);
    }
    const head = this.o.chain.head;
    try {
      return await this.execute(block, await this.recover(block), head, true);
    } catch (e) {
      await this.o.executor.rollback(head.header.stateRoot);
      throw e;
    }
  }

  /** Resolves once no import runs (the core waits for it before it closes the store). */
  async idle(): Promise<void> {
    await this.queue;
  }

  private async run(encoded: readonly Uint8Array[]): Promise<ImportOutcome> {
    const { chain } = this.o;
    const blocks: WireBlock[] = [];
    let refused: BlockRefusal | undefined;
    for (const bytes of encoded) {
      try {
        blocks.push(decodeBlock(bytes));
      } catch (e) {
        refused = { index: blocks.length, reason: (e as Error).message, peerFault: true };
        break;
      }
    }
    let known = 0;
    while (known < blocks.length && this.inChain(blocks[known]!)) known++;
    const outcome = (imported: number, transactions: number, why?: Refused): ImportOutcome => {
      const r = why ? { index: imported, reason: why.message, peerFault: why.peerFault } : imported === blocks.length ? refused : undefined;
      return r ? { imported, transactions, refused: r } : { imported, transactions };
    };
    if (known === blocks.length) return outcome(known, 0);
    if (this.broken) return outcome(known, 0, new Refused(this.broken, false));
    if (this.o.sealing()) return outcome(known, 0, new Refused('this node seals its chain: it imports no blocks', false));
    // blocks decided without this node make its undecided proposal moot
    await this.dropCandidate();
    const fresh = blocks.slice(known);
    // started at once, settled in block order: recovery overlaps the execution of earlier blocks
    const recovered = fresh.map((b) => this.recover(b));

    let parent = chain.head;
    let committed = 0;
    let transactions = 0;
    let why: Refused | undefined;
    let ready: Executed[] = [];
    let readyTxs = 0;
    let committing: Promise<void> | undefined;
    const commitReady = () => {
      if (committing || ready.length === 0 || this.broken) return;
      const group = ready;
      ready = [];
      readyTxs = 0;
      committing = this.commit(group).then((ok) => {
        committing = undefined;
        if (!ok) return;
        committed += group.length;
        for (const g of group) transactions += g.block.txs.length;
        commitReady();
      });
    };
    for (let i = 0; i < fresh.length && !this.broken; i++) {
      const block = fresh[i]!;
      try {
        const { block: record, built } = await this.execute(block, await recovered[i]!, parent, false);
        ready.push({ block: record, receipts: built.receipts, creators: built.creators, trieNodes: this.o.executor.trieDb.seal(), built });
        readyTxs += record.txs.length;
        parent = { hash: record.hash, header: record.header };
      } catch (e) {
        why = e instanceof Refused ? e : new Refused(`block #${block.header.number} could not be imported: ${(e as Error).message}`, false);
        if (!(e instanceof Refused)) this.o.log.error(`block import: ${(e as Error).stack ?? e}`);
        // what executed before it still commits
        await this.o.executor.rollback(parent.header.stateRoot);
        break;
      }
      commitReady();
      if (ready.length >= MAX_UNCOMMITTED || readyTxs >= MAX_UNCOMMITTED_TXS) await committing;
    }
    commitReady();
    while (committing) await committing;
    return outcome(known + committed, transactions, this.broken ? new Refused(this.broken, false) : why);
  }

  private inChain(block: WireBlock): boolean {
    const hash = this.o.chain.hashByNumber(block.header.number);
    return hash !== undefined && equalBytes(hash, block.hash);
  }

  /** The signature work of one block; never rejects (a problem is an answer). */
  private async recover(block: WireBlock): Promise<Recovered> {
    const { common, recovery, pool } = this.o;
    try {
      // A transaction the pool holds was decoded, checked and its sender recovered at admission,
      // and the pool keys it by the hash of these exact bytes: a keccak (~3 µs) instead of a
      // recovery (~80 µs) on every validator that heard it by gossip (S23). The rest are decoded
      // and checked where their senders are recovered (N9).
      const pooled = block.txs.map((raw) => pool.get(bytesToHex(keccak256(raw))));
      const fresh = block.txs.filter((_, i) => pooled[i] === undefined);
      const [signers, facts] = await Promise.all([
        sealSigners(block.header, block.hash, recovery),
        fresh.length === 0 ? [] : recovery.decodeTxs(fresh, common.chainId()),
      ]);
      let next = 0;
      const txs = block.txs.map((raw, i) => {
        const known = pooled[i];
        if (known !== undefined) return known;
        const f = facts[next++]!;
        if (typeof f === 'string') throw new BlockRuleError(`transaction ${i}: ${f}`);
        return pooledFromFacts(raw, f, common);
      });
      this.senders.pool += block.txs.length - fresh.length;
      this.senders.recovered += fresh.length;
      return { signers, txs };
    } catch (e) {
      return { problem: (e as Error).message };
    }
  }

  /**
   * Verifies and executes `block` on `parent` (the executor's state); throws Refused when it is not
   * a valid child. A `proposal` has no committed seals yet: only its proposer seal is checked.
   */
  private async execute(block: WireBlock, recovered: Recovered, parent: HeadInfo, proposal: boolean): Promise<Candidate> {
    const { header, hash } = block;
    const at = `block #${header.number} ${bytesToHex(hash)}`;
    if (header.number !== parent.header.number + 1n || !equalBytes(header.parentHash, parent.hash)) {
      // Behind the chain it is a different block at a height this chain has: finality makes that
      // wrong. Ahead, or on a parent this node lacks, it may just be early.
      if (header.number <= parent.header.number) throw new Refused(`${at} differs from this chain's block at that height`, true);
      throw new Refused(`${at}: unknown parent ${bytesToHex(header.parentHash)} (head is #${parent.header.number})`, false);
    }
    if ('problem' in recovered) throw new Refused(`${at}: ${recovered.problem}`, true);
    const rules = await this.o.rules(parent);
    try {
      checkLink(header, parent, BigInt(Math.floor(Date.now() / 1000)));
      if (proposal) checkProposer(header, recovered.signers.proposer, rules.validators);
      else checkSeals(header, recovered.signers, rules.validators);
    } catch (e) {
      if (e instanceof BlockRuleError) throw new Refused(`${at}: ${e.message}`, true);
      throw e;
    }
    if (header.gasLimit !== rules.gasLimit) throw new Refused(`${at}: gas limit ${header.gasLimit}, the chain's is ${rules.gasLimit}`, true);
    const { executor } = this.o;
    const built = await executor.execute(
      { parent: parent.header, parentHash: parent.hash, timestamp: header.timestamp, coinbase: header.miner, gasLimit: header.gasLimit, gasBound: rules.gasBound, extraData: header.extraData, txGasLimit: rules.txGasLimit },
      recovered.txs,
      proposal ? { verifyMs: this.o.verifyMs } : {},
      this.o.directTransfers,
    );
    const problem = this.reproductionProblem(header, built, recovered.txs);
    // the callers' catch rolls the executor back to the parent
    // a proposal too slow for this node to verify in time is not proof against its proposer
    if (problem) throw new Refused(`${at}: ${problem}`, !built.invalid.some((i) => i.overBudget));
    const txs = built.included;
    return { block: { hash, header, txs: txs.map((t) => t.raw), senders: txs.map((t) => t.sender), txHashes: txs.map((t) => t.hash) }, built };
  }

  /** What differs between the block and its execution; undefined when execution reproduced it. */
  private reproductionProblem(header: Header, built: ExecutedBlock, txs: readonly PooledTx[]): string | undefined {
    const missing = txs.findIndex((t, i) => built.included[i] !== t);
    if (missing >= 0) {
      const invalid = built.invalid.find((x) => x.ptx === txs[missing]);
      return `transaction ${missing} ${txs[missing]!.hashHex} cannot be included: ${invalid?.reason ?? 'it does not fit the block gas limit (or the chain\'s block gas bound)'}`;
    }
    for (const field of REPRODUCED) {
      const want = header[field];
      const got = built.header[field];
      if (typeof want === 'bigint' ? want !== got : !equalBytes(want, got as Uint8Array)) {
        return `${field} ${typeof got === 'bigint' ? got : bytesToHex(got)} after execution, the header says ${typeof want === 'bigint' ? want : bytesToHex(want)}`;
      }
    }
    return undefined;
  }

  /** Commits a group of executed blocks, then tells the readers, the pool and the listeners, block by block. */
  private async commit(group: Executed[]): Promise<boolean> {
    const { chain, executor, state, pool, events } = this.o;
    try {
      await chain.commitBlocks(group, executor.trieDb, true);
    } catch (e) {
      this.broken = `the chain stopped importing: a commit failed (${(e as Error).message})`;
      this.o.log.error(`block import: blocks #${group[0]!.block.header.number}–#${group.at(-1)!.block.header.number} could not be committed; importing stopped: ${(e as Error).message}`, { from: group[0]!.block.header.number, to: group.at(-1)!.block.header.number });
      return false;
    }
    // one head view for the group (a view per block cost a state manager each, read by no one)
    const written = new Map<string, Account | undefined>();
    const accounts = new Map<string, { nonce: bigint; balance: bigint }>();
    for (const { built } of group) {
      for (const [a, v] of built.written) written.set(a, v);
      for (const [a, v] of built.accounts) accounts.set(a, v);
    }
    state.setHead(group.at(-1)!.block.header.stateRoot, written);
    await pool.onBlock(
      group.flatMap((g) => g.built.included),
      // only a block this node built can leave transactions out (an imported one must include all)
      group.flatMap((g) => g.built.invalid.map((i) => i.ptx)),
      accounts,
    );
    for (const { block, receipts } of group) events.emitBlock({ block, receipts });
    return true;
  }
}
