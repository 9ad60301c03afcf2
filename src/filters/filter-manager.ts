// Installed filters (polled with getFilterChanges) and subscriptions (pushed over a WebSocket),
// fed from chain events: each sealed block and each newly pending transaction becomes items once
// (one block item, one MatchedLog per log) and those shared items are handed to every listener —
// nothing re-scans the chain per filter.
//
// Memory rule (F1): a filter keeps at most maxBufferedPerFilter items between
// polls, dropping the oldest (a client that far behind re-reads them with getLogs); all filters
// together keep at most maxBufferedTotal items, beyond which the filter polled longest ago is
// removed; at most maxFilters filters (and, separately, maxFilters subscriptions) exist, one
// client holds at most its quota of them (client-quota.ts), and their criteria together hold at
// most maxCriteriaBytes. A filter not polled within the timeout is removed, except filters created
// over a WebSocket, which like subscriptions end with their connection or when their client stops
// reading pushes.
//
// Pushes are written on a later turn of the event loop than the event that made them (F9): who
// gets an item is decided when the block or transaction arrives, but the requests already read
// are answered first — a client waiting for a receipt is not queued behind a hundred notifications.
import { randomBytes } from 'node:crypto';
import type { ChainEvents, NewBlockEvent } from '../chain/events.ts';
import type { BlockRecord } from '../chain/types.ts';
import type { PooledTx } from '../tx/pooled-tx.ts';
import { bloomMayMatch, criteriaBytes, logMatches, type LogCriteria, type MatchedLog } from './log-query.ts';
import type { LogIndex } from './log-index.ts';
import { BoundedQueue } from './bounded-queue.ts';
import type { LogLimits } from './limits.ts';
import { ClientQuota, type ListenerOwner } from './client-quota.ts';
import { bytesToHex } from '../util/hex.ts';

export type FilterKind = 'logs' | 'blocks' | 'pendingTxs';

/** A new block as listeners get it: made once per block and shared. */
export interface BlockItem {
  readonly hash: string;
  readonly block: BlockRecord;
}

/** blocks: BlockItem, pendingTxs: transaction hash (0x-hex), logs: MatchedLog. */
export type FilterItem = BlockItem | string | MatchedLog;

export interface LogFilterSpec {
  readonly criteria: LogCriteria;
  /** inclusive bounds on the blocks whose logs are delivered; undefined = open */
  readonly fromBlock?: bigint;
  readonly toBlock?: bigint;
}

/** The client side of a pushed listener (WebSocket filters and subscriptions). */
export interface Pusher {
  /** Sends one item; false when the client cannot take more (the listener is then removed). */
  push(item: FilterItem): boolean;
  /** The listener is gone, whatever the reason. */
  ended(): void;
}

interface Listener {
  readonly id: string;
  readonly kind: FilterKind;
  readonly spec?: LogFilterSpec;
  readonly subscription: boolean;
  /** filters: items since the last poll (subscriptions keep nothing) */
  readonly queue?: BoundedQueue<FilterItem>;
  /** WebSocket filters and subscriptions */
  readonly pusher?: Pusher;
  /** the client whose quota it counts against */
  readonly owner: ListenerOwner;
  /** performance.now() of the install, last poll or last accepted push */
  lastActive: number;
}

export class FilterLimitError extends Error {}

/** Where removals (debug) and fan-out bugs (error) are reported; the node's logger fits. */
export interface FilterLog {
  debug(msg: string): void;
  error(msg: string): void;
}

const SILENT: FilterLog = { debug() {}, error() {} };

export type FilterLimits = Pick<LogLimits, 'filterTimeoutMs' | 'maxFilters' | 'maxFiltersPerConnection' | 'maxFiltersPerAddress' | 'maxCriteriaBytes' | 'maxBufferedPerFilter' | 'maxBufferedTotal'>;

/** How often expired filters are looked for without any event: a tenth of the timeout, within these bounds. */
const SWEEP_MIN_MS = 250;
const SWEEP_MAX_MS = 10_000;

export class FilterManager {
  /** Filters in order of activity, least recently active first (so sweeps and evictions stop early). */
  private readonly filters = new Map<string, Listener>();
  private readonly subs = new Map<string, Listener>();
  private readonly byKind: Record<FilterKind, Set<Listener>> = { logs: new Set(), blocks: new Set(), pendingTxs: new Set() };
  private readonly filterQuota: ClientQuota;
  private readonly subQuota: ClientQuota;
  private buffered = 0;
  /** bytes held by the criteria of all filters and subscriptions (limits.maxCriteriaBytes) */
  private criteriaHeld = 0;
  /** pushes decided but not yet written: listener, item, listener, item, … (written by flushPushes) */
  private outbox: (Listener | FilterItem)[] = [];

  constructor(
    events: ChainEvents,
    /** where each new block's logs are made once (and kept for getLogs) */
    private readonly index: LogIndex,
    private readonly limits: FilterLimits,
    private readonly log: FilterLog = SILENT,
  ) {
    const quota = { perConnection: limits.maxFiltersPerConnection, perAddress: limits.maxFiltersPerAddress };
    this.filterQuota = new ClientQuota('filters', quota);
    this.subQuota = new ClientQuota('subscriptions', quota);
    // Expired filters are swept on each event, on each install and when polled — whenever they
    // could grow or be looked at (a sweep stops at the first live filter, so it costs little) — and
    // on a timer, so that on a quiet chain an abandoned filter's memory and quota slot come back too.
    events.onBlock((e) => this.guard(() => this.onBlock(e)));
    events.onPendingTx((p) => this.guard(() => this.onPendingTx(p)));
    sweepPeriodically(this, Math.min(SWEEP_MAX_MS, Math.max(SWEEP_MIN_MS, limits.filterTimeoutMs / 10)));
  }

  /** Filters and subscriptions held now (metrics). */
  counts(): { filters: number; subscriptions: number } {
    return { filters: this.filters.size, subscriptions: this.subs.size };
  }

  /** Installs a filter; with a pusher (WebSocket) its items are also pushed and it never times out. */
  install(kind: FilterKind, spec: LogFilterSpec | undefined, pusher: Pusher | undefined, owner: ListenerOwner = {}): string {
    this.sweep();
    if (this.filters.size >= this.limits.maxFilters) {
      throw new FilterLimitError(`too many filters installed (limit ${this.limits.maxFilters}, --rpc.filter.max); uninstall some or let them expire`);
    }
    const refusal = this.filterQuota.refusal(owner);
    if (refusal !== undefined) throw new FilterLimitError(refusal);
    this.checkCriteriaRoom(spec);
    return this.add(this.filters, { id: this.newId(), kind, spec, subscription: false, queue: new BoundedQueue(this.limits.maxBufferedPerFilter), pusher, owner, lastActive: performance.now() });
  }

  /** A subscription: items are only pushed; it ends by unsubscribe() or when push fails. */
  subscribe(kind: FilterKind, spec: LogFilterSpec | undefined, pusher: Pusher, owner: ListenerOwner = {}): string {
    if (this.subs.size >= this.limits.maxFilters) {
      throw new FilterLimitError(`too many subscriptions (limit ${this.limits.maxFilters}, --rpc.filter.max)`);
    }
    const refusal = this.subQuota.refusal(owner);
    if (refusal !== undefined) throw new FilterLimitError(refusal);
    this.checkCriteriaRoom(spec);
    return this.add(this.subs, { id: this.newId(), kind, spec, subscription: true, pusher, owner, lastActive: performance.now() });
  }

  /** The kind and log criteria of an installed filter (undefined if unknown or expired). */
  filter(id: string): { kind: FilterKind; spec?: LogFilterSpec } | undefined {
    const f = this.live(id);
    return f && { kind: f.kind, spec: f.spec };
  }

  /** Items since the last poll, oldest first; undefined if the filter does not exist (or expired). */
  poll(id: string): FilterItem[] | undefined {
    const f = this.live(id);
    if (!f) return undefined;
    this.touch(f);
    const items = f.queue!.drain();
    this.buffered -= items.length;
    return items;
  }

  uninstall(id: string): boolean {
    const f = this.filters.get(canonicalId(id));
    return f !== undefined && this.remove(f);
  }

  unsubscribe(id: string): boolean {
    const s = this.subs.get(canonicalId(id));
    return s !== undefined && this.remove(s);
  }

  private checkCriteriaRoom(spec: LogFilterSpec | undefined): void {
    if (spec === undefined || this.criteriaHeld + criteriaBytes(spec.criteria) <= this.limits.maxCriteriaBytes) return;
    throw new FilterLimitError(`the addresses and topics of all filters and subscriptions together are at the node's limit (${this.limits.maxCriteriaBytes} bytes); use fewer addresses and topics, or remove some filters`);
  }

  private add(map: Map<string, Listener>, l: Listener): string {
    map.set(l.id, l);
    if (l.spec) this.criteriaHeld += criteriaBytes(l.spec.criteria);
    (l.subscription ? this.subQuota : this.filterQuota).take(l.owner);
    this.byKind[l.kind].add(l);
    return l.id;
  }

  private remove(l: Listener, why?: string): boolean {
    const map = l.subscription ? this.subs : this.filters;
    if (map.get(l.id) !== l) return false;
    map.delete(l.id);
    (l.subscription ? this.subQuota : this.filterQuota).give(l.owner);
    if (l.spec) this.criteriaHeld -= criteriaBytes(l.spec.criteria);
    this.byKind[l.kind].delete(l);
    if (l.queue) this.buffered -= l.queue.length;
    if (why) this.log.debug(`${l.subscription ? 'subscription' : 'filter'} ${l.id} removed: ${why}`);
    l.pusher?.ended();
    return true;
  }

  /** A filter that exists and has not timed out (an expired one is removed here, not only by the sweep). */
  private live(id: string): Listener | undefined {
    const f = this.filters.get(canonicalId(id));
    if (f && f.pusher === undefined && f.lastActive < performance.now() - this.limits.filterTimeoutMs) {
      this.remove(f, 'not polled within the timeout');
      return undefined;
    }
    return f;
  }

  private touch(f: Listener): void {
    f.lastActive = performance.now();
    this.filters.delete(f.id);
    this.filters.set(f.id, f);
  }

  /** Removes the filters not polled within the timeout. */
  sweep(): void {
    const cutoff = performance.now() - this.limits.filterTimeoutMs;
    for (const f of this.filters.values()) {
      if (f.pusher) continue; // WebSocket filters end with their connection
      if (f.lastActive >= cutoff) break; // the rest were active later
      this.remove(f, 'not polled within the timeout');
    }
  }

  private deliver(l: Listener, item: FilterItem): void {
    if (l.pusher) {
      if (this.outbox.length === 0) setImmediate(() => this.guard(() => this.flushPushes()));
      this.outbox.push(l, item);
    }
    if (!l.queue) return;
    if (l.pusher) this.touch(l); // a WebSocket filter taking pushes is in use
    if (!l.queue.push(item) && ++this.buffered > this.limits.maxBufferedTotal) {
      const oldest = this.filters.values().next().value!;
      this.remove(oldest, `all filters together hold more than ${this.limits.maxBufferedTotal} items; this one was polled longest ago`);
    }
  }

  /** Writes the pushes decided since the last flush, in order; a listener removed meanwhile gets none. */
  private flushPushes(): void {
    const box = this.outbox;
    this.outbox = [];
    for (let i = 0; i < box.length; i += 2) {
      const l = box[i] as Listener;
      if ((l.subscription ? this.subs : this.filters).get(l.id) !== l) continue;
      if (!l.pusher!.push(box[i + 1] as FilterItem)) this.remove(l, 'its client does not take notifications (connection closed or send buffer full)');
    }
  }

  private onBlock({ block, receipts }: NewBlockEvent): void {
    this.sweep();
    const all = this.index.add(block, receipts);
    if (this.byKind.blocks.size > 0) {
      const item: BlockItem = { hash: bytesToHex(block.hash), block };
      for (const l of this.byKind.blocks) this.deliver(l, item);
    }
    if (all.length === 0) return;
    const n = block.header.number;
    for (const l of this.byKind.logs) {
      const s = l.spec!;
      if ((s.fromBlock !== undefined && n < s.fromBlock) || (s.toBlock !== undefined && n > s.toBlock)) continue;
      if (!bloomMayMatch(block.header.logsBloom, s.criteria)) continue;
      for (const m of all) if (logMatches(m.log, s.criteria)) this.deliver(l, m);
    }
  }

  private onPendingTx(ptx: PooledTx): void {
    this.sweep();
    for (const l of this.byKind.pendingTxs) this.deliver(l, ptx.hashHex);
  }

  /** Event listeners run inside the sealer and the pool (and sweeps on a timer): a bug here must not stop them. */
  guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.log.error(`filters: event fan-out failed: ${e instanceof Error ? e.stack : String(e)}`);
    }
  }

  private newId(): string {
    for (;;) {
      const id = canonicalId('0x' + randomBytes(16).toString('hex'));
      if (!this.filters.has(id) && !this.subs.has(id)) return id;
    }
  }
}

/**
 * Sweeps `manager` every `periodMs` while it is in use. The timer holds it weakly and does not keep
 * the process alive: a node that has stopped needs no call to end it (the manager has no close), and
 * once nothing else holds the manager the timer stops by itself.
 */
function sweepPeriodically(manager: FilterManager, periodMs: number): void {
  const ref = new WeakRef(manager);
  const timer = setInterval(() => {
    const m = ref.deref();
    if (m === undefined) clearInterval(timer);
    else m.guard(() => m.sweep());
  }, periodMs);
  timer.unref();
}

/** Ids are quantities without leading zeros (geth's form); clients may send them padded or in upper case. */
export function canonicalId(id: string): string {
  try {
    return '0x' + BigInt(id).toString(16);
  } catch {
    return id;
  }
}
