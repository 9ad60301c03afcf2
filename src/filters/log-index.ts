// A bounded in-memory index of recent blocks for log queries and the filter fan-out: each block's
// bloom, and once needed all its logs with their positions (transaction hashes computed once).
// Sealed blocks enter it from the chain events, older ones are read from the chain on first use;
// the earliest entered leave it first (no reordering on a hit: a range query touches every block
// of its range, and that bookkeeping cost more than the reads it saved). Log objects are shared, so whatever the API layer derives from
// one (its JSON) is derived once. Canonical blocks never change on this chain (one validator, or
// BFT finality: no reorgs), so an entry never goes stale.
import type { Chain } from '../chain/chain.ts';
import type { BlockRecord, StoredReceipt } from '../chain/types.ts';
import { blockLogs, type MatchedLog } from './log-query.ts';

export interface IndexedBlock {
  readonly hash: Uint8Array;
  readonly number: bigint;
  readonly bloom: Uint8Array;
  /** no transaction, hence no log: the logs need no reading */
  readonly empty: boolean;
  /** all logs of the block, in order; undefined until first needed */
  logs?: MatchedLog[];
}

export interface LogIndexLimits {
  /** blocks kept (default 16,384: more than the largest default getLogs range) */
  maxBlocks: number;
  /** logs kept over all blocks (default 50,000) */
  maxLogs: number;
}

export const DEFAULT_LOG_INDEX_LIMITS: LogIndexLimits = { maxBlocks: 16_384, maxLogs: 50_000 };

export class LogIndex {
  /** in the order they entered */
  private readonly blocks = new Map<number, IndexedBlock>();
  private logCount = 0;

  constructor(
    private readonly chain: Chain,
    private readonly limits: LogIndexLimits = DEFAULT_LOG_INDEX_LIMITS,
  ) {}

  /** A sealed block (from the chain events); returns all its logs. */
  add(block: BlockRecord, receipts: readonly StoredReceipt[]): MatchedLog[] {
    const n = block.header.number;
    const logs = blockLogs(block.hash, n, block.txs, receipts);
    this.put(Number(n), { hash: block.hash, number: n, bloom: block.header.logsBloom, empty: block.header.gasUsed === 0n, logs });
    return logs;
  }

  /** The canonical block at height n (undefined beyond the head). */
  block(n: number): IndexedBlock | undefined {
    const hit = this.blocks.get(n);
    if (hit) return hit;
    const hash = this.chain.hashByNumber(BigInt(n));
    const header = hash && this.chain.headerByHash(hash);
    if (!header) return undefined;
    const entry: IndexedBlock = { hash: hash!, number: header.number, bloom: header.logsBloom, empty: header.gasUsed === 0n };
    this.put(n, entry);
    return entry;
  }

  /** All logs of an indexed block, read from the chain the first time. */
  logs(b: IndexedBlock): MatchedLog[] {
    if (b.logs) return b.logs;
    const logs = b.empty ? [] : blockLogs(b.hash, b.number, this.chain.body(b.hash)?.txs ?? [], this.chain.receipts(b.hash) ?? []);
    if (this.blocks.get(Number(b.number)) === b) {
      b.logs = logs;
      this.logCount += logs.length;
      this.trim();
    }
    return logs;
  }

  private put(key: number, entry: IndexedBlock): void {
    const old = this.blocks.get(key);
    if (old) {
      this.blocks.delete(key);
      this.logCount -= old.logs?.length ?? 0;
    }
    this.blocks.set(key, entry);
    this.logCount += entry.logs?.length ?? 0;
    this.trim();
  }

  private trim(): void {
    while (this.blocks.size > this.limits.maxBlocks || this.logCount > this.limits.maxLogs) {
      const [key, oldest] = this.blocks.entries().next().value!;
      this.blocks.delete(key);
      this.logCount -= oldest.logs?.length ?? 0;
      if (this.blocks.size === 0) break;
    }
  }
}
