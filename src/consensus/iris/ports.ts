// The iris engine's two doors: the chain it decides blocks for (IrisChain, implemented over the
// core in src/core/iris-chain.ts) and the wire its messages travel on (IrisTransport, the network's
// consensus channel through src/core/chain-door.ts). The engine knows neither the core's modules nor
// libp2p: it sees blocks as encoded bytes with a hash and messages as bytes.
import type { HeadInfo } from '../../chain/chain.ts';

export type { HeadInfo };

/** A block proposed at a height: as the PREPREPARE carries it (proposer seal in, committed seals empty). */
export interface Proposal {
  number: bigint;
  /** the block hash (committed seals do not enter it, so the written block keeps this hash) */
  hash: Uint8Array;
  /** the block, encoded (src/chain/block-codec.ts) */
  encoded: Uint8Array;
  /** who sealed it (the header's miner) */
  proposer: Uint8Array;
}

/** A proposal that is wrong (bad encoding, seal, link, time, or its execution does not reproduce its header). */
export class ProposalRefused extends Error {}

export interface IrisChain {
  /** The chain's head: the engine decides the block after it. */
  head(): HeadInfo;
  /** After every new head (a block this engine committed, or one imported from peers). */
  onHead(listener: (head: HeadInfo) => void): void;
  /** An encoded block read as a proposal (number, hash, proposer), not checked; throws when it does not decode. */
  proposalOf(encoded: Uint8Array): Proposal;
  /** The validator set of the block after `parent`, byte-sorted (the istanbul extra's order). */
  validatorsAfter(parent: HeadInfo): Promise<Uint8Array[]>;
  /** Whether a block on the head has something to carry: executable transactions wait, or empty blocks are produced. */
  hasWork(): Promise<boolean>;
  /** Called when transactions become executable (a cue to propose or to start a round's timer). */
  onWork(listener: () => void): void;
  /**
   * Builds, executes and proposer-seals a block on the head, taking executable transactions from
   * the pool; undefined when it would be empty and empty blocks are not produced. Its execution is
   * kept for `commit`.
   */
  build(): Promise<Proposal | undefined>;
  /**
   * Checks a proposed block (encoding, link to the head, time, proposer seal by a member of the
   * set) and executes it on the head; its execution is kept for `commit`. Throws ProposalRefused.
   */
  verify(encoded: Uint8Array): Promise<Proposal>;
  /**
   * Writes the proposal with these committed seals in its istanbul extra (a quorum of them): it
   * becomes the head, is announced, and onHead fires. Executes it again if its kept execution was
   * discarded meanwhile (another proposal was verified since).
   */
  commit(proposal: Proposal, committedSeals: Uint8Array[]): Promise<void>;
}

export interface IrisTransport {
  /** Sends a signed message to the other validators (this engine handles its own copy itself). */
  broadcast(message: Uint8Array): void;
  /**
   * Messages from peers. The listener answers whether the message was well-formed and signed by a
   * current validator ('invalid' lets the network penalise the peer that sent it); 'ahead': accepted,
   * and for a later block than this node decides (it is behind: the sender has blocks it lacks).
   */
  onMessage(listener: (message: Uint8Array) => Promise<'accepted' | 'ahead' | 'ignored' | 'invalid'>): void;
}

/** A message this validator signed, as its consensus log keeps it: its view, code and the block it is for (zero for ROUND_CHANGE). */
export interface SignedVote {
  sequence: bigint;
  round: number;
  /** PREPREPARE 0, PREPARE 1, COMMIT 2, ROUND_CHANGE 3 */
  code: number;
  digest: Uint8Array;
}

/** A lock this validator took: the block and the signed votes that prove it (encoded messages). */
export interface LockRecord {
  sequence: bigint;
  round: number;
  /** the block, encoded (src/chain/block-codec.ts) */
  block: Uint8Array;
  proof: Uint8Array[];
}

/** What a consensus log held when the engine started. */
export interface ConsensusRecords {
  votes: SignedVote[];
  /** the last lock taken at each sequence still in the log (an unlock removes it) */
  locks: LockRecord[];
}

/**
 * The third door (I9): where the engine writes what it signs before it sends it, so that after a
 * crash it signs nothing that conflicts with what it sent. Each write is durable when it returns.
 * The node's is a file in the datadir (src/core/consensus-log-file.ts); memory-log.ts keeps it in memory.
 */
export interface ConsensusLog {
  /** What was written before this start (the engine reads it once, at start). */
  read(): ConsensusRecords;
  vote(v: SignedVote): void;
  lock(l: LockRecord): void;
  /** The lock at `sequence` is gone (a proof of lock for another block released it). */
  unlock(sequence: bigint): void;
  /** Records below `sequence` may go: those heights are final. */
  trimBelow(sequence: bigint): void;
}

/** The engine's time: the node's clock, or a simulator's virtual one (src/iris-sim). */
export interface IrisClock {
  /** ms since the epoch */
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
}

export const SYSTEM_CLOCK: IrisClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
};

/**
 * Test-only faults planted in the engine's rules, so the simulator can show it catches a broken
 * engine (I16). Never set by the node.
 */
export interface IrisMutations {
  /** a locked validator prepares another block without a proof of lock */
  dropLockCheck?: boolean;
  /** a block is written on N − F − 1 commits */
  commitBelowQuorum?: boolean;
}
