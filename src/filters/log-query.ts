// Log matching with the spec's order-dependent topic rules, and range queries that skip blocks
// whose header bloom cannot match before reading their receipts.
import type { LogIndex } from './log-index.ts';
import type { LogRecord, StoredReceipt } from '../chain/types.ts';
import { bloomBits, bloomHasBits, type BloomBits } from '../chain/bloom.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { equalBytes } from '../util/hex.ts';

/**
 * What a log must match. addresses: any of them (empty = any address). topics[i]: null = anything
 * at position i, else any of the listed values; a log with fewer topics than the list never matches
 * (geth's rule). The bloom bits are computed once here, so checking a block's bloom costs no hash.
 */
export interface LogCriteria {
  readonly addresses: readonly Uint8Array[];
  readonly topics: readonly (readonly Uint8Array[] | null)[];
  readonly addressBits: readonly BloomBits[];
  readonly topicBits: readonly (readonly BloomBits[] | null)[];
}

/** Criteria from addresses and topic alternatives; an empty alternative list is a wildcard. */
export function logCriteria(addresses: readonly Uint8Array[], topics: readonly (readonly Uint8Array[] | null)[]): LogCriteria {
  const normalized = topics.map((t) => (t === null || t.length === 0 ? null : t));
  return {
    addresses,
    topics: normalized,
    addressBits: addresses.map(bloomBits),
    topicBits: normalized.map((t) => (t === null ? null : t.map(bloomBits))),
  };
}

export interface MatchedLog {
  readonly log: LogRecord;
  readonly blockHash: Uint8Array;
  readonly blockNumber: bigint;
  readonly txHash: Uint8Array;
  readonly txIndex: number;
  /** position in the block (block-wide, counting every log of the block) */
  readonly logIndex: number;
}

export function logMatches(log: LogRecord, c: LogCriteria): boolean {
  if (c.addresses.length > 0 && !anyEqual(c.addresses, log[0])) return false;
  const topics = log[1];
  if (c.topics.length > topics.length) return false;
  for (let i = 0; i < c.topics.length; i++) {
    const want = c.topics[i];
    if (want !== null && want !== undefined && !anyEqual(want, topics[i]!)) return false;
  }
  return true;
}

function anyEqual(list: readonly Uint8Array[], value: Uint8Array): boolean {
  for (let i = 0; i < list.length; i++) if (equalBytes(list[i]!, value)) return true;
  return false;
}

/** Could a block with this bloom hold a matching log? (false: it certainly cannot) */
export function bloomMayMatch(bloom: Uint8Array, c: LogCriteria): boolean {
  if (c.addressBits.length > 0 && !anyInBloom(bloom, c.addressBits)) return false;
  for (const want of c.topicBits) {
    if (want !== null && !anyInBloom(bloom, want)) return false;
  }
  return true;
}

function anyInBloom(bloom: Uint8Array, items: readonly BloomBits[]): boolean {
  for (let i = 0; i < items.length; i++) if (bloomHasBits(bloom, items[i]!)) return true;
  return false;
}

/**
 * Logs of one block in block order with block-wide log indexes: the matching ones, or all of them
 * without criteria. A transaction's hash is computed only if one of its logs is returned.
 */
export function blockLogs(blockHash: Uint8Array, blockNumber: bigint, txs: readonly Uint8Array[], receipts: readonly StoredReceipt[], c?: LogCriteria): MatchedLog[] {
  const out: MatchedLog[] = [];
  let logIndex = 0;
  for (let i = 0; i < receipts.length; i++) {
    const logs = receipts[i]!.logs;
    let txHash: Uint8Array | undefined;
    for (const log of logs) {
      if (c === undefined || logMatches(log, c)) {
        txHash ??= keccak256(txs[i]!);
        out.push({ log, blockHash, blockNumber, txHash, txIndex: i, logIndex });
      }
      logIndex++;
    }
  }
  return out;
}

/** A query would return more than the node's result cap. */
export class TooManyResults extends Error {
  constructor(readonly limit: number) {
    super(`query returned more than ${limit} logs (limit --rpc.logs.maxresults); narrow the block range, the address or the topics`);
  }
}

/** Matching logs of canonical blocks from..to (inclusive; the caller bounds the range). */
export function queryRange(index: LogIndex, from: bigint, to: bigint, c: LogCriteria, maxResults: number): MatchedLog[] {
  const out: MatchedLog[] = [];
  for (let n = Number(from), last = Number(to); n <= last; n++) {
    const b = index.block(n);
    if (!b) break;
    if (b.empty || !bloomMayMatch(b.bloom, c)) continue;
    for (const m of index.logs(b)) {
      if (!logMatches(m.log, c)) continue;
      if (out.length === maxResults) throw new TooManyResults(maxResults);
      out.push(m);
    }
  }
  return out;
}
