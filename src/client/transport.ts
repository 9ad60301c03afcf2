// What the client needs from a connection: send one JSON-RPC request or a batch and get the
// parsed answer; WebSocket transports also deliver the notifications the node pushes.
export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: number;
  readonly method: string;
  readonly params: readonly unknown[];
}

export interface JsonRpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: number | string | null;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/** A message the node pushes without an id (`eth_subscription`). */
export interface JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params: unknown;
}

/** Per-call options: every typed call takes them through `client.with(options)`. */
export interface CallOptions {
  /** Abandons the call when aborted: it rejects with the signal's reason (an AbortError by default). */
  readonly signal?: AbortSignal;
  /** Fails the call with a TransportError when no answer came within this (default: the transport's). */
  readonly timeoutMs?: number;
}

/** What happened to a WebSocket connection: lost (calls in flight failed), or open again after a loss. */
export type ConnectionEvent = { readonly type: 'disconnect'; readonly error: Error } | { readonly type: 'reconnect'; readonly attempts: number };

export interface Transport {
  /** A single response for one request, an array of responses for a batch. */
  send(message: JsonRpcRequest, options?: CallOptions): Promise<JsonRpcResponse>;
  send(message: readonly JsonRpcRequest[], options?: CallOptions): Promise<JsonRpcResponse | JsonRpcResponse[]>;
  /** Present on transports that carry notifications (WebSocket); returns an unsubscribe function. */
  onNotification?(listener: (n: JsonRpcNotification) => void): () => void;
  /** Present on transports that keep a connection (WebSocket); returns an unsubscribe function. */
  onConnection?(listener: (e: ConnectionEvent) => void): () => void;
  close(): Promise<void>;
}
