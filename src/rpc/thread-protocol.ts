// The messages between the main thread and an RPC serving thread (server-threads.ts on the main
// side, rpc-thread.ts and remote-handler.ts on the thread's side). A request that the thread cannot
// answer itself goes to the main thread as its JSON text with the connection it came on; the main
// thread dispatches it as if it had arrived there and sends the reply back.
import type { RpcReply } from './types.ts';

/** What a serving thread is started with (its workerData). */
export interface ThreadData {
  readonly host: string;
  readonly port: number;
  readonly corsDomains: readonly string[];
  readonly vhosts: readonly string[];
  readonly maxBodyBytes: number;
  readonly wsMaxBufferedBytes: number;
  readonly wsMaxInFlight: number;
  /** The body's time limit (HttpTimeouts.requestMs). */
  readonly requestMs: number;
  /** The connection cap; each thread applies it to the process's count (uws-listen-gate.ts). */
  readonly maxConnections: number;
  readonly closeGraceMs: number;
  /** GET pages: a file read on first request, or a body. */
  readonly staticRoutes: readonly (readonly [string, { readonly contentType: string; readonly file?: string; readonly body?: string | Uint8Array }])[];
  /** The shared head generation cell (head-generation.ts). */
  readonly generation: Int32Array;
  /** Methods whose answers may be kept per head (generated/head-cached.ts). */
  readonly headCached: readonly string[];
}

/**
 * Serving thread → main thread. `conn` 0 is HTTP; any other number is one WebSocket of that thread.
 * `addr` is the client's IP address (per-client quotas are kept on the main thread).
 */
export type ToMain =
  | { readonly t: 'ready' }
  | { readonly t: 'failed'; readonly reason: string }
  | { readonly t: 'req'; readonly id: number; readonly body: string; readonly conn: number; readonly addr: string }
  /** The WebSocket closed: its subscriptions end. */
  | { readonly t: 'closed'; readonly conn: number }
  /** The WebSocket's send buffer went over its cap (true) or back under it (false): notifications are refused meanwhile. */
  | { readonly t: 'refusing'; readonly conn: number; readonly on: boolean }
  | { readonly t: 'log'; readonly level: 'error' | 'warn' | 'info' | 'debug'; readonly msg: string }
  | { readonly t: 'stats'; readonly stats: ThreadStats }
  | { readonly t: 'stopped' };

/** What a serving thread has done so far (RpcServer.threadStats). */
export interface ThreadStats {
  /** Its server is listening on the port (a thread starts after the main thread already serves). */
  readonly listening: boolean;
  /** Requests answered from its HeadAnswers. */
  readonly answeredHere: number;
  /** The same by method. */
  readonly answeredByMethod: Readonly<Record<string, number>>;
  /** Requests handed to the main thread. */
  readonly handedOver: number;
  /** Its WebSocket sessions open now. */
  readonly wsSessions: number;
}

/** Main thread → serving thread. */
export type ToThread =
  /** The reply to a 'req'. */
  | { readonly t: 'res'; readonly id: number; readonly reply: RpcReply | undefined }
  /** A notification for a WebSocket: `params` is its JSON text. */
  | { readonly t: 'notify'; readonly conn: number; readonly method: string; readonly params: string }
  | { readonly t: 'stats' }
  | { readonly t: 'stop' };
