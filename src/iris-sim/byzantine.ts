// A Byzantine validator: it runs the real engine and lies on the way out (I15). It sends its own
// messages to one half of the validators and forgeries, signed with its key, to the other: as
// proposer a second block for the same view (equivocation), as voter a PREPARE or COMMIT for
// another block than the one it voted for (double votes, with a valid committed seal); or it is
// silent. The other block is one it saw proposed at that height, else its own second block.
import type { HeadInfo } from '../chain/chain.ts';
import { decodeBlock } from '../chain/block-codec.ts';
import type { NodeKey } from '../crypto/node-key.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { committedSeal } from '../consensus/seals.ts';
import {
  COMMIT, decodeMessage, decodePreprepare, decodeSubject, encodeMessage, encodePreprepare, encodeSubject, PREPARE, PREPREPARE, signMessage, ZERO_DIGEST,
} from '../consensus/iris/messages.ts';
import { buildStandIn } from './chain.ts';
import type { Lie } from './faults.ts';

export interface LiarContext {
  key: NodeKey;
  head: () => HeadInfo;
  validators: Uint8Array[];
  nowMs: () => number;
  periodSeconds: number;
  random: () => number;
}

export class Liar {
  /** block hashes seen proposed, by height (its own second blocks included) */
  private readonly seen = new Map<bigint, Set<string>>();

  constructor(private readonly lies: readonly Lie[], private readonly c: LiarContext) {}

  /** A message a peer sent it: what it learns of other blocks. */
  heard(bytes: Uint8Array): void {
    try {
      const m = decodeMessage(bytes);
      if (m.code === PREPREPARE) {
        const pp = decodePreprepare(m.msg);
        this.see(pp.view.sequence, bytesToHex(decodeBlock(pp.block).hash));
      } else if (m.code === PREPARE || m.code === COMMIT) {
        const s = decodeSubject(m.msg);
        this.see(s.view.sequence, bytesToHex(s.digest));
      }
    } catch {
      // not ours to judge
    }
  }

  /** What goes to each of `peers` for one message its engine broadcast. */
  broadcast(bytes: Uint8Array, peers: number[], send: (to: number, bytes: Uint8Array) => void): void {
    if (this.lies.includes('silent')) return;
    const forged = this.forge(bytes);
    for (const to of peers) send(to, forged && this.c.random() < 0.5 ? forged : bytes);
  }

  private forge(bytes: Uint8Array): Uint8Array | undefined {
    const m = decodeMessage(bytes);
    const { key } = this.c;
    if (m.code === PREPREPARE && this.lies.includes('equivocate')) {
      const pp = decodePreprepare(m.msg);
      const head = this.c.head();
      if (head.header.number + 1n !== pp.view.sequence) return undefined;
      const other = buildStandIn(head, this.c.validators, key, this.c.nowMs(), this.c.periodSeconds, 1 + pp.view.round);
      this.see(pp.view.sequence, bytesToHex(other.hash));
      const msg = encodePreprepare({ view: pp.view, block: other.encoded, lockedHash: ZERO_DIGEST, lockedRound: 0, lockedPrepares: [] });
      return encodeMessage(signMessage(PREPREPARE, msg, key.address, key.privateKey));
    }
    if ((m.code === PREPARE || m.code === COMMIT) && this.lies.includes('double-vote')) {
      const s = decodeSubject(m.msg);
      const mine = bytesToHex(s.digest);
      let other = [...(this.seen.get(s.view.sequence) ?? [])].find((h) => h !== mine);
      const head = this.c.head();
      if (other === undefined && head.header.number + 1n === s.view.sequence) {
        other = bytesToHex(buildStandIn(head, this.c.validators, key, this.c.nowMs(), this.c.periodSeconds, 100 + s.view.round).hash);
      }
      if (other === undefined) return undefined;
      const digest = hexToBytes(other);
      const msg = encodeSubject({ view: s.view, digest });
      return encodeMessage(signMessage(m.code, msg, key.address, key.privateKey, m.code === COMMIT ? committedSeal(digest, key.privateKey) : undefined));
    }
    return undefined;
  }

  private see(sequence: bigint, hash: string): void {
    let s = this.seen.get(sequence);
    if (!s) {
      this.seen.set(sequence, (s = new Set()));
      for (const h of this.seen.keys()) if (h < sequence - 2n) this.seen.delete(h);
    }
    s.add(hash);
  }
}
