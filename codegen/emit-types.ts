// JSON Schema → TypeScript type expressions, and generated/types.ts (one type per component schema).
import { schemaRefName, type JSONSchema, type SchemaObject } from './load.ts';
import type { Model } from './model.ts';
import { BIGINT_KEYWORD } from './schema-ajv.ts';
import { docComment, HEADER } from './text.ts';

export interface TsContext {
  /** Component type names referenced so far (for `import type`). */
  readonly used: Set<string>;
}

export function newTsContext(): TsContext {
  return { used: new Set() };
}

const PROPERTY_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The TypeScript type for a schema. `indent` is the indentation of the line the type starts on
 * (object literals are laid out over several lines).
 */
export function tsType(schema: JSONSchema | undefined, ctx: TsContext, indent = ''): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema.$ref === 'string') {
    const name = schemaRefName(schema.$ref);
    if (name === undefined) return 'unknown';
    ctx.used.add(name);
    return name;
  }
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal), indent);

  const parts: string[] = [];
  const base = baseType(schema, ctx, indent);
  if (base !== undefined) parts.push(base);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    const alts = alternatives.map((a) => tsType(a, ctx, indent));
    // A branch that only adds constraints (`required`, `pattern`) says nothing about the type.
    if (!alts.includes('unknown')) parts.push(union(alts, indent));
  }
  for (const sub of schema.allOf ?? []) {
    const t = tsType(sub, ctx, indent);
    if (t !== 'unknown') parts.push(t);
  }
  if (parts.length === 0) return 'unknown';
  if (parts.length === 1) return parts[0]!;
  return parts.map((p) => (topLevelOperator(p) ? `(${p})` : p)).join(' & ');
}

function baseType(schema: SchemaObject, ctx: TsContext, indent: string): string | undefined {
  let types: string[];
  if (Array.isArray(schema.type)) types = schema.type;
  else if (typeof schema.type === 'string') types = [schema.type];
  // (`required` alone does not make an object type: `oneOf: [{required: [a]}, ...]` only constrains.)
  else if (schema.properties || schema.additionalProperties !== undefined || schema.patternProperties) types = ['object'];
  else if (schema.items !== undefined) types = ['array'];
  else return undefined;
  return union(
    types.map((t) => {
      switch (t) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return schema[BIGINT_KEYWORD] === true ? 'number | bigint' : 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return arrayType(schema, ctx, indent);
        case 'object':
          return objectType(schema, ctx, indent);
        default:
          return 'unknown';
      }
    }),
    indent,
  );
}

function arrayType(schema: SchemaObject, ctx: TsContext, indent: string): string {
  const items = schema.items;
  let element: string;
  if (items === undefined) element = 'unknown';
  else if (Array.isArray(items)) element = items.length === 0 ? 'unknown' : union(items.map((i) => tsType(i, ctx, indent)), indent);
  else element = tsType(items, ctx, indent);
  return topLevelOperator(element) ? `(${element})[]` : `${element}[]`;
}

function objectType(schema: SchemaObject, ctx: TsContext, indent: string): string {
  const props = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  for (const r of required) if (!schema.properties || !(r in schema.properties)) props.push([r, true]);
  const ap = schema.additionalProperties;
  const extraSchemas: JSONSchema[] = [...(ap !== undefined && ap !== true && ap !== false ? [ap] : []), ...Object.values(schema.patternProperties ?? {})];
  const extraTypes = (at: string): string[] => extraSchemas.map((x) => tsType(x, ctx, at));

  if (props.length === 0) {
    const extra = extraTypes(indent);
    if (ap === false && extra.length === 0) return 'Record<string, never>';
    return `Record<string, ${extra.length > 0 ? union(extra, indent) : 'unknown'}>`;
  }
  const inner = indent + '  ';
  const lines: string[] = ['{'];
  const propTypes: string[] = [];
  for (const [name, sub] of props) {
    const t = tsType(sub, ctx, inner);
    propTypes.push(t);
    const desc = typeof sub === 'object' && typeof sub.description === 'string' ? sub.description : undefined;
    if (desc) lines.push(docComment(desc, inner));
    const key = PROPERTY_NAME.test(name) ? name : JSON.stringify(name);
    lines.push(`${inner}${key}${required.has(name) ? '' : '?'}: ${t};`);
  }
  const extra = extraTypes(inner);
  if (extra.length > 0) {
    // An index signature must admit every declared property's type.
    const all = union([...extra, ...propTypes, ...(props.some(([n]) => !required.has(n)) ? ['undefined'] : [])], inner);
    lines.push(`${inner}[key: string]: ${all};`);
  }
  lines.push(`${indent}}`);
  return lines.join('\n');
}

/** Union of distinct members; `unknown` absorbs everything, `never` disappears. */
export function union(members: readonly string[], indent = ''): string {
  const distinct = [...new Set(members)].filter((m) => m !== 'never');
  if (distinct.includes('unknown')) return 'unknown';
  if (distinct.length === 0) return 'never';
  if (distinct.length === 1) return distinct[0]!;
  // `&` binds tighter than `|`: intersections need no parentheses here.
  const parts = distinct;
  const oneLine = parts.join(' | ');
  if (oneLine.length + indent.length <= 100 && !oneLine.includes('\n')) return oneLine;
  // Members laid out over several lines move right by the `| ` prefix's indentation.
  return parts.map((p) => `\n${indent}  | ${p.replace(/\n/g, '\n  ')}`).join('');
}

function literal(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return 'unknown';
}

/** True when `t` has a `|` (or the given operator) outside brackets and string literals. */
function topLevelOperator(t: string, ops = '|&'): boolean {
  let depth = 0;
  let quote = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === '"') quote = false;
    } else if (c === '"') quote = true;
    else if (c === '{' || c === '(' || c === '<' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === '>' || c === ']') depth--;
    else if (depth === 0 && ops.includes(c)) return true;
  }
  return false;
}

/** generated/types.ts */
export function emitTypes(model: Model): string {
  const out: string[] = [HEADER, ''];
  for (const [key, schema] of model.schemas) {
    const ctx = newTsContext();
    const t = tsType(schema, ctx);
    const desc = typeof schema === 'object' ? schema.description : undefined;
    if (desc) out.push(docComment(desc, ''));
    if (t.startsWith('{') && t.endsWith('}') && !topLevelOperator(t)) out.push(`export interface ${key} ${t}`);
    else out.push(`export type ${key} =${t.startsWith('\n') ? '' : ' '}${t};`);
    out.push('');
  }
  if (model.schemas.length === 0) out.push('export {};', '');
  return out.join('\n');
}
