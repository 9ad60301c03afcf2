// The fallback transport: node:http for requests and `ws` for WebSocket upgrades (any path) on one
// port. Always available; uws-server.ts is the faster default where its binary loads.
import { STATUS_CODES, createServer, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createRequestListener, onClientError } from './http.ts';
import { rawAnswer, type HttpAnswer } from './http-rules.ts';
import type { RpcServer, TransportOptions } from './server.ts';
import { serverHandle } from './server-handle.ts';
import { serveWebSocket } from './ws.ts';
import { CapWarnings } from './connection-cap.ts';

export async function startNodeServer(t: TransportOptions): Promise<RpcServer> {
  const { host, log, rules, timeouts } = t;
  let closing = false;

  const server = createServer({
    requestTimeout: timeouts.requestMs,
    // node:http refuses a headers timeout longer than the whole request's
    headersTimeout: timeouts.requestMs > 0 ? Math.min(timeouts.headersMs, timeouts.requestMs) : timeouts.headersMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // How often node:http sweeps for the two timeouts above (its default, 30 s, is coarse).
    connectionsCheckingInterval: Math.min(5_000, timeouts.headersMs, timeouts.requestMs || Infinity),
    noDelay: true,
  });
  // node:net closes a connection past the cap as it accepts it (WebSockets count until they close)
  server.maxConnections = t.maxConnections;
  const warnings = new CapWarnings(log);
  server.on('drop', () =>
    warnings.note((n) => `rpc: ${n} connection(s) refused since the last line: ${t.maxConnections} open, the most --http.maxconns allows`),
  );
  server.on('request', createRequestListener(rules, () => closing));
  server.on('clientError', onClientError);

  // `ws` is loaded only when this transport serves: it brings node:https, tls and zlib, which a
  // start on the default transport then skips (a few ms: alternating starts, medians 298 → 291 ms
  // and 287 → 289 ms, within this machine's noise)
  const { WebSocketServer } = await import('ws');
  const wss = new WebSocketServer({ noServer: true, maxPayload: t.maxBodyBytes, perMessageDeflate: false, clientTracking: true });
  // A WebSocketServer in noServer mode emits no errors of its own; the handshake's socket errors
  // are handled by handleUpgrade, ours (before it) by this listener.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', ignoreError);
    const refusal = rules.upgradeRefusal(closing, req.headers.origin, req.headers.host);
    if (refusal) return refuse(socket, refusal);
    wss.handleUpgrade(req, socket, head, (ws) => serveWebSocket(ws, t.ws, req.socket.remoteAddress ?? ''));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => {
      wss.close();
      reject(e);
    };
    server.once('error', onError);
    server.listen(t.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  // After start-up a server 'error' (e.g. EMFILE on accept) is logged, not thrown.
  server.on('error', (e) => log.error(`rpc: http server: ${e.message}`));

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : t.port;
  return serverHandle(host, port, 'node', shutDown);

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
      }, t.closeGraceMs);
      timer.unref();
    });
  }
}

function ignoreError(): void {
  // socket errors during the upgrade handshake: the socket is destroyed, nothing else to do
}

function refuse(socket: Duplex, a: HttpAnswer): void {
  if (socket.writable) socket.write(rawAnswer(a, STATUS_CODES[a.status]!));
  socket.destroy();
}
