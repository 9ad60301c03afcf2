// The engine's safety invariant, kept apart so it is checked by itself: this validator never signs
// votes (PREPREPARE, PREPARE, COMMIT) for two different blocks at one height and round. Two such
// signatures from more than F validators are what a fork needs; the engine's state machine should
// never ask for one, and if it does (a bug, or a restart that forgot), the second is refused here
// rather than signed. What it allows is written to the consensus log before it returns (I9), and a
// guard made from that log after a crash refuses what the one before it would have.
import { bytesToHex } from '../../util/hex.ts';
import type { ConsensusLog, SignedVote } from './ports.ts';

const ROUND_CHANGE = 3;

export class VoteGuard {
  /** `${sequence}/${round}` → the block hash voted for there */
  private readonly voted = new Map<string, string>();
  /** sequence → the highest round this node asked for (ROUND_CHANGE) or voted in */
  private readonly rounds = new Map<bigint, number>();

  /** `restored`: the votes a consensus log held at start; `log`: where new ones are made durable. */
  constructor(private readonly log?: ConsensusLog, restored: readonly SignedVote[] = []) {
    for (const v of restored) this.remember(v);
  }

  /**
   * Whether a vote (`code` PREPREPARE 0, PREPARE 1 or COMMIT 2) for `digest` at this sequence and
   * round may be signed; when it may and is the first at that view, it is durable in the log on return.
   */
  claim(sequence: bigint, round: number, digest: Uint8Array, code = 1): boolean {
    const key = `${sequence}/${round}`;
    const before = this.voted.get(key);
    // a second vote for the same block at a view adds nothing to what a restart must refuse
    if (before !== undefined) return before === bytesToHex(digest);
    const v = { sequence, round, code, digest };
    this.log?.vote(v);
    this.remember(v);
    return true;
  }

  /** Records a ROUND_CHANGE for `round` before it is sent: a restart resumes the height there. */
  roundChange(sequence: bigint, round: number): void {
    if ((this.rounds.get(sequence) ?? -1) >= round) return;
    const v = { sequence, round, code: ROUND_CHANGE, digest: new Uint8Array(32) };
    this.log?.vote(v);
    this.remember(v);
  }

  /** The block voted for at this sequence and round, if any. */
  votedAt(sequence: bigint, round: number): string | undefined {
    return this.voted.get(`${sequence}/${round}`);
  }

  /** The highest round this node signed anything in at `sequence`. */
  highestRound(sequence: bigint): number | undefined {
    return this.rounds.get(sequence);
  }

  /** The views voted at (for the documented test hook that tries to sign against them). */
  views(): { sequence: bigint; round: number; digest: string }[] {
    return [...this.voted].map(([key, digest]) => {
      const [s, r] = key.split('/');
      return { sequence: BigInt(s!), round: Number(r), digest };
    });
  }

  /** Forgets sequences below `sequence` (they are final), in memory and in the log. */
  forgetBelow(sequence: bigint): void {
    for (const key of this.voted.keys()) if (BigInt(key.slice(0, key.indexOf('/'))) < sequence) this.voted.delete(key);
    for (const s of this.rounds.keys()) if (s < sequence) this.rounds.delete(s);
    this.log?.trimBelow(sequence);
  }

  private remember(v: SignedVote): void {
    if (v.code !== ROUND_CHANGE) this.voted.set(`${v.sequence}/${v.round}`, bytesToHex(v.digest));
    if ((this.rounds.get(v.sequence) ?? -1) < v.round) this.rounds.set(v.sequence, v.round);
  }
}
