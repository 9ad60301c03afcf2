// Evidence of equivocation (I11): two messages a validator signed for different blocks at one
// height and round (PREPREPARE, PREPARE and COMMIT share the slot, as the vote guard's). The watch
// sees the votes of the current height only and forgets them at the next, so it holds at most one
// entry per validator and round of a height; what it found is kept, the last MAX_KEPT of it.
import { bytesToHex } from '../../util/hex.ts';
import { CODE_NAMES, encodeMessage, type IrisMessage } from './messages.ts';

const MAX_KEPT = 32;

export interface SignedFor {
  code: 'PREPREPARE' | 'PREPARE' | 'COMMIT';
  /** the block hash the message is for */
  digest: string;
  /** the signed message, RLP hex: anyone can check its signature */
  message: string;
}

export interface Equivocation {
  validator: string;
  sequence: bigint;
  round: number;
  first: SignedFor;
  second: SignedFor;
}

export class EquivocationWatch {
  /** `${from}/${round}` → the first block signed for there, at the current height */
  private seen = new Map<string, { m: IrisMessage; digest: string; reported?: true }>();
  private sequence = -1n;
  private readonly found: Equivocation[] = [];

  /** A signed vote for `digest` at the current height; returns the evidence when it is the second, different one. */
  check(from: string, sequence: bigint, round: number, m: IrisMessage, digest: Uint8Array): Equivocation | undefined {
    if (sequence !== this.sequence) {
      this.seen.clear();
      this.sequence = sequence;
    }
    const key = `${from}/${round}`;
    const hash = bytesToHex(digest);
    const before = this.seen.get(key);
    if (!before) {
      this.seen.set(key, { m, digest: hash });
      return undefined;
    }
    if (before.reported || before.digest === hash) return undefined;
    const e: Equivocation = {
      validator: from,
      sequence,
      round,
      first: { code: CODE_NAMES[before.m.code] as SignedFor['code'], digest: before.digest, message: bytesToHex(encodeMessage(before.m)) },
      second: { code: CODE_NAMES[m.code] as SignedFor['code'], digest: hash, message: bytesToHex(encodeMessage(m)) },
    };
    // once per validator and view: the evidence is whole with two messages
    before.reported = true;
    this.found.push(e);
    if (this.found.length > MAX_KEPT) this.found.shift();
    return e;
  }

  list(): readonly Equivocation[] {
    return this.found;
  }
}
