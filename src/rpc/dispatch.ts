// The JSON-RPC 2.0 layer between a transport and the handlers: envelope and batch rules, routing
// by method name (only enabled namespaces), param validation with the generated validators, the
// call, and (optionally) a check of the result against its schema. It never throws and never
// recurses into client data, so no request can take the process down.
import { RpcError, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RESPONSE_TOO_LARGE, RESPONSE_TOO_LARGE_MESSAGE, methodNotFoundMessage } from '../codec/jsonrpc-errors.ts';
import { NULL_ID, batchResponse, errorResponse, idJson, rawJsonText, replyBytes, replyErrorCode, resultResponse, type IdJson } from './response.ts';
import { releaseReply } from './reply-buffers.ts';
import { explainFailure, runValidator, type PatternLabels } from '../codec/validation-message.ts';
import { resultProblem } from './result-check.ts';
import { batchIdTexts, numberIdText } from './id-text.ts';
import { silentLogger, type CallContext, type ConnectionContext, type Logger, type MethodSpec, type MethodTable, type RequestObserver, type RpcHandler, type RpcReply, type Validate } from './types.ts';

export interface DispatcherOptions {
  readonly methods: MethodTable;
  /** Handler groups (generated `Handlers`): `handlers[spec.group][spec.key](...params, ctx)`. */
  readonly handlers: object;
  /** Wire namespaces served ('eth', 'chain', 'net', …); 'rpc' (rpc.discover) is always on. */
  readonly enabledNamespaces: ReadonlySet<string>;
  /** Validate every result against its schema (dev chains, tests): a mismatch is a -32603. */
  readonly checkResults: boolean;
  /** Most requests in one batch (default 1000). */
  readonly maxBatch?: number;
  /**
   * Most bytes of one answer, and of a batch's answers together (geth's --rpc.batch-response-max-size,
   * default 25,000,000): an answer that would go over gets -32003 "response too large", and so does
   * every later entry of its batch, which is not run. 0: no limit.
   */
  readonly maxResponseBytes?: number;
  /**
   * Maps a failure that any method may meet, whatever its handler (a damaged database's missing
   * trie node), to its answer; what it leaves (undefined) is an internal error as before.
   */
  readonly failureAnswer?: (e: unknown) => RpcError | undefined;
  /** The result of `rpc.discover` (the OpenRPC document). */
  readonly discover: () => unknown;
  /** Regex → human label (generated `patternLabels`) for validation messages. */
  readonly patternLabels?: PatternLabels;
  readonly log?: Logger;
  /** Told of each request and batch (--metrics); absent, requests are not timed at all. */
  readonly observer?: RequestObserver;
}

/** One callable method, resolved once at start-up so a request costs one Map lookup. */
interface Route {
  readonly spec: MethodSpec;
  readonly target: unknown;
  readonly fn: (...args: unknown[]) => unknown;
}

const acceptAll: Validate = () => true;
const DISCOVER_SPEC: MethodSpec = {
  name: 'rpc.discover',
  group: 'rpc',
  key: 'discover',
  params: [],
  required: 0,
  validateParams: [],
  validateResult: acceptAll,
};
/** Longest client-sent method name echoed back in an error. */
const MAX_ECHOED_NAME = 100;
/** geth's --rpc.batch-response-max-size default. */
const DEFAULT_MAX_RESPONSE_BYTES = 25_000_000;
/**
 * A batch runs its entries one after another without giving I/O a turn (each await resumes as a
 * microtask); past this much time it yields to the event loop, so a batch of heavy calls cannot
 * keep every other client waiting for its whole run (a batch of 30 eth_getLogs held the node ~55 s).
 */
const BATCH_SLICE_MS = 20;

/** Bytes an answer (or a batch) may still take; `over` once one did not fit. */
interface ResponseBudget {
  room: number;
  over: boolean;
}

/** A request object's id, or the reply that refuses its envelope. */
type Envelope = { readonly r: Record<string, unknown>; readonly id: IdJson; readonly notification: boolean } | { readonly refused: string };

export class Dispatcher implements RpcHandler {
  private readonly routes = new Map<string, Route>();
  private readonly checkResults: boolean;
  private readonly maxBatch: number;
  private readonly maxResponseBytes: number;
  private readonly labels: PatternLabels;
  private readonly log: Logger;
  private readonly failureAnswer: DispatcherOptions['failureAnswer'];
  private readonly observer: RequestObserver | undefined;
  /** one(), timed and told to the observer when there is one: chosen once, so without one a request pays nothing */
  private readonly answer: Dispatcher['one'];

  constructor(opts: DispatcherOptions) {
    this.observer = opts.observer;
    this.answer = opts.observer ? this.observedOne : this.one;
    this.checkResults = opts.checkResults;
    this.maxBatch = opts.maxBatch ?? 1000;
    this.maxResponseBytes = opts.maxResponseBytes === 0 ? Infinity : (opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    this.labels = opts.patternLabels ?? {};
    this.log = opts.log ?? silentLogger;
    this.failureAnswer = opts.failureAnswer;
    const groups = opts.handlers as Record<string, Record<string, unknown> | undefined>;
    for (const [name, spec] of opts.methods) {
      if (!opts.enabledNamespaces.has(namespaceOf(name))) continue;
      const target = Object.hasOwn(groups, spec.group) ? groups[spec.group] : undefined;
      const fn = target?.[spec.key];
      // The generated types make a missing handler a compile error; at run time it is a wiring bug.
      if (typeof fn !== 'function') throw new Error(`rpc: no handler for ${name} (handlers.${spec.group}.${spec.key})`);
      if (spec.validateParams.length !== spec.params.length) throw new Error(`rpc: ${name} has ${spec.params.length} params but ${spec.validateParams.length} validators`);
      this.routes.set(name, { spec, target, fn: fn as Route['fn'] });
    }
    const discover = opts.discover;
    this.routes.set('rpc.discover', { spec: DISCOVER_SPEC, target: undefined, fn: () => discover() });
  }

  /** Body text → response (undefined when the body held only notifications). Never rejects. */
  handle(body: string, conn: ConnectionContext): Promise<RpcReply | undefined> {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (e) {
      return Promise.resolve(errorResponse(NULL_ID, PARSE_ERROR, `parse error: ${(e as Error).message}`));
    }
    // numeric ids are echoed as written (id-text.ts), which their parsed value may not be
    if (Array.isArray(value)) {
      this.observer?.batch(value.length);
      return this.batch(value, conn, value.some(hasNumberId) ? batchIdTexts(body) : undefined);
    }
    return this.answer(value, conn, { room: this.maxResponseBytes, over: false }, hasNumberId(value) ? numberIdText(body, (value as { id: number }).id) : undefined);
  }

  /** `idTexts`: the elements' ids as written in the body, where some are numbers. */
  private async batch(list: unknown[], conn: ConnectionContext, idTexts?: readonly (IdJson | undefined)[]): Promise<RpcReply | undefined> {
    if (list.length === 0) return errorResponse(NULL_ID, INVALID_REQUEST, 'invalid request: empty batch');
    if (list.length > this.maxBatch) {
      return errorResponse(NULL_ID, INVALID_REQUEST, `invalid request: batch of ${list.length} requests is over the limit of ${this.maxBatch}`);
    }
    // In order, one at a time, like geth: a batch of sends keeps its nonce order.
    const replies: RpcReply[] = [];
    const budget: ResponseBudget = { room: this.maxResponseBytes, over: false };
    let sliceStart = performance.now();
    for (let i = 0; i < list.length; i++) {
      let r: RpcReply | undefined;
      if (budget.over) {
        // like geth: what is left of the batch is not run, each entry with an id gets the error
        const e = envelope(list[i], idTexts?.[i]);
        r = 'refused' in e ? e.refused : e.notification ? undefined : tooLarge(e.id);
      } else {
        if (performance.now() - sliceStart > BATCH_SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        r = await this.answer(list[i], conn, budget, idTexts?.[i]);
      }
      if (r !== undefined) replies.push(r);
    }
    return replies.length === 0 ? undefined : batchResponse(replies);
  }

  /** One request object → its response (within the budget), or undefined for a notification. `idText`: a numeric id as written. */
  private async one(req: unknown, conn: ConnectionContext, budget: ResponseBudget, idText?: IdJson): Promise<RpcReply | undefined> {
    const e = envelope(req, idText);
    if ('refused' in e) return e.refused;
    const { r, id, notification } = e;
    const method = r['method'];
    if (typeof method !== 'string') return errorResponse(id, INVALID_REQUEST, 'invalid request: method must be a string');
    const route = this.routes.get(method);
    if (route === undefined) {
      if (notification) return undefined;
      const shown = method.length > MAX_ECHOED_NAME ? method.slice(0, MAX_ECHOED_NAME) + '…' : method;
      return errorResponse(id, METHOD_NOT_FOUND, methodNotFoundMessage(shown));
    }
    const spec = route.spec;

    // Params: absent or null → none; an array by position; an object by name.
    const p = r['params'];
    let args: unknown[];
    if (p === undefined || p === null) args = [];
    else if (Array.isArray(p)) args = p;
    else if (typeof p === 'object') {
      const named = byName(p as Record<string, unknown>, spec);
      if (typeof named === 'string') return notification ? undefined : errorResponse(id, INVALID_PARAMS, named);
      args = named;
    } else return errorResponse(id, INVALID_REQUEST, 'invalid request: params must be an array or an object');

    const problem = this.checkParams(args, spec);
    if (problem !== undefined) return notification ? undefined : errorResponse(id, INVALID_PARAMS, problem);

    // Pad optional params to full length so the handler's `ctx` is always its last argument.
    const n = spec.params.length;
    while (args.length < n) args.push(undefined);
    const ctx: CallContext = new RequestContext(conn, method);
    args.push(ctx);

    let result: unknown;
    try {
      result = await route.fn.apply(route.target, args);
    } catch (e) {
      return this.failure(id, method, e, notification);
    }
    if (notification) return undefined;
    if (result === undefined) result = null;
    let reply: RpcReply | undefined;
    try {
      reply = resultResponse(id, result, budget.room);
    } catch (e) {
      // A cycle (or absurd nesting) in a result is a handler bug: report it, keep the process.
      this.log.error(`rpc: result of ${method} is not JSON-serializable: ${(e as Error)?.message ?? String(e)}`);
      return errorResponse(id, INTERNAL_ERROR, 'internal error');
    }
    const size = reply === undefined ? Infinity : replyBytes(reply);
    if (reply === undefined || size > budget.room) {
      releaseReply(reply);
      budget.over = true;
      return tooLarge(id);
    }
    if (this.checkResults) {
      const raw = rawJsonText(result);
      const problem = raw !== undefined ? rawResultProblem(spec.validateResult, raw, this.labels) : resultProblem(spec.validateResult, result, this.labels);
      if (problem !== '') {
        releaseReply(reply);
        const detail = `result of ${method} failed its schema: ${problem}`;
        this.log.error(`rpc: ${detail}`);
        return errorResponse(id, INTERNAL_ERROR, `internal error: ${detail}`);
      }
    }
    budget.room -= size;
    return reply;
  }

  /** one(), timed, its method and outcome told to the observer (a method not served counts as ''). */
  private async observedOne(req: unknown, conn: ConnectionContext, budget: ResponseBudget, idText?: IdJson): Promise<RpcReply | undefined> {
    const t0 = performance.now();
    const reply = await this.one(req, conn, budget, idText);
    const method = typeof req === 'object' && req !== null ? (req as { method?: unknown }).method : undefined;
    const served = typeof method === 'string' && this.routes.has(method) ? method : '';
    this.observer!.request(served, reply === undefined ? 0 : replyErrorCode(reply), (performance.now() - t0) / 1000);
    return reply;
  }

  /** Count, required and validity of each param; the message of the first problem, if any. */
  private checkParams(args: unknown[], spec: MethodSpec): string | undefined {
    const n = spec.params.length;
    if (args.length > n) return `too many arguments, want at most ${n}`;
    if (args.length < spec.required) {
      return `missing value for required argument ${args.length} (${spec.params[args.length]})`;
    }
    for (let i = 0; i < args.length; i++) {
      const value = args[i];
      // By-name requests can leave holes: absent is fine for an optional param only.
      if (value === undefined) {
        if (i >= spec.required) continue;
        return `missing value for required argument ${i} (${spec.params[i]})`;
      }
      const validate = spec.validateParams[i]!;
      if (runValidator(validate, value)) continue;
      // geth accepts null for an optional param as "not given"; many scripts send it.
      if (value === null && i >= spec.required) {
        args[i] = undefined;
        continue;
      }
      const { path, message } = explainFailure(validate, this.labels);
      return `invalid argument ${i} (${spec.params[i]})${path ? ' at ' + path : ''}: ${message}`;
    }
    return undefined;
  }

  private failure(id: IdJson, method: string, failed: unknown, notification: boolean): string | undefined {
    const e = this.failureAnswer?.(failed) ?? failed;
    if (e instanceof RpcError) return notification ? undefined : errorResponse(id, e.code, e.message, e.data);
    // Not meant for the client: log it whole, send nothing of it.
    const detail = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : safeString(e);
    this.log.error(`rpc: ${method} failed: ${detail}`);
    return notification ? undefined : errorResponse(id, INTERNAL_ERROR, 'internal error');
  }
}

/**
 * What a handler gets as `ctx`: its connection's context and the method. The client's address is
 * read from the connection only when a handler asks (the filter quotas): an HTTP transport makes it
 * per read (http-rules.ts), and a getter on a class, unlike one in an object literal, costs nothing
 * to create.
 */
class RequestContext implements CallContext {
  readonly transport: CallContext['transport'];
  readonly notify: CallContext['notify'];
  readonly onClose: CallContext['onClose'];

  constructor(
    private readonly conn: ConnectionContext,
    readonly method: string,
  ) {
    this.transport = conn.transport;
    this.notify = conn.notify;
    this.onClose = conn.onClose;
  }

  get remoteAddress(): string | undefined {
    return this.conn.remoteAddress;
  }
}

/** The request's id and envelope, or the error reply a malformed one gets. */
/** `idText`: the id as written in the body, when it is a number. */
function envelope(req: unknown, idText?: IdJson): Envelope {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) {
    return { refused: errorResponse(NULL_ID, INVALID_REQUEST, 'invalid request: not a JSON-RPC request object') };
  }
  const r = req as Record<string, unknown>;
  // Notifications have no `id` member at all (JSON has no undefined, so this is the test).
  const rawId = r['id'];
  const notification = rawId === undefined;
  let id: IdJson = NULL_ID;
  if (!notification) {
    if (rawId !== null && typeof rawId !== 'string' && typeof rawId !== 'number') {
      return { refused: errorResponse(NULL_ID, INVALID_REQUEST, 'invalid request: id must be a string, a number or null') };
    }
    id = typeof rawId === 'number' && idText !== undefined ? idText : idJson(rawId);
  }
  // A malformed envelope is answered even without an id (JSON-RPC 2.0 §5: id null).
  if (r['jsonrpc'] !== '2.0') return { refused: errorResponse(id, INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"') };
  return { r, id, notification };
}

function tooLarge(id: IdJson): string {
  return errorResponse(id, RESPONSE_TOO_LARGE, RESPONSE_TOO_LARGE_MESSAGE);
}

/** resultProblem for text a handler wrote itself (RawJson, RawJsonArray): what is checked is what goes out, parsed. */
function rawResultProblem(validate: Validate, text: string, labels: PatternLabels): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `its JSON text does not parse: ${(e as Error).message}`;
  }
  return resultProblem(validate, value, labels);
}

/** `{address, block}` → positional args by spec.params; an error message for unknown names. */
function byName(obj: Record<string, unknown>, spec: MethodSpec): unknown[] | string {
  const names = spec.params;
  const args: unknown[] = [];
  let matched = 0;
  for (let i = 0; i < names.length; i++) {
    // Own properties only: `constructor`, `toString`… must not come from Object.prototype.
    if (Object.hasOwn(obj, names[i]!)) {
      args[i] = obj[names[i]!];
      matched++;
    } else args[i] = undefined;
  }
  if (matched !== Object.keys(obj).length) {
    for (const k of Object.keys(obj)) {
      if (!names.includes(k)) return `unknown argument ${JSON.stringify(k.length > MAX_ECHOED_NAME ? k.slice(0, MAX_ECHOED_NAME) + '…' : k)}`;
    }
  }
  // Trailing absent params are simply not given (so "missing value" counts like positional).
  let len = args.length;
  while (len > 0 && args[len - 1] === undefined) len--;
  args.length = len;
  return args;
}

function hasNumberId(req: unknown): boolean {
  return typeof req === 'object' && req !== null && typeof (req as { id?: unknown }).id === 'number';
}

/** 'eth' of eth_getBalance, 'rpc' of rpc.discover. */
function namespaceOf(method: string): string {
  const us = method.indexOf('_');
  const dot = method.indexOf('.');
  const cut = us < 0 ? dot : dot < 0 ? us : Math.min(us, dot);
  return cut < 0 ? method : method.slice(0, cut);
}

function safeString(v: unknown): string {
  try {
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}
