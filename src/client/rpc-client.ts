// The client's engine under the generated typed API (generated/client/): numbered requests over a
// Transport, batches, RpcError for error answers, optional client-side param validation with the
// generated validators, subscriptions (eth_subscribe + the notifications that follow, renewed when
// a WebSocket reconnects), per-call options (abort signal, timeout) and connection events.
import { RpcError, TransportError } from './errors.ts';
import { checkParams, type MethodTable } from './validate.ts';
import type { CallOptions, ConnectionEvent, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, Transport } from './transport.ts';
import type { FilterOptions, SubscriptionId, SubscriptionKind } from '../../generated/types.ts';
import type { SubscriptionItems } from './subscriptions.ts';

export interface ClientOptions {
  /**
   * Check params against openrpc.json before sending (default false): a bad param throws the
   * RpcError the node would answer (-32602, same message) without a round trip.
   */
  readonly validate?: boolean;
}

/** A method call made by the typed API: wire name and positional params. */
export type Call = (method: string, params: readonly unknown[]) => Promise<unknown>;

/** namespace → method suffixes, e.g. `{ eth: ['chainId', …] }` (generated `namespaceMethods`). */
export type NamespaceTable = Readonly<Record<string, readonly string[]>>;

export interface Subscription {
  /** The id the node gave it (`params.subscription` of its notifications); a new one after a reconnect. */
  readonly id: SubscriptionId;
  /** Ends it on the node (eth_unsubscribe); resolves false if the node no longer knew it. */
  unsubscribe(): Promise<boolean>;
}

/** What `client.on(event, listener)` reports: the WebSocket connection's life. */
export interface ClientEvents {
  /** The connection was lost: calls in flight failed with `error`; the transport is reconnecting (unless `reconnect: false`). */
  disconnect: { readonly error: Error };
  /** Open again after a loss and every subscription renewed: each keeps its listener and Subscription object (whose `id` is the node's new one). */
  reconnect: { readonly attempts: number; readonly subscriptions: number; readonly failed: readonly { readonly kind: SubscriptionKind; readonly error: unknown }[] };
}

/** A live subscription: what to send again after a reconnect, and where its items go. */
interface Active {
  id: SubscriptionId;
  readonly params: readonly unknown[];
  readonly deliver: (item: unknown) => void;
}

/** Items a notification may carry before its subscription's listener is in place, per id. */
const MAX_EARLY_ITEMS = 256;

let loadedTable: Promise<MethodTable> | undefined;
/** The generated param checks (and their validators) load only when validation is asked for. */
function methodTable(): Promise<MethodTable> {
  loadedTable ??= import('../../generated/client/param-checks.ts').then((m) => ({ methods: m.paramChecks, patternLabels: m.patternLabels }));
  return loadedTable;
}

/**
 * Binds one function per method of each namespace: `api.eth.getBalance(a, b)` → `call('eth_getBalance', [a, b])`.
 * Trailing `undefined` params (optional ones left out) are not sent.
 */
export function bindNamespaces<Api>(table: NamespaceTable, call: Call): Api {
  const api: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const [ns, keys] of Object.entries(table)) {
    const fns: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const key of keys) {
      const method = `${ns}_${key}`;
      fns[key] = (...args) => call(method, trimUndefined(args));
    }
    api[ns] = Object.freeze(fns);
  }
  return api as Api;
}

function trimUndefined(args: unknown[]): unknown[] {
  let n = args.length;
  while (n > 0 && args[n - 1] === undefined) n--;
  // A hole before a given param travels as null, which the node reads as "not given" too.
  return args.slice(0, n).map((a) => (a === undefined ? null : a));
}

export class RpcClient {
  private nextId = 0;
  private readonly validate: boolean;
  /** Subscriptions by their current id. */
  private readonly active = new Map<string, Active>();
  private readonly eventListeners = new Map<keyof ClientEvents, Set<(e: any) => void>>();
  /** Notifications that arrived while a subscribe() was waiting for its id, per id. */
  private readonly early = new Map<string, unknown[]>();
  private subscribing = 0;
  private stopNotifications: (() => void) | undefined;
  private readonly stopConnectionEvents: (() => void) | undefined;

  constructor(
    readonly transport: Transport,
    options: ClientOptions = {},
  ) {
    this.validate = options.validate === true;
    this.stopConnectionEvents = transport.onConnection?.((e) => void this.onConnection(e));
  }

  /** Calls a method by its wire name; the typed API (`client.eth.getBalance(…)`) calls this. */
  async request<T = unknown>(method: string, params: readonly unknown[] = [], options?: CallOptions): Promise<T> {
    if (this.validate) await this.check(method, params);
    const response = await this.transport.send(this.envelope(method, params), options);
    return unwrap(method, response) as T;
  }

  /** Listens to the connection's life (WebSocket transports); returns the function that stops listening. */
  on<E extends keyof ClientEvents>(event: E, listener: (e: ClientEvents[E]) => void): () => void {
    let set = this.eventListeners.get(event);
    if (!set) this.eventListeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Sends every call the builder makes as one JSON-RPC batch (one HTTP request or WebSocket
   * message) and resolves their results in order; rejects with the first failure.
   */
  protected async batchOf<Api, T extends readonly unknown[]>(
    table: NamespaceTable,
    build: (api: Api) => readonly [...T],
    options?: CallOptions,
  ): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
    const queued: { request: JsonRpcRequest; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
    const api = bindNamespaces<Api>(table, (method, params) => {
      const request = this.envelope(method, params);
      return new Promise((resolve, reject) => queued.push({ request, resolve, reject }));
    });
    const results = Promise.all(build(api));
    if (queued.length === 0) return (await results) as { -readonly [K in keyof T]: Awaited<T[K]> };
    try {
      if (this.validate) for (const q of queued) await this.check(q.request.method, q.request.params);
      const answer = await this.transport.send(queued.map((q) => q.request), options);
      const byId = new Map<unknown, JsonRpcResponse>((Array.isArray(answer) ? answer : [answer]).map((r) => [r.id, r]));
      for (const q of queued) {
        const r = byId.get(q.request.id) ?? (Array.isArray(answer) ? undefined : answer);
        if (r === undefined) q.reject(new TransportError(`batch: no answer for ${q.request.method} (id ${q.request.id})`));
        else {
          try {
            q.resolve(unwrap(q.request.method, r));
          } catch (e) {
            q.reject(e);
          }
        }
      }
    } catch (e) {
      for (const q of queued) q.reject(e);
    }
    return (await results) as { -readonly [K in keyof T]: Awaited<T[K]> };
  }

  /**
   * Subscribes with eth_subscribe and calls `onItem` for each notification: a BlockHeader per
   * sealed block (`newHeads`), each matching Log (`logs`, filtered by `filter`), or each newly
   * pending transaction's hash (`newPendingTransactions`). Needs a WebSocket transport.
   */
  async subscribe<K extends SubscriptionKind>(
    kind: K,
    onItem: (item: SubscriptionItems[K]) => void,
    ...filter: K extends 'logs' ? [filter?: FilterOptions] : []
  ): Promise<Subscription> {
    if (!this.transport.onNotification) throw new TransportError('subscriptions need a WebSocket transport (wsTransport)');
    this.stopNotifications ??= this.transport.onNotification((n) => this.route(n));
    const sub: Active = { id: '', params: [kind, ...filter], deliver: onItem as (item: unknown) => void };
    await this.activate(sub);
    const active = this.active;
    return {
      get id() {
        return sub.id;
      },
      unsubscribe: async () => {
        active.delete(sub.id);
        return this.request<boolean>('eth_unsubscribe', [sub.id]);
      },
    };
  }

  /** Closes the transport; calls still in flight fail with a TransportError. */
  async close(): Promise<void> {
    this.stopNotifications?.();
    this.stopConnectionEvents?.();
    this.active.clear();
    await this.transport.close();
  }

  /** eth_subscribe for `sub`, then routes its notifications to it (those that came first too). */
  private async activate(sub: Active): Promise<void> {
    this.subscribing++;
    try {
      sub.id = await this.request<SubscriptionId>('eth_subscribe', sub.params);
    } finally {
      this.subscribing--;
    }
    this.active.set(sub.id, sub);
    // Items the node pushed right behind its answer can arrive before this line runs.
    const buffered = this.early.get(sub.id);
    if (this.subscribing === 0) this.early.clear();
    else this.early.delete(sub.id);
    for (const item of buffered ?? []) sub.deliver(item);
  }

  private async onConnection(e: ConnectionEvent): Promise<void> {
    if (e.type === 'disconnect') return this.emit('disconnect', { error: e.error });
    // The node forgot every subscription with the connection: ask for each again.
    const subs = [...this.active.values()];
    this.active.clear();
    const failed: { kind: SubscriptionKind; error: unknown }[] = [];
    await Promise.all(
      subs.map((sub) =>
        this.activate(sub).catch((error: unknown) => {
          failed.push({ kind: sub.params[0] as SubscriptionKind, error });
        }),
      ),
    );
    this.emit('reconnect', { attempts: e.attempts, subscriptions: subs.length - failed.length, failed });
  }

  private emit<E extends keyof ClientEvents>(event: E, value: ClientEvents[E]): void {
    for (const fn of this.eventListeners.get(event) ?? []) fn(value);
  }

  private envelope(method: string, params: readonly unknown[]): JsonRpcRequest {
    return { jsonrpc: '2.0', id: ++this.nextId, method, params };
  }

  private async check(method: string, params: readonly unknown[]): Promise<void> {
    const problem = checkParams(await methodTable(), method, params);
    if (problem) throw new RpcError(method, problem);
  }

  private route(n: JsonRpcNotification): void {
    if (!n.method.endsWith('_subscription')) return;
    const p = n.params as { subscription?: unknown; result?: unknown } | null;
    if (typeof p?.subscription !== 'string') return;
    const sub = this.active.get(p.subscription);
    if (sub) {
      sub.deliver(p.result);
      return;
    }
    // Possibly the subscription a pending subscribe() is about to learn the id of: keep a few
    // items for it. (Other ids — filters created over this socket, raw eth_subscribe — are ignored.)
    if (this.subscribing === 0) return;
    const list = this.early.get(p.subscription) ?? [];
    if (list.length < MAX_EARLY_ITEMS) list.push(p.result);
    this.early.set(p.subscription, list);
  }
}

/** The result of a response, or its error as an RpcError. */
function unwrap(method: string, response: JsonRpcResponse | JsonRpcResponse[]): unknown {
  if (Array.isArray(response)) throw new TransportError(`${method}: got a batch answer to a single request`);
  if (response === null || typeof response !== 'object') throw new TransportError(`${method}: answer is not a JSON-RPC response`);
  if (response.error) throw new RpcError(method, response.error);
  if (!('result' in response)) throw new TransportError(`${method}: answer has neither result nor error`);
  return response.result;
}
