// One sender's pool transactions, sorted by nonce. The first `pending` of them carry the nonces
// base, base+1, … (executable in that order); the rest are queued behind a gap. Lookups are a
// binary search; an insertion or removal moves at most the sender's own (bounded) entries.
import type { PooledTx } from '../tx/pooled-tx.ts';

export class SenderTxs {
  /** sorted by nonce, no two with the same nonce */
  readonly txs: PooledTx[] = [];
  /** length of the executable run at the front of `txs` */
  pending = 0;
  /** last progress (first queued transaction, or a promotion), for queue expiry and trimming */
  beat = 0;

  constructor(
    readonly address: string,
    /** the account nonce at the head the pool last saw */
    public base: bigint,
  ) {}

  get queued(): number {
    return this.txs.length - this.pending;
  }

  /** Index of `nonce` if present, else (-index - 1) of where it would go. */
  search(nonce: bigint): number {
    let lo = 0;
    let hi = this.txs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const n = this.txs[mid]!.nonce;
      if (n < nonce) lo = mid + 1;
      else if (n > nonce) hi = mid - 1;
      else return mid;
    }
    return -lo - 1;
  }

  get(nonce: bigint): PooledTx | undefined {
    const i = this.search(nonce);
    return i >= 0 ? this.txs[i] : undefined;
  }

  /** The nonce the next executable transaction needs. */
  get nextNonce(): bigint {
    return this.base + BigInt(this.pending);
  }

  /** Inserts at its sorted place (the nonce must not be present). Does not extend the run. */
  insert(ptx: PooledTx): void {
    const i = this.search(ptx.nonce);
    if (i >= 0) throw new Error(`nonce ${ptx.nonce} already present`);
    this.txs.splice(-i - 1, 0, ptx);
  }

  /** Removes index `i`; a pending transaction takes everything after it out of the run. */
  removeAt(i: number): PooledTx {
    const [ptx] = this.txs.splice(i, 1);
    if (i < this.pending) this.pending = i;
    return ptx!;
  }

  /** Extends the run over consecutive nonces; returns the newly executable transactions. */
  extendRun(): PooledTx[] {
    const promoted: PooledTx[] = [];
    let next = this.nextNonce;
    while (this.pending < this.txs.length && this.txs[this.pending]!.nonce === next) {
      promoted.push(this.txs[this.pending]!);
      this.pending++;
      next++;
    }
    return promoted;
  }
}
