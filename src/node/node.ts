// startNode: the chain core plus the JSON-RPC server in front of it. Used by the CLI and by tests
// (which start real nodes on random loopback ports with real LMDB in a temp dir).
import { ChainCore } from '../core/core.ts';
import { CoreChainDoor } from '../core/core-chain-door.ts';
import type { NetworkHost } from '../p2p/host.ts';
import type { BlockSync } from '../p2p/sync.ts';
import type { SnapSync } from '../p2p/snap-sync.ts';
import { createLogger, type NodeLogger } from '../util/logger.ts';
import { isLoopback, type NodeConfig, type P2pConfig } from './config.ts';
import { buildHandlers } from '../api/index.ts';
import { FilterService } from '../api/filters.ts';
import type { ApiContext } from '../api/context.ts';
import type { WsOpenCount } from '../rpc/ws-session.ts';
import { clientVersion } from '../api/node-info.ts';
import { failureAnswer } from '../api/errors.ts';
import { Dispatcher } from '../rpc/dispatch.ts';
import { claimPort, startRpcServer } from '../rpc/server.ts';
import { HeadGeneration } from '../rpc/head-generation.ts';
import type { ThreadStats } from '../rpc/thread-protocol.ts';
import { HEAD_CACHED_METHODS } from '../../generated/head-cached.ts';
import { availableParallelism } from 'node:os';
import { docsPageRoutes } from './docs-page.ts';
import { statusPageRoute } from './status-page.ts';
import { unlockAccounts } from './unlock-accounts.ts';
import { methods, patternLabels } from '../../generated/methods.ts';
import type { Handlers } from '../../generated/handlers.ts';

// JSON imports, not file reads relative to this module: the esbuild bundle (npm start) inlines them.
import pkg from '../../package.json' with { type: 'json' };
import document from '../../openrpc.json' with { type: 'json' };

/**
 * Serving threads by default: with 3 or more cores, one per core beyond the first (at most 4), the
 * main thread keeping a core for the chain; with 2 or fewer, none. Measured on 2 cores with the load
 * generator on the same machine (A19): a thread served the hot reads only ~6 % faster than the main
 * thread alone with its own head answers, and took the second core from everything else — ingest
 * ~10 % slower, the WebSocket fan-out 10–20 %, a varied eth_call ~10 % (a second thread: ~20 %), and
 * 10–30 MiB more memory.
 */
function defaultServingThreads(): number {
  const cores = availableParallelism();
  return cores >= 3 ? Math.min(cores - 1, 4) : 0;
}

export interface RunningNode {
  readonly url: string;
  readonly wsUrl: string;
  readonly port: number;
  readonly core: ChainCore;
  readonly devAccount: string | undefined;
  /** where the API docs page is served (--http.docs and the page built); undefined when it is not */
  readonly docsUrl: string | undefined;
  /** the peer-to-peer network (config.p2p); undefined when the node runs none */
  readonly network: NetworkHost | undefined;
  /** http://addr:port/metrics with --metrics */
  readonly metricsUrl: string | undefined;
  /** What each RPC serving thread has answered itself and handed over (A19); empty without threads. */
  rpcThreadStats(): Promise<ThreadStats[]>;
  close(): Promise<void>;
}

/**
 * Where the node listens for peers: --p2p.addr, else loopback on a dev chain (the one with a dev
 * account: a developer's own, its peers are on this machine), all interfaces on a genesis-file chain.
 */
function p2pListenAddr(p2p: P2pConfig, devChain: boolean): string {
  return p2p.addr ?? (devChain ? '127.0.0.1' : '0.0.0.0');
}

/** Fails in words naming the address and the flags when another process holds it (a second node on this machine). */
async function claimP2pPort(addr: string, port: number): Promise<void> {
  await claimPort(addr, port).catch((e: NodeJS.ErrnoException) => {
    const why = e.code === 'EADDRINUSE' ? 'the address is in use (EADDRINUSE; another node on this machine?)' : e.message;
    throw Object.assign(new Error(`cannot listen for peers on ${addr}:${port}: ${why}; --p2p.port chooses another port (0: a free one), --p2p.addr another address`), { code: e.code });
  });
}

export async function startNode(config: NodeConfig, log: NodeLogger = createLogger(config.verbosity, undefined, { format: config.logFormat, vmodule: config.logVmodule })): Promise<RunningNode> {
  const loopback = isLoopback(config.http.addr);
  // a port another process holds is reported before a new datadir, node key and dev keystore are
  // created for a node that cannot serve (port 0 is always free)
  if (config.http.port !== 0) await claimPort(config.http.addr, config.http.port);
  // libp2p's own failure to listen is an unhandled 'error' event: the port is claimed first, named in
  // the message. Before the datadir is opened a chain without a genesis file is taken for a dev chain;
  // once it is open, the address it really listens on is claimed again if that guess was wrong.
  const guessedP2pAddr = config.p2p && p2pListenAddr(config.p2p, config.genesisFile === undefined);
  if (guessedP2pAddr !== undefined && config.p2pPort !== 0) await claimP2pPort(guessedP2pAddr, config.p2pPort);
  const core = await ChainCore.open({
    datadir: config.datadir,
    genesisFile: config.genesisFile,
    devPeriod: config.devPeriod,
    sealEmpty: config.sealEmpty,
    minGasPrice: config.minGasPrice,
    lightKdf: config.lightKdf,
    p2pPort: config.p2pPort,
    rpcPort: config.http.port,
    txpool: config.txpool,
    txJournal: config.txJournal,
    txRejournalMs: config.txRejournalMs,
    txNoLocals: config.txNoLocals,
    log: log.child('chain'),
    ledgerTransports: config.ledgerTransports,
    directTransfers: config.directTransfers,
    fastViews: config.fastViews,
    recoveryThreads: config.recoveryThreads,
    txBudgetMs: config.txBudgetMs,
    buildMs: config.buildMs,
    irisTest: config.irisTest,
    // geth's unlock rule: a key unlocked behind a listener others can reach signs for anyone there
    unlockDevAccount: loopback || config.allowInsecureUnlock,
  });
  const p2pAddr = config.p2p && p2pListenAddr(config.p2p, core.devAccount !== undefined);
  if (p2pAddr !== undefined && p2pAddr !== guessedP2pAddr && config.p2pPort !== 0) {
    try {
      await claimP2pPort(p2pAddr, config.p2pPort);
    } catch (e) {
      await core.close();
      throw e;
    }
  }
  if (config.unlock?.length) {
    try {
      await unlockAccounts(core.keystore, config.unlock, config.passwordFile);
    } catch (e) {
      await core.close();
      throw e;
    }
  }
  if (core.devAccount && !loopback) {
    if (config.allowInsecureUnlock) log.warn(`dev account ${core.devAccount} is unlocked while HTTP listens on ${config.http.addr}, not loopback (--allow-insecure-unlock): anyone who reaches it can sign with it`);
    else log.info(`dev account ${core.devAccount} stays locked: HTTP listens on ${config.http.addr}, not loopback (--allow-insecure-unlock unlocks it)`);
  }
  // what the network may ask of the chain (src/core/chain-door.ts)
  const door = new CoreChainDoor(core);
  let network: NetworkHost | undefined;
  /** downloads and imports what peers have beyond this node's head */
  let sync: BlockSync | undefined;
  /** a state sync to a pivot first (--syncmode snap, N16), or one a restart resumes */
  let snap: SnapSync | undefined;
  let snapRun: Promise<void> | undefined;
  let closingStarted = false;
  if (config.p2p) {
    try {
      // loaded only for a node with a network: libp2p's ESM-only packages cannot be require()d, which is how the tests load the sources (uvu -r tsx)
      const [{ startNetwork }, { BlockSync }, { SnapSync }] = await Promise.all([import('../p2p/host.ts'), import('../p2p/sync.ts'), import('../p2p/snap-sync.ts')]);
      network = await startNetwork({
        key: core.nodeKey,
        config: { ...config.p2p, addr: p2pAddr!, port: config.p2pPort },
        door,
        firstValidatorNode: core.config.istanbul.firstValidatorNode,
        name: clientVersion(pkg.version),
        log: log.child('p2p'),
      });
      // every node follows the best peer: a follower always, a validator when it fell behind (its
      // own blocks come from the consensus; a lone sealer's peers never have more than it has)
      const blockSync = (sync = new BlockSync(network, door, log.child('sync')));
      // the block sync starts once a state sync is done (or not called for): both write the chain
      if (config.p2p.syncMode === 'snap' || door.snap.status() !== undefined) {
        const s = (snap = new SnapSync(network, door, log.child('sync')));
        snapRun = s.run().then(
          () => void (!closingStarted && blockSync.start()),
          (e: Error) => log.error(`snap: the state sync stopped: ${e.stack ?? e}`),
        );
      } else blockSync.start();
    } catch (e) {
      await core.close();
      throw e;
    }
  }
  const api: ApiContext = {
    core,
    datadir: config.datadir,
    clientVersion: clientVersion(pkg.version),
    p2pPort: config.p2pPort,
    httpHost: config.http.addr,
    httpLoopback: loopback,
    allowInsecureUnlock: config.allowInsecureUnlock,
    namespaces: config.http.api,
    network,
    async parsePeerAddress(url) {
      // loaded when first asked, as the network is (libp2p's packages are ESM-only)
      (await import('../p2p/peer-address.ts')).parsePeerAddress(url);
    },
  };
  const filters = new FilterService(api, { limits: config.logs, log: log.child('filters') });
  const rpcLog = log.child('rpc');
  const handlers = buildHandlers(api, { gasCap: config.gasCap, evmTimeoutMs: config.evmTimeoutMs }, {}, filters) satisfies Handlers;
  const wsOpen: WsOpenCount = { sessions: 0 };
  // loaded only with --metrics: prom-client is not read at all otherwise
  const metrics = config.metrics ? new (await import('./metrics.ts')).NodeMetrics({ core, filters, wsOpen, network }) : undefined;
  if (metrics && core.iris) core.iris.meter = metrics.consensus;
  const dispatcher = new Dispatcher({
    methods,
    patternLabels,
    handlers,
    enabledNamespaces: new Set(config.http.api),
    checkResults: config.checkResults,
    maxBatch: config.http.maxBatch,
    maxResponseBytes: config.http.maxResponseBytes,
    failureAnswer,
    discover: () => document,
    log: rpcLog,
    observer: metrics?.rpc,
  });
  let server;
  let metricsUrl: string | undefined;
  const docsRoutes = config.http.docs ? docsPageRoutes(log.child('docs')) : undefined;
  try {
    // the serving threads' answer caches follow the head (A19): bumped before anyone can read the new head
    const headGeneration = new HeadGeneration();
    core.chain.onHeadMoved(() => headGeneration.bump());
    server = await startRpcServer({
      host: config.http.addr,
      port: config.http.port,
      transport: config.http.transport,
      dispatcher,
      corsDomains: config.http.corsDomains,
      vhosts: config.http.vhosts,
      maxBodyBytes: config.http.maxBodyBytes,
      wsMaxBufferedBytes: config.http.wsMaxBufferedBytes,
      maxConnections: config.http.maxConns,
      timeouts: config.http.readTimeoutMs === undefined ? undefined : { requestMs: config.http.readTimeoutMs },
      // the status page goes with the docs page: the same switch, the same host rules
      staticRoutes: config.http.docs ? new Map([...(docsRoutes ?? []), statusPageRoute()]) : undefined,
      threads: config.http.threads ?? defaultServingThreads(),
      headGeneration,
      headCached: HEAD_CACHED_METHODS,
      wsOpen,
      log: rpcLog,
    });
    if (metrics && config.metrics) {
      metrics.sources.server = server;
      metricsUrl = await metrics.listen(config.metrics.addr, config.metrics.port, log.child('metrics'));
    }
  } catch (e) {
    await server?.close();
    closingStarted = true;
    snap?.stop();
    await sync?.stop();
    await network?.close();
    await snapRun;
    await core.close();
    throw e;
  }
  let closing: Promise<void> | undefined;
  return {
    url: server.url,
    wsUrl: server.wsUrl,
    port: server.port,
    core,
    devAccount: core.devAccount,
    docsUrl: docsRoutes ? new URL('docs', server.url).href : undefined,
    network,
    metricsUrl,
    rpcThreadStats: () => server.threadStats(),
    close() {
      closing ??= (async () => {
        await metrics?.close();
        await server.close();
        closingStarted = true;
        // a state sync ends after its answers in flight, which the network's close cuts short
        snap?.stop();
        await sync?.stop();
        await network?.close();
        await snapRun;
        await core.close();
      })();
      return closing;
    },
  };
}
