// The RpcHandler of a serving thread (rpc-thread.ts): answers what its HeadAnswers hold, sends
// everything else to the main thread (server-threads.ts), and delivers the main thread's
// notifications to its WebSockets. The thread's transport, HTTP rules and WebSocket sessions are
// the main thread's own code (uws-server.ts, http-rules.ts, ws-session.ts) with this as dispatcher.
import type { HeadAnswers, Miss } from './head-answers.ts';
import { RawJson } from './response.ts';
import type { ToMain, ToThread } from './thread-protocol.ts';
import type { ConnectionContext, RpcHandler, RpcReply } from './types.ts';

interface Waiting {
  readonly resolve: (reply: RpcReply | undefined) => void;
  readonly miss: Miss | undefined;
}

interface Connection {
  readonly ctx: ConnectionContext;
  /** The last refusal state told to the main thread. */
  refusing: boolean;
}

export class RemoteHandler implements RpcHandler {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private nextConn = 1;
  private readonly connOf = new WeakMap<ConnectionContext, number>();
  private readonly connections = new Map<number, Connection>();
  private answeredHere = 0;
  private handedOver = 0;
  /** Set by the thread's entry once its server listens. */
  listening = false;

  constructor(
    private readonly post: (m: ToMain) => void,
    private readonly answers: HeadAnswers,
  ) {}

  handle(body: string, ctx: ConnectionContext): Promise<RpcReply | undefined> {
    const found = this.answers.lookup(body);
    if (typeof found === 'string') {
      this.answeredHere++;
      return Promise.resolve(found);
    }
    this.handedOver++;
    const conn = ctx.transport === 'ws' ? this.connection(ctx) : 0;
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, { resolve, miss: found });
      this.post({ t: 'req', id, body, conn });
    });
  }

  /** A message from the main thread ('stop' is the entry's). */
  receive(m: ToThread): void {
    if (m.t === 'stats') {
      this.post({ t: 'stats', stats: { listening: this.listening, answeredHere: this.answeredHere, handedOver: this.handedOver } });
    } else if (m.t === 'res') {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (w.miss) this.answers.store(w.miss, m.reply, m.generation);
      w.resolve(m.reply);
    } else if (m.t === 'notify') {
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
