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

export interface Transport {
  /** A single response for one request, an array of responses for a batch. */
  send(message: JsonRpcRequest): Promise<JsonRpcResponse>;
  send(message: readonly JsonRpcRequest[]): Promise<JsonRpcResponse | JsonRpcResponse[]>;
  /** Present on transports that carry notifications (WebSocket); returns an unsubscribe function. */
  onNotification?(listener: (n: JsonRpcNotification) => void): () => void;
  close(): Promise<void>;
}
