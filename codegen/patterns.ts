// Human labels for the regex `pattern`s of the document, so the server can say "must be a 20-byte
// hex address" instead of quoting a regex. Labels come from the schema's description (its first
// clause) or, failing that, its title.
import type { JSONSchema, SchemaObject } from './load.ts';
import type { Model } from './model.ts';

const MAX_LABEL = 60;

/** `[pattern, label]` pairs; the first label found for a pattern wins (component roots first). */
export function patternLabels(model: Model): [string, string][] {
  const labels = new Map<string, string>();
  const add = (pattern: string, label: string | undefined): void => {
    if (label && !labels.has(pattern)) labels.set(pattern, label);
  };
  // 1. A component that is itself a pattern-checked string: its own description/title.
  for (const [key, schema] of model.schemas) {
    if (typeof schema === 'object' && typeof schema.pattern === 'string') {
      add(schema.pattern, shortLabel(schema.description) ?? titleWords(schema.title ?? key));
    }
  }
  // 2. Patterns nested in components and in method params/results.
  for (const [key, schema] of model.schemas) walk(schema, titleWords(key), add);
  for (const m of model.methods) {
    for (const p of m.params) walk(p.schema, shortLabel(p.description) ?? titleWords(p.name), add);
    if (m.result) walk(m.result.schema, shortLabel(m.result.description) ?? titleWords(m.result.name), add);
  }
  return [...labels];
}

const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

function walk(node: JSONSchema | undefined, context: string, add: (pattern: string, label: string | undefined) => void): void {
  if (node === undefined || typeof node !== 'object') return;
  const s = node as SchemaObject;
  if (typeof s.pattern === 'string') add(s.pattern, shortLabel(s.description) ?? (s.title ? titleWords(s.title) : context));
  for (const [k, v] of Object.entries(s)) {
    if (VALUE_KEYWORDS.has(k) || v === null || typeof v !== 'object') continue;
    if (k === 'properties' || k === 'patternProperties' || k === 'definitions' || k === '$defs') {
      for (const [name, sub] of Object.entries(v as Record<string, JSONSchema>)) {
        walk(sub, k === 'properties' ? `${context} ${titleWords(name)}` : context, add);
      }
    } else if (Array.isArray(v)) {
      for (const sub of v) walk(sub as JSONSchema, context, add);
    } else {
      walk(v as JSONSchema, context, add);
    }
  }
}

/**
 * The first clause of a description as a noun phrase: "A 20-byte hex address, 0x-prefixed." →
 * "20-byte hex address, 0x-prefixed". Undefined when there is no description or it is too long.
 */
export function shortLabel(description: string | undefined): string | undefined {
  if (!description) return undefined;
  let s = description.trim().split('\n')[0]!;
  s = s.split(/(?<=[A-Za-z0-9)\]`'"])\.(?:\s|$)|;\s|:\s/)[0]!.trim();
  s = s.replace(/\.$/, '').replace(/^(a|an|the)\s+/i, '');
  if (s === '' || s.length > MAX_LABEL) return undefined;
  return lowerFirst(s);
}

/** `BlockNumberOrTag` → `block number or tag`. */
export function titleWords(title: string): string {
  return title
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/\s+/)
    .map((w) => (/^[A-Z][a-z]/.test(w) ? w.toLowerCase() : w))
    .join(' ');
}

function lowerFirst(s: string): string {
  const first = s.split(/\s/)[0]!;
  // Keep acronyms and code-ish words as written (ECDSA, RLP, 0x-prefixed).
  if (/^[A-Z][a-z]/.test(first)) return s.charAt(0).toLowerCase() + s.slice(1);
  return s;
}
