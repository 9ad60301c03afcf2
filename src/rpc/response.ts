// Response text, built by concatenation: the envelope is fixed, so only the id, the result and the
// error parts go through JSON.stringify (no envelope object per response).

import { randomBytes } from 'node:crypto';
import type { RpcReply } from './types.ts';
import { releaseReply, replyBuffer } from './reply-buffers.ts';

// D6: some results carry exact integers beyond 2^53 (getAccountBaseInfo's Balance), which
// handlers return as bigint and the wire carries as plain JSON digits. JSON.stringify throws on a
// bigint, so the common case costs nothing extra: only a result that holds a bigint takes the
// second pass, where each bigint becomes a marked string that is then unquoted. The marker holds
// a per-process random part, so no string a client or contract supplies can forge it.
const BIGINT_MARK = `~bigint:${randomBytes(8).toString('hex')}:`;
const BIGINT_MARKED = new RegExp(`"${BIGINT_MARK}(-?\\d+)"`, 'g');

function markBigint(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? BIGINT_MARK + value.toString() : value;
}

/**
 * A value already written as JSON text, spliced into a response verbatim: results served from text
 * made once for immutable data (F7: logs of sealed blocks), so a repeated query
 * does not stringify the same objects again. The text must be valid JSON; with --rpc.checkresults
 * the dispatcher parses it and validates what it is about to send.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * A JSON array given as its elements' UTF-8 bytes, each encoded once (log lists, F7). Its response
 * is assembled as bytes around them (resultResponse), so no string of the whole answer is made,
 * flattened and encoded per answer. Each element must be valid JSON; checked like RawJson.
 */
export class RawJsonArray {
  constructor(readonly elements: readonly Uint8Array[]) {}
}

/**
 * A handler's result as RawJson, typed as the value it stands for: the generated handler types only
 * know values, and the dispatcher (the one consumer of handler results) writes either form.
 */
export function rawResult<T>(text: string): T {
  return new RawJson(text) as unknown as T;
}

/** A handler's result as RawJsonArray, typed as the array it stands for (see rawResult). */
export function rawArrayResult<T>(elements: readonly Uint8Array[]): T {
  return new RawJsonArray(elements) as unknown as T;
}

/** The JSON text a RawJson or RawJsonArray stands for; undefined for any other value. */
export function rawJsonText(value: unknown): string | undefined {
  if (value instanceof RawJson) return value.text;
  if (value instanceof RawJsonArray) {
    const bytes = jsonArrayBytes('[', value.elements, ']');
    const text = bytes.toString('utf8');
    releaseReply(bytes);
    return text;
  }
  return undefined;
}

/**
 * JSON text of a handler's value (RawJson, RawJsonArray: the text they stand for), bigints as
 * integer digits; undefined when the value has no JSON form. Throws (TypeError) on what JSON cannot
 * write at all, e.g. a cycle.
 */
export function toJson(value: unknown): string | undefined {
  const raw = rawJsonText(value);
  if (raw !== undefined) return raw;
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError) || !e.message.includes('BigInt')) throw e;
    return JSON.stringify(value, markBigint)?.replace(BIGINT_MARKED, '$1');
  }
}

/** The id as it goes on the wire; `null` when the request had none we could trust. */
export type IdJson = string;
export const NULL_ID: IdJson = 'null';

/** `JSON.stringify` of an id already checked to be a string, a number or null. */
export function idJson(id: string | number | null): IdJson {
  // Numbers parsed from a body are echoed as written (id-text.ts); this writes ids by value.
  return JSON.stringify(id);
}

/**
 * A success response: bytes for a RawJsonArray result, text otherwise; undefined for a RawJsonArray
 * whose response would be over `maxBytes` (counted from its parts, so it is never assembled). Throws
 * (TypeError, RangeError) when the result cannot be written as JSON — a cycle or absurd nesting in a
 * handler's result is a bug the caller turns into an internal error.
 */
export function resultResponse(id: IdJson, result: unknown, maxBytes: number): RpcReply | undefined {
  if (result instanceof RawJsonArray) {
    const head = '{"jsonrpc":"2.0","id":' + id + ',"result":[';
    const size = jsonArraySize(head, result.elements, ']}');
    return size > maxBytes ? undefined : jsonArrayBytes(head, result.elements, ']}', size);
  }
  const json = toJson(result);
  // undefined (and functions/symbols) have no JSON form: the method returned nothing → null.
  return '{"jsonrpc":"2.0","id":' + id + ',"result":' + (json === undefined ? 'null' : json) + '}';
}

/** An error response; `data` is dropped (not thrown on) when it has no JSON form. */
export function errorResponse(id: IdJson, code: number, message: string, data?: unknown): string {
  let tail = '}}';
  if (data !== undefined) {
    try {
      const json = toJson(data);
      if (json !== undefined) tail = ',"data":' + json + '}}';
    } catch {
      // a cycle in error data: send the error without it rather than no error at all
    }
  }
  return '{"jsonrpc":"2.0","id":' + id + ',"error":{"code":' + code + ',"message":' + JSON.stringify(message) + tail;
}

/**
 * The error code of a reply made by errorResponse, 0 for a result (metrics' outcome, read from the
 * text rather than passed along every return of the dispatcher). Both layouts start with the id, a
 * scalar; what follows it is `,"result":` or `,"error":{"code":N`, found without reading the result.
 */
export function replyErrorCode(reply: RpcReply): number {
  if (typeof reply !== 'string') return 0; // bytes are only ever a large result
  let at = ID_AT;
  if (reply.charCodeAt(at) === 0x22 /* " */) {
    // a string id: to its closing quote (an escaped quote is preceded by a backslash)
    for (at++; reply.charCodeAt(at) !== 0x22; at++) if (reply.charCodeAt(at) === 0x5c /* \ */) at++;
    at++;
  } else at = reply.indexOf(',', at);
  if (!reply.startsWith(ERROR_AT_ID, at)) return 0;
  return parseInt(reply.slice(at + ERROR_AT_ID.length, at + ERROR_AT_ID.length + 12), 10);
}
const ID_AT = '{"jsonrpc":"2.0","id":'.length;
const ERROR_AT_ID = ',"error":{"code":';

/** A JSON-RPC notification (server → client push over WebSocket). Throws like resultResponse. */
export function notification(method: string, params: unknown): string {
  const json = toJson(params);
  return '{"jsonrpc":"2.0","method":' + JSON.stringify(method) + ',"params":' + (json === undefined ? 'null' : json) + '}';
}

/**
 * A batch's responses as one JSON array: text while all of them are text, else bytes (the parts'
 * bytes are copied in and given back to the pool).
 */
export function batchResponse(replies: readonly RpcReply[]): RpcReply {
  let text = '[';
  for (let i = 0; i < replies.length; i++) {
    const r = replies[i]!;
    if (typeof r !== 'string') {
      const bytes = jsonArrayBytes('[', replies, ']');
      for (const part of replies) releaseReply(part);
      return bytes;
    }
    text += i === 0 ? r : ',' + r;
  }
  return text + ']';
}

/** A response's size on the wire, in bytes. */
export function replyBytes(reply: RpcReply): number {
  return typeof reply === 'string' ? Buffer.byteLength(reply) : reply.byteLength;
}

/** A response as text (bytes decoded as UTF-8). */
export function replyText(reply: RpcReply): string {
  return typeof reply === 'string' ? reply : Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength).toString('utf8');
}

const COMMA = 0x2c;

/**
 * `head` + the elements separated by commas + `tail`, as UTF-8 bytes, written into one buffer sized
 * up front (from the reply pool, reply-buffers.ts): one copy per element, no intermediate string.
 */
function jsonArrayBytes(head: string, elements: readonly RpcReply[], tail: string, size = jsonArraySize(head, elements, tail)): Buffer {
  const out = replyBuffer(size);
  let at = out.write(head, 0);
  for (let i = 0; i < elements.length; i++) {
    if (i > 0) out[at++] = COMMA;
    const e = elements[i]!;
    if (typeof e === 'string') at += out.write(e, at);
    else {
      out.set(e, at);
      at += e.byteLength;
    }
  }
  out.write(tail, at);
  return out;
}

/** Bytes of `head` + the elements separated by commas + `tail`. */
function jsonArraySize(head: string, elements: readonly RpcReply[], tail: string): number {
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, elements.length - 1);
  for (let i = 0; i < elements.length; i++) size += replyBytes(elements[i]!);
  return size;
}
