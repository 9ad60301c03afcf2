// Log matching with the spec's order-dependent topic rules, and range queries that skip blocks
// whose header bloom cannot match before reading their receipts.
import type { Chain } from '../chain/chain.ts';
import type { LogRecord, StoredReceipt } from '../chain/types.ts';
import { bloomContains } from '../chain/bloom.ts';
import { keccak256 } from '../crypto/keccak.ts';
import { equalBytes } from '../util/hex.ts';

/** addresses: any of them (empty = any); topics[i]: null = any, else any of the listed values. */
export interface LogCriteria {
  addresses: Uint8Array[];
  topics: (Uint8Array[] | null)[];
}

export interface MatchedLog {
  log: LogRecord;
  blockHash: Uint8Array;
  blockNumber: bigint;
  txHash: Uint8Array;
  txIndex: number;
  logIndex: number;
}

export function logMatches(log: LogRecord, c: LogCriteria): boolean {
  if (c.addresses.length > 0 && !c.addresses.some((a) => equalBytes(a, log[0]))) return false;
  if (c.topics.length > log[1].length) return false;
  for (let i = 0; i < c.topics.length; i++) {
    const want = c.topics[i];
    if (want === null || want === undefined || want.length === 0) continue;
    if (!want.some((t) => equalBytes(t, log[1][i]!))) return false;
  }
  return true;
}

/** Could a block with this bloom hold a matching log? */
export function bloomMayMatch(bloom: Uint8Array, c: LogCriteria): boolean {
  if (c.addresses.length > 0 && !c.addresses.some((a) => bloomContains(bloom, a))) return false;
  for (const want of c.topics) {
    if (want === null || want === undefined || want.length === 0) continue;
    if (!want.some((t) => bloomContains(bloom, t))) return false;
  }
  return true;
}

/** Matching logs of one block, in block order with block-wide log indexes. */
export function blockLogs(blockHash: Uint8Array, blockNumber: bigint, txs: Uint8Array[], receipts: StoredReceipt[], c: LogCriteria): MatchedLog[] {
  const out: MatchedLog[] = [];
  let logIndex = 0;
  for (let i = 0; i < receipts.length; i++) {
    const logs = receipts[i]!.logs;
    let txHash: Uint8Array | undefined;
    for (const log of logs) {
      if (logMatches(log, c)) {
        txHash ??= keccak256(txs[i]!);
        out.push({ log, blockHash, blockNumber, txHash, txIndex: i, logIndex });
      }
      logIndex++;
    }
  }
  return out;
}

export class LogQueryError extends Error {}

/** Logs of canonical blocks from..to (inclusive), bounded by maxResults. */
export function queryRange(chain: Chain, from: bigint, to: bigint, c: LogCriteria, maxResults: number): MatchedLog[] {
  const out: MatchedLog[] = [];
  for (let n = from; n <= to; n++) {
    const hash = chain.hashByNumber(n);
    if (!hash) break;
    const header = chain.headerByHash(hash)!;
    if (header.gasUsed === 0n || !bloomMayMatch(header.logsBloom, c)) continue;
    const body = chain.body(hash)!;
    const receipts = chain.receipts(hash) ?? [];
    for (const m of blockLogs(hash, n, body.txs, receipts, c)) {
      out.push(m);
      if (out.length > maxResults) throw new LogQueryError(`query returned more than ${maxResults} results; narrow the block range or the criteria`);
    }
  }
  return out;
}
