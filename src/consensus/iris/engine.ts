// The iris BFT engine: Venachain's Istanbul variant (consensus/iris/core) over the two ports of
// ports.ts. One engine per node; at every head it reads the next block's validator set and takes
// part only when this node is in it and the set is larger than this node alone (a lone validator is
// the Sealer's job). Per height it runs rounds: the round's proposer sends PREPREPARE, validators
// verify and PREPARE, N − F prepares (or commits) lock the block and send COMMIT with a committed
// seal, N − F commits write the block. A round that does not finish in time is left with
// ROUND_CHANGE; locks survive round changes so no two blocks are committed at one height.
//
// Everything that changes state runs on one serial queue (messages, timers, heads, work cues), so
// the handlers read like Venachain's single event loop; a message's verdict for the network is
// given before it is queued, from its form and signature alone.
import type { NodeKey } from '../../crypto/node-key.ts';
import type { Logger } from '../../util/logger.ts';
import { bytesToHex, equalBytes, hexToBytes } from '../../util/hex.ts';
import { quorum } from '../seals.ts';
import { commitDigest, committedSeal, signerOf } from '../seals.ts';
import {
  CODE_NAMES, COMMIT, compareViews, decodeMessage, decodePreprepare, decodeSubject, encodeMessage, encodePreprepare, encodeSubject,
  MalformedMessage, PREPARE, PREPREPARE, ROUND_CHANGE, signedByAddress, signMessage, ZERO_DIGEST,
  type IrisMessage, type MessageCode, type Preprepare, type Subject, type View,
} from './messages.ts';
import { SYSTEM_CLOCK, type ConsensusLog, type HeadInfo, type IrisChain, type IrisClock, type IrisMutations, type IrisTransport, type LockRecord, type Proposal } from './ports.ts';
import { proposerOf, proposerOrder } from './proposer.ts';
import { VoteGuard } from './vote-guard.ts';
import { EquivocationWatch, type Equivocation } from './evidence.ts';
import { BAD_BLOCKS, forgeBlock, type IrisTestModes } from './test-modes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { NO_CONSENSUS_METER, type ConsensusMeter } from '../consensus-meter.ts';

export interface IrisEngineOptions {
  chain: IrisChain;
  transport: IrisTransport;
  key: NodeKey;
  /** genesis istanbul.policy: 0 round robin, 1 sticky */
  policy: number;
  /** genesis istanbul.timeout: the first round's length (ms) */
  timeoutMs: number;
  /** genesis istanbul.period: the least gap between block timestamps (seconds) */
  periodSeconds: number;
  log: Logger;
  /** where what this validator signs is made durable before it is sent (I9); absent: memory only */
  consensusLog?: ConsensusLog;
  /** for tests only: CHAIN_NODE_IRIS_TEST's crash cues and lies (test-modes.ts, I12) */
  test?: IrisTestModes;
  /** how a crash-after-* cue ends the process (default: SIGKILL to itself) */
  die?: () => void;
  /** default the system clock */
  clock?: IrisClock;
  /** test-only (I16) */
  mutations?: IrisMutations;
}

/** Where the engine is in a round ('idle': not taking part in this height). */
export type IrisStateName = 'idle' | 'accept-request' | 'preprepared' | 'prepared' | 'committed' | 'round-change';

export interface IrisStatus {
  sequence: bigint;
  round: number;
  state: IrisStateName;
  lockedHash?: Uint8Array;
  /** the round the lock was taken in */
  lockedRound?: number;
  /** the set deciding `sequence`, in proposer order */
  validators: Uint8Array[];
  proposer?: Uint8Array;
}

/**
 * Each round waits a quarter of the timeout longer than the one before (I19): a round that needs
 * longer gets it within a few, and the fourth still ends within 2 × the timeout (doubling left a
 * healed network waiting out rounds of up to a minute).
 */
const ROUND_STEP = 0.25;
const MAX_ROUND_TIMEOUT_MS = 60_000;
/** How often an unfinished round's own messages are sent again, at most (I19); half the timeout when shorter. */
const RESEND_MS = 1000;
/** Future messages kept per sender; the oldest go beyond it. */
const BACKLOG_PER_SENDER = 32;
/** A ROUND_CHANGE further ahead of this node's round is refused (I10): an honest validator's rounds climb by one per timeout at most, never that far ahead. */
const MAX_ROUNDS_AHEAD = 100;
/** How long a crash-after-* cue leaves its message to leave the process. */
const CRASH_DELAY_MS = 200;

const STATE_ORDER = { 'accept-request': 0, preprepared: 1, prepared: 2, committed: 3 } as const;
type RoundState = keyof typeof STATE_ORDER;

/** A message whose form and signature were checked, its body decoded. */
interface Vote {
  m: IrisMessage;
  from: string;
  view: View;
  pp?: Preprepare;
  subject?: Subject;
}

interface Height {
  sequence: bigint;
  parent: HeadInfo;
  /** the parent's proposer (zero at genesis): where the proposer rotation starts */
  lastProposer: Uint8Array;
  ordered: Uint8Array[];
  members: Set<string>;
  quorum: number;
  f: number;
  active: boolean;
}

interface Lock {
  proposal: Proposal;
  round: number;
  /** the quorum of signed PREPAREs (and COMMITs) for the block at `round`: its proof of lock */
  proof: IrisMessage[];
}

export class IrisEngine {
  /** rounds begun and changed, for --metrics (the node sets it when it serves them) */
  meter: ConsensusMeter = NO_CONSENSUS_METER;
  private readonly me: string;
  private readonly guard: VoteGuard;
  /** locks the consensus log held at start: restored at their height (I9) */
  private restoredLocks: LockRecord[];
  private readonly evidence = new EquivocationWatch();
  /** `${sender}/${reason}`: what was logged about a sender at this height (one line each, I10) */
  private said = new Set<string>();
  /** test modes: the messages sent (replay), a seal seen from another validator (bad-seals), turns */
  private readonly liar = { sent: [] as Uint8Array[], foreignSeal: undefined as Uint8Array | undefined, turns: 0, seals: 0, bad: 0, flood: 0, proposedAt: '', timer: undefined as NodeJS.Timeout | undefined };
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private started = false;

  private height: Height | undefined;
  /** the height before, while its block is the head: a lagging proposer of it gets its COMMIT */
  private previous: Height | undefined;
  private round = 0;
  private state: RoundState = 'accept-request';
  /** sent ROUND_CHANGE for `round` and waits for N − F of them */
  private waitingForRoundChange = false;
  private proposal: Proposal | undefined;
  private prepares = new Map<string, IrisMessage>();
  private commits = new Map<string, IrisMessage>();
  private lock: Lock | undefined;
  private roundChanges = new Map<number, Map<string, IrisMessage>>();
  private backlog = new Map<string, Vote[]>();
  /** the round timer runs: this node has work, or another validator spoke at this height */
  private engaged = false;
  private peerSpoke = false;
  private roundTimer: unknown;
  private proposeTimer: unknown;
  /** what this node signed and sent in the current round (and its ROUND_CHANGE for it): sent again while the round is unfinished */
  private own: { round: number; bytes: Uint8Array }[] = [];
  private resendTimer: unknown;
  private workCued = false;
  private proposeCued = false;

  private readonly clock: IrisClock;
  private readonly mutations: IrisMutations;

  constructor(private readonly o: IrisEngineOptions) {
    this.me = bytesToHex(o.key.address);
    this.clock = o.clock ?? SYSTEM_CLOCK;
    this.mutations = o.mutations ?? {};
    const records = o.consensusLog?.read() ?? { votes: [], locks: [] };
    this.guard = new VoteGuard(o.consensusLog, records.votes);
    this.restoredLocks = records.locks;
    if (records.votes.length > 0 || records.locks.length > 0) {
      o.log.info(`iris: consensus log: ${records.votes.length} signed votes and ${records.locks.length} locks read; nothing conflicting with them will be signed`);
    }
  }

  /** Equivocation found (two signed messages of one validator for different blocks at one view), the newest last. */
  equivocations(): readonly Equivocation[] {
    return this.evidence.list();
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.o.transport.onMessage((bytes) => Promise.resolve(this.receive(bytes)));
    this.o.chain.onHead((head) => this.run(() => this.newHeight(head)));
    this.o.chain.onWork(() => {
      // cues come per transaction: one queued look at a time is enough
      if (this.workCued) return;
      this.workCued = true;
      this.run(() => {
        this.workCued = false;
        this.onWork();
      });
    });
    if (this.o.test?.signAgainstLog) this.signAgainstLog();
    if (this.o.test?.lies.has('round-change-flood')) this.liar.timer = setInterval(() => this.run(() => this.floodRoundChanges()), 200);
    this.run(() => this.newHeight(this.o.chain.head()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    clearInterval(this.liar.timer);
    // a task may have queued others before it saw `stopped`
    for (let q = this.queue; ; q = this.queue) {
      await q;
      if (q === this.queue) break;
    }
  }

  status(): IrisStatus {
    const h = this.height;
    const active = h?.active === true;
    return {
      sequence: h?.sequence ?? this.o.chain.head().header.number + 1n,
      round: active ? this.round : 0,
      state: !active ? 'idle' : this.waitingForRoundChange ? 'round-change' : this.state,
      lockedHash: active ? this.lock?.proposal.hash : undefined,
      lockedRound: active ? this.lock?.round : undefined,
      validators: h?.ordered ?? [],
      proposer: h && h.ordered.length > 0 ? this.proposerAt(h, this.round) : undefined,
    };
  }

  // ---------------------------------------------------------------- the queue

  private run(task: () => Promise<void> | void): void {
    if (this.stopped) return;
    this.queue = this.queue.then(async () => {
      if (this.stopped) return;
      try {
        await task();
      } catch (e) {
        this.o.log.error(`iris: ${(e as Error).stack ?? e}`);
      }
    });
  }

  // ---------------------------------------------------------------- receiving

  /**
   * The network's verdict on a message: 'invalid' when malformed or its signature does not match
   * the address it names (or a COMMIT's committed seal is not its sender's), 'ignored' when this
   * engine has no use for it (not taking part, not from the current set, an old view), else
   * 'accepted' and queued ('ahead' when it is for a later height: the network asks the sender for
   * its head at once, I19). The cheap checks come before the signature is recovered (I13).
   */
  private receive(bytes: Uint8Array): 'accepted' | 'ahead' | 'ignored' | 'invalid' {
    const h = this.height;
    if (this.stopped || !h?.active) return 'ignored';
    let vote: Vote;
    try {
      const m = decodeMessage(bytes);
      const from = bytesToHex(m.address);
      if (from === this.me || !h.members.has(from)) return 'ignored';
      vote = parseVote(m, from);
      // a vote for a past height is of no use (a PREPREPARE of the one before may be: commitForOldBlock)
      const s = vote.view.sequence;
      if (s < h.sequence && !(m.code === PREPREPARE && s === h.sequence - 1n)) return 'ignored';
      if (!signedByAddress(m)) return 'invalid';
    } catch (e) {
      if (e instanceof MalformedMessage) {
        this.o.log.debug(`iris: malformed message: ${e.message}`);
        return 'invalid';
      }
      // a bug of ours, not the sender's fault: logged, and nothing thrown at the network
      this.o.log.error(`iris: a message could not be read: ${(e as Error).stack ?? e}`);
      return 'ignored';
    }
    const at = `block #${vote.view.sequence} round ${vote.view.round}`;
    if (vote.m.code === COMMIT) {
      const wrong = this.sealProblem(vote);
      if (wrong) {
        this.once(vote.from, 'seal', `iris: COMMIT from ${vote.from} at ${at} refused: ${wrong}`);
        return 'invalid';
      }
    }
    if (vote.m.code === ROUND_CHANGE && vote.view.sequence === h.sequence && vote.view.round > this.round + MAX_ROUNDS_AHEAD) {
      this.once(vote.from, 'far', `iris: ROUND_CHANGE from ${vote.from} for ${at} refused: more than ${MAX_ROUNDS_AHEAD} rounds past this node's round ${this.round} (no honest validator is that far ahead)`);
      return 'ignored';
    }
    this.run(() => this.handle(vote));
    return vote.view.sequence > h.sequence ? 'ahead' : 'accepted';
  }

  /** Why a COMMIT's committed seal is not its sender's (then the block it goes into is refused by every node), or undefined. */
  private sealProblem(v: Vote): string | undefined {
    const signer = signerOf(v.m.committedSeal, commitDigest(v.subject!.digest));
    if (signer === undefined) return 'its committed seal is no signature';
    if (bytesToHex(signer) !== v.from) return `its committed seal is ${bytesToHex(signer)}'s, not its sender's`;
    return undefined;
  }

  /** Logs a refusal once per sender, reason and height: a validator that lies all the time must not flood the log. */
  private once(from: string, reason: string, line: string, level: 'warn' | 'info' = 'warn'): void {
    const key = `${from}/${reason}`;
    if (this.said.has(key)) return;
    this.said.add(key);
    this.o.log[level](line);
  }

  /** Two signed votes of one validator for different blocks at one view of this height: evidence, logged and kept (I11). */
  private watchEquivocation(v: Vote): void {
    let digest: Uint8Array;
    try {
      digest = v.m.code === PREPREPARE ? this.o.chain.proposalOf(v.pp!.block).hash : v.subject!.digest;
    } catch {
      return;
    }
    const e = this.evidence.check(v.from, v.view.sequence, v.view.round, v.m, digest);
    if (e) this.o.log.warn(`iris: equivocation by ${e.validator} at block #${e.sequence} round ${e.round}: ${e.first.code} for ${e.first.digest} and ${e.second.code} for ${e.second.digest}, both signed (iris_getEquivocations has the messages)`);
  }

  /** Where a vote stands against the current view (Venachain's checkMessage). */
  private gate(v: Vote): 'now' | 'future' | 'old' {
    const current = { round: this.round, sequence: this.height!.sequence };
    if (v.view.sequence > current.sequence) return 'future';
    if (v.view.sequence < current.sequence) return 'old';
    if (v.m.code === ROUND_CHANGE) return v.view.round < current.round ? 'old' : 'now';
    const c = compareViews(v.view, current);
    if (c > 0) return 'future';
    if (c < 0) return 'old';
    if (this.waitingForRoundChange) return 'future';
    if (this.state === 'accept-request' && v.m.code !== PREPREPARE) return 'future';
    return 'now';
  }

  private async handle(v: Vote): Promise<void> {
    const h = this.height;
    if (!h?.active || !h.members.has(v.from)) return;
    const where = this.gate(v);
    this.o.log.debug(`iris: ${CODE_NAMES[v.m.code]} from ${v.from} for block #${v.view.sequence} round ${v.view.round}: ${where} (at #${h.sequence} round ${this.round}, ${this.waitingForRoundChange ? 'round-change' : this.state})`);
    if (where === 'future') return this.keep(v);
    if (v.from !== this.me && v.view.sequence === h.sequence && v.m.code !== ROUND_CHANGE) this.watchEquivocation(v);
    if (where === 'old') {
      if (v.m.code === PREPREPARE) this.commitForOldBlock(v);
      else if (v.view.sequence === h.sequence) this.once(v.from, 'old', `iris: ${CODE_NAMES[v.m.code]} from ${v.from} for block #${v.view.sequence} round ${v.view.round} dropped: that round is past (this node is in round ${this.round})`, 'info');
      return;
    }
    if (v.from !== this.me && !this.peerSpoke) {
      this.peerSpoke = true;
      this.engage();
    }
    switch (v.m.code) {
      case PREPREPARE: return this.handlePreprepare(v);
      case PREPARE: return this.handlePrepare(v);
      case COMMIT: return this.handleCommit(v);
      case ROUND_CHANGE: return this.handleRoundChange(v);
    }
  }

  private keep(v: Vote): void {
    let kept = this.backlog.get(v.from);
    if (!kept) this.backlog.set(v.from, (kept = []));
    kept.push(v);
    if (kept.length > BACKLOG_PER_SENDER) kept.shift();
  }

  /** Replays kept votes the current view can use now; drops those it has passed. */
  private replayBacklog(): void {
    const h = this.height!;
    for (const [from, kept] of this.backlog) {
      if (!h.members.has(from)) {
        this.backlog.delete(from);
        continue;
      }
      const later: Vote[] = [];
      const now: Vote[] = [];
      for (const v of kept) {
        const where = this.gate(v);
        if (where === 'future') later.push(v);
        else if (where === 'now') now.push(v);
      }
      if (later.length > 0) this.backlog.set(from, later);
      else this.backlog.delete(from);
      now.sort((a, b) => compareViews(a.view, b.view) || a.m.code - b.m.code);
      for (const v of now) this.run(() => this.handle(v));
    }
  }

  // ---------------------------------------------------------------- heights and rounds

  private async newHeight(head: HeadInfo): Promise<void> {
    const sequence = head.header.number + 1n;
    if (this.height && sequence <= this.height.sequence) return;
    const validators = await this.o.chain.validatorsAfter(head);
    if (this.height && sequence <= this.height.sequence) return;
    const ordered = proposerOrder(validators);
    const members = new Set(ordered.map(bytesToHex));
    const n = ordered.length;
    const h: Height = {
      sequence,
      parent: head,
      lastProposer: head.header.number === 0n ? new Uint8Array(20) : head.header.miner,
      ordered,
      members,
      quorum: quorum(n),
      f: n - quorum(n),
      active: members.has(this.me) && n > 1,
    };
    const wasActive = this.height?.active === true;
    this.previous = this.height && this.height.sequence === head.header.number ? this.height : undefined;
    this.height = h;
    this.clearTimers();
    this.own = [];
    this.lock = undefined;
    this.roundChanges.clear();
    this.engaged = false;
    this.peerSpoke = false;
    this.said.clear();
    this.guard.forgetBelow(sequence - 1n);
    const restored = this.restoredLocks.find((l) => l.sequence === sequence);
    this.restoredLocks = this.restoredLocks.filter((l) => l.sequence > sequence);
    if (h.active !== wasActive) {
      this.o.log.info(h.active
        ? `iris: validator of block #${sequence} among ${n}: taking part in consensus`
        : `iris: block #${sequence} is decided ${members.has(this.me) ? 'by this node alone' : 'by a set without this node'}: not taking part`);
    }
    if (!h.active) {
      this.backlog.clear();
      return;
    }
    if (restored) this.restoreLock(restored);
    // a restart goes on in the round it last signed in, never back to a round it left (I9)
    const resume = this.guard.highestRound(sequence) ?? 0;
    this.enterRound(resume, resume > 0 ? 'resumed from the consensus log' : undefined);
    if (this.o.test?.lies.has('replay')) this.replayOwn();
    if (await this.o.chain.hasWork()) this.onWork();
  }

  /** The lock the consensus log held for this height, taken again (I9): this node proposes and commits nothing else without a proof of lock. */
  private restoreLock(l: LockRecord): void {
    try {
      const proposal = this.o.chain.proposalOf(l.block);
      const { hash } = proposal;
      const proof = l.proof.map((m) => decodeMessage(m));
      this.lock = { proposal, round: l.round, proof };
      this.o.log.info(`iris: block #${l.sequence}: lock on ${bytesToHex(hash)} from round ${l.round} restored from the consensus log`);
    } catch (e) {
      this.o.log.error(`iris: block #${l.sequence}: the consensus log's lock is unreadable (${(e as Error).message}); going on unlocked, its votes still guarded`);
    }
  }

  /** Starts `round` of the current height (Venachain's startNewRound), keeping a lock. */
  private enterRound(round: number, why?: string): void {
    const h = this.height!;
    this.meter.roundStarted(h.sequence, round);
    if (why) this.o.log.info(`iris: block #${h.sequence} round ${round} started (${why}); proposer ${bytesToHex(this.proposerAt(h, round))}`);
    this.resetRound(round);
    this.waitingForRoundChange = false;
    this.armRoundTimer();
    if (round > 0 && this.o.test?.lies.has('replay')) this.replayOwn();
    this.replayBacklog();
    this.tryPropose();
  }

  private resetRound(round: number): void {
    this.round = round;
    this.state = 'accept-request';
    this.proposal = undefined;
    this.prepares = new Map();
    this.commits = new Map();
    this.clock.clearTimer(this.proposeTimer);
    this.proposeCued = false;
    for (const r of this.roundChanges.keys()) if (r < round) this.roundChanges.delete(r);
    // the ROUND_CHANGE that asked for this round stays: a validator that lost it still waits for it
    this.own = this.own.filter((o) => o.round === round);
  }

  private proposerAt(h: Height, round: number): Uint8Array {
    return proposerOf(h.ordered, h.lastProposer, round, this.o.policy);
  }

  private isProposer(): boolean {
    return bytesToHex(this.proposerAt(this.height!, this.round)) === this.me;
  }

  private setState(state: RoundState): void {
    this.state = state;
    this.replayBacklog();
  }

  // ---------------------------------------------------------------- timers and work

  /** Work waits: the round timer runs from now on at this height, and the proposer may propose. */
  private onWork(): void {
    if (!this.height?.active) return;
    this.engage();
    this.tryPropose();
  }

  private engage(): void {
    if (this.engaged) return;
    this.engaged = true;
    this.armRoundTimer();
  }

  private armRoundTimer(): void {
    this.clock.clearTimer(this.roundTimer);
    if (!this.engaged) return;
    const at = { sequence: this.height!.sequence, round: this.round };
    // a round counts from when its block may be proposed: with a period of seconds and a timeout of
    // one second, a proposer waiting out the period must not look crashed
    const waitMs = Math.max(0, this.periodEndsMs() - this.clock.now());
    this.roundTimer = this.clock.setTimer(() => this.run(() => this.onTimeout(at)), waitMs + this.roundTimeoutMs());
  }

  /** When the period since the parent's timestamp has passed (ms since the epoch). */
  private periodEndsMs(): number {
    return Number(this.height!.parent.header.timestamp + BigInt(this.o.periodSeconds)) * 1000;
  }

  private clearTimers(): void {
    this.clock.clearTimer(this.roundTimer);
    this.clock.clearTimer(this.proposeTimer);
    this.clock.clearTimer(this.resendTimer);
    this.resendTimer = undefined;
  }

  /**
   * Sends this round's own messages again every RESEND_MS while the round is unfinished (I19): a
   * lost PREPREPARE, vote or ROUND_CHANGE arrives at the next one instead of costing the round, and
   * a healed network meets again within it. Nothing new is signed; receivers drop what they hold.
   */
  private armResend(): void {
    if (this.resendTimer !== undefined || this.stopped) return;
    this.resendTimer = this.clock.setTimer(() => this.run(() => this.resend()), Math.min(RESEND_MS, this.o.timeoutMs / 2));
  }

  private resend(): void {
    this.resendTimer = undefined;
    if (!this.height?.active || !this.engaged || this.state === 'committed' || this.own.length === 0) return;
    for (const o of this.own) this.o.transport.broadcast(o.bytes);
    this.armResend();
  }

  /** Venachain's handleTimeoutMsg: join a round F + 1 validators asked for, else ask for the next one. */
  private async onTimeout(at: View): Promise<void> {
    const h = this.height;
    if (!h?.active || h.sequence !== at.sequence || this.round !== at.round) return;
    // an idle chain's rounds do not climb: with nothing to carry and nobody else asking, wait for work
    if (!this.peerSpoke && !(await this.o.chain.hasWork())) {
      this.engaged = false;
      return;
    }
    if (this.height !== h || this.round !== at.round) return;
    if (!this.waitingForRoundChange) {
      const joined = this.highestRoundAsked(h.f + 1);
      if (joined !== undefined && joined > this.round) return this.changeRound(joined, `timeout; F + 1 asked for round ${joined}`);
    } else if (!this.askedAbove(this.round)) {
      // waiting for a round no one has passed: the next one alone gathers no quorum, and leaving
      // this one just as the others' timers bring them here stalls a locked proposer's turn (I18)
      this.o.log.info(`iris: block #${h.sequence} still waiting for round ${this.round} (timeout after ${this.roundTimeoutMs()} ms; no validator asked for a later one)`);
      this.armRoundTimer();
      this.send(ROUND_CHANGE, encodeSubject({ view: this.currentView(), digest: ZERO_DIGEST }));
      return;
    }
    // a proposer that sent nothing is named: a silent one is seen in every validator's log
    const silent = this.proposal === undefined && !this.waitingForRoundChange ? `; no proposal from ${bytesToHex(this.proposerAt(h, this.round))}` : '';
    this.changeRound(this.round + 1, `timeout after ${this.roundTimeoutMs()} ms${silent}`);
  }

  /** Whether another validator asked for a round after `round`. */
  private askedAbove(round: number): boolean {
    for (const [r, set] of this.roundChanges) if (r > round && [...set.keys()].some((from) => from !== this.me)) return true;
    return false;
  }

  /** timeout × (1 + round / 4), at most MAX_ROUND_TIMEOUT_MS (or the timeout itself when longer): I19 */
  private roundTimeoutMs(): number {
    return Math.min(Math.round(this.o.timeoutMs * (1 + this.round * ROUND_STEP)), Math.max(MAX_ROUND_TIMEOUT_MS, this.o.timeoutMs));
  }

  private highestRoundAsked(atLeast: number): number | undefined {
    let highest: number | undefined;
    for (const [r, set] of this.roundChanges) if (set.size >= atLeast && (highest === undefined || r > highest)) highest = r;
    return highest;
  }

  // ---------------------------------------------------------------- sending

  private send(code: MessageCode, msg: Uint8Array, seal?: Uint8Array): void {
    const m = signMessage(code, msg, this.o.key.address, this.o.key.privateKey, seal);
    const lies = this.o.test?.lies;
    if (lies && lies.size > 0) this.lie(m);
    else {
      const bytes = encodeMessage(m);
      this.o.transport.broadcast(bytes);
      const view = code === PREPREPARE ? decodePreprepare(msg).view : decodeSubject(msg).view;
      // once each (a ROUND_CHANGE asked again is the same bytes); a COMMIT for the block before is not this round's
      if (view.sequence === this.height?.sequence && !this.own.some((o) => equalBytes(o.bytes, bytes))) {
        this.own.push({ round: view.round, bytes });
        this.armResend();
      }
    }
    // this engine's own vote counts like any other; it goes through the queue like one
    if (code !== PREPREPARE) {
      const own = parseVote(m, this.me);
      this.run(() => this.handle(own));
    }
    if (this.o.test?.crashAfter === CODE_NAMES[code]) this.crash(code);
  }

  /** crash-after-*: nothing more is signed or sent, and the process dies once the message had time to leave. */
  private crash(code: MessageCode): void {
    this.stopped = true;
    this.clearTimers();
    this.o.log.warn(`iris: CHAIN_NODE_IRIS_TEST crash-after-${CODE_NAMES[code].toLowerCase()}: sent ${CODE_NAMES[code]} at block #${this.height?.sequence} round ${this.round}; dying in ${CRASH_DELAY_MS} ms`);
    setTimeout(this.o.die ?? (() => process.kill(process.pid, 'SIGKILL')), CRASH_DELAY_MS);
  }

  // ---------------------------------------------------------------- lies (test modes only, I12)

  /** Sends `m` as the test modes bend it: a bad seal in a COMMIT, a second vote for another block, kept for replay. */
  private lie(m: IrisMessage): void {
    const lies = this.o.test!.lies;
    const { address, privateKey } = this.o.key;
    let sent = m;
    if (m.code === COMMIT && lies.has('bad-seals')) {
      // another validator's seal when one was seen, else 65 bytes that are no signature
      const foreign = this.liar.seals++ % 2 === 0 ? this.liar.foreignSeal : undefined;
      sent = signMessage(COMMIT, m.msg, address, privateKey, foreign ?? new Uint8Array(65).fill(0xee).fill(0, 64));
    }
    const bytes = encodeMessage(sent);
    this.o.transport.broadcast(bytes);
    if (lies.has('replay')) {
      this.liar.sent.push(bytes);
      if (this.liar.sent.length > 16) this.liar.sent.shift();
    }
    if ((m.code === PREPARE || m.code === COMMIT) && lies.has('double-vote')) {
      const s = decodeSubject(m.msg);
      const other = keccak256(s.digest);
      this.o.transport.broadcast(encodeMessage(signMessage(m.code, encodeSubject({ view: s.view, digest: other }), address, privateKey, m.code === COMMIT ? committedSeal(other, privateKey) : undefined)));
    }
  }

  /** replay: every message sent before, again, and a ROUND_CHANGE for a round already passed. */
  private replayOwn(): void {
    for (const bytes of this.liar.sent) this.o.transport.broadcast(bytes);
    const h = this.height!;
    if (this.round > 0) {
      const m = signMessage(ROUND_CHANGE, encodeSubject({ view: { round: this.round - 1, sequence: h.sequence }, digest: ZERO_DIGEST }), this.o.key.address, this.o.key.privateKey);
      this.o.transport.broadcast(encodeMessage(m));
    }
  }

  /** round-change-flood: ROUND_CHANGEs for rounds ever further ahead. */
  private floodRoundChanges(): void {
    const h = this.height;
    if (!h?.active) return;
    const round = this.round + 1000 + this.liar.flood++;
    this.o.transport.broadcast(encodeMessage(signMessage(ROUND_CHANGE, encodeSubject({ view: { round, sequence: h.sequence }, digest: ZERO_DIGEST }), this.o.key.address, this.o.key.privateKey)));
  }

  /** sign-against-log: a vote for another block at every view the consensus log holds; the guard must refuse each. */
  private signAgainstLog(): void {
    for (const { sequence, round, digest } of this.guard.views()) {
      this.o.log.warn(`iris: CHAIN_NODE_IRIS_TEST sign-against-log: asking to sign a PREPARE for another block at block #${sequence} round ${round}`);
      this.vote(PREPARE, { sequence, round }, keccak256(hexToBytes(digest)));
    }
  }

  /** Signs a vote for `digest` at the view unless one for another block was signed there (VoteGuard). */
  private vote(code: typeof PREPARE | typeof COMMIT, view: View, digest: Uint8Array): void {
    if (!this.guard.claim(view.sequence, view.round, digest, code)) {
      this.o.log.error(`iris: refused to sign ${CODE_NAMES[code]} for ${bytesToHex(digest)} at block #${view.sequence} round ${view.round}: this node voted for ${this.guard.votedAt(view.sequence, view.round)} there`);
      return;
    }
    const msg = encodeSubject({ view, digest });
    this.send(code, msg, code === COMMIT ? committedSeal(digest, this.o.key.privateKey) : undefined);
  }

  private currentView(): View {
    return { round: this.round, sequence: this.height!.sequence };
  }

  /** Leaves the round for `round` (Venachain's sendRoundChange with catchUpRound): waits for N − F to agree. */
  private changeRound(round: number, why: string): void {
    const h = this.height!;
    if (round <= this.round) return;
    this.o.log.info(`iris: block #${h.sequence} round change ${this.round} → ${round} (${why})`);
    this.meter.roundChanged(h.sequence, round);
    this.resetRound(round);
    this.waitingForRoundChange = true;
    this.armRoundTimer();
    this.guard.roundChange(h.sequence, round);
    this.send(ROUND_CHANGE, encodeSubject({ view: { round, sequence: h.sequence }, digest: ZERO_DIGEST }));
  }

  // ---------------------------------------------------------------- proposing

  /** The round's proposer proposes its locked block, or a new one once work waits and the period has passed. */
  private tryPropose(): void {
    if (!this.isProposer() || this.waitingForRoundChange || this.state !== 'accept-request' || this.proposal) return;
    if (this.liesAsProposer() === 'silent') return;
    if (this.lock) {
      const { proposal, round, proof } = this.lock;
      this.o.log.debug(`iris: block #${this.height!.sequence} round ${this.round}: proposing locked block ${bytesToHex(proposal.hash)}`);
      if (!this.claimProposal(proposal)) return;
      this.send(PREPREPARE, encodePreprepare({ view: this.currentView(), block: proposal.encoded, lockedHash: proposal.hash, lockedRound: round, lockedPrepares: proof }));
      this.proposal = proposal;
      this.setState('prepared');
      this.vote(COMMIT, this.currentView(), proposal.hash);
      return;
    }
    if (this.proposeCued) return;
    this.proposeCued = true;
    const wait = this.periodEndsMs() - this.clock.now();
    if (wait > 0) this.proposeTimer = this.clock.setTimer(() => this.run(() => this.proposeNew()), wait);
    else this.run(() => this.proposeNew());
  }

  private async proposeNew(): Promise<void> {
    this.proposeCued = false;
    const at = this.currentView();
    const still = () => this.height?.active && this.height.sequence === at.sequence && this.round === at.round && !this.waitingForRoundChange && this.state === 'accept-request' && !this.proposal && !this.lock;
    if (!still() || !this.isProposer() || !(await this.o.chain.hasWork())) return;
    if (!still()) return;
    const proposal = await this.o.chain.build();
    if (!proposal || !still()) return;
    if (this.liesAsProposer() === 'bad-proposal') return this.proposeBad(proposal);
    if (!this.claimProposal(proposal)) return;
    this.o.log.debug(`iris: block #${at.sequence} round ${at.round}: proposing ${bytesToHex(proposal.hash)}`);
    this.send(PREPREPARE, encodePreprepare({ view: at, block: proposal.encoded, lockedHash: ZERO_DIGEST, lockedRound: 0, lockedPrepares: [] }));
    if (this.o.test?.lies.has('equivocate')) {
      // the same transactions a second later: a valid block, and another one
      const other = forgeBlock(proposal.encoded, (hd) => ({ ...hd, timestamp: hd.timestamp + 1n }), this.o.key.privateKey);
      this.o.log.warn(`iris: CHAIN_NODE_IRIS_TEST equivocate: a second block for block #${at.sequence} round ${at.round}`);
      this.o.transport.broadcast(encodeMessage(signMessage(PREPREPARE, encodePreprepare({ view: at, block: other, lockedHash: ZERO_DIGEST, lockedRound: 0, lockedPrepares: [] }), this.o.key.address, this.o.key.privateKey)));
    }
    this.proposal = proposal;
    this.setState('preprepared');
    this.vote(PREPARE, at, proposal.hash);
  }

  /** What the test modes make of this view's proposal (one choice per view; with both set, a silent turn then one of each bad block). */
  private liesAsProposer(): 'silent' | 'bad-proposal' | undefined {
    const lies = this.o.test?.lies;
    if (!lies || !(lies.has('silent') || lies.has('bad-proposal'))) return undefined;
    const view = `${this.height!.sequence}/${this.round}`;
    if (this.liar.proposedAt !== view) {
      this.liar.proposedAt = view;
      this.liar.turns++;
    }
    // with both: silent first, then one turn of each bad block
    if (lies.has('silent') && (!lies.has('bad-proposal') || this.liar.turns % (BAD_BLOCKS.length + 1) === 1)) return 'silent';
    return lies.has('bad-proposal') ? 'bad-proposal' : undefined;
  }

  /** bad-proposal: the built block broken one way, proposer-sealed, sent; nothing else this round. */
  private proposeBad(p: Proposal): void {
    const at = this.currentView();
    const bad = BAD_BLOCKS[this.liar.bad++ % BAD_BLOCKS.length]!;
    this.o.log.warn(`iris: CHAIN_NODE_IRIS_TEST bad-proposal: proposing block #${at.sequence} round ${at.round} with ${bad.what}`);
    const block = forgeBlock(p.encoded, bad.change, this.o.key.privateKey);
    this.send(PREPREPARE, encodePreprepare({ view: at, block, lockedHash: ZERO_DIGEST, lockedRound: 0, lockedPrepares: [] }));
    // leaves the round without a proposal of its own: the others' timeout moves it on
    this.proposal = undefined;
    this.state = 'preprepared';
  }

  private claimProposal(p: Proposal): boolean {
    const at = this.currentView();
    if (this.guard.claim(at.sequence, at.round, p.hash, PREPREPARE)) return true;
    this.o.log.error(`iris: refused to propose ${bytesToHex(p.hash)} at block #${at.sequence} round ${at.round}: this node voted for ${this.guard.votedAt(at.sequence, at.round)} there`);
    return false;
  }

  // ---------------------------------------------------------------- handlers

  private async handlePreprepare(v: Vote): Promise<void> {
    const h = this.height!;
    const pp = v.pp!;
    if (v.from !== bytesToHex(this.proposerAt(h, this.round))) {
      this.o.log.warn(`iris: PREPREPARE at block #${h.sequence} round ${this.round} from ${v.from}, who is not its proposer: ignored`);
      return;
    }
    if (this.state !== 'accept-request' || this.proposal) return;
    const at = this.currentView();
    const lock = this.lock;
    if (lock && equalBytes(pp.block, lock.proposal.encoded)) {
      this.proposal = lock.proposal;
      this.setState('prepared');
      this.vote(COMMIT, at, lock.proposal.hash);
      return;
    }
    const withProof = lock !== undefined && pp.lockedRound >= lock.round && !equalBytes(pp.lockedHash, ZERO_DIGEST) && this.proofOfLock(pp);
    if (lock && !withProof && !this.mutations.dropLockCheck) return this.changeRound(this.round + 1, `locked on ${bytesToHex(lock.proposal.hash)} and the proposal is another block without a proof of lock`);
    let proposal: Proposal;
    try {
      proposal = await this.o.chain.verify(pp.block);
    } catch (e) {
      if (this.height !== h || this.round !== at.round) return;
      this.o.log.warn(`iris: refused the proposal at block #${h.sequence} round ${at.round} from ${v.from}: ${(e as Error).message}`);
      return this.changeRound(this.round + 1, 'proposal refused');
    }
    if (this.height !== h || this.round !== at.round || this.waitingForRoundChange || this.state !== 'accept-request' || this.proposal) return;
    if (proposal.number !== h.sequence) return this.changeRound(this.round + 1, `proposal is block #${proposal.number}`);
    if (withProof) {
      if (!equalBytes(proposal.hash, pp.lockedHash)) return this.changeRound(this.round + 1, 'the proof of lock is for another block');
      this.o.log.info(`iris: block #${h.sequence} round ${at.round}: unlocked from ${bytesToHex(this.lock!.proposal.hash)} by a proof of lock for ${bytesToHex(proposal.hash)} from round ${pp.lockedRound}`);
      this.unlock();
    }
    this.proposal = proposal;
    this.setState('preprepared');
    this.vote(PREPARE, at, proposal.hash);
  }

  /** Venachain's handlePOLPreprepare check, made strict: N − F distinct members signed PREPARE or COMMIT for the locked hash at the locked round. */
  private proofOfLock(pp: Preprepare): boolean {
    const h = this.height!;
    // a proof longer than two votes per validator is padding: refused before any signature is checked
    if (pp.lockedPrepares.length > 2 * h.ordered.length) return false;
    const signers = new Set<string>();
    for (const m of pp.lockedPrepares) {
      if (m.code !== PREPARE && m.code !== COMMIT) continue;
      const from = bytesToHex(m.address);
      if (signers.has(from) || !h.members.has(from) || !signedByAddress(m)) continue;
      let s: Subject;
      try {
        s = decodeSubject(m.msg);
      } catch {
        continue;
      }
      if (s.view.sequence === h.sequence && s.view.round === pp.lockedRound && equalBytes(s.digest, pp.lockedHash)) signers.add(from);
    }
    return signers.size >= h.quorum;
  }

  /** Whether a PREPARE or COMMIT is for the current round's proposal (Venachain's verifyPrepare / verifyCommit). */
  private forProposal(v: Vote): boolean {
    return this.proposal !== undefined && v.view.round === this.round && equalBytes(v.subject!.digest, this.proposal.hash);
  }

  private preparedOrCommitted(): number {
    let n = this.prepares.size;
    for (const from of this.commits.keys()) if (!this.prepares.has(from)) n++;
    return n;
  }

  private handlePrepare(v: Vote): void {
    if (!this.forProposal(v)) return;
    this.prepares.set(v.from, v.m);
    this.maybePrepared();
  }

  /** On N − F prepares (or commits) for the proposal: lock and COMMIT (a proposal of the locked block was prepared on arrival). */
  private maybePrepared(): void {
    if (STATE_ORDER[this.state] >= STATE_ORDER.prepared) return;
    const p = this.proposal!;
    if (this.preparedOrCommitted() < this.height!.quorum) return;
    this.lockProposal();
    this.setState('prepared');
    this.vote(COMMIT, this.currentView(), p.hash);
  }

  private lockProposal(): void {
    const p = this.proposal!;
    const proof = [...this.prepares.values(), ...[...this.commits].filter(([from]) => !this.prepares.has(from)).map(([, m]) => m)];
    // a lock on the same block keeps its older proof when this round's is short of the quorum
    if (this.lock && equalBytes(this.lock.proposal.hash, p.hash) && proof.length < this.height!.quorum) return;
    const renewed = this.lock !== undefined && equalBytes(this.lock.proposal.hash, p.hash) && this.lock.round === this.round;
    this.lock = { proposal: p, round: this.round, proof };
    // durable before the COMMIT that follows it is sent (I9); the same lock again adds nothing a restart needs
    if (!renewed) this.o.consensusLog?.lock({ sequence: this.height!.sequence, round: this.round, block: p.encoded, proof: proof.map(encodeMessage) });
  }

  private unlock(): void {
    this.lock = undefined;
    this.o.consensusLog?.unlock(this.height!.sequence);
  }

  private async handleCommit(v: Vote): Promise<void> {
    if (!this.forProposal(v)) return;
    if (v.from !== this.me && this.o.test?.lies.has('bad-seals')) this.liar.foreignSeal = v.m.committedSeal;
    this.commits.set(v.from, v.m);
    this.maybePrepared();
    if (this.commits.size < this.height!.quorum - (this.mutations.commitBelowQuorum ? 1 : 0) || this.state === 'committed') return;
    this.lockProposal();
    this.setState('committed');
    const h = this.height!;
    const proposal = this.proposal!;
    const seals = [...this.commits.values()].map((m) => m.committedSeal);
    try {
      await this.o.chain.commit(proposal, seals);
      this.o.log.debug(`iris: block #${h.sequence} committed in round ${this.round} with ${seals.length} seals`);
    } catch (e) {
      this.o.log.error(`iris: block #${h.sequence} ${bytesToHex(proposal.hash)} could not be committed: ${(e as Error).message}`);
      if (this.height !== h) return;
      this.unlock();
      this.changeRound(this.round + 1, 'commit failed');
    }
  }

  private handleRoundChange(v: Vote): void {
    const h = this.height!;
    const r = v.view.round;
    // one ROUND_CHANGE per sender, its highest: validators only move up, and the table stays N long
    for (const [round, set] of this.roundChanges) {
      if (!set.has(v.from)) continue;
      if (round > r) return;
      set.delete(v.from);
      if (set.size === 0) this.roundChanges.delete(round);
    }
    let asked = this.roundChanges.get(r);
    if (!asked) this.roundChanges.set(r, (asked = new Map()));
    asked.set(v.from, v.m);
    if (asked.size >= h.quorum && (this.waitingForRoundChange || r > this.round)) return this.enterRound(r, `${asked.size} of ${h.ordered.length} validators asked for it`);
    if (asked.size >= h.f + 1 && r > this.round) this.changeRound(r, `catching up: ${asked.size} validators asked for round ${r}`);
  }

  /** Venachain's sendCommitForOldBlock: the rightful proposer of the block just written missed its end; our COMMIT lets it finish. */
  private commitForOldBlock(v: Vote): void {
    const prev = this.previous;
    const h = this.height!;
    if (!prev || v.view.sequence !== prev.sequence || !prev.members.has(this.me)) return;
    if (v.from !== bytesToHex(this.proposerAt(prev, v.view.round))) return;
    let hash: Uint8Array;
    try {
      hash = this.o.chain.proposalOf(v.pp!.block).hash;
    } catch {
      return;
    }
    if (!equalBytes(hash, h.parent.hash)) return;
    this.vote(COMMIT, v.view, hash);
  }
}

/** Decodes a signed message's body; throws MalformedMessage. */
function parseVote(m: IrisMessage, from: string): Vote {
  if (m.code === PREPREPARE) {
    const pp = decodePreprepare(m.msg);
    return { m, from, view: pp.view, pp };
  }
  const subject = decodeSubject(m.msg);
  if (m.code === ROUND_CHANGE && !equalBytes(subject.digest, ZERO_DIGEST)) throw new MalformedMessage('a ROUND_CHANGE carries the zero hash');
  return { m, from, view: subject.view, subject };
}
