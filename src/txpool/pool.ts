// The transaction pool. Per sender, transactions whose nonces follow the account nonce without a
// gap are pending (executable); the rest are queued. The sealer takes pending transactions per
// sender in nonce order; a sealed block removes what it included and promotes what became
// executable. (Replacement by price bump, limits, expiry and txpool_ listings extend this module.)
import type { PooledTx } from './pooled-tx.ts';

export class PoolError extends Error {}

export interface PoolAccountState {
  nonce(senderHex: string): Promise<bigint>;
}

class SenderTxs {
  /** nonce → tx */
  readonly byNonce = new Map<bigint, PooledTx>();
  /** number of consecutive pending transactions starting at the account nonce */
  pendingCount = 0;
  constructor(public baseNonce: bigint) {}
}

export class TxPool {
  private readonly senders = new Map<string, SenderTxs>();
  private readonly byHash = new Map<string, PooledTx>();
  private readonly pendingListeners: ((ptx: PooledTx) => void)[] = [];
  private totalPending = 0;

  constructor(private readonly state: PoolAccountState) {}

  get size(): number {
    return this.byHash.size;
  }

  get pendingCount(): number {
    return this.totalPending;
  }

  get queuedCount(): number {
    return this.byHash.size - this.totalPending;
  }

  has(hashHex: string): boolean {
    return this.byHash.has(hashHex);
  }

  get(hashHex: string): PooledTx | undefined {
    return this.byHash.get(hashHex);
  }

  /** Called for every transaction that becomes pending (executable). */
  onPending(fn: (ptx: PooledTx) => void): void {
    this.pendingListeners.push(fn);
  }

  /** Next nonce for a sender counting its pending transactions (getTransactionCount 'pending'). */
  async pendingNonce(senderHex: string): Promise<bigint> {
    const s = this.senders.get(senderHex);
    if (s) return s.baseNonce + BigInt(s.pendingCount);
    return this.state.nonce(senderHex);
  }

  /** Admits a validated transaction. Throws PoolError for duplicates and nonces below the account nonce. */
  async add(ptx: PooledTx): Promise<'pending' | 'queued'> {
    if (this.byHash.has(ptx.hashHex)) throw new PoolError(`already known: ${ptx.hashHex}`);
    let s = this.senders.get(ptx.senderHex);
    if (!s) {
      const nonce = await this.state.nonce(ptx.senderHex);
      s = this.senders.get(ptx.senderHex) ?? new SenderTxs(nonce);
      this.senders.set(ptx.senderHex, s);
    }
    if (ptx.nonce < s.baseNonce) throw new PoolError(`nonce too low: next nonce ${s.baseNonce}, tx nonce ${ptx.nonce}`);
    if (s.byNonce.has(ptx.nonce)) throw new PoolError(`a transaction with nonce ${ptx.nonce} from ${ptx.senderHex} is already in the pool`);
    s.byNonce.set(ptx.nonce, ptx);
    this.byHash.set(ptx.hashHex, ptx);
    const before = s.pendingCount;
    this.promote(s);
    return s.pendingCount > before ? 'pending' : 'queued';
  }

  /** Extends a sender's pending run over consecutive nonces and announces newly pending txs. */
  private promote(s: SenderTxs): void {
    let next = s.baseNonce + BigInt(s.pendingCount);
    let tx: PooledTx | undefined;
    while ((tx = s.byNonce.get(next)) !== undefined) {
      s.pendingCount++;
      this.totalPending++;
      for (const fn of this.pendingListeners) fn(tx);
      next++;
    }
  }

  /** Pending transactions: sender by sender, each sender's in nonce order (what the executor needs). */
  *executable(): Generator<PooledTx> {
    for (const s of this.senders.values()) {
      for (let i = 0n; i < BigInt(s.pendingCount); i++) yield s.byNonce.get(s.baseNonce + i)!;
    }
  }

  /** Per sender, pending and queued transactions in nonce order (txpool_ listings). */
  listing(): { pending: Map<string, PooledTx[]>; queued: Map<string, PooledTx[]> } {
    const pending = new Map<string, PooledTx[]>();
    const queued = new Map<string, PooledTx[]>();
    for (const [sender, s] of this.senders) {
      const nonces = [...s.byNonce.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const end = s.baseNonce + BigInt(s.pendingCount);
      for (const n of nonces) {
        const target = n < end ? pending : queued;
        let list = target.get(sender);
        if (!list) target.set(sender, (list = []));
        list.push(s.byNonce.get(n)!);
      }
    }
    return { pending, queued };
  }

  async onBlock(included: readonly PooledTx[], invalid: readonly PooledTx[]): Promise<void> {
    const senders = new Set<string>();
    for (const ptx of included) senders.add(ptx.senderHex);
    for (const ptx of invalid) senders.add(ptx.senderHex);
    const nonces = new Map<string, bigint>();
    for (const senderHex of senders) nonces.set(senderHex, await this.state.nonce(senderHex));
    const touched = new Set<string>();
    for (const ptx of included) this.removeTx(ptx, touched);
    for (const ptx of invalid) this.removeTx(ptx, touched);
    for (const senderHex of touched) {
      const s = this.senders.get(senderHex);
      if (!s) continue;
      const nonce = nonces.get(senderHex)!;
      this.totalPending -= s.pendingCount;
      s.pendingCount = 0;
      for (const [n, tx] of s.byNonce) {
        if (n < nonce) {
          s.byNonce.delete(n);
          this.byHash.delete(tx.hashHex);
        }
      }
      s.baseNonce = nonce;
      if (s.byNonce.size === 0) {
        this.senders.delete(senderHex);
        continue;
      }
      this.promote(s);
    }
  }

  private removeTx(ptx: PooledTx, touched: Set<string>): void {
    const s = this.senders.get(ptx.senderHex);
    if (!s || s.byNonce.get(ptx.nonce) !== ptx) return;
    s.byNonce.delete(ptx.nonce);
    this.byHash.delete(ptx.hashHex);
    touched.add(ptx.senderHex);
  }
}
