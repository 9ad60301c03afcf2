// Installed filters (log, new-block, pending-transaction) fed from chain events once per block or
// transaction — never by re-scanning the chain per filter. A filter not polled within the timeout
// is removed. Each filter buffers at most `maxBuffered` items; past that the oldest are dropped
// (a poller that falls that far behind should re-sync with getLogs).
import { randomBytes } from 'node:crypto';
import type { ChainEvents } from '../events.ts';
import type { LogCriteria, MatchedLog } from './log-query.ts';
import { blockLogs } from './log-query.ts';
import { bytesToHex } from '../util/hex.ts';

export type FilterKind = 'logs' | 'blocks' | 'pendingTxs';

export interface LogFilterSpec {
  criteria: LogCriteria;
  /** inclusive range; undefined = open (latest) */
  fromBlock?: bigint;
  toBlock?: bigint;
}

interface Installed {
  kind: FilterKind;
  spec?: LogFilterSpec;
  buffer: (string | MatchedLog)[];
  lastPoll: number;
  /** pushed as notifications too (filters created over a WebSocket) */
  push?: (item: string | MatchedLog) => void;
}

export interface FilterLimits {
  timeoutMs: number;
  maxFilters: number;
  maxBuffered: number;
}

export class FilterLimitError extends Error {}

export class FilterManager {
  private readonly filters = new Map<string, Installed>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(events: ChainEvents, private readonly limits: FilterLimits) {
    events.onBlock(({ block, receipts }) => {
      if (this.filters.size === 0) return;
      const hashHex = bytesToHex(block.hash);
      let logs: MatchedLog[] | undefined;
      for (const f of this.filters.values()) {
        if (f.kind === 'blocks') this.deliver(f, hashHex);
        else if (f.kind === 'logs') {
          const s = f.spec!;
          if (s.fromBlock !== undefined && block.header.number < s.fromBlock) continue;
          if (s.toBlock !== undefined && block.header.number > s.toBlock) continue;
          logs = blockLogs(block.hash, block.header.number, block.txs, receipts, s.criteria);
          for (const m of logs) this.deliver(f, m);
        }
      }
    });
    events.onPendingTx((ptx) => {
      for (const f of this.filters.values()) if (f.kind === 'pendingTxs') this.deliver(f, ptx.hashHex);
    });
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(this.limits.timeoutMs / 2, 30_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.filters.size;
  }

  private deliver(f: Installed, item: string | MatchedLog): void {
    f.push?.(item);
    f.buffer.push(item);
    if (f.buffer.length > this.limits.maxBuffered) f.buffer.splice(0, f.buffer.length - this.limits.maxBuffered);
  }

  install(kind: FilterKind, spec?: LogFilterSpec, push?: Installed['push']): string {
    this.sweep();
    if (this.filters.size >= this.limits.maxFilters) throw new FilterLimitError(`too many filters installed (limit ${this.limits.maxFilters}); uninstall some or let them expire`);
    const id = '0x' + randomBytes(16).toString('hex');
    this.filters.set(id, { kind, spec, buffer: [], lastPoll: Date.now(), push });
    return id;
  }

  get(id: string): { kind: FilterKind; spec?: LogFilterSpec } | undefined {
    return this.filters.get(id.toLowerCase());
  }

  /** Items since the last poll; undefined if the filter does not exist (or expired). */
  poll(id: string): (string | MatchedLog)[] | undefined {
    const f = this.filters.get(id.toLowerCase());
    if (!f) return undefined;
    f.lastPoll = Date.now();
    const items = f.buffer;
    f.buffer = [];
    return items;
  }

  uninstall(id: string): boolean {
    return this.filters.delete(id.toLowerCase());
  }

  private sweep(): void {
    const cutoff = Date.now() - this.limits.timeoutMs;
    for (const [id, f] of this.filters) if (f.lastPoll < cutoff) this.filters.delete(id);
  }

  close(): void {
    clearInterval(this.sweeper);
    this.filters.clear();
  }
}
