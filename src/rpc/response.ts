// Response text, built by concatenation: the envelope is fixed, so only the id, the result and the
// error parts go through JSON.stringify (no envelope object per response).

/** The id as it goes on the wire; `null` when the request had none we could trust. */
export type IdJson = string;
export const NULL_ID: IdJson = 'null';

/** `JSON.stringify` of an id already checked to be a string, a number or null. */
export function idJson(id: string | number | null): IdJson {
  // An id like 1e400 parses to Infinity, which JSON writes as null: the client gets null back.
  return JSON.stringify(id);
}

/**
 * A success response. Throws (TypeError) when the result cannot be written as JSON — a bigint
 * or a cycle in a handler's result is a bug the caller turns into an internal error.
 */
export function resultResponse(id: IdJson, result: unknown): string {
  const json = JSON.stringify(result);
  // undefined (and functions/symbols) have no JSON form: the method returned nothing → null.
  return '{"jsonrpc":"2.0","id":' + id + ',"result":' + (json === undefined ? 'null' : json) + '}';
}

/** An error response; `data` is dropped (not thrown on) when it has no JSON form. */
export function errorResponse(id: IdJson, code: number, message: string, data?: unknown): string {
  let tail = '}}';
  if (data !== undefined) {
    try {
      const json = JSON.stringify(data);
      if (json !== undefined) tail = ',"data":' + json + '}}';
    } catch {
      // a bigint in error data: send the error without it rather than no error at all
    }
  }
  return '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":' + code + ',"message":' + JSON.stringify(message) + tail;
}

/** A JSON-RPC notification (server → client push over WebSocket). Throws like resultResponse. */
export function notification(method: string, params: unknown): string {
  const json = JSON.stringify(params);
  return '{"jsonrpc":"2.0","method":' + JSON.stringify(method) + ',"params":' + (json === undefined ? 'null' : json) + '}';
}
