// Log matching with the spec's order-dependent topic rules, and range queries that skip blocks
// whose header bloom cannot match before reading their receipts.
import type { LogIndex } from './log-index.ts';
import type { LogRecord, StoredReceipt } from '../chain/types.ts';
import { bloomBits, bloomHasBits } from '../chain/bloom.ts';
import { keccak256 } from '../crypto/keccak.ts';

/**
 * Values of one width (addresses 20 bytes, topics 32), packed one after the other in one buffer,
 * with their bloom bits (six bytes each, bloomBits') likewise. Packed because a filter lives as long
 * as its client keeps it: one Uint8Array and one bits array per value cost ~400 bytes each, 2 MiB
 * for a filter at geth's bounds (1,000 addresses, 4 × 1,000 topics); packed it is ~180 KB.
 */
export interface PackedValues {
  readonly width: number;
  readonly count: number;
  readonly bytes: Uint8Array;
  readonly bits: Uint8Array;
}

/**
 * What a log must match. addresses: any of them (null = any address). topics[i]: null = anything
 * at position i, else any of the listed values; a log with fewer topics than the list never matches
 * (geth's rule). The bloom bits are computed once here, so checking a block's bloom costs no hash.
 */
export interface LogCriteria {
  readonly addresses: PackedValues | null;
  readonly topics: readonly (PackedValues | null)[];
}

const ADDRESS_BYTES = 20;
const TOPIC_BYTES = 32;

/** Criteria from addresses and topic alternatives; an empty list is a wildcard. */
export function logCriteria(addresses: readonly Uint8Array[], topics: readonly (readonly Uint8Array[] | null)[]): LogCriteria {
  return {
    addresses: addresses.length === 0 ? null : pack(addresses, ADDRESS_BYTES),
    topics: topics.map((t) => (t === null || t.length === 0 ? null : pack(t, TOPIC_BYTES))),
  };
}

/** Bytes the criteria hold (their values and bloom bits), which their filter keeps as long as it lives. */
export function criteriaBytes(c: LogCriteria): number {
  let n = c.addresses === null ? 0 : c.addresses.bytes.length + c.addresses.bits.length;
  for (const t of c.topics) if (t !== null) n += t.bytes.length + t.bits.length;
  return n;
}

/** A value of another width can match no log, so it is left out (a set left empty matches nothing). */
function pack(values: readonly Uint8Array[], width: number): PackedValues {
  const fit = values.filter((v) => v.length === width);
  const bytes = new Uint8Array(fit.length * width);
  const bits = new Uint8Array(fit.length * 6);
  for (let i = 0; i < fit.length; i++) {
    bytes.set(fit[i]!, i * width);
    bits.set(bloomBits(fit[i]!), i * 6);
  }
  return { width, count: fit.length, bytes, bits };
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
  if (c.addresses !== null && !holds(c.addresses, log[0])) return false;
  const topics = log[1];
  if (c.topics.length > topics.length) return false;
  for (let i = 0; i < c.topics.length; i++) {
    const want = c.topics[i];
    if (want !== null && want !== undefined && !holds(want, topics[i]!)) return false;
  }
  return true;
}

/** Whether `value` is one of the set's values. */
function holds(set: PackedValues, value: Uint8Array): boolean {
  const { width, count, bytes } = set;
  if (value.length !== width) return false;
  for (let i = 0, at = 0; i < count; i++, at += width) {
    let j = 0;
    while (j < width && bytes[at + j] === value[j]) j++;
    if (j === width) return true;
  }
  return false;
}

/** Could a block with this bloom hold a matching log? (false: it certainly cannot) */
export function bloomMayMatch(bloom: Uint8Array, c: LogCriteria): boolean {
  if (c.addresses !== null && !anyInBloom(bloom, c.addresses)) return false;
  for (const want of c.topics) {
    if (want !== null && !anyInBloom(bloom, want)) return false;
  }
  return true;
}

function anyInBloom(bloom: Uint8Array, set: PackedValues): boolean {
  for (let at = 0; at < set.bits.length; at += 6) if (bloomHasBits(bloom, set.bits, at)) return true;
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
