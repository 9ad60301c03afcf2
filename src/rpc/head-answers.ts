// Answers kept for the current head: a request to a head-cached method (openrpc.json
// `x-cache: head`, generated/head-cached.ts) whose answer was already made at this head is answered
// from it, without the dispatcher — on the main thread (HeadCachedHandler below) and in each serving
// thread, where it also saves the trip to the main thread (A19). A repeated
// eth_blockNumber, eth_getBalance of the same accounts or identical eth_call costs the transport and
// a lookup.
//
// Only the plainest requests qualify, so the cached answer is exactly what the main thread would
// write: one object with nothing but jsonrpc "2.0", a string or safe-integer id, the method and an
// array of params (or none) that does not name `pending`. Only results are kept, never errors.
import type { HeadGeneration } from './head-generation.ts';
import { numberIdText } from './id-text.ts';
import type { ConnectionContext, RpcHandler, RpcReply } from './types.ts';

/** Larger bodies are not looked at (no head-cached method takes a large request). */
const MAX_REQUEST_CHARS = 2048;
/** Larger answers are not kept (a full block, say: rare to repeat, costly to hold). */
const MAX_RESULT_CHARS = 64 * 1024;
/** Answers kept per head; past this, new ones are not kept until the head moves. */
const MAX_ANSWERS = 4096;
/** Characters of results kept per head. */
const MAX_CHARS = 8 * 1024 * 1024;
/** The method a request names (the parse below still decides; this only skips parsing the rest). */
const METHOD_NAME = /"method"\s*:\s*"([A-Za-z0-9_]+)"/;
/**
 * The text JSON.stringify makes of {jsonrpc, id, method, params} — what viem, web3.js and the bench
 * send —, read by one match instead of parsing the whole body: a safe-integer id or a string id of
 * printable ASCII without quotes or backslashes (so its text is what JSON.stringify would write), and
 * params without a backslash anywhere (no escapes, so a tag like `pending` shows as written).
 */
const PLAIN = /^\{"jsonrpc":"2\.0","id":(0|[1-9][0-9]{0,14}|"[ !#-\[\]-~]{0,64}"),"method":"([A-Za-z0-9_]+)","params":(\[[^\\]*\])\}$/;

/** A cacheable request the cache could not answer: what store() needs to keep its answer. */
export interface Miss {
  readonly key: string;
  readonly idText: string;
  /** The head generation read when the request was looked up. */
  readonly generation: number;
}

export class HeadAnswers {
  private generation = Number.NaN;
  private readonly results = new Map<string, string>();
  private chars = 0;
  /** Requests answered from kept answers (RpcServer.threadStats). */
  hits = 0;
  /** The same by method: they reach no dispatcher, so chain_rpc_requests_total adds them (src/node/metrics.ts). */
  readonly hitsByMethod = new Map<string, number>();

  constructor(
    private readonly head: HeadGeneration,
    private readonly methods: ReadonlySet<string>,
  ) {}

  /** The answer (a reply text), a Miss to store() later, or undefined for a request that is never cached. */
  lookup(body: string): string | Miss | undefined {
    if (body.length > MAX_REQUEST_CHARS || body.charCodeAt(0) !== 0x7b /* { */) return undefined;
    const plain = PLAIN.exec(body);
    if (plain !== null) return this.lookupPlain(plain[1]!, plain[2]!, plain[3]!);
    // most requests are not for a head-cached method: tell from the text before parsing it
    const named = METHOD_NAME.exec(body);
    if (named === null || !this.methods.has(named[1]!)) return undefined;
    let request: unknown;
    try {
      request = JSON.parse(body);
    } catch {
      return undefined;
    }
    if (typeof request !== 'object' || request === null || Array.isArray(request)) return undefined;
    const r = request as Record<string, unknown>;
    for (const k in r) if (k !== 'jsonrpc' && k !== 'id' && k !== 'method' && k !== 'params') return undefined;
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || !this.methods.has(r.method)) return undefined;
    const id = r.id;
    if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
    if (r.params !== undefined && !Array.isArray(r.params)) return undefined;
    const params = r.params === undefined ? '[]' : JSON.stringify(r.params);
    if (/pending/i.test(params)) return undefined;
    // JSON writes a number too large for a double (1e400 parses to Infinity) as null: such params
    // must not share the key of params that hold a real null
    if (params.includes('null') && hasNonFinite(r.params)) return undefined;
    return this.answer(r.method, r.method + params, typeof id === 'string' ? JSON.stringify(id) : numberIdText(body, id as number));
  }

  /**
   * lookup() of a body in PLAIN's layout. The params text is parsed only to be sure it is one JSON
   * array (the match alone would take `["a"],"x":["b"]` for one). It is the key as written: one text
   * parses to one value, so no two different requests share a key (written by JSON.stringify, it is
   * the key the parse path makes; other spellings of the same params just get entries of their own).
   */
  private lookupPlain(idText: string, method: string, params: string): string | Miss | undefined {
    if (!this.methods.has(method) || /pending/i.test(params)) return undefined;
    try {
      JSON.parse(params);
    } catch {
      return undefined;
    }
    return this.answer(method, method + params, idText);
  }

  /** The kept answer for `key` with `idText` as its id, or a Miss; drops every answer once the head moved. */
  private answer(method: string, key: string, idText: string): string | Miss {
    const generation = this.head.current;
    if (generation !== this.generation) {
      this.generation = generation;
      this.results.clear();
      this.chars = 0;
    }
    const result = this.results.get(key);
    if (result !== undefined) {
      this.hits++;
      this.hitsByMethod.set(method, (this.hitsByMethod.get(method) ?? 0) + 1);
      return '{"jsonrpc":"2.0","id":' + idText + ',"result":' + result + '}';
    }
    return { key, idText, generation };
  }

  /**
   * Keeps the result of `reply` (the answer to a Miss, just made) if the head has not moved since
   * the request was looked up: the counter only grows, so an answer made (even partly) at a later
   * head finds it moved.
   */
  store(miss: Miss, reply: RpcReply | undefined): void {
    const generation = this.head.current;
    if (typeof reply !== 'string' || generation !== miss.generation || generation !== this.generation) return;
    const prefix = '{"jsonrpc":"2.0","id":' + miss.idText + ',"result":';
    const size = reply.length - prefix.length - 1;
    if (size > MAX_RESULT_CHARS || !reply.startsWith(prefix) || reply.charCodeAt(reply.length - 1) !== 0x7d /* } */) return;
    if (this.results.size >= MAX_ANSWERS || this.chars + size > MAX_CHARS) return;
    this.results.set(miss.key, reply.slice(prefix.length, -1));
    this.chars += size;
  }
}

/** A number JSON cannot write (Infinity, NaN) anywhere in `value`. */
function hasNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  for (const v of Object.values(value)) if (hasNonFinite(v)) return true;
  return false;
}

/**
 * A dispatcher in front of another that answers from `answers` what it can and keeps what the
 * other answers: in front of the dispatcher on the main thread, in front of the RemoteHandler in a
 * serving thread.
 */
export class HeadCachedHandler implements RpcHandler {
  constructor(
    private readonly inner: RpcHandler,
    readonly answers: HeadAnswers,
  ) {}

  handle(body: string, ctx: ConnectionContext): Promise<RpcReply | undefined> {
    const reply = this.handleNow(body, ctx);
    return typeof reply === 'string' ? Promise.resolve(reply) : reply;
  }

  handleNow(body: string, ctx: ConnectionContext): string | Promise<RpcReply | undefined> {
    const found = this.answers.lookup(body);
    if (typeof found === 'string') return found;
    const reply = this.inner.handle(body, ctx);
    if (found === undefined) return reply;
    return reply.then((r) => {
      this.answers.store(found, r);
      return r;
    });
  }
}
