// The two ways a call fails on the client: the node answered with a JSON-RPC error (RpcError,
// carrying the node's code, message and data), or no answer came back (TransportError).
export { EXECUTION_REVERTED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, SERVER_ERROR } from '../codec/jsonrpc-errors.ts';

/** A JSON-RPC error object as it travels on the wire. */
export interface ErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * The node refused a call: `code` is the JSON-RPC / EIP-1474 code (-32602 invalid params, -32000
 * server error, 3 execution reverted, …), `data` what the node attached (for code 3 the revert
 * bytes as hex). Client-side param validation throws the same error the node would (-32602).
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** Wire name of the method that failed. */
  readonly method: string;

  constructor(method: string, error: ErrorObject) {
    super(`${method}: ${error.message}`);
    this.name = 'RpcError';
    this.code = error.code;
    this.data = error.data;
    this.method = method;
  }
}

/** No JSON-RPC answer: connection refused or closed, HTTP status without a JSON body, timeout. */
export class TransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
  }
}
