// The docs page's "Try it" without React: where requests go, the params a method's panel starts
// with, their live check against the param schemas (the generated validators: the node's own
// checks, so a refusal here reads as the node's would), and the curl line of a request.
// Pure apart from reading `location`, so the docs test can run it in Node.
import type { ContentDescriptorObject, ExamplePairingObject, MethodObject, ServerObject } from '@open-rpc/meta-schema';
import { paramChecks, patternLabels } from '../../generated/client/param-checks.ts';
import { checkParams } from '../../src/client/validate.ts';

interface Where {
  readonly protocol: string;
  readonly origin: string;
}
/** The page's address; none in Node, where the tests run this module. */
const here = (): Where => (globalThis as { location?: Where }).location ?? { protocol: 'file:', origin: 'null' };

/** Methods answered over WebSocket only: their answers are followed by pushes. */
export const SUBSCRIBE_METHODS = new Set(['eth_subscribe', 'chain_subscribe']);

/**
 * Where "Try it" sends: the node serving the page (same origin: the page's CSP allows connecting
 * to it and nothing else); for a page opened from a file, the document's first server.
 */
export function endpoint(servers: readonly ServerObject[] | undefined, where: Where = here()): string {
  if (where.protocol === 'http:' || where.protocol === 'https:') return where.origin + '/';
  return servers?.[0]?.url ?? 'http://127.0.0.1:6791/';
}

/** The page's server list: the serving node itself when served, else the document's. */
export function shownServers(servers: readonly ServerObject[] | undefined, where: Where = here()): ServerObject[] {
  if (where.protocol !== 'http:' && where.protocol !== 'https:') return [...(servers ?? [])];
  return [{ name: 'this node', url: endpoint(servers, where), summary: 'The node serving this page: "Try it" sends its requests here.' }];
}

/** The params a panel starts with: its first example's, else one value per required param from its schema. */
export function initialParams(m: MethodObject): unknown[] {
  const example = m.examples?.[0] as ExamplePairingObject | undefined;
  if (example) return example.params.map((p) => ('value' in p ? p.value : null));
  return (m.params as ContentDescriptorObject[]).filter((p) => p.required).map((p) => placeholder(p.schema as Record<string, unknown>));
}

function placeholder(schema: Record<string, unknown>): unknown {
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  return type === 'object' ? {} : type === 'array' ? [] : type === 'integer' || type === 'number' ? 0 : type === 'boolean' ? false : type === 'null' ? null : '';
}

/** The editor's text read as params (when it is a JSON array) and what is wrong with it: not JSON, not an array, or what the node would refuse (-32602). */
export interface Checked {
  readonly params?: unknown[];
  readonly problem?: string;
}

export function checkEdited(method: string, text: string): Checked {
  let params: unknown;
  try {
    params = JSON.parse(text);
  } catch (e) {
    return { problem: `not JSON: ${(e as Error).message}` };
  }
  if (!Array.isArray(params)) return { problem: 'params must be a JSON array: one value per parameter, in order' };
  return { params, problem: checkParams({ methods: paramChecks, patternLabels }, method, params)?.message };
}

/** The request body "Try it" sends. */
export function requestBody(method: string, params: readonly unknown[], id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** The same request from a shell: curl for HTTP, wscat for a subscription (its pushes follow). */
export function shellLine(url: string, method: string, params: readonly unknown[]): string {
  const body = requestBody(method, params).replace(/'/g, `'\\''`);
  if (SUBSCRIBE_METHODS.has(method)) return `npx wscat -c ${url.replace(/^http/, 'ws')} -w 60 -x '${body}'`;
  return `curl -s -H 'content-type: application/json' ${url} -d '${body}'`;
}
