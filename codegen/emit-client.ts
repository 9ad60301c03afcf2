// generated/client/: the typed client SDK. `api.ts` declares one interface per handler group with
// one method per RPC method (`client.eth.getBalance(address, block)`; `client.chain` is the same
// interface calling chain_X) and the namespace → methods table the runtime binds; `index.ts` is
// the `ChainClient` class over the hand-written runtime in src/client/ (transports, batches,
// errors, subscriptions, quantity helpers), re-exported from here.
import { groupMethods } from './emit-handlers.ts';
import { newTsContext, tsType, type TsContext } from './emit-types.ts';
import { pascal, requiredCount, type MethodModel, type Model } from './model.ts';
import { docComment, HEADER, str } from './text.ts';

const WIDTH = 110;
/** Longest example line (call and result) shown in a method's doc comment. */
const MAX_EXAMPLE = 100;

/** `eth` → `EthApi`. */
export function apiInterfaceName(group: string): string {
  return `${pascal(group)}Api`;
}

/** Wire namespaces in order of first appearance, each with the group serving it. */
function namespaces(model: Model): [string, string][] {
  const seen = new Map<string, string>();
  for (const m of model.methods) if (!seen.has(m.namespace)) seen.set(m.namespace, m.group);
  return [...seen];
}

export function emitClient(model: Model): Record<string, string> {
  return { 'client/api.ts': emitApi(model), 'client/index.ts': emitIndex(model) };
}

function emitApi(model: Model): string {
  const ctx = newTsContext();
  const body: string[] = [];
  const ns = namespaces(model);
  for (const [group, methods] of groupMethods(model)) {
    const served = ns.filter(([, g]) => g === group).map(([n]) => n);
    const how = served.map((n) => `\`client.${n}.X(…)\` calls ${n}_X`).join(', ');
    body.push(docComment(`${served.map((n) => `${n}_*`).join(' and ')} methods: ${how}.`, ''));
    body.push(`export interface ${apiInterfaceName(group)} {`);
    methods.forEach((m, i) => {
      if (i > 0) body.push('');
      const names = model.methods.filter((x) => x.group === group && x.key === m.key).map((x) => x.name);
      body.push(methodSignature(m, names, ctx));
    });
    body.push('}', '');
  }
  body.push(docComment('The typed API: one object per namespace of openrpc.json.', ''));
  body.push('export interface Api {');
  for (const [n, g] of ns) body.push(`  readonly ${n}: ${apiInterfaceName(g)};`);
  body.push('}', '');
  body.push(docComment('Method suffixes of each namespace, in document order: the client binds one function to each.', ''));
  body.push('export const namespaceMethods = {');
  for (const [n] of ns) {
    const keys = model.methods.filter((m) => m.namespace === n).map((m) => str(m.key));
    body.push(...wrapList(`  ${n}: [`, keys, '],', '    '));
  }
  body.push('} as const satisfies Readonly<Record<keyof Api, readonly string[]>>;', '');

  const out = [HEADER];
  const used = [...ctx.used].sort();
  if (used.length > 0) out.push(`import type {\n${used.map((u) => `  ${u},`).join('\n')}\n} from '../types.ts';`, '');
  out.push(...body);
  return out.join('\n');
}

function methodSignature(m: MethodModel, names: readonly string[], ctx: TsContext): string {
  const indent = '  ';
  const required = requiredCount(m.params);
  const tags: string[] = [];
  for (const p of m.params) if (p.description) tags.push(`@param ${p.name} ${oneLine(p.description)}`);
  if (m.result?.description) tags.push(`@returns ${oneLine(m.result.description)}`);
  const example = exampleLine(m);
  // Indented: docComment leaves code lines unwrapped.
  if (example) tags.push('@example', `  ${example}`);
  if (m.deprecated) tags.push('@deprecated');
  const summary = m.summary ?? m.description?.split(/\n\s*\n/)[0]?.trim() ?? m.name;
  const lines = [docComment(`${names.join(', ')}: ${summary}`, indent, tags)];
  const params = m.params.map((p, i) => `${p.name}${i < required ? '' : '?'}: ${tsType(p.schema, ctx, indent + '  ')}`);
  const result = m.result ? tsType(m.result.schema, ctx, indent) : 'unknown';
  const single = `${indent}${m.key}(${params.join(', ')}): Promise<${result}>;`;
  if (single.length <= WIDTH && !single.includes('\n')) lines.push(single);
  else lines.push(`${indent}${m.key}(\n${params.map((p) => `${indent}  ${p},`).join('\n')}\n${indent}): Promise<${result}>;`);
  return lines.join('\n');
}

/** `await client.eth.getBalance("0x…", "latest") // → "0x…"` from the method's first example, when short. */
function exampleLine(m: MethodModel): string | undefined {
  const ex = m.examples[0];
  if (!ex) return undefined;
  const call = `await client.${m.namespace}.${m.key}(${ex.params.map((p) => JSON.stringify(p.value)).join(', ')})`;
  if (call.length > MAX_EXAMPLE) return undefined;
  const withResult = ex.result === undefined ? call : `${call} // → ${JSON.stringify(ex.result.value)}`;
  return withResult.length <= MAX_EXAMPLE ? withResult : call;
}

function emitIndex(model: Model): string {
  const ns = namespaces(model);
  const interfaces = [...new Set(ns.map(([, g]) => apiInterfaceName(g)))];
  return [
    HEADER,
    `// The SDK's entry (the package src/client/ is built from it; \`chain-node/client\` in this
// repository): ChainClient (typed methods for every namespace of openrpc.json) plus the runtime in
// src/client/ (transports, errors, quantity helpers, system contracts, chain definitions).
import { RpcClient, bindNamespaces, type ClientOptions } from '../../src/client/rpc-client.ts';
import { httpTransport, type HttpTransportOptions } from '../../src/client/http.ts';
import { wsTransport, type WsTransportOptions } from '../../src/client/ws.ts';
import type { CallOptions, Transport } from '../../src/client/transport.ts';
import { namespaceMethods, type Api, ${interfaces.map((i) => `type ${i}`).join(', ')} } from './api.ts';

export * from '../../src/client/index.ts';
export { namespaceMethods };
export type * from './api.ts';
export type * from '../types.ts';

/**
 * A typed client for the node: \`client.<namespace>.<method>(...params)\` for every method of
 * openrpc.json, e.g. \`await client.eth.getBalance(address, 'latest')\`. Params and results are
 * the wire types of generated/types.ts (quantities are hex strings: see toQuantity/fromQuantity);
 * an error answer rejects with an RpcError carrying the node's \`code\` and \`data\`.
 */
export class ChainClient extends RpcClient implements Api {
${ns.map(([n, g]) => `  readonly ${n}: ${apiInterfaceName(g)};`).join('\n')}

  constructor(transport: Transport, options?: ClientOptions) {
    super(transport, options);
    const api = bindNamespaces<Api>(namespaceMethods, (method, params) => this.request(method, params));
${ns.map(([n]) => `    this.${n} = api.${n};`).join('\n')}
  }

  /** A client over HTTP, e.g. \`ChainClient.http('http://127.0.0.1:6791')\`. */
  static http(url: string, options?: ClientOptions & HttpTransportOptions): ChainClient {
    return new ChainClient(httpTransport(url, options), options);
  }

  /** A client over one WebSocket, e.g. \`ChainClient.ws('ws://127.0.0.1:6791')\`; subscribe() needs it. */
  static ws(url: string, options?: ClientOptions & WsTransportOptions): ChainClient {
    return new ChainClient(wsTransport(url, options), options);
  }

  /**
   * The typed API with per-call options: an abort signal, a timeout.
   * @example await client.with({ signal: AbortSignal.timeout(2000) }).eth.getBalance(address, 'latest');
   */
  with(options: CallOptions): Api {
    return bindNamespaces<Api>(namespaceMethods, (method, params) => this.request(method, params, options));
  }

  /**
   * One JSON-RPC batch: every call made on \`api\` inside \`build\` goes out in one request; the
   * results come back in order, typed. Rejects with the first call's error (an RpcError).
   * @example const [chainId, head] = await client.batch((api) => [api.eth.chainId(), api.eth.blockNumber()]);
   */
  batch<T extends readonly unknown[]>(build: (api: Api) => readonly [...T], options?: CallOptions): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
    return this.batchOf<Api, T>(namespaceMethods, build, options);
  }
}
`,
  ].join('\n');
}

/** `prefix item, item, …suffix` on one line when it fits, else one item per line. */
function wrapList(prefix: string, items: readonly string[], suffix: string, indent: string): string[] {
  const one = `${prefix}${items.join(', ')}${suffix}`;
  if (one.length <= WIDTH) return [one];
  return [prefix, ...items.map((i) => `${indent}${i},`), `${indent.slice(2)}${suffix}`];
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
