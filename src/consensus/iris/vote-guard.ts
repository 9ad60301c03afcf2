// The engine's safety invariant, kept apart so it is checked by itself: this validator never signs
// votes (PREPREPARE, PREPARE, COMMIT) for two different blocks at one height and round. Two such
// signatures from more than F validators are what a fork needs; the engine's state machine should
// never ask for one, and if it does (a bug), the second is refused here rather than signed.
import { bytesToHex } from '../../util/hex.ts';

export class VoteGuard {
  /** `${sequence}/${round}` → the block hash voted for there */
  private readonly voted = new Map<string, string>();

  /** Whether a vote for `digest` at this sequence and round may be signed; records it when it may. */
  claim(sequence: bigint, round: number, digest: Uint8Array): boolean {
    const key = `${sequence}/${round}`;
    const hash = bytesToHex(digest);
    const before = this.voted.get(key);
    if (before !== undefined) return before === hash;
    this.voted.set(key, hash);
    return true;
  }

  /** The block voted for at this sequence and round, if any. */
  votedAt(sequence: bigint, round: number): string | undefined {
    return this.voted.get(`${sequence}/${round}`);
  }

  /** Forgets sequences below `sequence` (they are final). */
  forgetBelow(sequence: bigint): void {
    for (const key of this.voted.keys()) if (BigInt(key.slice(0, key.indexOf('/'))) < sequence) this.voted.delete(key);
  }
}
