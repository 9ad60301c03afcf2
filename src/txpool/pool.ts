// The transaction pool, with geth's legacypool semantics. Per sender, transactions whose nonces
// follow the account nonce without a gap are pending (executable); the rest are queued until the
// gap fills. A transaction with a pooled sender and nonce replaces the pooled one only when it pays
// --txpool.pricebump percent more. Limits: globalSlots pending in total (above it newcomers are
// refused unless their sender is within its guaranteed accountSlots; accepted pending transactions
// are never trimmed, unlike geth — see insert()), accountQueue queued per sender, globalQueue queued in total (the least recently
// active senders lose theirs first), globalSlots+globalQueue in all (then the cheapest remote
// transaction is evicted, or the newcomer refused), and queued transactions of a sender that made no
// progress for `lifetime` expire. Local senders (whose transactions this node signed) are exempt
// from every eviction. After each block every sender is re-based on the head: included and stale
// nonces leave, transactions the balance no longer covers leave, later ones fall back to queued.
//
// Every mutation below the one `await` per operation is synchronous, so no two operations
// interleave half-way and the structures (per-sender lists, hash index, price heap, counters)
// agree whenever another request looks.
import type { PooledTx } from '../tx/pooled-tx.ts';
import { SenderTxs } from './sender-txs.ts';
import { PriceHeap } from './price-heap.ts';
import { DEFAULT_TXPOOL_CONFIG, type TxPoolConfig } from './config.ts';

export class PoolError extends Error {}

export interface PoolAccount {
  nonce: bigint;
  balance: bigint;
}

/** The pool's view of the chain: an account as the current head holds it. */
export interface PoolAccountState {
  account(senderHex: string): Promise<PoolAccount>;
}

export interface AddOptions {
  /** submitted through this node's own signing (eth_sendTransaction, personal_*, resend): geth's
   * "locals" — the sender is then exempt from eviction, the queue limits and expiry */
  local?: boolean;
}

export interface PoolOptions {
  /** clock in ms (queue expiry); tests drive their own */
  now?: () => number;
  /** sweep expired queues on a timer (default true; tests call evictExpired themselves) */
  expiryTimer?: boolean;
}

type Listener<A extends unknown[]> = (...args: A) => void;

/** Smallest price that replaces `old` with a bump of `bump` percent (and always above `old`). */
export function replacementMinimum(old: bigint, bump: number): bigint {
  const bumped = (old * BigInt(100 + bump)) / 100n;
  return bumped > old ? bumped : old + 1n;
}

export class TxPool {
  readonly config: Readonly<TxPoolConfig>;
  private readonly senders = new Map<string, SenderTxs>();
  private readonly byHash = new Map<string, PooledTx>();
  private readonly locals = new Set<string>();
  /** remote transactions, cheapest first (eviction order) */
  private readonly priced = new PriceHeap();
  /** remote senders with queued transactions, least recent beat first (a beat re-inserts) */
  private readonly queueByBeat = new Map<string, SenderTxs>();
  private readonly dropReasons = new WeakMap<PooledTx, string>();
  private readonly announced = new WeakSet<PooledTx>();
  private toAnnounce: PooledTx[] = [];
  private readonly pendingListeners: Listener<[PooledTx]>[] = [];
  private readonly dropListeners: Listener<[PooledTx, string]>[] = [];
  private totalPending = 0;
  /** moves with every block: an account read that spans one is read again */
  private headEpoch = 0;
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly state: PoolAccountState,
    config: Partial<TxPoolConfig> = {},
    options: PoolOptions = {},
  ) {
    this.config = { ...DEFAULT_TXPOOL_CONFIG, ...config };
    this.now = options.now ?? Date.now;
    if (options.expiryTimer !== false && Number.isFinite(this.config.lifetimeMs)) {
      // geth sweeps every minute; short lifetimes (tests) are swept at half their length
      this.timer = setInterval(() => this.evictExpired(), Math.min(60_000, Math.max(10, Math.floor(this.config.lifetimeMs / 2))));
      this.timer.unref();
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

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

  /** The pooled transaction of `senderHex` with `nonce`, pending or queued. */
  find(senderHex: string, nonce: bigint): PooledTx | undefined {
    return this.senders.get(senderHex)?.get(nonce);
  }

  /** The pooled transactions of one sender in nonce order. */
  ofSender(senderHex: string): readonly PooledTx[] {
    return this.senders.get(senderHex)?.txs ?? [];
  }

  isLocal(senderHex: string): boolean {
    return this.locals.has(senderHex);
  }

  /** Called once for every transaction that becomes pending (executable). */
  onPending(fn: (ptx: PooledTx) => void): void {
    this.pendingListeners.push(fn);
  }

  /** Called for every transaction that leaves the pool other than by inclusion in a block. */
  onDropped(fn: (ptx: PooledTx, reason: string) => void): void {
    this.dropListeners.push(fn);
  }

  /** Next nonce for a sender counting its pending transactions (getTransactionCount 'pending'). */
  async pendingNonce(senderHex: string): Promise<bigint> {
    const s = this.senders.get(senderHex);
    if (s) return s.nextNonce;
    return (await this.state.account(senderHex)).nonce;
  }

  /**
   * Admits a validated transaction (signature, chain id, gas, balance are admission's checks).
   * Throws PoolError when it is a duplicate, its nonce is used, it cannot replace the pooled one,
   * or a limit refuses it. Returns where it landed.
   */
  async add(ptx: PooledTx, options: AddOptions = {}): Promise<'pending' | 'queued'> {
    if (this.byHash.has(ptx.hashHex)) throw new PoolError(`already known: ${ptx.hashHex}`);
    const s = this.senders.get(ptx.senderHex) ?? (await this.newSender(ptx.senderHex));
    // synchronous from here on
    try {
      if (this.byHash.has(ptx.hashHex)) throw new PoolError(`already known: ${ptx.hashHex}`);
      if (options.local) this.markLocal(s);
      return this.insert(s, ptx);
    } finally {
      this.settle(s);
      this.announce();
    }
  }

  private async newSender(address: string): Promise<SenderTxs> {
    let account: PoolAccount;
    let epoch: number;
    do {
      epoch = this.headEpoch;
      account = await this.state.account(address);
    } while (epoch !== this.headEpoch);
    let s = this.senders.get(address);
    if (!s) this.senders.set(address, (s = new SenderTxs(address, account.nonce)));
    return s;
  }

  private insert(s: SenderTxs, ptx: PooledTx): 'pending' | 'queued' {
    const { accountQueue, globalSlots, globalQueue } = this.config;
    if (ptx.nonce < s.base) throw new PoolError(`nonce too low: next nonce ${s.base}, tx nonce ${ptx.nonce}`);
    const local = this.locals.has(s.address);
    const at = s.search(ptx.nonce);
    if (at >= 0) return this.replace(s, at, ptx, local);

    const executable = ptx.nonce === s.nextNonce;
    const highest = s.txs[s.txs.length - 1];
    if (!executable && !local && s.queued >= accountQueue && (!highest || ptx.nonce > highest.nonce)) {
      throw new PoolError(`txpool is full: ${s.address} already has ${s.queued} queued transactions (limit ${accountQueue}, --txpool.accountqueue)`);
    }
    // Above globalslots a newcomer is refused (retry later) unless its sender is still within its
    // guaranteed accountslots. Accepted transactions are never trimmed to make room, as geth does:
    // a trimmed pending transaction leaves a nonce gap its sender does not know about and stalls
    // every later transaction of that sender (measured: a 10,000-transfer ingest never finished).
    if (executable && !local && this.totalPending >= globalSlots && s.pending >= this.config.accountSlots) {
      throw new PoolError(`txpool is full: ${this.totalPending} pending transactions (--txpool.globalslots ${globalSlots}) and ${s.address} already holds its ${this.config.accountSlots} guaranteed slots; retry later`);
    }
    if (this.byHash.size >= globalSlots + globalQueue) {
      this.makeRoom(ptx, executable, local);
      this.senders.set(s.address, s); // the victim may have been this sender's last transaction
    }

    s.insert(ptx);
    this.byHash.set(ptx.hashHex, ptx);
    if (!local) this.priced.push(ptx);
    this.promote(s);
    this.settle(s);
    if (!local) this.capQueue(s);
    this.truncateQueue();

    if (this.byHash.get(ptx.hashHex) !== ptx) throw new PoolError(this.dropReasons.get(ptx) ?? 'txpool is full');
    return this.isPending(ptx) ? 'pending' : 'queued';
  }

  /** geth's rule: both the price and the tip must rise by at least priceBump percent. */
  private replace(s: SenderTxs, at: number, ptx: PooledTx, local: boolean): 'pending' | 'queued' {
    const old = s.txs[at]!;
    const { priceBump } = this.config;
    const minPrice = replacementMinimum(old.gasPrice, priceBump);
    const minTip = replacementMinimum(old.tipCap, priceBump);
    if (ptx.gasPrice < minPrice || ptx.tipCap < minTip) {
      throw new PoolError(
        `replacement transaction underpriced: gas price ${ptx.gasPrice} is below ${minPrice}, the pooled transaction's ${old.gasPrice} raised by ${priceBump}% (--txpool.pricebump)`,
      );
    }
    s.txs[at] = ptx;
    this.byHash.set(ptx.hashHex, ptx);
    if (!local) this.priced.push(ptx);
    this.forget(old, `replaced by ${ptx.hashHex}`);
    const pending = at < s.pending;
    if (pending) this.toAnnounce.push(ptx);
    return pending ? 'pending' : 'queued';
  }

  /** The pool is full: evict the cheapest remote transaction, or refuse the newcomer. */
  private makeRoom(ptx: PooledTx, executable: boolean, local: boolean): void {
    const victim = this.priced.peek();
    if (!victim) {
      if (local) return; // locals may exceed the limits (geth)
      throw new PoolError(`txpool is full: ${this.byHash.size} transactions, none of them evictable`);
    }
    if (!local && ptx.gasPrice <= victim.gasPrice) {
      throw new PoolError(`transaction underpriced: the pool is full and gas price ${ptx.gasPrice} does not exceed the cheapest pooled ${victim.gasPrice}`);
    }
    if (!local && !executable && this.isPending(victim)) {
      throw new PoolError('future transaction tries to replace pending: the pool is full and a queued transaction may only evict queued ones');
    }
    this.drop(victim, `evicted: the pool is full (${this.config.globalSlots + this.config.globalQueue}) and it paid the lowest gas price`);
  }

  private isPending(ptx: PooledTx): boolean {
    const s = this.senders.get(ptx.senderHex);
    if (!s) return false;
    const i = s.search(ptx.nonce);
    return i >= 0 && i < s.pending && s.txs[i] === ptx;
  }

  /** Extends the sender's executable run; promotions count as progress (heartbeat). */
  private promote(s: SenderTxs): void {
    const promoted = s.extendRun();
    if (promoted.length === 0) return;
    this.totalPending += promoted.length;
    this.toAnnounce.push(...promoted);
    s.beat = this.now();
    this.queueByBeat.delete(s.address); // settle re-inserts it at the recent end
  }

  /** Index bookkeeping after any change to a sender: empty senders go, the limit sets follow. */
  private settle(s: SenderTxs): void {
    const { address } = s;
    if (s.txs.length === 0) {
      if (this.senders.get(address) === s) this.senders.delete(address);
      this.queueByBeat.delete(address);
      return;
    }
    const remote = !this.locals.has(address);
    if (remote && s.queued > 0) {
      if (!this.queueByBeat.has(address)) {
        s.beat = this.now();
        this.queueByBeat.set(address, s);
      }
    } else {
      this.queueByBeat.delete(address);
    }
  }

  private markLocal(s: SenderTxs): void {
    if (this.locals.has(s.address)) return;
    this.locals.add(s.address);
    for (const tx of s.txs) this.priced.remove(tx);
    this.queueByBeat.delete(s.address);
  }

  /** The pooled transaction leaves the indexes (the caller took it out of its sender's list). */
  private forget(ptx: PooledTx, reason?: string): void {
    if (this.byHash.get(ptx.hashHex) === ptx) this.byHash.delete(ptx.hashHex);
    this.priced.remove(ptx);
    if (reason === undefined) return;
    this.dropReasons.set(ptx, reason);
    for (const fn of this.dropListeners) fn(ptx, reason);
  }

  /** Removes the sender's i-th transaction; later pending ones fall back to queued. */
  private dropAt(s: SenderTxs, i: number, reason: string): void {
    const before = s.pending;
    const ptx = s.removeAt(i);
    this.totalPending -= before - s.pending;
    this.forget(ptx, reason);
  }

  private drop(ptx: PooledTx, reason: string): void {
    const s = this.senders.get(ptx.senderHex);
    const i = s ? s.search(ptx.nonce) : -1;
    if (!s || i < 0 || s.txs[i] !== ptx) return;
    this.dropAt(s, i, reason);
    this.settle(s);
  }

  /** A remote sender keeps at most accountQueue queued transactions: the highest nonces go. */
  private capQueue(s: SenderTxs): void {
    const { accountQueue } = this.config;
    while (s.queued > accountQueue) this.dropAt(s, s.txs.length - 1, `txpool is full: ${s.address} holds more than ${accountQueue} queued transactions (--txpool.accountqueue)`);
    this.settle(s);
  }

  /** Above globalQueue queued, the least recently active remote senders lose their highest nonces. */
  private truncateQueue(): void {
    const { globalQueue } = this.config;
    while (this.queuedCount > globalQueue && this.queueByBeat.size > 0) {
      const s = this.queueByBeat.values().next().value!;
      this.dropAt(s, s.txs.length - 1, `txpool is full: more than ${globalQueue} queued transactions (--txpool.globalqueue)`);
      this.settle(s);
    }
  }

  /** Drops the queued transactions of remote senders that made no progress for `lifetime`. */
  evictExpired(): number {
    const now = this.now();
    let dropped = 0;
    for (const s of this.queueByBeat.values()) {
      if (now - s.beat <= this.config.lifetimeMs) break; // ordered by beat: the rest are younger
      while (s.queued > 0) {
        this.dropAt(s, s.txs.length - 1, `expired: queued without progress for more than ${this.config.lifetimeMs} ms (--txpool.lifetime)`);
        dropped++;
      }
      this.settle(s);
    }
    return dropped;
  }

  private announce(): void {
    const list = this.toAnnounce;
    if (list.length === 0) return;
    this.toAnnounce = [];
    for (const ptx of list) {
      if (this.announced.has(ptx) || !this.isPending(ptx)) continue;
      this.announced.add(ptx);
      for (const fn of this.pendingListeners) fn(ptx);
    }
  }

  /** Pending transactions: sender by sender, each sender's in nonce order (what the executor needs). */
  *executable(): Generator<PooledTx> {
    for (const s of this.senders.values()) {
      for (let i = 0; i < s.pending; i++) yield s.txs[i]!;
    }
  }

  /** One sender's pending and queued transactions in nonce order (txpool_contentFrom). */
  listingOf(senderHex: string): { pending: PooledTx[]; queued: PooledTx[] } {
    const s = this.senders.get(senderHex);
    return s ? { pending: s.txs.slice(0, s.pending), queued: s.txs.slice(s.pending) } : { pending: [], queued: [] };
  }

  /** Per sender, pending and queued transactions in nonce order (txpool_ listings). */
  listing(): { pending: Map<string, PooledTx[]>; queued: Map<string, PooledTx[]> } {
    const pending = new Map<string, PooledTx[]>();
    const queued = new Map<string, PooledTx[]>();
    for (const [sender, s] of this.senders) {
      if (s.pending > 0) pending.set(sender, s.txs.slice(0, s.pending));
      if (s.queued > 0) queued.set(sender, s.txs.slice(s.pending));
    }
    return { pending, queued };
  }

  /**
   * After a block: every sender is re-based on the head's nonce and balance. Included transactions
   * and stale nonces leave, transactions that failed in the block or that the balance no longer
   * covers are dropped (later nonces fall back to queued), and filled gaps promote.
   */
  async onBlock(included: readonly PooledTx[], invalid: readonly PooledTx[], changed?: ReadonlyMap<string, PoolAccount>): Promise<void> {
    this.headEpoch++;
    // With the block's changed accounts at hand only their senders need a rebase: an account the
    // block did not write kept its nonce and balance. Without them every sender is read again.
    const addresses = changed ? [...this.senders.keys()].filter((a) => changed.has(a)) : [...this.senders.keys()];
    const accounts = changed ? addresses.map((a) => changed.get(a)!) : await Promise.all(addresses.map((a) => this.state.account(a)));
    // synchronous from here on
    for (const ptx of invalid) this.drop(ptx, 'invalid: failed in block execution');
    // by hash: a block imported from a peer carries its own decodings of the pooled transactions
    const inBlock = new Set(included.map((t) => t.hashHex));
    for (let k = 0; k < addresses.length; k++) {
      const s = this.senders.get(addresses[k]!);
      if (s) this.rebase(s, accounts[k]!, inBlock);
    }
    this.truncateQueue();
    this.announce();
  }

  private rebase(s: SenderTxs, account: PoolAccount, inBlock: Set<string>): void {
    let stale = 0;
    while (stale < s.txs.length && s.txs[stale]!.nonce < account.nonce) stale++;
    if (stale > 0 || s.base !== account.nonce) {
      const before = s.pending;
      const gone = s.txs.splice(0, stale);
      s.pending = Math.max(0, s.pending - stale);
      s.base = account.nonce;
      // the surviving run is still consecutive; it stays executable only if it starts at the nonce
      if (s.pending > 0 && s.txs[0]!.nonce !== s.base) s.pending = 0;
      this.totalPending += s.pending - before;
      for (const tx of gone) this.forget(tx, inBlock.has(tx.hashHex) ? undefined : `nonce too low: account nonce is ${account.nonce}`);
    }
    for (let j = s.txs.length - 1; j >= 0; j--) {
      const tx = s.txs[j]!;
      if (tx.cost > account.balance) this.dropAt(s, j, `insufficient funds for gas * price + value: balance ${account.balance}, tx cost ${tx.cost}`);
    }
    this.promote(s);
    this.settle(s);
  }
}
