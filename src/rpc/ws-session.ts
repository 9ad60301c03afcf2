// One WebSocket connection's JSON-RPC life, the same over both transports (`ws` in ws.ts,
// uWebSockets.js in uws-server.ts): every message is one JSON-RPC body, replies go back on the same
// connection, and handlers get a per-connection context to push notifications (subscriptions) and
// to clean up when the connection closes. The transport supplies a WsSocket and feeds messages in.
import type { ConnectionContext, Logger, RpcHandler, RpcReply } from './types.ts';
import { notification } from './response.ts';
import { CloseHooks } from './close-hooks.ts';

/** What a session needs of its socket. */
export interface WsSocket {
  /** The client's IP address (per-client quotas). */
  readonly remoteAddress: string;
  /** False once the connection is closing or closed. */
  isOpen(): boolean;
  /** Bytes queued for sending. */
  bufferedAmount(): number;
  /** Sends a text frame: the text, or its UTF-8 bytes as they are. */
  send(data: RpcReply): void;
  close(code: number, reason: string): void;
  /** Stops reading the socket (TCP then pushes back on the client); false when the transport cannot. */
  pause(): boolean;
  resume(): void;
}

export interface WsSessionOptions {
  readonly dispatcher: RpcHandler;
  readonly log: Logger;
  /** Above this many unsent bytes, notify() refuses and a reply closes the connection. */
  readonly maxBufferedBytes: number;
  /** Requests (or batches) of one connection running at once; beyond it messages wait. */
  readonly maxInFlight: number;
  /** Sessions open now, kept up to date here (metrics read it; a serving thread reports its own). */
  readonly open?: WsOpenCount;
}

export interface WsOpenCount {
  sessions: number;
}

/**
 * Messages that may wait per connection, in multiples of maxInFlight, when the transport cannot
 * stop reading (uWebSockets.js 20.30 has no pause for WebSockets): past this the client is
 * pipelining without bound and the connection is closed (1008) instead of queueing without end.
 */
const WAITING_PER_IN_FLIGHT = 16;

export class WsSession {
  readonly ctx: ConnectionContext;
  private inFlight = 0;
  private readonly hooks: CloseHooks;
  private readonly waiting: string[] = [];
  private waitingChars = 0;
  private paused = false;
  private readonly reply = (reply: RpcReply | undefined): void => this.replied(reply);
  private readonly failed = (e: unknown): void => {
    this.settled();
    this.o.log.error(`rpc: dispatcher failed: ${e instanceof Error ? e.stack : String(e)}`);
  };

  constructor(
    private readonly socket: WsSocket,
    private readonly o: WsSessionOptions,
  ) {
    const { log, maxBufferedBytes } = o;
    if (o.open) o.open.sessions++;
    const hooks = (this.hooks = new CloseHooks(log));
    this.ctx = {
      transport: 'ws',
      remoteAddress: socket.remoteAddress,
      notify(method: string, params: unknown): boolean {
        // A client that does not read must not grow our memory: the handler learns it and can
        // drop the subscription.
        if (!socket.isOpen() || socket.bufferedAmount() > maxBufferedBytes) return false;
        let text: string;
        try {
          text = notification(method, params);
        } catch (e) {
          log.error(`rpc: notification ${method} is not JSON-serializable: ${(e as Error).message}`);
          return false;
        }
        socket.send(text);
        return true;
      },
      onClose: (fn: () => void): void => hooks.add(fn),
    };
  }

  /** One message (text, or a binary frame decoded as UTF-8 like geth does). */
  receive(text: string): void {
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (this.inFlight < this.o.maxInFlight) return this.run(text);
    // HTTP limits work per connection by itself (one request at a time); a WebSocket client can
    // pipeline without end, so past maxInFlight we stop reading its socket (TCP pushes back) and
    // hold the messages already read until a running request finishes.
    this.waiting.push(text);
    this.waitingChars += text.length;
    if (!this.paused) this.paused = this.socket.pause();
    if (!this.paused && (this.waiting.length > this.o.maxInFlight * WAITING_PER_IN_FLIGHT || this.waitingChars > this.o.maxBufferedBytes)) {
      this.o.log.warn('rpc: ws client pipelines more requests than it waits for; closing the connection');
      this.socket.close(1008, 'too many requests in flight');
    }
  }

  /** The connection is gone: drop what waits and run the close hooks once. */
  closed(): void {
    if (this.o.open) this.o.open.sessions--;
    this.waiting.length = 0;
    this.waitingChars = 0;
    this.hooks.close();
  }

  private run(text: string): void {
    this.inFlight++;
    this.o.dispatcher.handle(text, this.ctx).then(this.reply, this.failed);
  }

  private settled(): void {
    this.inFlight--;
    const next = this.waiting.shift();
    if (next !== undefined) {
      this.waitingChars -= next.length;
      this.run(next);
    } else if (this.paused) {
      this.paused = false;
      if (this.socket.isOpen()) this.socket.resume();
    }
  }

  private replied(reply: RpcReply | undefined): void {
    this.settled();
    const socket = this.socket;
    if (reply === undefined || !socket.isOpen()) return;
    if (socket.bufferedAmount() > this.o.maxBufferedBytes) {
      this.o.log.warn('rpc: ws client is not reading its replies; closing the connection');
      socket.close(1008, 'send buffer over limit');
      return;
    }
    socket.send(reply);
  }
}
