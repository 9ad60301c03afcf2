// The RpcHandler behind a serving thread's HeadCachedHandler (rpc-thread.ts): sends each request to
// the main thread (server-threads.ts), resolves it with the reply, and delivers the main thread's
// notifications to the thread's WebSockets. The thread's transport, HTTP rules and WebSocket
// sessions are the main thread's own code (uws-server.ts, http-rules.ts, ws-session.ts).
import { RawJson } from './response.ts';
import type { ToMain, ToThread } from './thread-protocol.ts';
import type { ConnectionContext, RpcHandler, RpcReply } from './types.ts';

interface Connection {
  readonly ctx: ConnectionContext;
  /** The last refusal state told to the main thread. */
  refusing: boolean;
}

export class RemoteHandler implements RpcHandler {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: RpcReply | undefined) => void>();
  private nextConn = 1;
  private readonly connOf = new WeakMap<ConnectionContext, number>();
  private readonly connections = new Map<number, Connection>();
  /** Requests sent to the main thread (RpcServer.threadStats). */
  handedOver = 0;

  constructor(private readonly post: (m: ToMain) => void) {}

  handle(body: string, ctx: ConnectionContext): Promise<RpcReply | undefined> {
    this.handedOver++;
    const conn = ctx.transport === 'ws' ? this.connection(ctx) : 0;
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.post({ t: 'req', id, body, conn, addr: ctx.remoteAddress ?? '' });
    });
  }

  /** A reply or a notification from the main thread (the entry handles 'stats' and 'stop'). */
  receive(m: Extract<ToThread, { t: 'res' | 'notify' }>): void {
    if (m.t === 'res') {
      const resolve = this.waiting.get(m.id);
      if (resolve === undefined) return;
      this.waiting.delete(m.id);
      resolve(m.reply);
    } else {
      const c = this.connections.get(m.conn);
      if (c === undefined) return; // closed meanwhile: the main thread hears of it
      const sent = c.ctx.notify!(m.method, new RawJson(m.params));
      if (sent === c.refusing) {
        c.refusing = !sent;
        this.post({ t: 'refusing', conn: m.conn, on: !sent });
      }
    }
  }

  /** The number the main thread knows this WebSocket by; its close is reported once. */
  private connection(ctx: ConnectionContext): number {
    let conn = this.connOf.get(ctx);
    if (conn !== undefined) return conn;
    conn = this.nextConn++;
    const n = conn;
    this.connOf.set(ctx, n);
    this.connections.set(n, { ctx, refusing: false });
    ctx.onClose!(() => {
      this.connections.delete(n);
      this.post({ t: 'closed', conn: n });
    });
    return n;
  }
}
