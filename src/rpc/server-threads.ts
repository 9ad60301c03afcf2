// The main thread's side of the RPC serving threads (A19). With
// uWebSockets.js each serving thread runs its own server on the node's port (the kernel spreads
// connections over the sockets listening there, SO_REUSEPORT), so reads are parsed, answered from
// the thread's HeadAnswers and written on another core. Everything else a thread hands over here:
// the request is dispatched exactly as if it had arrived on the main thread, on a connection
// context that stands for the thread's WebSocket (notifications go back to the thread, which
// applies the socket's send-buffer cap).
import { startModuleWorker } from '../util/module-worker.ts';
import { INTERNAL_ERROR } from '../codec/jsonrpc-errors.ts';
import { NULL_ID, errorResponse, toJson } from './response.ts';
import type { ThreadData, ThreadStats, ToMain, ToThread } from './thread-protocol.ts';
import type { ConnectionContext, Logger, RpcHandler, RpcReply } from './types.ts';
import { releaseReply } from './reply-buffers.ts';
import { CloseHooks } from './close-hooks.ts';
import { httpContext } from './http-rules.ts';
import { Mailbox } from './thread-mailbox.ts';

/** How long a thread may take to stop after its grace period before it is terminated. */
const STOP_MARGIN_MS = 2_000;

export interface ServerThreads {
  /** Each thread's counts (for tests and diagnostics); a thread that has stopped counts as none. */
  stats(): Promise<ThreadStats[]>;
  /** Stops every thread's server (their in-flight requests are still answered) and the threads. */
  close(): Promise<void>;
}

interface ServingThread {
  stats(): Promise<ThreadStats>;
  close(): Promise<void>;
}

/** A thread's WebSocket as the main thread's handlers see it. */
class RemoteConnection {
  readonly hooks: CloseHooks;
  refusing = false;
  readonly ctx: ConnectionContext;

  constructor(send: (m: ToThread) => void, conn: number, remoteAddress: string, log: Logger) {
    const hooks = (this.hooks = new CloseHooks(log));
    this.ctx = {
      transport: 'ws',
      remoteAddress,
      // Closures, not methods: the dispatcher copies them into each call's context.
      notify: (method: string, params: unknown): boolean => {
        if (!hooks.open) return false;
        let text: string | undefined;
        try {
          text = toJson(params);
        } catch (e) {
          log.error(`rpc: notification ${method} is not JSON-serializable: ${(e as Error).message}`);
          return false;
        }
        send({ t: 'notify', conn, method, params: text ?? 'null' });
        // the thread applies the cap; what it last reported stands for this one (one message late)
        return !this.refusing;
      },
      onClose: (fn: () => void): void => hooks.add(fn),
    };
  }
}

export function startServerThreads(count: number, data: ThreadData, dispatcher: RpcHandler, log: Logger): ServerThreads {
  const threads = Array.from({ length: count }, (_, i) => serveThread(i, data, dispatcher, log));
  return {
    stats: () => Promise.all(threads.map((t) => t.stats())),
    async close() {
      await Promise.all(threads.map((t) => t.close()));
    },
  };
}

function serveThread(index: number, data: ThreadData, dispatcher: RpcHandler, log: Logger): ServingThread {
  const name = `rpc thread ${index + 1}`;
  const worker = startModuleWorker(new URL('./rpc-thread.ts', import.meta.url), data);
  const connections = new Map<number, RemoteConnection>();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopped = false;
  let gone = false;
  const statsWaiting: ((s: ThreadStats) => void)[] = [];
  const NONE: ThreadStats = { listening: false, answeredHere: 0, handedOver: 0, wsSessions: 0 };
  const mailbox = new Mailbox<ToThread>(worker);
  const send = (m: ToThread, transfer?: ArrayBuffer): void => {
    if (!stopped || m.t === 'res') mailbox.post(m, transfer);
  };
  const answer = (id: number, reply: RpcReply | undefined): void => {
    if (reply === undefined || typeof reply === 'string') return send({ t: 'res', id, reply });
    // a copy of exactly its bytes, moved to the thread (a pooled reply's memory is larger and reused)
    const bytes = new Uint8Array(reply);
    releaseReply(reply);
    send({ t: 'res', id, reply: bytes }, bytes.buffer as ArrayBuffer);
  };
  worker.on('message', (batch: ToMain[]) => {
    for (const m of batch) receive(m);
  });
  const receive = (m: ToMain): void => {
    switch (m.t) {
      case 'req': {
        let ctx: ConnectionContext;
        if (m.conn === 0) ctx = httpContext(() => m.addr);
        else {
          let c = connections.get(m.conn);
          if (c === undefined) connections.set(m.conn, (c = new RemoteConnection(send, m.conn, m.addr, log)));
          ctx = c.ctx;
        }
        dispatcher.handle(m.body, ctx).then(
          (reply) => answer(m.id, reply),
          (e: unknown) => {
            log.error(`rpc: dispatcher failed: ${e instanceof Error ? e.stack : String(e)}`);
            answer(m.id, errorResponse(NULL_ID, INTERNAL_ERROR, 'internal error'));
          },
        );
        return;
      }
      case 'closed':
        connections.get(m.conn)?.hooks.close();
        connections.delete(m.conn);
        return;
      case 'refusing': {
        const c = connections.get(m.conn);
        if (c) c.refusing = m.on;
        return;
      }
      case 'log':
        log[m.level](m.msg);
        return;
      case 'ready':
        log.debug(`rpc: ${name} serves on port ${data.port}`);
        return;
      case 'failed':
        log.warn(`rpc: ${name} does not serve: ${m.reason}`);
        return;
      case 'stats':
        statsWaiting.shift()?.(m.stats);
        return;
      case 'stopped':
        return;
    }
  };
  worker.on('error', (e) => log.error(`rpc: ${name} failed: ${e.stack ?? e.message}`));
  worker.once('exit', () => {
    gone = true;
    for (const resolve of statsWaiting.splice(0)) resolve(NONE);
    // its WebSockets are gone with it
    for (const c of connections.values()) c.hooks.close();
    connections.clear();
  });
  return {
    stats() {
      if (gone || stopped) return Promise.resolve(NONE);
      return new Promise((resolve) => {
        statsWaiting.push(resolve);
        send({ t: 'stats' });
      });
    },
    async close() {
      if (!stopped) {
        send({ t: 'stop' });
        stopped = true;
      }
      const timer = setTimeout(() => void worker.terminate(), data.closeGraceMs + STOP_MARGIN_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
