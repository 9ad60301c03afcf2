// The RPC transport behind one small interface: HTTP POST and WebSocket upgrades (any path) on one
// port. Two implementations (D1, A13): uWebSockets.js (uws-server.ts),
// the default where its binary loads, and node:http + `ws` (node-server.ts), always available.
// Both apply the same rules (http-rules.ts, ws-session.ts); callers only see startRpcServer() and
// RpcServer. With uWebSockets.js the port can also be served by threads (server-threads.ts, A19).
import { HttpRules, type StaticRoute } from './http-rules.ts';
import { startNodeServer } from './node-server.ts';
import { OriginPolicy } from './origin.ts';
import { DEFAULT_VHOSTS, VirtualHosts } from './vhosts.ts';
import { silentLogger, type Logger, type RpcHandler } from './types.ts';
import { loadUws, type UwsModule } from './uws-load.ts';
import { startUwsServer } from './uws-server.ts';
import type { WsOpenCount, WsSessionOptions } from './ws-session.ts';
import type { HeadGeneration } from './head-generation.ts';
import { HeadAnswers, HeadCachedHandler } from './head-answers.ts';
import { startServerThreads } from './server-threads.ts';
import type { ThreadStats } from './thread-protocol.ts';
import { createServer as createNetServer } from 'node:net';
import { defaultMaxConnections } from './connection-cap.ts';

export type { StaticRoute };

/** 'auto': uWebSockets.js when it loads here, else node:http + ws. */
export type TransportChoice = 'auto' | 'uws' | 'node';

export interface HttpTimeouts {
  /** Whole header block must arrive within this (slowloris guard). node:http only. */
  readonly headersMs: number;
  /**
   * Whole request (headers + body) must arrive within this (--http.readtimeout). uWebSockets.js: a
   * body that spans reads, from its first part (headers are bounded there by its idle timeout).
   * 0: no limit.
   */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this. node:http only (uWebSockets.js: ~10 s). */
  readonly keepAliveMs: number;
}

export interface RpcServerOptions {
  readonly dispatcher: RpcHandler;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 picks a free port (default 0). */
  readonly port?: number;
  /** Default 'auto'. 'uws' fails when uWebSockets.js does not load. */
  readonly transport?: TransportChoice;
  /** Browser origins allowed (CORS and WebSocket Origin); '*' for any; empty: same-origin only. */
  readonly corsDomains?: readonly string[];
  /** Host names served (--http.vhosts); '*' for any; IP addresses always (default: localhost). */
  readonly vhosts?: readonly string[];
  /** Largest HTTP body and WebSocket message (default 5 MiB). */
  readonly maxBodyBytes?: number;
  /** GET pages by exact path (query ignored). */
  readonly staticRoutes?: ReadonlyMap<string, StaticRoute>;
  /** Unsent bytes a WebSocket may queue before notify() refuses (default 16 MiB). */
  readonly wsMaxBufferedBytes?: number;
  /** Requests one WebSocket may have running at once before we stop reading it (default 256). */
  readonly wsMaxInFlight?: number;
  readonly timeouts?: Partial<HttpTimeouts>;
  /**
   * Open connections (HTTP and WebSocket) past which new ones are refused at once (--http.maxconns;
   * default 80 % of the open-files limit, at most 10,000). node:http counts exactly; uWebSockets.js
   * counts the process's open descriptors (uws-listen-gate.ts).
   */
  readonly maxConnections?: number;
  /** How long close() waits for busy connections before cutting them (default 5 s). */
  readonly closeGraceMs?: number;
  readonly log?: Logger;
  /**
   * Serving threads beside the main one, each a uWebSockets.js server on the same port (A19;
   * default 0; the node:http transport has none).
   */
  readonly threads?: number;
  /** The head generation the threads' answer caches follow (required with threads > 0). */
  readonly headGeneration?: HeadGeneration;
  /** Methods whose answers the threads may keep per head (generated/head-cached.ts). */
  readonly headCached?: ReadonlySet<string>;
  /** WebSocket sessions open on the main thread, counted as they open and close (metrics). */
  readonly wsOpen?: WsOpenCount;
}

export interface RpcServer {
  /** http://host:port/ */
  readonly url: string;
  /** ws://host:port/ */
  readonly wsUrl: string;
  readonly port: number;
  /** The implementation serving. */
  readonly transport: 'uws' | 'node';
  /** Each serving thread's counts (A19); empty without threads. */
  threadStats(): Promise<ThreadStats[]>;
  /** Requests the main thread answered from its kept head answers (they never reach the dispatcher). */
  headAnswerHits(): number;
  /** The same by method. */
  headAnswerHitsByMethod(): ReadonlyMap<string, number>;
  /** Stops accepting, closes WebSockets and idle connections; resolves when all are gone. */
  close(): Promise<void>;
}

/** What either implementation gets: the options resolved, the shared rules built. */
export interface TransportOptions {
  readonly host: string;
  readonly port: number;
  readonly rules: HttpRules;
  readonly ws: WsSessionOptions;
  readonly maxBodyBytes: number;
  readonly timeouts: HttpTimeouts;
  readonly maxConnections: number;
  readonly closeGraceMs: number;
  readonly log: Logger;
}

export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
// requestMs: geth's HTTPTimeouts.ReadTimeout
const DEFAULT_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 30_000 };

export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const answers = options.headGeneration && options.headCached ? new HeadAnswers(options.headGeneration, options.headCached) : undefined;
  const opts = answers ? { ...options, dispatcher: new HeadCachedHandler(options.dispatcher, answers) } : options;
  const server = await startTransport(opts);
  return { ...server, headAnswerHits: () => answers?.hits ?? 0, headAnswerHitsByMethod: () => answers?.hitsByMethod ?? new Map() };
}

/** The server of the transport chosen (or the one that loads), with serving threads when asked. */
async function startTransport(opts: RpcServerOptions): Promise<RpcServer> {
  const log = opts.log ?? silentLogger;
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const t: TransportOptions = {
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
    rules: new HttpRules({
      dispatcher: opts.dispatcher,
      origins: new OriginPolicy(opts.corsDomains ?? []),
      vhosts: new VirtualHosts(opts.vhosts ?? DEFAULT_VHOSTS),
      maxBodyBytes,
      staticRoutes: opts.staticRoutes,
      log,
    }),
    ws: {
      dispatcher: opts.dispatcher,
      log,
      maxBufferedBytes: opts.wsMaxBufferedBytes ?? 16 * 1024 * 1024,
      maxInFlight: opts.wsMaxInFlight ?? 256,
      open: opts.wsOpen,
    },
    maxBodyBytes,
    timeouts: { ...DEFAULT_TIMEOUTS, ...opts.timeouts },
    maxConnections: opts.maxConnections ?? defaultMaxConnections(),
    closeGraceMs: opts.closeGraceMs ?? 5_000,
    log,
  };
  const choice = opts.transport ?? 'auto';
  if (choice !== 'node') {
    const loaded = loadUws();
    if ('uws' in loaded) {
      log.debug('rpc: serving with uWebSockets.js');
      const threads = opts.threads ?? 0;
      // uWS listens with SO_REUSEPORT (S21), which would let it share a port held by another of our
      // servers: the port is claimed first (a free one for port 0: uSockets sets the option only on a given port)
      if (threads === 0) return startUwsServer(loaded.uws, { ...t, port: await claimPort(t.host, t.port) });
      return startWithThreads(loaded.uws, t, threads, opts);
    }
    if (choice === 'uws') throw new Error(`transport uws: ${loaded.reason}`);
    log.info(`rpc: serving with node:http + ws: ${loaded.reason}`);
  }
  return startNodeServer(t);
}

/** The main thread's server on a shared port, then the serving threads on the same port (A19). */
async function startWithThreads(uws: UwsModule, t: TransportOptions, threads: number, opts: RpcServerOptions): Promise<RpcServer> {
  if (!opts.headGeneration) throw new Error('serving threads need a head generation');
  const port = await claimPort(t.host, t.port);
  const main = await startUwsServer(uws, { ...t, port });
  const serving = startServerThreads(
    threads,
    {
      host: t.host,
      port,
      corsDomains: opts.corsDomains ?? [],
      vhosts: opts.vhosts ?? DEFAULT_VHOSTS,
      maxBodyBytes: t.maxBodyBytes,
      wsMaxBufferedBytes: t.ws.maxBufferedBytes,
      wsMaxInFlight: t.ws.maxInFlight,
      requestMs: t.timeouts.requestMs,
      maxConnections: t.maxConnections,
      closeGraceMs: t.closeGraceMs,
      staticRoutes: [...(opts.staticRoutes ?? [])].map(([path, r]) => [path, r.file !== undefined ? { contentType: r.contentType, file: r.file } : { contentType: r.contentType, body: r.body }]),
      generation: opts.headGeneration.cell,
      headCached: [...(opts.headCached ?? [])],
    },
    opts.dispatcher,
    t.log,
  );
  let closed: Promise<void> | undefined;
  return {
    ...main,
    threadStats: () => serving.stats(),
    close() {
      closed ??= Promise.all([main.close(), serving.close()]).then(() => undefined);
      return closed;
    },
  };
}

/**
 * The port to share, after making sure no other socket holds it: an exclusive bind that succeeds
 * means it is free (a port shared with SO_REUSEPORT could otherwise be joined by a second node
 * started on it by mistake). Port 0 becomes the free port the kernel picked. startNode also asks
 * first, before it creates anything in the datadir.
 */
export function claimPort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => {
      const bound = (probe.address() as { port: number }).port;
      probe.close(() => resolve(bound));
    });
  });
}

