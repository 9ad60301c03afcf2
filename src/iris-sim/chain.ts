// The chain a simulated validator decides blocks for: cheap stand-in blocks (real headers with an
// istanbul extra, proposer-sealed, no transactions and no execution) checked by the node's own
// header rules (src/consensus/block-verify.ts). Its blocks are what a datadir would keep across a
// crash (BlockStore); the SimChain over them is rebuilt at every restart.
import type { HeadInfo } from '../chain/chain.ts';
import { decodeBlock, encodeBlock } from '../chain/block-codec.ts';
import { EMPTY_TRIE_ROOT, EMPTY_UNCLES_HASH, headerHash, headerSigHash, type Header } from '../chain/header.ts';
import { checkLink, checkProposer, checkSeals, sealSigners } from '../consensus/block-verify.ts';
import { withCommittedSeals } from '../consensus/block-builder.ts';
import { encodeExtra, ISTANBUL_DIGEST } from '../chain/istanbul-extra.ts';
import { equalBytes } from '../util/hex.ts';
import { seal65 } from '../consensus/seals.ts';
import { recoveryHere } from '../tx/signature-recovery.ts';
import type { NodeKey } from '../crypto/node-key.ts';
import { ProposalRefused, type IrisChain, type IrisClock, type Proposal } from '../consensus/iris/ports.ts';

const EMPTY = new Uint8Array(0);

/** The genesis every simulated validator starts from: its extra names the set. */
export function simGenesis(validators: Uint8Array[], timestampSeconds: bigint): HeadInfo {
  const header = blankHeader(new Uint8Array(32), new Uint8Array(20), 0n, timestampSeconds, encodeExtra({ vanity: EMPTY, validators, seal: EMPTY, committedSeals: [] }));
  return { hash: headerHash(header), header };
}

function blankHeader(parentHash: Uint8Array, miner: Uint8Array, number: bigint, timestamp: bigint, extraData: Uint8Array): Header {
  return {
    parentHash, sha3Uncles: EMPTY_UNCLES_HASH, miner, stateRoot: EMPTY_TRIE_ROOT, transactionsRoot: EMPTY_TRIE_ROOT, receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256), difficulty: 1n, number, gasLimit: 30_000_000n, gasUsed: 0n, timestamp, extraData, mixHash: ISTANBUL_DIGEST,
    nonce: new Uint8Array(8), baseFeePerGas: 0n,
  };
}

/** A proposer-sealed block on `parent`; `variant` changes its vanity (an equivocating proposer's second block). */
export function buildStandIn(parent: HeadInfo, validators: Uint8Array[], key: NodeKey, nowMs: number, periodSeconds: number, variant = 0): Proposal {
  const now = BigInt(Math.floor(nowMs / 1000));
  const least = parent.header.timestamp + BigInt(periodSeconds);
  const vanity = new Uint8Array(32);
  vanity[31] = variant;
  const header = blankHeader(parent.hash, key.address, parent.header.number + 1n, now > least ? now : least, EMPTY);
  header.extraData = encodeExtra({ vanity, validators, seal: EMPTY, committedSeals: [] });
  header.extraData = encodeExtra({ vanity, validators, seal: seal65(headerSigHash(header), key.privateKey), committedSeals: [] });
  const hash = headerHash(header);
  return { number: header.number, hash, encoded: encodeBlock(header, []), proposer: key.address };
}

/** What survives a crash: the blocks written (a datadir's chain). */
export class BlockStore {
  readonly blocks: HeadInfo[];
  constructor(genesis: HeadInfo) {
    this.blocks = [genesis];
  }
  get head(): HeadInfo {
    return this.blocks[this.blocks.length - 1]!;
  }
}

export interface SimChainOptions {
  store: BlockStore;
  validators: Uint8Array[];
  key: NodeKey;
  clock: IrisClock;
  periodSeconds: number;
  /** after a block is written (committed here or imported) */
  written: (head: HeadInfo, how: 'committed' | 'imported') => void;
}

export class SimChain implements IrisChain {
  private readonly listeners: ((head: HeadInfo) => void)[] = [];
  constructor(private readonly o: SimChainOptions) {}

  head(): HeadInfo {
    return this.o.store.head;
  }
  onHead(listener: (head: HeadInfo) => void): void {
    this.listeners.push(listener);
  }
  proposalOf(encoded: Uint8Array): Proposal {
    const { header, hash } = decodeBlock(encoded);
    return { number: header.number, hash, encoded, proposer: header.miner };
  }
  async validatorsAfter(): Promise<Uint8Array[]> {
    return this.o.validators;
  }
  /** the chain always has work: every height is decided (blocks cost nothing here) */
  async hasWork(): Promise<boolean> {
    return true;
  }
  onWork(): void {}

  async build(): Promise<Proposal> {
    return buildStandIn(this.head(), this.o.validators, this.o.key, this.o.clock.now(), this.o.periodSeconds);
  }

  async verify(encoded: Uint8Array): Promise<Proposal> {
    try {
      const { header, hash } = decodeBlock(encoded);
      const head = this.head();
      if (header.number !== head.header.number + 1n || !equalBytes(header.parentHash, head.hash)) throw new Error(`block #${header.number} is not on the head #${head.header.number}`);
      checkLink(header, head, BigInt(Math.floor(this.o.clock.now() / 1000)));
      if (header.timestamp < head.header.timestamp + BigInt(this.o.periodSeconds)) throw new Error('timestamp within the period');
      const signers = await sealSigners(header, hash, recoveryHere);
      checkProposer(header, signers.proposer, this.o.validators);
      return { number: header.number, hash, encoded, proposer: header.miner };
    } catch (e) {
      throw new ProposalRefused((e as Error).message);
    }
  }

  async commit(proposal: Proposal, committedSeals: Uint8Array[]): Promise<void> {
    const { header } = decodeBlock(proposal.encoded);
    // as the node's writer (commitDecided) does, the engine's word on the seals is taken
    const sealed = withCommittedSeals(header, committedSeals);
    if (!equalBytes(header.parentHash, this.head().hash)) throw new Error('the head moved');
    this.write({ hash: proposal.hash, header: sealed }, 'committed');
  }

  /** A block from a peer (the sync's part): written when it is the head's child with a quorum of seals. */
  async importBlock(block: HeadInfo): Promise<boolean> {
    const head = this.head();
    if (block.header.number !== head.header.number + 1n || !equalBytes(block.header.parentHash, head.hash)) return false;
    try {
      checkSeals(block.header, await sealSigners(block.header, block.hash, recoveryHere), this.o.validators);
    } catch {
      return false;
    }
    if (this.head() !== head) return false;
    this.write(block, 'imported');
    return true;
  }

  private write(block: HeadInfo, how: 'committed' | 'imported'): void {
    this.o.store.blocks.push(block);
    this.o.written(block, how);
    for (const l of this.listeners) l(block);
  }
}
