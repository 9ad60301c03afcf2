// The shapes src/rpc works against. They are structural on purpose: generated/methods.ts and
// generated/handlers.ts satisfy them, but nothing here imports generated/, so the dispatcher and
// the transport can be built and tested on their own (with a small method table of their own).
import type { Validate } from '../codec/validation-message.ts';

export type { Validate };

/** One JSON-RPC method of the table (generated/methods.ts `MethodSpec` is assignable to this). */
export interface MethodSpec {
  /** Wire name, e.g. `chain_getBalance`. */
  readonly name: string;
  /** Handler group serving it (`chain_` methods are served by `eth`). */
  readonly group: string;
  /** Function name inside the group (the method suffix). */
  readonly key: string;
  /** Param names, in position order. */
  readonly params: readonly string[];
  /** Number of leading required params. */
  readonly required: number;
  readonly validateParams: readonly Validate[];
  readonly validateResult: Validate;
}

export type MethodTable = ReadonlyMap<string, MethodSpec>;

/** What a transport knows about the connection a request arrived on. */
export interface ConnectionContext {
  readonly transport: 'http' | 'ws';
  /** The client's IP address as the socket gives it (per-client quotas: loopback clients are one address). */
  readonly remoteAddress?: string;
  /**
   * Push a notification on this connection (ws only); false if it is gone or over its buffer.
   * `params` is a value, or RawJson text (response.ts) written verbatim.
   */
  notify?(method: string, params: unknown): boolean;
  /** Register cleanup for when the connection closes (ws only). */
  onClose?(fn: () => void): void;
}

/** What a handler receives as its last argument (generated/handlers.ts `CallContext`). */
export interface CallContext extends ConnectionContext {
  readonly method: string;
}

/**
 * A response as the transport writes it: JSON text, or that text's UTF-8 bytes. Bytes are for large
 * answers assembled from pieces encoded once (log lists, F7): they reach the
 * socket without a large string to flatten and encode per answer. Both go out as they are — an HTTP
 * body, or a WebSocket *text* frame.
 */
export type RpcReply = string | Uint8Array;

/** What the transport needs from the layer above it: JSON-RPC text in, a response out. */
export interface RpcHandler {
  /** The response, or undefined when nothing is to be sent (notifications only). Never rejects. */
  handle(body: string, conn: ConnectionContext): Promise<RpcReply | undefined>;
  /**
   * handle(), with an answer that is ready at once (a kept one, A19) given as it is rather than in a
   * promise, so an HTTP transport can write it inside the callback that read the request.
   */
  handleNow?(body: string, conn: ConnectionContext): string | Promise<RpcReply | undefined>;
}

/**
 * Told of every request the dispatcher answers (metrics, src/node/metrics.ts). Absent, the
 * dispatcher makes no call and reads no clock for it.
 */
export interface RequestObserver {
  /** `method`: a served method's name, or '' for a request naming none; `code`: 0 for a result, else the JSON-RPC error code. */
  request(method: string, code: number, seconds: number): void;
  /** A batch of `size` request objects arrived. */
  batch(size: number): void;
}

/** The node's logger (src/util/logger.ts) or anything shaped like it. */
export interface Logger {
  error(msg: string): void;
  warn(msg: string): void;
  info(msg: string): void;
  debug(msg: string): void;
}

/** A logger that drops everything (the default when none is given). */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
