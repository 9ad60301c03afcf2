// The bounds on log queries, installed filters and subscriptions (flags in src/node/config.ts).
// Together they cap the work of one query and the memory all filters can hold:
// at most maxFilters × maxBufferedPerFilter items, and never more than maxBufferedTotal.

export interface LogLimits {
  /** most blocks one getLogs / getFilterLogs range may span (--rpc.logs.maxrange) */
  maxRange: number;
  /** most logs one getLogs / getFilterLogs answer may carry (--rpc.logs.maxresults) */
  maxResults: number;
  /** a filter not polled for this long is removed (--rpc.filter.timeout); WebSocket ones never time out */
  filterTimeoutMs: number;
  /** most installed filters, and separately most WebSocket subscriptions (--rpc.filter.max) */
  maxFilters: number;
  /** items one filter keeps between polls; beyond it the oldest are dropped */
  maxBufferedPerFilter: number;
  /** items all filters together keep; beyond it the filter polled longest ago is removed */
  maxBufferedTotal: number;
}

export const DEFAULT_LOG_LIMITS: LogLimits = {
  maxRange: 10_000,
  maxResults: 10_000,
  filterTimeoutMs: 5 * 60_000,
  maxFilters: 10_000,
  maxBufferedPerFilter: 10_000,
  maxBufferedTotal: 1_000_000,
};
