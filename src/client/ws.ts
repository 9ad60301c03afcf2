// WebSocket transport: requests and batches are matched to their answers by id, and the node's
// notifications go to the registered listeners. It uses the platform's WebSocket (browsers, Node
// ≥ 22) and the `ws` package where there is none (Node 20), loaded only then: a browser bundle
// never needs it. The socket opens on creation; sends wait for it.
//
// A connection lost after it was open is reopened with exponential backoff (unless `reconnect:
// false`): calls in flight fail with a TransportError (the node may or may not have run them),
// calls made meanwhile wait for the new socket (within their timeout), and the listeners of
// onConnection hear 'disconnect' and then 'reconnect' — the client re-subscribes on it, since
// subscriptions die with their connection. A first connection that fails is not retried: a wrong
// URL should say so at once.
import { TransportError } from './errors.ts';
import { parseJson, stringifyJson } from './json.ts';
import type { CallOptions, ConnectionEvent, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Transport } from './transport.ts';

export interface ReconnectOptions {
  /** Wait before the first attempt (default 100 ms); it doubles per failed attempt… */
  readonly initialDelayMs?: number;
  /** …up to this (default 5 s). */
  readonly maxDelayMs?: number;
  /** Attempts before giving up: every waiting call then fails (default: until close()). */
  readonly attempts?: number;
}

export interface WsTransportOptions {
  /** Fail a call that gets no answer within this (default 30 s), waiting for a reconnect included. */
  readonly timeoutMs?: number;
  /** Largest message accepted from the node (default 64 MiB). Applies with the `ws` package only. */
  readonly maxPayload?: number;
  /** Reopen a lost connection (default: on, 100 ms doubling up to 5 s, until close()); false: stay closed. */
  readonly reconnect?: ReconnectOptions | false;
}

/** What both the platform's WebSocket and the `ws` package's offer. */
interface Socket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number): void;
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (event: any) => void): void;
}
type SocketClass = new (url: string, options?: object) => Socket;

const OPEN = 1;

/** The platform's WebSocket, else the `ws` package (Node 20), imported once and only then. */
let socketClass: Promise<{ Class: SocketClass; isWsPackage: boolean }> | undefined;
function loadSocketClass(): Promise<{ Class: SocketClass; isWsPackage: boolean }> {
  const platform = (globalThis as { WebSocket?: SocketClass }).WebSocket;
  socketClass ??= platform
    ? Promise.resolve({ Class: platform, isWsPackage: false })
    : import('ws').then(
        (m) => ({ Class: ((m as { default?: unknown }).default ?? m.WebSocket) as SocketClass, isWsPackage: true }),
        (e) => {
          socketClass = undefined;
          throw new TransportError('this runtime has no WebSocket: install the `ws` package (npm install ws)', { cause: e });
        },
      );
  return socketClass;
}

interface Pending {
  /** Request ids still unanswered (a batch has several; its answer is one array). */
  readonly ids: readonly number[];
  readonly resolve: (v: JsonRpcResponse | JsonRpcResponse[]) => void;
  readonly fail: (e: unknown) => void;
}

export function wsTransport(url: string, options: WsTransportOptions = {}): Transport {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const backoff = options.reconnect === false ? undefined : { initialDelayMs: 100, maxDelayMs: 5_000, attempts: Infinity, ...options.reconnect };
  const pending = new Map<number, Pending>(); // every id of a call sent on the current socket → the call
  const listeners = new Set<(n: JsonRpcNotification) => void>();
  const connectionListeners = new Set<(e: ConnectionEvent) => void>();
  let closedByClient = false;
  let wakeRetry: (() => void) | undefined;

  const emit = (e: ConnectionEvent) => {
    for (const fn of connectionListeners) fn(e);
  };

  /** One attempt: resolves with the open socket, rejects when it closes or fails first. */
  async function connectOnce(): Promise<Socket> {
    const { Class, isWsPackage } = await loadSocketClass();
    const socket = isWsPackage ? new Class(url, { perMessageDeflate: false, maxPayload: options.maxPayload ?? 64 * 1024 * 1024 }) : new Class(url);
    return new Promise<Socket>((resolve, reject) => {
      let opened = false;
      let error: string | undefined;
      socket.addEventListener('open', () => {
        opened = true;
        resolve(socket);
      });
      socket.addEventListener('error', (e: { message?: string }) => {
        error ??= e.message || 'connection error';
      });
      socket.addEventListener('message', (e: { data: unknown }) => {
        if (typeof e.data === 'string') onMessage(e.data);
      });
      socket.addEventListener('close', (e: { code: number; reason: string }) => {
        const why = new TransportError(
          closedByClient ? `WebSocket ${url} closed by the client` : error ? `WebSocket ${url}: ${error}` : `WebSocket ${url} closed (${e.code}${e.reason ? ` ${e.reason}` : ''})`,
        );
        if (opened) onLost(why);
        else reject(why);
      });
    });
  }

  /** Opens a socket; after a loss, retries with backoff until it opens, attempts run out or close(). */
  async function open(reconnecting: boolean): Promise<Socket> {
    for (let attempt = 1; ; attempt++) {
      try {
        const socket = await connectOnce();
        if (closedByClient) {
          socket.close(1000);
          throw new TransportError(`WebSocket ${url} closed by the client`);
        }
        if (reconnecting) emit({ type: 'reconnect', attempts: attempt });
        return socket;
      } catch (e) {
        if (!reconnecting || !backoff || closedByClient || attempt >= backoff.attempts) throw e;
        const delay = Math.min(backoff.initialDelayMs * 2 ** (attempt - 1), backoff.maxDelayMs);
        await new Promise<void>((wake) => {
          const timer = setTimeout(wake, delay);
          wakeRetry = () => {
            clearTimeout(timer);
            wake();
          };
        });
        wakeRetry = undefined;
        if (closedByClient) throw new TransportError(`WebSocket ${url} closed by the client`);
      }
    }
  }

  let connection = open(false);
  connection.catch(() => {}); // a failed connect is reported to each send, not as an unhandled rejection

  function onLost(why: TransportError): void {
    for (const call of new Set(pending.values())) call.fail(why);
    if (closedByClient) return;
    emit({ type: 'disconnect', error: why });
    connection = backoff ? open(true) : Promise.reject(why);
    connection.catch(() => {});
  }

  function onMessage(text: string): void {
    let msg: unknown;
    try {
      msg = parseJson(text);
    } catch {
      return; // not JSON: nothing we could route
    }
    if (Array.isArray(msg)) {
      const first = msg.find((r: JsonRpcResponse) => typeof r?.id === 'number' && pending.has(r.id)) as JsonRpcResponse | undefined;
      if (first) pending.get(first.id as number)!.resolve(msg as JsonRpcResponse[]);
      return;
    }
    const m = msg as JsonRpcResponse & Partial<JsonRpcNotification>;
    if (m?.id === undefined && typeof m?.method === 'string') {
      for (const fn of listeners) fn(m as JsonRpcNotification);
      return;
    }
    const call = typeof m?.id === 'number' ? pending.get(m.id) : undefined;
    if (call) call.resolve(m);
    // The node answers an unreadable message with id null; it can only be the oldest call's.
    else if (m?.id === null && m.error && pending.size > 0) pending.values().next().value!.resolve(m);
  }

  function send(message: JsonRpcRequest | readonly JsonRpcRequest[], o: CallOptions = {}): Promise<any> {
    const ids = Array.isArray(message) ? message.map((r) => r.id) : [(message as JsonRpcRequest).id];
    const ms = o.timeoutMs ?? timeoutMs;
    return new Promise<JsonRpcResponse | JsonRpcResponse[]>((resolve, reject) => {
      let done = false;
      const finish = () => {
        done = true;
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        for (const id of ids) pending.delete(id);
      };
      const call: Pending = {
        ids,
        resolve: (v) => {
          finish();
          resolve(v);
        },
        fail: (e) => {
          finish();
          reject(e);
        },
      };
      const onAbort = () => call.fail(o.signal!.reason);
      const timer = setTimeout(() => call.fail(new TransportError(`WebSocket ${url}: no answer within ${ms} ms`)), ms);
      if (o.signal?.aborted) return onAbort();
      o.signal?.addEventListener('abort', onAbort, { once: true });
      connection.then(
        (socket) => {
          if (done) return;
          if (socket.readyState !== OPEN) return call.fail(new TransportError(`WebSocket ${url} is closed`));
          for (const id of ids) pending.set(id, call);
          socket.send(stringifyJson(message));
        },
        (e) => call.fail(e),
      );
    });
  }

  return {
    send,
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      return () => connectionListeners.delete(listener);
    },
    async close() {
      closedByClient = true;
      wakeRetry?.();
      const socket = await connection.catch(() => undefined);
      if (!socket || socket.readyState > OPEN) return;
      await new Promise<void>((resolve) => {
        socket.addEventListener('close', () => resolve());
        socket.close(1000);
      });
    },
  };
}
