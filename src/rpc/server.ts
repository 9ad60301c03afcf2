// The RPC transport behind one small interface: node:http for POST and `ws` for WebSocket upgrades
// (any path) on the same port. DESIGN D1 keeps the transport swappable (a uWebSockets build
// measured ~1.8x faster); callers only see startRpcServer() and RpcServer.
import { createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { createRequestListener, onClientError, type StaticRoute } from './http.ts';
import { OriginPolicy } from './origin.ts';
import { serveWebSocket } from './ws.ts';
import { INVALID_REQUEST } from './errors.ts';
import { NULL_ID, errorResponse } from './response.ts';
import { silentLogger, type Logger, type RpcHandler } from './types.ts';

export type { StaticRoute };

export interface HttpTimeouts {
  /** Whole header block must arrive within this (slowloris guard). */
  readonly headersMs: number;
  /** Whole request (headers + body) must arrive within this. */
  readonly requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
}

export interface RpcServerOptions {
  readonly dispatcher: RpcHandler;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 picks a free port (default 0). */
  readonly port?: number;
  /** Browser origins allowed (CORS and WebSocket Origin); '*' for any; empty: same-origin only. */
  readonly corsDomains?: readonly string[];
  /** Largest HTTP body and WebSocket message (default 5 MiB). */
  readonly maxBodyBytes?: number;
  /** GET pages by exact path (query ignored). */
  readonly staticRoutes?: ReadonlyMap<string, StaticRoute>;
  /** Unsent bytes a WebSocket may queue before notify() refuses (default 16 MiB). */
  readonly wsMaxBufferedBytes?: number;
  /** Requests one WebSocket may have running at once before we stop reading it (default 256). */
  readonly wsMaxInFlight?: number;
  readonly timeouts?: Partial<HttpTimeouts>;
  /** How long close() waits for busy connections before cutting them (default 5 s). */
  readonly closeGraceMs?: number;
  readonly log?: Logger;
}

export interface RpcServer {
  /** http://host:port/ */
  readonly url: string;
  /** ws://host:port/ */
  readonly wsUrl: string;
  readonly port: number;
  /** Stops accepting, closes WebSockets and idle connections; resolves when all are gone. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
const DEFAULT_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 60_000, keepAliveMs: 30_000 };

export async function startRpcServer(opts: RpcServerOptions): Promise<RpcServer> {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? silentLogger;
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const origins = new OriginPolicy(opts.corsDomains ?? []);
  let closing = false;

  const server = createServer({
    requestTimeout: timeouts.requestMs,
    headersTimeout: timeouts.headersMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // How often node:http sweeps for the two timeouts above (its default, 30 s, is coarse).
    connectionsCheckingInterval: Math.min(5_000, timeouts.headersMs),
    noDelay: true,
  });
  server.on(
    'request',
    createRequestListener({
      dispatcher: opts.dispatcher,
      origins,
      maxBodyBytes,
      staticRoutes: opts.staticRoutes,
      log,
      closing: () => closing,
    }),
  );
  server.on('clientError', onClientError);

  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBodyBytes, perMessageDeflate: false, clientTracking: true });
  // A WebSocketServer in noServer mode emits no errors of its own; the handshake's socket errors
  // are handled by handleUpgrade, ours (before it) by this listener.
  const wsOptions = {
    dispatcher: opts.dispatcher,
    log,
    maxBufferedBytes: opts.wsMaxBufferedBytes ?? 16 * 1024 * 1024,
    maxInFlight: opts.wsMaxInFlight ?? 256,
  };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', ignoreError);
    const origin = req.headers.origin;
    if (closing) return refuse(socket, 503, 'server shutting down');
    if (origin !== undefined && origins.decide(origin, req.headers.host) === false) {
      return refuse(socket, 403, 'origin not allowed (--http.corsdomain)');
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveWebSocket(ws, wsOptions));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => {
      wss.close();
      reject(e);
    };
    server.once('error', onError);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  // After start-up a server 'error' (e.g. EMFILE on accept) is logged, not thrown.
  server.on('error', (e) => log.error(`rpc: http server: ${e.message}`));

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | undefined;

  return {
    url: `http://${urlHost}:${port}/`,
    wsUrl: `ws://${urlHost}:${port}/`,
    port,
    close() {
      closed ??= shutDown();
      return closed;
    },
  };

  function shutDown(): Promise<void> {
    closing = true;
    return new Promise<void>((resolve) => {
      let pending = 2;
      const done = () => {
        if (--pending === 0) {
          clearTimeout(timer);
          resolve();
        }
      };
      // Resolves once every HTTP connection is gone; busy ones close after their response
      // (responses carry Connection: close while closing).
      server.close(() => done());
      server.closeIdleConnections();
      const clients = [...wss.clients];
      let open = clients.length;
      if (open === 0) done();
      for (const ws of clients) {
        ws.once('close', () => {
          if (--open === 0) done();
        });
        ws.close(1001, 'server shutting down');
      }
      wss.close();
      // Clients that do not answer the close handshake, or requests still running, get cut.
      const timer = setTimeout(() => {
        server.closeAllConnections();
        for (const ws of wss.clients) ws.terminate();
        for (const ws of clients) ws.terminate();
      }, opts.closeGraceMs ?? 5_000);
      timer.unref();
    });
  }
}

function ignoreError(): void {
  // socket errors during the upgrade handshake: the socket is destroyed, nothing else to do
}

function refuse(socket: Duplex, status: number, message: string): void {
  if (socket.writable) {
    const body = errorResponse(NULL_ID, INVALID_REQUEST, `invalid request: ${message}`);
    socket.write(
      `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Service Unavailable'}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
