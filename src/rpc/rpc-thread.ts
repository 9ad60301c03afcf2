// An RPC serving thread (A19): the main thread's uWebSockets.js server, on the
// same port, in a worker thread. Its dispatcher is a HeadCachedHandler in front of a RemoteHandler:
// answers kept for the head are written here; every other request is dispatched on the main thread
// (server-threads.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { HeadAnswers, HeadCachedHandler } from './head-answers.ts';
import { HeadGeneration } from './head-generation.ts';
import { HttpRules, fileRoute, type StaticRoute } from './http-rules.ts';
import { OriginPolicy } from './origin.ts';
import { VirtualHosts } from './vhosts.ts';
import { RemoteHandler } from './remote-handler.ts';
import type { RpcServer } from './server.ts';
import type { ThreadData, ToMain, ToThread } from './thread-protocol.ts';
import type { Logger } from './types.ts';
import { loadUws } from './uws-load.ts';
import { Mailbox } from './thread-mailbox.ts';
import { startUwsServer } from './uws-server.ts';

const data = workerData as ThreadData;
const port = parentPort!;
const mailbox = new Mailbox<ToMain>(port);
const post = (m: ToMain): void => mailbox.post(m);
const log: Logger = {
  error: (msg) => post({ t: 'log', level: 'error', msg }),
  warn: (msg) => post({ t: 'log', level: 'warn', msg }),
  info: (msg) => post({ t: 'log', level: 'info', msg }),
  debug: (msg) => post({ t: 'log', level: 'debug', msg }),
};

const remote = new RemoteHandler(post);
const dispatcher = new HeadCachedHandler(remote, new HeadAnswers(new HeadGeneration(data.generation), new Set(data.headCached)));
let server: RpcServer | undefined;
let stopping = false;

async function stop(): Promise<void> {
  stopping = true;
  await server?.close();
  post({ t: 'stopped' });
  mailbox.flush();
  port.close();
}

/** this thread's open WebSocket sessions (its stats) */
const wsOpen = { sessions: 0 };

port.on('message', (batch: ToThread[]) => {
  for (const m of batch) {
    if (m.t === 'stop') void stop();
    else if (m.t === 'stats') post({ t: 'stats', stats: { listening: server !== undefined && !stopping, answeredHere: dispatcher.answers.hits, answeredByMethod: Object.fromEntries(dispatcher.answers.hitsByMethod), handedOver: remote.handedOver, wsSessions: wsOpen.sessions } });
    else remote.receive(m);
  }
});

async function serve(): Promise<void> {
  const loaded = loadUws();
  if (!('uws' in loaded)) throw new Error(loaded.reason);
  const staticRoutes = new Map<string, StaticRoute>(
    data.staticRoutes.map(([path, r]) => [path, r.file !== undefined ? fileRoute(r.contentType, r.file) : { contentType: r.contentType, body: r.body ?? '' }]),
  );
  const rules = new HttpRules({ dispatcher, origins: new OriginPolicy(data.corsDomains), vhosts: new VirtualHosts(data.vhosts), maxBodyBytes: data.maxBodyBytes, staticRoutes: staticRoutes.size > 0 ? staticRoutes : undefined, log });
  server = await startUwsServer(loaded.uws, {
    host: data.host,
    port: data.port,
    rules,
    ws: { dispatcher, log, maxBufferedBytes: data.wsMaxBufferedBytes, maxInFlight: data.wsMaxInFlight, open: wsOpen },
    maxBodyBytes: data.maxBodyBytes,
    timeouts: { headersMs: 0, requestMs: data.requestMs, keepAliveMs: 0 }, // headersMs, keepAliveMs: node:http's; uWS has its own
    maxConnections: data.maxConnections,
    closeGraceMs: data.closeGraceMs,
    log,
  });
  if (stopping) return server.close();
  post({ t: 'ready' });
}

serve().catch((e: unknown) => {
  post({ t: 'failed', reason: e instanceof Error ? e.message : String(e) });
  mailbox.flush();
  port.close();
});
