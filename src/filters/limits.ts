// The bounds on log queries, installed filters and subscriptions (flags in src/node/config.ts).
// Together they cap the work of one query and the memory all filters can hold:
// at most maxFilters × maxBufferedPerFilter items, and never more than maxBufferedTotal; and the
// log index's window (index*: no flags; tests narrow it), which also bounds the cached log texts.

export interface LogLimits {
  /** most blocks one getLogs / getFilterLogs range may span (--rpc.logs.maxrange) */
  maxRange: number;
  /** most logs one getLogs / getFilterLogs answer may carry (--rpc.logs.maxresults) */
  maxResults: number;
  /** a filter not polled for this long is removed (--rpc.filter.timeout); WebSocket ones never time out */
  filterTimeoutMs: number;
  /** most installed filters, and separately most WebSocket subscriptions (--rpc.filter.max) */
  maxFilters: number;
  /** most filters, and separately subscriptions, one WebSocket connection may hold (--rpc.filter.maxperconnection) */
  maxFiltersPerConnection: number;
  /** most filters, and separately subscriptions, one client address may hold over HTTP and all its WebSockets (--rpc.filter.maxperaddress) */
  maxFiltersPerAddress: number;
  /**
   * bytes the criteria of all filters and subscriptions together may hold; beyond it new ones are
   * refused (no flag: with geth's bounds a filter's criteria are at most ~180 KB, and the per-client
   * quotas leave a few clients room for thousands of such filters, GBs, without it)
   */
  maxCriteriaBytes: number;
  /** items one filter keeps between polls; beyond it the oldest are dropped */
  maxBufferedPerFilter: number;
  /** items all filters together keep; beyond it the filter polled longest ago is removed */
  maxBufferedTotal: number;
  /** blocks the log index keeps (and with their logs the logs' cached JSON text, F7) */
  indexBlocks: number;
  /** logs the log index keeps over all its blocks */
  indexLogs: number;
  /** memory the log index's logs may hold, with their JSON (estimated per log: src/filters/log-index.ts heldBytes) */
  indexBytes: number;
}

export const DEFAULT_LOG_LIMITS: LogLimits = {
  maxRange: 10_000,
  maxResults: 10_000,
  filterTimeoutMs: 5 * 60_000,
  maxFilters: 10_000,
  maxFiltersPerConnection: 1_000,
  // above one connection's share, so a client may keep a second connection (or poll over HTTP beside one)
  maxFiltersPerAddress: 2_000,
  // ~1,400 filters at geth's bounds; a filter of an address and a topic takes ~90 bytes
  maxCriteriaBytes: 256 * 1024 * 1024,
  maxBufferedPerFilter: 10_000,
  maxBufferedTotal: 1_000_000,
  // more blocks than the largest default range, so a repeated query finds its whole range
  indexBlocks: 16_384,
  indexLogs: 50_000,
  indexBytes: 32 * 1024 * 1024,
};

/**
 * geth's bounds on one filter's criteria (eth/filters/api.go maxAddresses, maxTopics, maxSubTopics),
 * for getLogs, newFilter and logs subscriptions alike. What a filter costs grows with its criteria:
 * 10,000 addresses and topics made one filter ~12 MB, so 10,000 filters could ask for ~120 GB.
 */
export const CRITERIA_LIMITS = {
  /** addresses in `address` */
  maxAddresses: 1000,
  /** positions in `topics` */
  maxTopics: 4,
  /** alternatives at one position of `topics` */
  maxSubTopics: 1000,
} as const;
