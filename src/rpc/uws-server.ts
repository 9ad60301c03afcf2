// The default transport: uWebSockets.js (C++ HTTP and WebSocket server, ~2x node:http per request;
// A13) serving HTTP POST and WebSocket upgrades on any path of one port, with
// the same rules as the node:http fallback (http-rules.ts, ws-session.ts).
//
// uWS rules this module keeps: a request handler answers synchronously or registers onAborted
// before returning; an HttpResponse or WebSocket is never touched after it aborted, ended or closed
// (that throws); writes outside the handler's synchronous part are corked; the HttpRequest is only
// valid synchronously inside the handler; ArrayBuffers handed to callbacks are neutered on return;
// a callback that throws kills the process, so every callback catches.
import { STATUS_CODES } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { HttpAnswer } from './http-rules.ts';
import type { RpcServer, TransportOptions } from './server.ts';
import { serverHandle } from './server-handle.ts';
import type { HttpRequest, HttpResponse, UwsModule, UwsWebSocket, us_listen_socket } from './uws-load.ts';
import { WsSession, type WsSocket } from './ws-session.ts';
import { releaseReply } from './reply-buffers.ts';
import { BodyBuffer } from './body-buffer.ts';
import { startConnectionGate, type ConnectionGate } from './uws-connection-gate.ts';

interface WsData {
  open: boolean;
  /** the client's IP, read at the upgrade (the socket does not give it once closed) */
  remoteAddress: string;
  session?: WsSession;
}

const statusLines = new Map<number, string>();
function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) statusLines.set(status, (line = `${status} ${STATUS_CODES[status] ?? ''}`));
  return line;
}

/**
 * Writes a complete answer; `close` ends the connection after it (uWS adds Connection: close).
 * `head`: the request was HEAD, so no body goes out (uWS would send it).
 */
function write(res: HttpResponse, a: HttpAnswer, close: boolean, head = false): void {
  if (a.status !== 200) res.writeStatus(statusLine(a.status));
  if (a.cors !== '') {
    res.writeHeader('Access-Control-Allow-Origin', a.cors);
    if (a.cors !== '*') res.writeHeader('Vary', 'Origin');
  }
  if (a.headers) for (const k in a.headers) res.writeHeader(k, a.headers[k]!);
  // In 20.30 endWithoutBody(undefined, true) and endWithoutBody(n > 0) abort the process (the
  // response counts as unfinished); endWithoutBody() and endWithoutBody(0, true) are safe.
  if (a.body === undefined) {
    if (close) res.endWithoutBody(0, true); // adds Content-Length: 0
    else res.endWithoutBody();
    return;
  }
  res.writeHeader('Content-Type', a.contentType!);
  if (head || a.headOnly) {
    res.writeHeader('Content-Length', String(Buffer.byteLength(a.body)));
    if (close) res.writeHeader('Connection', 'close');
    res.endWithoutBody();
    return;
  }
  res.end(a.body, close);
  releaseReply(a.body); // end() has copied it out (to the socket, or to uWS's own send buffer)
}

/** The client's IP as text (uWS gives it as an ArrayBuffer); '' once the response is gone. */
function remoteAddressOf(res: HttpResponse): string {
  try {
    return Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
  } catch {
    return ''; // answered or aborted: uWS refuses any access to res
  }
}

/** The first sub-protocol a client offers, which `ws` would pick too ('' for none). */
function firstProtocol(header: string): string {
  const comma = header.indexOf(',');
  return (comma < 0 ? header : header.slice(0, comma)).trim();
}

/** More than one Content-Length header: the body's end is ambiguous (request smuggling), node:http refuses it too. */
function contentLengths(req: HttpRequest): number {
  let n = 0;
  req.forEach((key) => {
    if (key === 'content-length') n++;
  });
  return n;
}

export async function startUwsServer(uws: UwsModule, t: TransportOptions): Promise<RpcServer> {
  const { host, log, rules, maxBodyBytes } = t;
  const bodyMs = t.timeouts.requestMs;
  const app = uws.App();
  let closing = false;
  /** Over --http.maxconns: answers close their connection, WebSocket handshakes are refused. */
  let gate: ConnectionGate | undefined;
  // over the cap the listener is closed instead (S21): the connections already open keep being answered
  const shedding = (): boolean => closing;
  /** POSTs being read or dispatched; close() waits for them. */
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const sockets = new Set<UwsWebSocket<WsData>>();

  const failed = (where: string, e: unknown): void => log.error(`rpc: uws ${where}: ${e instanceof Error ? e.stack : String(e)}`);

  /** After a throw inside a handler: answer 500 if possible, else drop the connection (returning unanswered would abort the process). */
  const lastResort = (res: HttpResponse): void => {
    try {
      write(res, rules.internalError(''), true);
    } catch {
      try {
        res.close();
      } catch {
        // already answered or aborted
      }
    }
  };

  const onPost = (res: HttpResponse, cors: string): void => {
    // 0 reading the body, 1 dispatching, 2 answered or aborted (res is off limits)
    let state = 0;
    let body: BodyBuffer | undefined;
    // a body that spans reads must be complete within requestMs of its first part (uWS's idle
    // timeout alone lets a byte every few seconds hold the connection and its buffer for ever)
    let timer: NodeJS.Timeout | undefined;
    const readAddress = (): string => remoteAddressOf(res);
    inFlight++;
    const settle = (): void => {
      state = 2;
      body = undefined; // a partial body is given back as soon as the request ends, however it ends
      clearTimeout(timer);
      if (--inFlight === 0 && drained) drained();
    };
    const answer = (a: HttpAnswer, close = shedding()): void => {
      if (state === 2) return;
      try {
        res.cork(() => write(res, a, close));
      } catch (e) {
        failed('write', e);
        try {
          res.close(); // a half-written answer: drop the connection rather than leave it hanging
        } catch {
          // gone already
        }
      }
      settle();
    };
    res.onAborted(() => {
      if (state !== 2) settle();
    });
    res.onData((chunk, isLast) => {
      if (state !== 0) return; // after a 413 the rest of the body is discarded
      try {
        const size = (body?.size ?? 0) + chunk.byteLength;
        if (size > maxBodyBytes) return answer(rules.tooLarge(cors));
        // chunk is neutered when this callback returns: copy what we keep
        if (!isLast) {
          if (body === undefined) {
            body = new BodyBuffer();
            if (bodyMs > 0) timer = setTimeout(() => answer(rules.bodyTimedOut(cors, bodyMs), true), bodyMs);
          }
          body.append(new Uint8Array(chunk));
          return;
        }
        state = 1;
        clearTimeout(timer);
        let whole: Buffer = Buffer.from(chunk);
        if (body !== undefined) {
          body.append(whole);
          whole = body.view();
          body = undefined;
        }
        // dispatch() decodes the body before it returns; a kept answer is written here and now
        const a = rules.dispatch(whole, cors, readAddress);
        if (a instanceof Promise) a.then((reply) => answer(reply));
        else answer(a);
      } catch (e) {
        failed('request', e);
        answer(rules.internalError(cors));
      }
    });
  };

  app.any('/*', (res: HttpResponse, req: HttpRequest) => {
    try {
      const method = req.getCaseSensitiveMethod();
      const head = method === 'HEAD';
      // A GET with a WebSocket handshake went to the ws route; any other Upgrade ends here.
      if (req.getHeader('upgrade') !== '') return write(res, rules.notWebSocket(), closing, head);
      const decision = rules.route(method, req.getUrl(), (name) => {
        const v = req.getHeader(name);
        return v === '' ? undefined : v;
      });
      if (typeof decision === 'string') {
        if (contentLengths(req) > 1) return write(res, rules.duplicateContentLength(decision), true);
        onPost(res, decision);
      } else write(res, decision, shedding(), head);
    } catch (e) {
      failed('request', e);
      lastResort(res);
    }
  });

  app.ws<WsData>('/*', {
    compression: uws.DISABLED,
    maxPayloadLength: maxBodyBytes, // larger: the connection is closed (1006)
    // 0 = no limit: uWS would otherwise drop frames silently past 64 KiB queued; our own cap
    // (maxBufferedBytes, ws-session.ts) decides what happens to a client that does not read.
    maxBackpressure: 0,
    // `ws` has no idle timeout; here an idle connection gets pings (clients answer them by
    // themselves), so only a dead peer is cut after 2 minutes.
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade(res, req, context) {
      try {
        const origin = req.getHeader('origin');
        const refusal = gate?.over ? rules.tooManyConnections() : rules.upgradeRefusal(closing, origin === '' ? undefined : origin, req.getHeader('host'));
        if (refusal) return write(res, refusal, true);
        const key = req.getHeader('sec-websocket-key');
        if (key.length !== 24 || req.getHeader('upgrade').toLowerCase() !== 'websocket') return write(res, rules.notWebSocket(), true);
        res.upgrade<WsData>(
          { open: true, remoteAddress: remoteAddressOf(res) },
          key,
          firstProtocol(req.getHeader('sec-websocket-protocol')),
          req.getHeader('sec-websocket-extensions'),
          context,
        );
      } catch (e) {
        failed('upgrade', e);
        lastResort(res);
      }
    },
    open(ws) {
      const data = ws.getUserData();
      const socket: WsSocket = {
        remoteAddress: data.remoteAddress,
        isOpen: () => data.open,
        bufferedAmount: () => (data.open ? ws.getBufferedAmount() : 0),
        send(reply) {
          if (data.open) ws.send(reply, false); // isBinary false: a text frame, whether text or bytes
          releaseReply(reply); // send() copied it into the frame
        },
        close(code, reason) {
          // end() runs the close handler below at once
          if (data.open) ws.end(code, reason);
        },
        pause: () => false, // uWS 20.30 cannot stop reading a WebSocket; ws-session bounds the queue
        resume() {},
      };
      data.session = new WsSession(socket, t.ws);
      sockets.add(ws);
    },
    message(ws, message) {
      try {
        // Binary frames are read as UTF-8 JSON too (geth does); bad bytes end up a -32700.
        ws.getUserData().session!.receive(Buffer.from(message).toString('utf8'));
      } catch (e) {
        failed('ws message', e);
      }
    },
    close(ws) {
      const data = ws.getUserData();
      data.open = false;
      sockets.delete(ws);
      try {
        data.session?.closed();
      } catch (e) {
        failed('ws close', e);
      }
    },
  });

  // Bound with SO_REUSEPORT and SO_REUSEADDR (uSockets' option 0 on a port other than 0, which
  // server.ts never passes): a shared port (serving threads, A19) gives every thread listening on it
  // a share of the connections, and a listener closed over the cap can bind the port again while the
  // connections accepted on it still hold it (S21; without the options: EADDRINUSE). server.ts has
  // made sure beforehand that no one else holds the port, and a process that binds it without the
  // option (node:net, a second chain-node's port probe) is refused while we hold it.
  const first = await new Promise<us_listen_socket | false>((resolve) => app.listen(host, t.port, 0, resolve));
  if (first === false) {
    app.close();
    throw await listenError(host, t.port);
  }
  let listenSocket: us_listen_socket | undefined = first;
  const port = uws.us_socket_local_port(first);
  // Over the cap the listening socket is closed, so uSockets never meets EMFILE at accept (its accept
  // loop spins on it, S7) and new clients are refused by the kernel; it listens again once the count
  // is back under the cap.
  const pause = (): void => {
    if (listenSocket === undefined) return;
    uws.us_listen_socket_close(listenSocket);
    listenSocket = undefined;
  };
  let resuming = false;
  const resume = (): void => {
    if (listenSocket !== undefined || resuming || closing) return;
    resuming = true;
    app.listen(host, port, 0, (s: us_listen_socket | false) => {
      resuming = false;
      if (s === false) {
        log.warn(`rpc: cannot listen on ${host}:${port} again; trying again in a second`);
        setTimeout(resume, 1000).unref();
        return;
      }
      if (closing || gate?.over) uws.us_listen_socket_close(s);
      else listenSocket = s;
    });
  };
  gate = startConnectionGate(t.maxConnections, log, (over) => (over ? pause() : resume()));
  return serverHandle(host, port, 'uws', shutDown);

  function shutDown(): Promise<void> {
    closing = true;
    gate?.stop();
    pause();
    for (const ws of [...sockets]) ws.end(1001, 'server shutting down');
    return new Promise<void>((resolve) => {
      const finish = (): void => {
        if (drained === undefined) return;
        drained = undefined;
        clearTimeout(timer);
        // Cuts idle keep-alive connections (uWS has no "close when idle") and, after the grace
        // period, requests still running (their onAborted runs). Responses written so far carry
        // Connection: close and are already on their way.
        app.close();
        resolve();
      };
      drained = finish;
      const timer = setTimeout(finish, t.closeGraceMs);
      timer.unref();
      if (inFlight === 0) finish();
    });
  }
}

/** uWS reports a failed listen as `false` without a reason; node:net finds the errno (EADDRINUSE, EACCES, …). */
function listenError(host: string, port: number): Promise<Error> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', resolve);
    probe.listen(port, host, () => probe.close(() => resolve(new Error(`uWebSockets.js could not listen on ${host}:${port}`))));
  });
}
