// Prometheus metrics (--metrics): what the node did and holds, in prom-client's registry, served as
// text at /metrics on a listener of its own (--metrics.addr, --metrics.port; geth's flags), so a
// scraper never shares the RPC port or its limits.
//
// Only requests are counted as they happen (the dispatcher's RequestObserver) and blocks as they
// are made; everything that is a level — pool, filters, peers, sockets, the database's size — is
// read when Prometheus scrapes, so the node pays nothing for it between scrapes. Without --metrics
// none of this exists: the dispatcher has no observer and makes no call.
import { createServer, type Server } from 'node:http';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { ChainCore } from '../core/core.ts';
import type { PeerSet } from '../p2p/peer-set.ts';
import type { FilterService } from '../api/filters.ts';
import type { RpcServer } from '../rpc/server.ts';
import type { WsOpenCount } from '../rpc/ws-session.ts';
import type { RequestObserver } from '../rpc/types.ts';
import type { ConsensusMeter } from '../consensus/consensus-meter.ts';
import type { Logger } from '../util/logger.ts';

/** Seconds: from a head-cached read (~50 µs) to an eth_call at the 5 s --rpc.evmtimeout. */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
const TXS_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];
const BLOCK_TIME_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300];

/** What the scrape-time readings are read from. */
export interface MetricSources {
  readonly core: ChainCore;
  readonly filters: FilterService;
  readonly wsOpen: WsOpenCount;
  readonly network?: PeerSet;
  /** set once the RPC server is up (it starts after the dispatcher that feeds these metrics) */
  server?: RpcServer;
}

/** Counts per bucket (the last: above every bound), their sum and number: what a histogram is, in plain numbers. */
class Buckets {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  add(v: number): void {
    let i = 0;
    while (i < this.bounds.length && v > this.bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }

  /** Prometheus' cumulative `_bucket{le}` series, `_sum` and `_count` */
  samples(name: string, labels: Record<string, string>): Sample[] {
    const out: Sample[] = [];
    let below = 0;
    this.bounds.forEach((le, i) => {
      below += this.counts[i]!;
      out.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: below });
    });
    out.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: this.count });
    out.push({ metricName: `${name}_sum`, labels, value: this.sum }, { metricName: `${name}_count`, labels, value: this.count });
    return out;
  }
}

type Sample = { metricName?: string; labels: Record<string, string | number>; value: number };

/**
 * A metric prom-client writes out from what get() returns (Registry.registerMetric takes any object
 * of that shape): ours keep their numbers themselves, so counting costs no label hashing.
 */
function written(name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[] | Promise<Sample[]>): Metric {
  const shape = { name, help, type, aggregator: 'sum' as const };
  return { ...shape, get: async () => ({ ...shape, values: await samples() }), reset() {} } as unknown as Metric;
}

/** One method's requests. */
class MethodTally {
  ok = 0;
  failed = 0;
  readonly latency = new Buckets(LATENCY_BUCKETS);
}

/**
 * The dispatcher's observer: requests by method and outcome, their latency, errors by code, batch
 * sizes. prom-client's own counters and histograms hash their labels on every call (+1.6 µs a
 * request, measured: bench/rpc-dispatch.ts); these add to plain numbers and are written when scraped.
 */
export class RpcMeters implements RequestObserver {
  private readonly byMethod = new Map<string, MethodTally>();
  /**
   * Requests answered before the dispatcher (the head answers of the main thread and of each
   * serving thread), by method: counted in chain_rpc_requests_total as `ok` (only results are kept).
   */
  answeredElsewhere: () => Promise<ReadonlyMap<string, number>> = async () => new Map();
  private readonly byCode = new Map<number, number>();
  private readonly batches = new Buckets(BATCH_BUCKETS);

  constructor(registry: Registry) {
    const methods = () => [...this.byMethod];
    registry.registerMetric(
      written('chain_rpc_requests_total', 'JSON-RPC requests answered, whichever path answered them (the dispatcher or the head answers), by method and outcome (ok: a result, error: an error object); method "" names none served', 'counter', async () => {
        const elsewhere = await this.answeredElsewhere();
        const names = new Set([...this.byMethod.keys(), ...elsewhere.keys()]);
        return [...names].flatMap((method) => [
          { labels: { method, outcome: 'ok' }, value: (this.byMethod.get(method)?.ok ?? 0) + (elsewhere.get(method) ?? 0) },
          { labels: { method, outcome: 'error' }, value: this.byMethod.get(method)?.failed ?? 0 },
        ]);
      }),
    );
    registry.registerMetric(
      written('chain_rpc_request_duration_seconds', 'time from a request object to its answer, by method (head-cached answers excluded: chain_rpc_head_cache_answers_total)', 'histogram', () =>
        methods().flatMap(([method, t]) => t.latency.samples('chain_rpc_request_duration_seconds', { method })),
      ),
    );
    registry.registerMetric(written('chain_rpc_errors_total', 'JSON-RPC error answers by code', 'counter', () => [...this.byCode].map(([code, value]) => ({ labels: { code }, value }))));
    registry.registerMetric(written('chain_rpc_batch_size', 'request objects per batch', 'histogram', () => this.batches.samples('chain_rpc_batch_size', {})));
  }

  request(method: string, code: number, seconds: number): void {
    let t = this.byMethod.get(method);
    if (t === undefined) this.byMethod.set(method, (t = new MethodTally()));
    t.latency.add(seconds);
    if (code === 0) t.ok++;
    else {
      t.failed++;
      this.byCode.set(code, (this.byCode.get(code) ?? 0) + 1);
    }
  }

  batch(size: number): void {
    this.batches.add(size);
  }
}

/** Every metric of a node, and the listener that serves them. */
export class NodeMetrics {
  readonly registry = new Registry();
  readonly rpc = new RpcMeters(this.registry);
  readonly consensus: ConsensusMeter;
  private server: Server | undefined;

  constructor(readonly sources: MetricSources) {
    const { core, filters, wsOpen, network } = sources;
    const r = [this.registry];
    collectDefaultMetrics({ register: this.registry }); // RSS, heap, event-loop lag, GC pauses, handles
    const threadStats = () => sources.server?.threadStats() ?? Promise.resolve([]);
    this.rpc.answeredElsewhere = async () => {
      const all = new Map(sources.server?.headAnswerHitsByMethod() ?? []);
      for (const s of await threadStats()) for (const [method, n] of Object.entries(s.answeredByMethod)) all.set(method, (all.get(method) ?? 0) + n);
      return all;
    };
    new Counter({
      name: 'chain_rpc_head_cache_answers_total',
      help: 'requests answered from the answers kept for the current head, by thread (main, or serving thread 1…n): they reach no dispatcher',
      labelNames: ['thread'] as const,
      registers: r,
      async collect() {
        this.reset();
        this.inc({ thread: 'main' }, sources.server?.headAnswerHits() ?? 0);
        (await threadStats()).forEach((s, i) => this.inc({ thread: String(i + 1) }, s.answeredHere));
      },
    });
    new Gauge({
      name: 'chain_ws_connections',
      help: 'WebSocket connections open (main thread and serving threads)',
      registers: r,
      async collect() {
        this.set(wsOpen.sessions + (await threadStats()).reduce((n, s) => n + s.wsSessions, 0));
      },
    });
    new Gauge({ name: 'chain_ws_subscriptions', help: 'eth_subscribe subscriptions active', registers: r, collect() { this.set(filters.manager.counts().subscriptions); } });
    new Gauge({ name: 'chain_filters', help: 'polled filters installed (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter)', registers: r, collect() { this.set(filters.manager.counts().filters); } });
    new Gauge({ name: 'chain_log_index_logs', help: 'logs the in-memory log index holds (at most 50,000, in at most 16,384 blocks)', registers: r, collect() { this.set(filters.index.held().logs); } });
    new Gauge({ name: 'chain_log_index_bytes', help: 'memory the log index holds, estimated: its logs with their JSON (at most 32 MiB)', registers: r, collect() { this.set(filters.index.held().bytes); } });
    new Gauge({ name: 'chain_txpool_pending', help: 'executable transactions in the pool', registers: r, collect() { this.set(core.pool.pendingCount); } });
    new Gauge({ name: 'chain_txpool_queued', help: 'transactions in the pool waiting for a nonce gap to close', registers: r, collect() { this.set(core.pool.queuedCount); } });
    new Gauge({ name: 'chain_head_block', help: 'number of the head block', registers: r, collect() { this.set(Number(core.chain.headNumber)); } });
    new Gauge({
      name: 'chain_sync_highest_block',
      help: 'highest block a peer has announced while syncing; the head when in step',
      registers: r,
      collect() { this.set(Number(core.syncProgress?.highestBlock ?? core.chain.headNumber)); },
    });
    new Gauge({ name: 'chain_p2p_peers', help: 'connected peers past the handshake', registers: r, collect() { this.set(network?.peers().length ?? 0); } });
    const dataFile = join(core.datadir, 'chaindata', 'data.mdb');
    new Gauge({
      name: 'chain_lmdb_size_bytes',
      help: "size of LMDB's data file (chaindata/data.mdb) on disk",
      registers: r,
      collect() {
        try {
          this.set(statSync(dataFile).blocks * 512); // allocated, not the sparse map size
        } catch {
          this.set(0);
        }
      },
    });
    const blockTxs = new Histogram({ name: 'chain_block_transactions', help: 'transactions per block added to the chain', buckets: TXS_BUCKETS, registers: r });
    const blockTime = new Histogram({ name: 'chain_block_interval_seconds', help: "seconds between a block's timestamp and its parent's", buckets: BLOCK_TIME_BUCKETS, registers: r });
    let lastTime: bigint | undefined;
    core.events.onBlock(({ block }) => {
      blockTxs.observe(block.txs.length);
      const time = block.header.timestamp;
      if (lastTime !== undefined && time >= lastTime) blockTime.observe(Number(time - lastTime));
      lastTime = time;
    });
    new Counter({
      name: 'chain_import_senders_total',
      help: "senders of the transactions in blocks this node imported or verified: taken from the pool's admission, or recovered",
      labelNames: ['source'] as const,
      registers: r,
      collect() {
        this.reset();
        this.inc({ source: 'pool' }, core.importSenders.pool);
        this.inc({ source: 'recovered' }, core.importSenders.recovered);
      },
    });
    const rounds = new Counter({ name: 'chain_consensus_rounds_total', help: 'consensus rounds begun', registers: r });
    const roundChanges = new Counter({ name: 'chain_consensus_round_changes_total', help: 'rounds given up for a later one (timeouts, faulty proposers)', registers: r });
    const round = new Gauge({ name: 'chain_consensus_round', help: 'the round in progress at the height being decided', registers: r });
    this.consensus = {
      roundStarted(_height, n) {
        rounds.inc();
        round.set(n);
      },
      roundChanged(_height, n) {
        roundChanges.inc();
        round.set(n);
      },
    };
  }

  /** Serves GET /metrics on addr:port (0 picks one); resolves with its URL. */
  listen(addr: string, port: number, log: Logger): Promise<string> {
    const server = (this.server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at GET /metrics\n');
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        (e) => {
          log.error(`metrics: scrape failed: ${(e as Error).message}`);
          res.writeHead(500, { 'content-type': 'text/plain' }).end('scrape failed\n');
        },
      );
    }));
    return new Promise((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => reject(Object.assign(new Error(`metrics port (--metrics.port): ${e.message}`), { code: e.code })));
      server.listen(port, addr, () => {
        const url = `http://${addr.includes(':') ? `[${addr}]` : addr}:${(server.address() as { port: number }).port}/metrics`;
        log.info(`metrics: serving Prometheus text at ${url}`);
        resolve(url);
      });
    });
  }

  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
