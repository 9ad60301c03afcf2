// WebSocket side of the transport: every text (or binary, like geth) message is one JSON-RPC body;
// replies go back on the same connection, and handlers get a per-connection context to push
// notifications (subscriptions) and to clean up when the connection closes.
import { WebSocket, type RawData } from 'ws';
import type { ConnectionContext, Logger, RpcHandler } from './types.ts';
import { notification } from './response.ts';

export interface WsConnectionOptions {
  readonly dispatcher: RpcHandler;
  readonly log: Logger;
  /** Above this many unsent bytes, notify() refuses and a reply closes the connection. */
  readonly maxBufferedBytes: number;
  /** Requests (or batches) of one connection running at once; beyond it we stop reading. */
  readonly maxInFlight: number;
}

/** Serves one accepted WebSocket until it closes. */
export function serveWebSocket(ws: WebSocket, o: WsConnectionOptions): void {
  const { dispatcher, log, maxBufferedBytes, maxInFlight } = o;
  let inFlight = 0;
  let hooks: (() => void)[] | undefined = [];

  const runHook = (fn: () => void): void => {
    try {
      fn();
    } catch (e) {
      log.error(`rpc: ws close hook failed: ${e instanceof Error ? e.stack : String(e)}`);
    }
  };

  const ctx: ConnectionContext = {
    transport: 'ws',
    notify(method: string, params: unknown): boolean {
      // A client that does not read must not grow our memory: the handler learns it and can
      // drop the subscription.
      if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > maxBufferedBytes) return false;
      let text: string;
      try {
        text = notification(method, params);
      } catch (e) {
        log.error(`rpc: notification ${method} is not JSON-serializable: ${(e as Error).message}`);
        return false;
      }
      ws.send(text);
      return true;
    },
    onClose(fn: () => void): void {
      // Registered after the close (a subscribe racing a disconnect): clean up at once.
      if (hooks === undefined) runHook(fn);
      else hooks.push(fn);
    },
  };

  // HTTP limits work per connection by itself (one request at a time); a WebSocket client can
  // pipeline without end, so past maxInFlight we stop reading its socket (TCP pushes back) and
  // hold the messages already read until a running request finishes.
  const waiting: string[] = [];
  const settled = (): void => {
    inFlight--;
    const next = waiting.shift();
    if (next !== undefined) run(next);
    else if (ws.isPaused && ws.readyState === WebSocket.OPEN) ws.resume();
  };
  const reply = (text: string | undefined): void => {
    settled();
    if (text === undefined || ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > maxBufferedBytes) {
      log.warn('rpc: ws client is not reading its replies; closing the connection');
      ws.close(1008, 'send buffer over limit');
      return;
    }
    ws.send(text);
  };
  const failed = (e: unknown): void => {
    settled();
    log.error(`rpc: dispatcher failed: ${e instanceof Error ? e.stack : String(e)}`);
  };

  function run(text: string): void {
    inFlight++;
    dispatcher.handle(text, ctx).then(reply, failed);
  }

  ws.on('message', (data: RawData) => {
    // Binary frames are read as UTF-8 JSON too (geth does); bad bytes end up a -32700.
    let text = rawText(data);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (inFlight < maxInFlight) return run(text);
    waiting.push(text);
    if (!ws.isPaused) ws.pause();
  });
  // Oversize frames (1009), invalid UTF-8 in text frames (1007), resets: ws closes the socket
  // itself after emitting this; without a listener the error would be uncaught.
  ws.on('error', (e: Error) => log.debug(`rpc: ws: ${e.message}`));
  ws.on('close', () => {
    waiting.length = 0;
    const list = hooks;
    hooks = undefined;
    if (list) for (const fn of list) runHook(fn);
  });
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
