// WebSocket transport (the `ws` package): requests and batches are matched to their answers by
// id, and the node's notifications go to the registered listeners. The socket opens on creation;
// sends wait for it. No reconnect: when the socket closes, calls in flight fail with a
// TransportError and the transport stays closed (subscriptions live on one connection anyway).
import WebSocket from 'ws';
import { TransportError } from './errors.ts';
import { parseJson, stringifyJson } from './json.ts';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Transport } from './transport.ts';

export interface WsTransportOptions {
  /** Fail a call that gets no answer within this (default 30 s). */
  readonly timeoutMs?: number;
  /** Largest message accepted from the node (default 64 MiB). */
  readonly maxPayload?: number;
}

interface Pending {
  /** Request ids still unanswered (a batch has several; its answer is one array). */
  readonly ids: readonly number[];
  readonly resolve: (v: JsonRpcResponse | JsonRpcResponse[]) => void;
  readonly reject: (e: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export function wsTransport(url: string, options: WsTransportOptions = {}): Transport {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: options.maxPayload ?? 64 * 1024 * 1024 });
  const pending = new Map<number, Pending>(); // every id of a call → the call
  const listeners = new Set<(n: JsonRpcNotification) => void>();
  let closedBy: Error | undefined;

  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('close', () => reject(closedBy));
  });
  opened.catch(() => {}); // a failed connect is reported to each send, not as an unhandled rejection

  const settle = (call: Pending): void => {
    clearTimeout(call.timer);
    for (const id of call.ids) pending.delete(id);
  };

  ws.on('message', (data) => {
    let msg: unknown;
    try {
      msg = parseJson(data.toString());
    } catch {
      return; // not JSON: nothing we could route
    }
    if (Array.isArray(msg)) {
      const first = msg.find((r: JsonRpcResponse) => typeof r?.id === 'number' && pending.has(r.id)) as JsonRpcResponse | undefined;
      const call = first && pending.get(first.id as number);
      if (call) {
        settle(call);
        call.resolve(msg as JsonRpcResponse[]);
      }
      return;
    }
    const m = msg as JsonRpcResponse & Partial<JsonRpcNotification>;
    if (m?.id === undefined && typeof m?.method === 'string') {
      for (const fn of listeners) fn(m as JsonRpcNotification);
      return;
    }
    const call = typeof m?.id === 'number' ? pending.get(m.id) : undefined;
    if (call) {
      settle(call);
      call.resolve(m);
    } else if (m?.id === null && m.error && pending.size > 0) {
      // The node answers an unreadable message with id null; it can only be the oldest call's.
      const oldest = pending.values().next().value!;
      settle(oldest);
      oldest.resolve(m);
    }
  });
  ws.on('error', (e) => {
    closedBy ??= new TransportError(`WebSocket ${url}: ${e.message}`, { cause: e });
  });
  ws.on('close', (code, reason) => {
    closedBy ??= new TransportError(`WebSocket ${url} closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`);
    for (const call of new Set(pending.values())) {
      settle(call);
      call.reject(closedBy);
    }
  });

  async function send(message: JsonRpcRequest | readonly JsonRpcRequest[]): Promise<any> {
    await opened.catch(() => {
      throw closedBy ?? new TransportError(`WebSocket ${url} is closed`);
    });
    if (ws.readyState !== WebSocket.OPEN) throw closedBy ?? new TransportError(`WebSocket ${url} is closed`);
    const ids = Array.isArray(message) ? message.map((r) => r.id) : [(message as JsonRpcRequest).id];
    return new Promise<JsonRpcResponse | JsonRpcResponse[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        settle(call);
        reject(new TransportError(`WebSocket ${url}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const call: Pending = { ids, resolve, reject, timer };
      for (const id of ids) pending.set(id, call);
      ws.send(stringifyJson(message), (e) => {
        if (!e) return;
        settle(call);
        reject(new TransportError(`WebSocket ${url}: send failed: ${e.message}`, { cause: e }));
      });
    });
  }

  return {
    send,
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
      return new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        closedBy ??= new TransportError(`WebSocket ${url} closed by the client`);
        ws.close(1000);
      });
    },
  };
}
