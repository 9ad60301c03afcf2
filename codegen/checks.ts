// The document conventions codegen enforces (docs/architecture.md, "openrpc.json conventions").
// Every check returns one line per problem; an empty list means the check passed.
import type { ValidateFunction } from 'ajv';
import { canonicalJson, firstDifference } from './json.ts';
import { deref, isRef, resolvePointer, type ContentDescriptor, type ErrorObject, type ExamplePairing, type JSONSchema, type OpenRPCDocument } from './load.ts';
import type { MethodModel, Model, ParamModel } from './model.ts';
import { anchorRefs, componentKey, createAjv, formatAjvError } from './schema-ajv.ts';
import { ORIGINS, originsOf } from '../docs/page/origin.ts';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Words a parameter (a TypeScript parameter name) cannot be. */
const RESERVED_WORDS = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval').split(' '),
);

/** Names a component type cannot take: they would shadow what generated code uses. */
const RESERVED_TYPE_NAMES = new Set([
  'Awaitable', 'CallContext', 'Handlers', 'MethodSpec', 'Validate', 'Record', 'Array', 'Promise', 'Object', 'String',
  'Number', 'Boolean', 'ReadonlyMap', 'Map', 'Readonly', 'unknown', 'never', 'any', 'string', 'number', 'boolean',
  'object', 'symbol', 'bigint', 'undefined', 'null', 'void',
]);

/** Every `components/schemas` entry is an object schema whose `title` equals its key (the type name). */
export function checkSchemaTitles(doc: OpenRPCDocument): string[] {
  const problems: string[] = [];
  for (const [key, schema] of Object.entries(doc.components?.schemas ?? {})) {
    const where = `components/schemas/${key}`;
    if (!IDENTIFIER.test(key) || RESERVED_WORDS.has(key) || RESERVED_TYPE_NAMES.has(key)) {
      problems.push(`${where}: key is not usable as a TypeScript type name`);
    }
    if (schema === null || typeof schema !== 'object') {
      problems.push(`${where}: must be a schema object with "title": "${key}"`);
    } else if (schema.title === undefined) {
      problems.push(`${where}: missing "title" (must be "${key}")`);
    } else if (schema.title !== key) {
      problems.push(`${where}: title "${String(schema.title)}" differs from its key "${key}"`);
    }
  }
  return problems;
}

/** Every `$ref` inside a schema (components and method params/results) resolves. */
export function checkSchemaRefs(doc: OpenRPCDocument): string[] {
  const problems: string[] = [];
  for (const [key, schema] of Object.entries(doc.components?.schemas ?? {})) {
    walkRefs(doc, schema, `components/schemas/${key}`, problems);
  }
  for (const [key, cd] of Object.entries(doc.components?.contentDescriptors ?? {})) {
    walkRefs(doc, cd?.schema, `components/contentDescriptors/${key}.schema`, problems);
  }
  doc.methods.forEach((m, i) => {
    if (isRef(m) || !m || typeof m !== 'object') return;
    const name = typeof m.name === 'string' ? m.name : `methods[${i}]`;
    (m.params ?? []).forEach((p, j) => {
      if (!isRef(p) && p && typeof p === 'object') walkRefs(doc, p.schema, `${name}: params[${j}] (${p.name}).schema`, problems);
    });
    if (m.result && !isRef(m.result)) walkRefs(doc, m.result.schema, `${name}: result.schema`, problems);
  });
  return problems;
}

const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

function walkRefs(doc: OpenRPCDocument, node: unknown, where: string, problems: string[]): void {
  if (Array.isArray(node)) {
    node.forEach((n, i) => walkRefs(doc, n, `${where}[${i}]`, problems));
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') {
      if (!v.startsWith('#/components/schemas/')) problems.push(`${where}: $ref ${v} must point into #/components/schemas/`);
      else if (resolvePointer(doc, v) === undefined) problems.push(`${where}: $ref ${v} does not resolve`);
    } else if (!VALUE_KEYWORDS.has(k)) {
      walkRefs(doc, v, `${where}.${k}`, problems);
    }
  }
}

/** References to our design notes ("DESIGN D4", "(A19)"): they mean nothing to a reader of the docs page. */
const DESIGN_REFERENCE = /\bDESIGN\b|\([AD]\d{1,2}\)/;
const PROSE_KEYS = new Set(['summary', 'description', 'title']);

/** Summaries, descriptions and titles speak to users: the docs page shows them. */
export function checkProse(doc: OpenRPCDocument): string[] {
  const problems: string[] = [];
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (PROSE_KEYS.has(k) && typeof v === 'string' && DESIGN_REFERENCE.test(v)) problems.push(`${where}.${k}: refers to design notes (${DESIGN_REFERENCE.exec(v)![0]}); say it in words`);
      else walk(v, `${where}.${k}`);
    }
  };
  walk(doc.info, 'info');
  walk(doc.servers, 'servers');
  for (const m of doc.methods) walk(m, String((m as { name?: unknown }).name));
  walk(doc.components, 'components');
  return problems;
}

/** Param names are identifiers, unique, not `ctx`; required params come before optional ones. */
export function checkParams(model: Model): string[] {
  const problems: string[] = [];
  for (const m of model.methods) {
    const names = new Set<string>();
    let firstOptional: ParamModel | undefined;
    m.params.forEach((p, i) => {
      const where = `${m.name}: params[${i}] "${p.name}"`;
      if (!IDENTIFIER.test(p.name) || RESERVED_WORDS.has(p.name)) problems.push(`${where}: param name is not an identifier`);
      else if (p.name === 'ctx') problems.push(`${where}: "ctx" is reserved for the handler's CallContext`);
      if (names.has(p.name)) problems.push(`${where}: duplicate param name`);
      names.add(p.name);
      if (!p.required) firstOptional ??= p;
      else if (firstOptional) problems.push(`${where}: required param follows optional param "${firstOptional.name}"`);
    });
  }
  return problems;
}

/** `x-cache`, where given, is `"head"` (the one caching rule the server knows: generated/head-cached.ts). */
export function checkCacheMarks(model: Model): string[] {
  const problems: string[] = [];
  for (const m of model.methods) {
    const mark = (m.raw as Record<string, unknown>)['x-cache'];
    if (mark !== undefined && mark !== 'head') problems.push(`${m.name}: x-cache must be "head", got ${JSON.stringify(mark)}`);
  }
  return problems;
}

/** Every method names where it comes from with exactly one origin tag (the docs page shows it). */
export function checkOrigins(model: Model): string[] {
  const problems: string[] = [];
  const allowed = Object.keys(ORIGINS).map((name) => `{ "name": "${name}" }`).join(' or ');
  for (const m of model.methods) {
    const found = originsOf(m.raw as { tags?: unknown[] });
    if (found.length !== 1) problems.push(`${m.name}: needs exactly one origin tag, ${allowed}; has ${found.length}`);
  }
  return problems;
}

/** The parts of a method that must be identical between `eth_X` and `chain_X`. */
const PARITY_FIELDS = ['params', 'result', 'errors', 'examples', 'paramStructure', 'deprecated', 'x-cache', 'tags'] as const;

/** Every `eth_X` has a `chain_X` and vice versa, with identical params / result / errors / examples. */
export function checkParity(model: Model): string[] {
  const problems: string[] = [];
  const byName = new Map(model.methods.map((m) => [m.name, m]));
  for (const m of model.methods) {
    if (m.namespace !== 'eth' && m.namespace !== 'chain') continue;
    const otherName = `${m.namespace === 'eth' ? 'chain' : 'eth'}_${m.key}`;
    const other = byName.get(otherName);
    if (!other) {
      problems.push(`${m.name}: has no ${otherName} (every eth_X needs a chain_X and vice versa)`);
      continue;
    }
    if (m.namespace !== 'eth') continue; // report each pair once
    // Compared namespace-neutrally: an example named "eth_getBalance" matches one named "chain_getBalance".
    const a = neutral(canonicalJson(parityView(model.doc, m)));
    const b = neutral(canonicalJson(parityView(model.doc, other)));
    if (a === b) continue;
    const diff = firstDifference(JSON.parse(a), JSON.parse(b));
    problems.push(`${m.name} and ${other.name} differ at ${diff ?? '?'} (params/result/errors/examples/tags must be identical)`);
  }
  return problems;
}

function neutral(json: string): string {
  return json.replace(/\b(eth|chain)_(?=[A-Za-z])/g, '<ns>_');
}

/** The method's contract with top-level `$ref`s followed (so a ref and its inline copy compare equal). */
function parityView(doc: OpenRPCDocument, m: MethodModel): Record<string, unknown> {
  const sink: string[] = [];
  const view: Record<string, unknown> = {};
  for (const field of PARITY_FIELDS) {
    const v = m.raw[field];
    if (v === undefined) continue;
    if (field === 'params' || field === 'errors' || field === 'examples') {
      view[field] = (v as unknown[]).map((x) => deref<ContentDescriptor | ErrorObject | ExamplePairing>(doc, x as ContentDescriptor, m.name, sink) ?? x);
    } else if (field === 'result') {
      view[field] = deref<ContentDescriptor>(doc, v as ContentDescriptor, m.name, sink) ?? v;
    } else {
      view[field] = v;
    }
  }
  return view;
}

/**
 * Every component schema compiles, and every example's param and result values validate against
 * their own schemas. Reports method, example name, param name and the ajv message.
 */
export function checkExamples(model: Model): string[] {
  const problems: string[] = [];
  const ajv = createAjv(model.doc, { standalone: false, allErrors: true });
  for (const [key] of model.schemas) {
    try {
      ajv.getSchema(componentKey(key));
    } catch (e) {
      problems.push(`components/schemas/${key}: does not compile: ${(e as Error).message}`);
    }
  }
  if (problems.length > 0) return problems;
  const cache = new Map<string, ValidateFunction | Error>();
  const compile = (schema: JSONSchema): ValidateFunction | Error => {
    const anchored = anchorRefs(schema);
    const key = canonicalJson(anchored);
    let v = cache.get(key);
    if (v === undefined) {
      try {
        v = ajv.compile(anchored);
      } catch (e) {
        v = e as Error;
      }
      cache.set(key, v);
    }
    return v;
  };
  const check = (schema: JSONSchema, value: unknown, where: string): void => {
    const v = compile(schema);
    if (v instanceof Error) {
      problems.push(`${where}: schema does not compile: ${v.message}`);
    } else if (!v(value)) {
      const errs = (v.errors ?? []).slice(0, 3).map(formatAjvError);
      problems.push(`${where}: ${errs.join('; ') || 'invalid'}`);
    }
  };
  for (const m of model.methods) {
    if (m.examples.length === 0) continue;
    for (const ex of m.examples) {
      const label = `${m.name}: example "${ex.name}"`;
      const given = new Set<string>();
      ex.params.forEach((ep, i) => {
        const param = m.params.find((p) => p.name === ep.name) ?? m.params[i];
        if (!param) {
          problems.push(`${label}: param "${ep.name}" (params[${i}]) is not a param of the method`);
          return;
        }
        given.add(param.name);
        if (ep.value === undefined) return; // externalValue: nothing to check
        check(param.schema, ep.value, `${label}: param "${param.name}"`);
      });
      for (const p of m.params) {
        if (p.required && !given.has(p.name)) problems.push(`${label}: required param "${p.name}" is missing`);
      }
      if (ex.result !== undefined && ex.result.value !== undefined) {
        if (!m.result) problems.push(`${label}: has a result but the method declares none`);
        else check(m.result.schema, ex.result.value, `${label}: result "${ex.result.name}"`);
      }
    }
  }
  return problems;
}
