// eth_/chain_ logs and filters, and the FilterService that subscriptions (./subscriptions.ts)
// share: filter-option parsing, wire formatting of filter items (made once per item and shared by
// every filter and subscription that gets it) and per-connection clean-up of pushed listeners.
// Log lists (getLogs, getFilterLogs, getFilterChanges) go out as a RawJsonArray of each log's JSON
// bytes, made once per log while its block is in the log index (F7); pushes
// splice an item's JSON text, made once per item (a block's header, a log), into each
// subscriber's notification.
// Filter options accept the spec's spellings (fromblock, toblock, blockhash, topic) and the
// camelCase ones clients send (fromBlock, toBlock, blockHash, topics); camelCase wins if both.
import type { ApiContext } from './context.ts';
import type { CallContext } from '../../generated/handlers.ts';
import type * as T from '../../generated/types.ts';
import type { Logger } from '../util/logger.ts';
import { logCriteria, logMatches, queryRange, TooManyResults, type MatchedLog } from '../filters/log-query.ts';
import { LogIndex } from '../filters/log-index.ts';
import { FilterLimitError, FilterManager, canonicalId, type BlockItem, type FilterItem, type FilterKind, type LogFilterSpec, type Pusher } from '../filters/filter-manager.ts';
import { CRITERIA_LIMITS, DEFAULT_LOG_LIMITS, type LogLimits } from '../filters/limits.ts';
import type { ListenerOwner } from '../filters/client-quota.ts';
import { hexToBytes } from '../util/hex.ts';
import { blockNumberOf, type BlockParam } from './block-param.ts';
import { formatHeader, formatLog } from './format.ts';
import { invalidParams, serverError } from './errors.ts';
import { RpcError } from '../codec/jsonrpc-errors.ts';
import { RawJson, rawArrayResult } from '../rpc/response.ts';

export interface FilterSetup {
  /** defaults: DEFAULT_LOG_LIMITS */
  limits?: Partial<LogLimits>;
  log?: Logger;
}

const silent: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/** A block range as given: undefined stands for `latest` (or `pending`, which has no logs of its own). */
interface ParsedOptions {
  from?: bigint;
  to?: bigint;
  blockHash?: string;
  criteria: LogFilterSpec['criteria'];
}

export class FilterService {
  readonly manager: FilterManager;
  readonly index: LogIndex;
  readonly limits: LogLimits;
  readonly log: Logger;
  /**
   * keyed by the log index's shared objects, so bytes and text live as long as their log is indexed
   * (or buffered); the index counts both in its memory bound (src/filters/log-index.ts heldBytes)
   */
  private readonly logBytesCache = new WeakMap<MatchedLog, Uint8Array>();
  private readonly logTextCache = new WeakMap<MatchedLog, string>();
  /** keyed by the block item every listener gets, so a header is written once per block */
  private readonly headerTextCache = new WeakMap<BlockItem, string>();
  /** per WebSocket connection (keyed by its onClose hook): ids of its pushed filters and subscriptions */
  private readonly connections = new WeakMap<object, Set<string>>();

  constructor(private readonly ctx: ApiContext, setup: FilterSetup = {}) {
    this.limits = { ...DEFAULT_LOG_LIMITS, ...setup.limits };
    this.log = setup.log ?? silent;
    this.index = new LogIndex(ctx.core.chain, { maxBlocks: this.limits.indexBlocks, maxLogs: this.limits.indexLogs, maxBytes: this.limits.indexBytes });
    this.manager = new FilterManager(ctx.core.events, this.index, this.limits, this.log);
  }

  /** Filter options → range and criteria; `param` names the argument in error messages. */
  parseOptions(o: T.FilterOptions, param: string): ParsedOptions {
    const address = o.address ?? [];
    const addresses = Array.isArray(address) ? address : [address];
    const topics = o.topics ?? o.topic ?? [];
    checkCriteriaSize(addresses, topics, param);
    const criteria = logCriteria(
      addresses.map(hexToBytes),
      topics.map((t) => (t === null ? null : (Array.isArray(t) ? t : [t]).map(hexToBytes))),
    );
    const from = this.explicitBlock(o.fromBlock ?? o.fromblock, param, 'fromBlock');
    const to = this.explicitBlock(o.toBlock ?? o.toblock, param, 'toBlock');
    const blockHash = o.blockHash ?? o.blockhash;
    if (blockHash != null && (o.fromBlock ?? o.fromblock ?? o.toBlock ?? o.toblock) != null) {
      throw invalidParams(`invalid argument ${param}: blockHash cannot be combined with fromBlock/toBlock`);
    }
    if (from !== undefined && to !== undefined && from > to) {
      throw invalidParams(`invalid argument ${param}: fromBlock (${from}) is after toBlock (${to})`);
    }
    return { from, to, blockHash: blockHash ?? undefined, criteria };
  }

  /** The range of a filter or subscription: which new blocks' logs it gets. */
  liveSpec(o: T.FilterOptions, param: string): LogFilterSpec {
    const p = this.parseOptions(o, param);
    if (p.blockHash !== undefined) throw invalidParams(`invalid argument ${param}: blockHash is only for getLogs`);
    return { criteria: p.criteria, fromBlock: p.from, toBlock: p.to };
  }

  /** Logs of canonical blocks from..to (undefined = head), bounded by the range and result limits. */
  queryLogs(from: bigint | undefined, to: bigint | undefined, criteria: LogFilterSpec['criteria']): MatchedLog[] {
    const { chain } = this.ctx.core;
    const head = chain.headNumber;
    const first = from ?? head;
    const last = to === undefined || to > head ? head : to;
    if (first > last) return [];
    const span = last - first + 1n;
    if (span > BigInt(this.limits.maxRange)) {
      throw serverError(`block range too large: ${span} blocks (${first}..${last}); the limit is ${this.limits.maxRange} (--rpc.logs.maxrange)`);
    }
    return this.capped(() => queryRange(this.index, first, last, criteria, this.limits.maxResults));
  }

  /** Logs of one block by hash. */
  blockHashLogs(blockHash: string, criteria: LogFilterSpec['criteria']): MatchedLog[] {
    const { chain } = this.ctx.core;
    const hash = hexToBytes(blockHash);
    const header = chain.headerByHash(hash);
    const b = header && chain.isCanonical(hash, header) ? this.index.block(Number(header.number)) : undefined;
    if (!b) throw serverError(`unknown block: no block with hash ${blockHash}`);
    const logs = this.index.logs(b).filter((m) => logMatches(m.log, criteria));
    if (logs.length > this.limits.maxResults) throw serverError(new TooManyResults(this.limits.maxResults).message);
    return logs;
  }

  /**
   * A log list as a result: the logs' JSON bytes, written into the response one after the other
   * (the same bytes JSON.stringify of their objects gives), so no string of the whole list is made.
   */
  logsResult(logs: readonly MatchedLog[]): T.Log[] {
    const elements = new Array<Uint8Array>(logs.length);
    for (let i = 0; i < logs.length; i++) elements[i] = this.logBytes(logs[i]!);
    return rawArrayResult<T.Log[]>(elements);
  }

  /**
   * A log's JSON as UTF-8 bytes, made once (from its text if a push already made that), in memory of
   * their own: a slice of Buffer's shared 8 KiB pool would keep its whole chunk as long as the log
   * is indexed (the soak's heap snapshots: 1,124 chunks, 9 MiB, kept by ~10,000 logs).
   */
  logBytes(m: MatchedLog): Uint8Array {
    let bytes = this.logBytesCache.get(m);
    if (bytes === undefined) {
      const text = this.logTextCache.get(m) ?? JSON.stringify(formatLog(m.log, m));
      const own = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
      own.write(text);
      this.logBytesCache.set(m, (bytes = own));
    }
    return bytes;
  }

  /** A log's JSON text (for pushes), made once. */
  logText(m: MatchedLog): string {
    let text = this.logTextCache.get(m);
    if (text === undefined) {
      const bytes = this.logBytesCache.get(m);
      this.logTextCache.set(m, (text = bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') : JSON.stringify(formatLog(m.log, m))));
    }
    return text;
  }

  /** Installs a filter; over a WebSocket its items are pushed too, until the connection closes. */
  install(kind: FilterKind, spec: LogFilterSpec | undefined, ctx: CallContext): string {
    return this.limited(() => {
      const push = ctx.transport === 'ws' ? this.pusher(ctx, kind, false) : undefined;
      const id = this.manager.install(kind, spec, push, ownerOf(ctx));
      push?.start(id);
      return id;
    });
  }

  /** A subscription of this WebSocket connection. */
  subscribe(kind: FilterKind, spec: LogFilterSpec | undefined, ctx: CallContext): string {
    return this.limited(() => {
      const push = this.pusher(ctx, kind, true);
      if (!push) throw new RpcError(-32601, `notifications not supported: ${ctx.method} needs a WebSocket connection`);
      const id = this.manager.subscribe(kind, spec, push, ownerOf(ctx));
      push.start(id);
      return id;
    });
  }

  /** Ends a subscription, but only one of the calling connection. */
  unsubscribe(id: string, ctx: CallContext): boolean {
    const ids = ctx.onClose && this.connections.get(ctx.onClose);
    const key = canonicalId(id);
    if (!ids?.has(key) || !this.manager.unsubscribe(key)) return false;
    ids.delete(key);
    return true;
  }

  /** A block or pending-transaction filter item as getFilterChanges returns it: its hash. */
  hashOf(item: FilterItem): string {
    return typeof item === 'string' ? item : (item as BlockItem).hash;
  }

  /**
   * An item's JSON text as a push carries it: newHeads the block's header, logs the log (both made
   * once per item, shared by every subscriber), block and pending-transaction filters a hash.
   */
  private itemText(kind: FilterKind, subscription: boolean, item: FilterItem): string {
    if (kind === 'logs') return this.logText(item as MatchedLog);
    return subscription && kind === 'blocks' ? this.headerText(item as BlockItem) : JSON.stringify(this.hashOf(item));
  }

  /** newHeads payload: the block's header fields, without transactions, uncles, size and total difficulty. */
  private headerText(item: BlockItem): string {
    let text = this.headerTextCache.get(item);
    if (text === undefined) {
      const { size: _s, uncles: _u, transactions: _t, totalDifficulty: _d, ...header } = formatHeader(item.block.hash, item.block.header, 0);
      // a sealed block's number, hash, nonce, mixHash and bloom are never null (only the pending block's are)
      this.headerTextCache.set(item, (text = JSON.stringify(header satisfies Record<keyof T.BlockHeader, unknown>)));
    }
    return text;
  }

  /**
   * The push side of a WebSocket listener: notifications `<ns>_subscription` carrying the id, and
   * removal when the connection closes. undefined when the call did not come over a WebSocket.
   * `start(id)` is called once the manager has given the listener its id.
   */
  private pusher(ctx: CallContext, kind: FilterKind, subscription: boolean): (Pusher & { start(id: string): void }) | undefined {
    const { onClose } = ctx;
    if (ctx.transport !== 'ws' || !ctx.notify || !onClose) return undefined;
    const method = `${ctx.method.slice(0, ctx.method.indexOf('_'))}_subscription`;
    let id = '';
    /** the params' text up to the result, the same for every item: {"subscription":"0x…","result": */
    let head = '';
    let ids = this.connections.get(onClose);
    return {
      push: (item) => {
        // the item's text (made once, whoever gets it) spliced in: `{subscription, result}` as JSON.stringify writes it
        if (ctx.notify!(method, new RawJson(head + this.itemText(kind, subscription, item) + '}'))) return true;
        this.log.warn(`rpc: ${subscription ? 'subscription' : 'filter'} ${id} dropped: its WebSocket is closing or its client is not reading notifications (send buffer over its cap)`);
        return false;
      },
      ended: () => ids?.delete(id),
      start: (newId) => {
        id = newId;
        head = '{"subscription":' + JSON.stringify(id) + ',"result":';
        if (ids) return void ids.add(id);
        const set = (ids = new Set([id]));
        this.connections.set(onClose, set);
        // one hook per connection, however many listeners it opens and closes (run at once if
        // the socket closed meanwhile)
        onClose(() => {
          for (const x of set) if (!this.manager.unsubscribe(x)) this.manager.uninstall(x);
        });
      },
    };
  }

  private explicitBlock(p: BlockParam, param: string, field: string): bigint | undefined {
    if (p === undefined || p === null || p === 'latest' || p === 'pending') return undefined;
    try {
      return blockNumberOf(this.ctx.core.chain, p) as bigint;
    } catch {
      throw invalidParams(`invalid argument ${param}: ${field} is not a block number or tag`);
    }
  }

  private capped<R>(fn: () => R): R {
    try {
      return fn();
    } catch (e) {
      if (e instanceof TooManyResults) throw serverError(e.message);
      throw e;
    }
  }

  private limited<R>(fn: () => R): R {
    try {
      return fn();
    } catch (e) {
      if (e instanceof FilterLimitError) throw serverError(e.message);
      throw e;
    }
  }
}

/**
 * geth's bounds on a filter's addresses and topics (CRITERIA_LIMITS), checked before anything is
 * decoded, with geth's words ("exceed max addresses", "exceed max topics") and the parameter's name.
 */
function checkCriteriaSize(addresses: readonly unknown[], topics: readonly unknown[], param: string): void {
  const { maxAddresses, maxTopics, maxSubTopics } = CRITERIA_LIMITS;
  if (addresses.length > maxAddresses) {
    throw invalidParams(`invalid argument ${param}: exceed max addresses: address has ${addresses.length} entries, the limit is ${maxAddresses}`);
  }
  if (topics.length > maxTopics) {
    throw invalidParams(`invalid argument ${param}: exceed max topics: topics has ${topics.length} positions, the limit is ${maxTopics}`);
  }
  for (let i = 0; i < topics.length; i++) {
    const t = topics[i];
    if (Array.isArray(t) && t.length > maxSubTopics) {
      throw invalidParams(`invalid argument ${param}: exceed max topics: topics[${i}] has ${t.length} alternatives, the limit is ${maxSubTopics}`);
    }
  }
}

/** The client a call's filter or subscription counts against: its address, and its WebSocket (whose onClose stands for it). */
function ownerOf(ctx: CallContext): ListenerOwner {
  return { address: ctx.remoteAddress, connection: ctx.transport === 'ws' ? ctx.onClose : undefined };
}

export function filterHandlers(svc: FilterService) {
  const { manager } = svc;
  const notFound = (id: string) => serverError(`filter not found: ${id} (never installed, uninstalled, or removed after --rpc.filter.timeout without a poll)`);
  return {
    getLogs(filter: T.FilterOptions) {
      const o = svc.parseOptions(filter, '0 (filter)');
      return svc.logsResult(o.blockHash !== undefined ? svc.blockHashLogs(o.blockHash, o.criteria) : svc.queryLogs(o.from, o.to, o.criteria));
    },
    newFilter: (filter: T.FilterOptions, ctx: CallContext) => svc.install('logs', svc.liveSpec(filter, '0 (filter)'), ctx),
    newBlockFilter: (ctx: CallContext) => svc.install('blocks', undefined, ctx),
    newPendingTransactionFilter: (ctx: CallContext) => svc.install('pendingTxs', undefined, ctx),
    getFilterChanges(filterId: string): T.FilterChanges {
      const kind = manager.filter(filterId)?.kind;
      const items = manager.poll(filterId);
      if (kind === undefined || items === undefined) throw notFound(filterId);
      if (kind === 'logs') return svc.logsResult(items as MatchedLog[]);
      return items.map((item) => svc.hashOf(item));
    },
    getFilterLogs(filterId: string) {
      const f = manager.filter(filterId);
      if (!f) throw notFound(filterId);
      if (f.kind !== 'logs') throw serverError(`filter ${filterId} is a ${f.kind === 'blocks' ? 'block' : 'pending-transaction'} filter; getFilterLogs needs a log filter (newFilter)`);
      return svc.logsResult(svc.queryLogs(f.spec!.fromBlock, f.spec!.toBlock, f.spec!.criteria));
    },
    uninstallFilter: (filterId: string) => manager.uninstall(filterId),
  };
}
