// The one ajv 8 set-up shared by the example check and the standalone validators: the document's
// component schemas are registered under a fixed id so `#/components/schemas/X` resolves in both.
import { _, Ajv, type AnySchema, type KeywordCxt } from 'ajv';
import type { JSONSchema, OpenRPCDocument } from './load.ts';

/**
 * Marks an `integer` schema whose values may exceed 2^53 (D6: exact JSON integers such as a
 * balance in wei). Its TypeScript type is `number | bigint`, and its validator accepts a bigint (the
 * value a handler returns for such an integer) besides an integral number.
 */
export const BIGINT_KEYWORD = 'x-bigint';

/** Base id the components are registered under; method schemas' `#/...` refs are anchored to it. */
export const COMPONENTS_ID = 'urn:chain-node:openrpc';

export interface AjvSetup {
  /** Emit source for `ajv/dist/standalone` (ESM). */
  readonly standalone: boolean;
  /** Collect every error (checks) or stop at the first (the server's validators: fast). */
  readonly allErrors: boolean;
}

export function createAjv(doc: OpenRPCDocument, setup: AjvSetup): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: setup.allErrors,
    messages: true,
    // `format` is advisory in JSON Schema; the document's formats are not checked on the wire.
    validateFormats: false,
    ...(setup.standalone ? { code: { source: true, esm: true, lines: true } } : {}),
  });
  ajv.addKeyword({
    keyword: BIGINT_KEYWORD,
    schemaType: 'boolean',
    error: { message: 'must be an integer' },
    code: bigintCode,
  });
  ajv.addSchema({ $id: COMPONENTS_ID, components: { schemas: bigintAware(doc.components?.schemas ?? {}) } });
  return ajv;
}

/** `x-bigint: true`: an integral number, or a bigint within the schema's minimum/maximum. */
function bigintCode(cxt: KeywordCxt): void {
  if (cxt.schema !== true) return;
  const { data, parentSchema } = cxt;
  let big = _`typeof ${data} == "bigint"`;
  if (typeof parentSchema['minimum'] === 'number') big = _`${big} && ${data} >= BigInt(${Math.ceil(parentSchema['minimum'])})`;
  if (typeof parentSchema['maximum'] === 'number') big = _`${big} && ${data} <= BigInt(${Math.floor(parentSchema['maximum'])})`;
  cxt.fail(_`!((typeof ${data} == "number" && Number.isInteger(${data})) || (${big}))`);
}

/**
 * A copy of the schemas in which `x-bigint` integers drop `type: "integer"` (ajv's type check would
 * refuse a bigint before any keyword runs); the `x-bigint` keyword checks integer-ness instead, and
 * `minimum`/`maximum` still apply to numbers.
 */
function bigintAware<T>(node: T): T {
  if (Array.isArray(node)) return node.map(bigintAware) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = VALUE_KEYWORDS.has(k) ? v : bigintAware(v);
  if (out[BIGINT_KEYWORD] === true) {
    const types = Array.isArray(out['type']) ? (out['type'] as string[]) : out['type'] === undefined ? [] : [out['type'] as string];
    const rest = types.filter((t) => t !== 'integer' && t !== 'number');
    if (rest.length === 0) delete out['type'];
    else out['type'] = rest.length === 1 ? rest[0] : rest;
  }
  return out as T;
}

/** The ajv key of a component schema, e.g. `urn:chain-node:openrpc#/components/schemas/Block`. */
export function componentKey(name: string): string {
  return `${COMPONENTS_ID}#/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/**
 * A copy of a method-level schema whose local refs (`#/components/...`) point into the registered
 * components, so it can be added to ajv on its own. Values (`enum`, `const`, ...) are copied as is.
 */
export function anchorRefs(schema: JSONSchema): AnySchema {
  return bigintAware(anchor(schema)) as AnySchema;
}

function anchor(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(anchor);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#')) out[k] = COMPONENTS_ID + v;
    else if (VALUE_KEYWORDS.has(k)) out[k] = v;
    else out[k] = anchor(v);
  }
  return out;
}

/** One-line rendering of an ajv error: `at /from: must match pattern "..."`. */
export function formatAjvError(err: { instancePath: string; message?: string | undefined; params?: Record<string, unknown> }): string {
  let msg = err.message ?? 'is invalid';
  const extra = err.params?.['additionalProperty'];
  if (typeof extra === 'string') msg += ` (${JSON.stringify(extra)})`;
  const allowed = err.params?.['allowedValues'];
  if (Array.isArray(allowed)) msg += ` (${allowed.map((a) => JSON.stringify(a)).join(', ')})`;
  return err.instancePath ? `at ${err.instancePath}: ${msg}` : msg;
}
