// JSON-RPC 2.0 / EIP-1474 error codes (D7) and the one error class handlers throw.
// Anything else a handler throws is a bug: the dispatcher logs it and answers -32603 "internal
// error" without the message or stack (they can carry paths, keys or state we must not leak).

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const SERVER_ERROR = -32000;
/** geth's code (and message) for an answer, or a batch's answers so far, over --rpc.batch-response-max-size. */
export const RESPONSE_TOO_LARGE = -32003;
export const RESPONSE_TOO_LARGE_MESSAGE = 'response too large';
/** geth / EIP-1474 code for a reverted call; `data` carries the revert bytes as hex. */
export const EXECUTION_REVERTED = 3;

/** An error meant for the client: `code`, `message` and optional `data` are sent as they are. */
export class RpcError extends Error {
  readonly code: number;
  readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
}

export function parseError(detail?: string): RpcError {
  return new RpcError(PARSE_ERROR, detail ? `parse error: ${detail}` : 'parse error');
}

export function invalidRequest(detail?: string): RpcError {
  return new RpcError(INVALID_REQUEST, detail ? `invalid request: ${detail}` : 'invalid request');
}

/** geth's wording, which client libraries and users recognise. */
export function methodNotFound(method: string): RpcError {
  return new RpcError(METHOD_NOT_FOUND, methodNotFoundMessage(method));
}

export function methodNotFoundMessage(method: string): string {
  return `the method ${method} does not exist/is not available`;
}

export function invalidParams(message: string): RpcError {
  return new RpcError(INVALID_PARAMS, message);
}

export function internalError(detail?: string): RpcError {
  return new RpcError(INTERNAL_ERROR, detail ? `internal error: ${detail}` : 'internal error');
}

export function serverError(message: string, data?: unknown): RpcError {
  return new RpcError(SERVER_ERROR, message, data);
}

/** Code 3 with the revert bytes (0x-hex) as `data`; `reason` is the decoded Error(string), if any. */
export function executionReverted(revertDataHex: string, reason?: string): RpcError {
  return new RpcError(EXECUTION_REVERTED, reason ? `execution reverted: ${reason}` : 'execution reverted', revertDataHex);
}
