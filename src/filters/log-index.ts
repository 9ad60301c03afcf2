// A bounded in-memory index of recent blocks for log queries and the filter fan-out: each block's
// bloom, and once needed all its logs with their positions (transaction hashes computed once).
// Sealed blocks enter it from the chain events, older ones are read from the chain on first use;
// the earliest entered leave it first (no reordering on a hit: a range query touches every block
// of its range, and that bookkeeping cost more than the reads it saved). Log objects are shared, so whatever the API layer derives from
// one (its JSON object and text) is derived once, and — kept in WeakMaps keyed by them — lives no
// longer than the entry (or a filter buffer) holds the log. Canonical blocks never change on this
// chain (one validator, or BFT finality: no reorgs), so an entry never goes stale.
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
  /** the memory they hold (heldBytes), counted against maxBytes */
  heldBytes?: number;
}

export interface LogIndexLimits {
  /** blocks kept (limits.ts indexBlocks) */
  maxBlocks: number;
  /** logs kept over all blocks (limits.ts indexLogs) */
  maxLogs: number;
  /** memory the logs of all blocks hold, with their JSON once made (limits.ts indexBytes; heldBytes below) */
  maxBytes: number;
}

export class LogIndex {
  /** in the order they entered */
  private readonly blocks = new Map<number, IndexedBlock>();
  private logCount = 0;
  private heldBytes = 0;

  constructor(
    private readonly chain: Chain,
    private readonly limits: LogIndexLimits,
  ) {}

  /** What the index holds now: blocks, their logs, and the memory those logs hold (heldBytes). */
  held(): { blocks: number; logs: number; bytes: number } {
    return { blocks: this.blocks.size, logs: this.logCount, bytes: this.heldBytes };
  }

  /** A sealed block (from the chain events); returns all its logs. */
  add(block: BlockRecord, receipts: readonly StoredReceipt[]): MatchedLog[] {
    const n = block.header.number;
    const logs = blockLogs(block.hash, n, block.txs, receipts);
    this.put(Number(n), { hash: block.hash, number: n, bloom: block.header.logsBloom, empty: block.header.gasUsed === 0n, logs, heldBytes: heldBytes(logs) });
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
      b.heldBytes = heldBytes(logs);
      this.count(b, 1);
      this.trim();
    }
    return logs;
  }

  private put(key: number, entry: IndexedBlock): void {
    const old = this.blocks.get(key);
    if (old) {
      this.blocks.delete(key);
      this.count(old, -1);
    }
    this.blocks.set(key, entry);
    this.count(entry, 1);
    this.trim();
  }

  private count(b: IndexedBlock, sign: 1 | -1): void {
    this.logCount += sign * (b.logs?.length ?? 0);
    this.heldBytes += sign * (b.heldBytes ?? 0);
  }

  private trim(): void {
    const { maxBlocks, maxLogs, maxBytes } = this.limits;
    while (this.blocks.size > maxBlocks || this.logCount > maxLogs || this.heldBytes > maxBytes) {
      const [key, oldest] = this.blocks.entries().next().value!;
      this.blocks.delete(key);
      this.count(oldest, -1);
      if (this.blocks.size === 0) break;
    }
  }
}

/**
 * Memory a log holds while indexed, with what the API derives from it (src/api/filters.ts) and
 * keeps as long as the log: its objects (the record, one typed array per value, the MatchedLog)
 * and its JSON twice, as text for pushes and as bytes for eth_getLogs (each ≈ 2 × payload as hex
 * plus ~450 B). Measured: a log of one topic and no data 1.4 KiB with both forms
 * (test/filters-index-memory.test.ts; estimated 1.8), the soak's logs of two topics and no data
 * 2.8 KiB in its heap snapshots while their bytes still kept pooled chunks (estimated 2.2).
 */
const LOG_BYTES = 1_000;
const VALUE_BYTES = 200;

function heldBytes(logs: readonly MatchedLog[]): number {
  let n = 0;
  for (const { log } of logs) n += LOG_BYTES + VALUE_BYTES * (2 + log[1].length) + 5 * (20 + 32 * log[1].length + log[2].length);
  return n;
}
