// eth_/chain_ logs and filters. Filter options accept the spec's spellings (fromblock, toblock,
// blockhash, topic) and the camelCase ones clients send (fromBlock, toBlock, blockHash, topics).
import type { ApiContext } from './context.ts';
import type { LogCriteria, MatchedLog } from '../filters/log-query.ts';
import { LogQueryError, blockLogs, queryRange } from '../filters/log-query.ts';
import { FilterLimitError, FilterManager, type FilterKind } from '../filters/filter-manager.ts';
import { hexToBytes } from '../util/hex.ts';
import { blockNumberOf, type BlockParam } from './block-param.ts';
import { formatLog } from './format.ts';
import { invalidParams, serverError } from './errors.ts';

export interface FilterOptions {
  fromBlock?: BlockParam;
  fromblock?: BlockParam;
  toBlock?: BlockParam;
  toblock?: BlockParam;
  blockHash?: string | null;
  blockhash?: string | null;
  address?: string | string[] | null;
  topics?: (string | string[] | null)[] | null;
  topic?: (string | string[] | null)[] | null;
}

export interface LogLimits {
  maxRange: number;
  maxResults: number;
  filterTimeoutMs: number;
  maxFilters: number;
  maxBuffered: number;
}

export const DEFAULT_LOG_LIMITS: LogLimits = { maxRange: 10_000, maxResults: 10_000, filterTimeoutMs: 5 * 60_000, maxFilters: 10_000, maxBuffered: 10_000 };

function criteriaOf(o: FilterOptions): LogCriteria {
  const address = o.address == null ? [] : Array.isArray(o.address) ? o.address : [o.address];
  const topics = o.topics ?? o.topic ?? [];
  return {
    addresses: address.map(hexToBytes),
    topics: topics.map((t) => (t === null ? null : (Array.isArray(t) ? t : [t]).map(hexToBytes))),
  };
}

const toJson = (m: MatchedLog) => formatLog(m.log, m);

export function filterHandlers(ctx: ApiContext, limits: LogLimits = DEFAULT_LOG_LIMITS) {
  const { core } = ctx;
  const { chain } = core;
  const manager = new FilterManager(core.events, { timeoutMs: limits.filterTimeoutMs, maxFilters: limits.maxFilters, maxBuffered: limits.maxBuffered });

  const resolve = (p: BlockParam | undefined): bigint => {
    const n = blockNumberOf(chain, p ?? 'latest');
    return n === 'pending' ? chain.headNumber : n;
  };

  const getLogs = (o: FilterOptions = {}) => {
    const blockHash = o.blockHash ?? o.blockhash;
    const c = criteriaOf(o);
    if (blockHash != null) {
      if ((o.fromBlock ?? o.fromblock ?? o.toBlock ?? o.toblock) != null) throw invalidParams('invalid argument 0 (filter): blockHash cannot be combined with fromBlock/toBlock');
      const hash = hexToBytes(blockHash);
      const header = chain.headerByHash(hash);
      if (!header) throw serverError(`unknown block ${blockHash}`);
      return blockLogs(hash, header.number, chain.body(hash)!.txs, chain.receipts(hash) ?? [], c).map(toJson);
    }
    const from = resolve(o.fromBlock ?? o.fromblock);
    const to = resolve(o.toBlock ?? o.toblock);
    const head = chain.headNumber;
    if (from > to) return [];
    const last = to > head ? head : to;
    if (last - from + 1n > BigInt(limits.maxRange)) throw serverError(`block range too large: ${last - from + 1n} blocks (limit ${limits.maxRange}, --rpc.logs.maxrange)`);
    try {
      return queryRange(chain, from, last, c, limits.maxResults).map(toJson);
    } catch (e) {
      if (e instanceof LogQueryError) throw serverError(e.message);
      throw e;
    }
  };

  const install = (kind: FilterKind, o?: FilterOptions) => {
    try {
      if (kind !== 'logs') return manager.install(kind);
      const f = o ?? {};
      const fromP = f.fromBlock ?? f.fromblock;
      const toP = f.toBlock ?? f.toblock;
      const from = fromP == null || fromP === 'latest' || fromP === 'pending' ? undefined : resolve(fromP);
      const to = toP == null || toP === 'latest' || toP === 'pending' ? undefined : resolve(toP);
      return manager.install('logs', { criteria: criteriaOf(f), fromBlock: from, toBlock: to });
    } catch (e) {
      if (e instanceof FilterLimitError) throw serverError(e.message);
      throw e;
    }
  };

  return {
    getLogs,
    newFilter: (filter: FilterOptions) => install('logs', filter),
    newBlockFilter: () => install('blocks'),
    newPendingTransactionFilter: () => install('pendingTxs'),
    getFilterChanges(id: string) {
      const kind = manager.get(id)?.kind;
      const items = manager.poll(id);
      if (items === undefined) throw serverError('filter not found');
      // a filter's buffer holds one kind of item: hashes, or logs for a log filter
      return kind === 'logs' ? (items as MatchedLog[]).map(toJson) : (items as string[]);
    },
    getFilterLogs(id: string) {
      const f = manager.get(id);
      if (!f) throw serverError('filter not found');
      if (f.kind !== 'logs') throw serverError('filter is not a log filter');
      const s = f.spec!;
      const to = s.toBlock ?? chain.headNumber;
      const from = s.fromBlock ?? chain.headNumber;
      if (from > to) return [];
      if (to - from + 1n > BigInt(limits.maxRange)) throw serverError(`block range too large (limit ${limits.maxRange})`);
      return queryRange(chain, from, to, s.criteria, limits.maxResults).map(toJson);
    },
    uninstallFilter: (id: string) => manager.uninstall(id),
  };
}
