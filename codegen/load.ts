// Reading the OpenRPC document, checking it against the OpenRPC meta-schema, and following local
// `$ref`s. Everything else in codegen/ works on the plain JSON returned here.
import { readFileSync } from 'node:fs';
import { validateOpenRPCDocument } from '@open-rpc/schema-utils-js';

/** A JSON Schema as it appears in the document (draft-07 as used by OpenRPC 1.3). */
export type JSONSchema = boolean | SchemaObject;

export interface SchemaObject {
  $ref?: string;
  title?: string;
  description?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  properties?: Record<string, JSONSchema>;
  required?: string[];
  additionalProperties?: JSONSchema;
  patternProperties?: Record<string, JSONSchema>;
  items?: JSONSchema | JSONSchema[];
  oneOf?: JSONSchema[];
  anyOf?: JSONSchema[];
  allOf?: JSONSchema[];
  [keyword: string]: unknown;
}

export interface Ref {
  $ref: string;
}

export interface ContentDescriptor {
  name: string;
  summary?: string;
  description?: string;
  schema: JSONSchema;
  required?: boolean;
  deprecated?: boolean;
}

export interface ExampleObject {
  name: string;
  value?: unknown;
  externalValue?: string;
  summary?: string;
  description?: string;
}

export interface ExamplePairing {
  name: string;
  description?: string;
  params: (ExampleObject | Ref)[];
  result?: ExampleObject | Ref;
}

export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface MethodObject {
  name: string;
  summary?: string;
  description?: string;
  params: (ContentDescriptor | Ref)[];
  result?: ContentDescriptor | Ref;
  errors?: (ErrorObject | Ref)[];
  examples?: (ExamplePairing | Ref)[];
  paramStructure?: 'by-position' | 'by-name' | 'either';
  deprecated?: boolean;
  [field: string]: unknown;
}

export interface OpenRPCDocument {
  openrpc: string;
  info: { title: string; version: string; description?: string };
  methods: (MethodObject | Ref)[];
  components?: {
    schemas?: Record<string, JSONSchema>;
    contentDescriptors?: Record<string, ContentDescriptor>;
    errors?: Record<string, ErrorObject>;
    examples?: Record<string, ExampleObject>;
    examplePairingObjects?: Record<string, ExamplePairing>;
    [kind: string]: unknown;
  };
  [field: string]: unknown;
}

/** A spec error: codegen reports every problem, one per line, and exits non-zero. */
export class CodegenError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'CodegenError';
    this.problems = problems;
  }
}

/** Reads and parses the document; a missing file or broken JSON is a CodegenError. */
export function readDocument(path: string): OpenRPCDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CodegenError([`cannot read ${path}: ${(e as Error).message}`]);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new CodegenError([`${path} is not valid JSON: ${(e as Error).message}`]);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new CodegenError([`${path} is not a JSON object`]);
  }
  return doc as OpenRPCDocument;
}

interface MetaSchemaError {
  schemaPath?: string;
  keyword?: string;
  dataPath?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * Validates the document against the OpenRPC meta-schema with @open-rpc/schema-utils-js.
 * Returns one line per distinct problem (empty when the document is valid).
 */
export function metaSchemaProblems(doc: OpenRPCDocument): string[] {
  let result: ReturnType<typeof validateOpenRPCDocument>;
  try {
    result = validateOpenRPCDocument(doc as unknown as Parameters<typeof validateOpenRPCDocument>[0]);
  } catch (e) {
    const first = String((e as Error).message ?? e).split('\n').find((l) => l.trim() && !l.startsWith('schema-utils-js') && !l.startsWith('-----'));
    return [`meta-schema: the document cannot be checked: ${first ?? String(e)}`];
  }
  if (result === true) return [];
  // The error only carries a message: two header lines, then the ajv errors as JSON.
  const message = result.message;
  const json = message.slice(message.indexOf('['));
  let errors: MetaSchemaError[];
  try {
    errors = JSON.parse(json) as MetaSchemaError[];
  } catch {
    return [`meta-schema: ${message.split('\n').join(' ')}`];
  }
  // A failed `xOrReference` oneOf (or a `type` anyOf, a boolean-or-object schema) reports every
  // branch: the object's own errors, the other branches' (no `$ref`, first key not allowed, wrong
  // type) and the oneOf itself. Keep the errors that explain it, when there are any.
  const pathOf = (e: MetaSchemaError): string => e.dataPath ?? e.instancePath ?? '';
  const noise = (e: MetaSchemaError): boolean => {
    if (e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'type') return true;
    if (e.keyword === 'required' && e.params?.['missingProperty'] === '$ref') return true;
    if (e.keyword !== 'additionalProperties') return false;
    const obj = valueAt(doc, pathOf(e));
    return obj !== null && typeof obj === 'object' && !('$ref' in obj) && Object.keys(obj)[0] === e.params?.['additionalProperty'];
  };
  const explained = new Set(errors.filter((e) => !noise(e)).map(pathOf));
  const lines = new Set<string>();
  for (const err of errors) {
    if (noise(err) && [...explained].some((p) => p.startsWith(pathOf(err)))) continue;
    const at = err.dataPath ?? err.instancePath ?? '';
    const allowed = err.params?.['allowedValues'];
    const extra =
      err.params && 'additionalProperty' in err.params
        ? ` (${String(err.params['additionalProperty'])})`
        : Array.isArray(allowed) && allowed.length <= 10
          ? ` (${allowed.map((a) => JSON.stringify(a)).join(', ')})`
          : '';
    lines.add(`meta-schema: ${at === '' ? 'document' : describePath(doc, at)}: ${err.message ?? 'invalid'}${extra}`);
  }
  return [...lines];
}

/** The value at an ajv 6 dataPath (`.methods[3].params[0]`, `['x-y']`) in the document. */
function valueAt(doc: OpenRPCDocument, dataPath: string): unknown {
  let node: unknown = doc;
  for (const m of dataPath.matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]/g)) {
    const key = m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]!.replace(/\\(.)/g, '$1'));
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** Turns an ajv 6 dataPath such as `.methods[3].params[0]` into `methods[3] (eth_call).params[0]`. */
function describePath(doc: OpenRPCDocument, dataPath: string): string {
  const path = dataPath.replace(/^\./, '');
  const m = /^methods\[(\d+)\]/.exec(path);
  if (m) {
    const method = doc.methods[Number(m[1])];
    if (method && typeof method === 'object' && 'name' in method && typeof method.name === 'string') {
      return `methods[${m[1]}] (${method.name})${path.slice(m[0].length)}`;
    }
  }
  return path;
}

export function isRef(x: unknown): x is Ref {
  return typeof x === 'object' && x !== null && typeof (x as Ref).$ref === 'string';
}

/** Resolves a local JSON pointer reference (`#/components/...`) in the document. */
export function resolvePointer(doc: OpenRPCDocument, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  if (ref === '#') return doc;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * Follows `$ref`s (a chain of them, too) from `x` to the referenced object. Problems (dangling or
 * circular references) are pushed to `problems` with `where` as the location.
 */
export function deref<T>(doc: OpenRPCDocument, x: T | Ref, where: string, problems: string[]): T | undefined {
  const seen = new Set<string>();
  let node: unknown = x;
  while (isRef(node)) {
    if (seen.has(node.$ref)) {
      problems.push(`${where}: circular $ref ${node.$ref}`);
      return undefined;
    }
    seen.add(node.$ref);
    const next = resolvePointer(doc, node.$ref);
    if (next === undefined) {
      problems.push(`${where}: $ref ${node.$ref} does not resolve`);
      return undefined;
    }
    node = next;
  }
  return node as T;
}

/** The component schema name a `$ref` points at (`#/components/schemas/Block` → `Block`), else undefined. */
export function schemaRefName(ref: string): string | undefined {
  const m = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
  return m ? decodeURIComponent(m[1]!).replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}
