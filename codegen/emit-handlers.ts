// generated/handlers.ts: one handler interface per group (eth serves eth_ and chain_), keyed by
// method suffix, positional typed params then `ctx: CallContext`, results `Awaitable<T>`.
import { groupInterfaceName, requiredCount, type MethodModel, type Model } from './model.ts';
import { newTsContext, tsType, union } from './emit-types.ts';
import { docComment, HEADER } from './text.ts';

const PREAMBLE = `export type Awaitable<T> = T | Promise<T>;

/** What a handler knows about the call it serves. */
export interface CallContext {
  readonly transport: 'http' | 'ws';
  readonly method: string;
  /** the client's IP address as the socket gives it (per-client quotas) */
  readonly remoteAddress?: string;
  /** push a notification on this connection (ws only); returns false if the connection is gone or over its buffer */
  notify?(method: string, params: unknown): boolean;
  /** register cleanup for when the connection closes (ws only) */
  onClose?(fn: () => void): void;
}`;

/** The methods each group's interface declares: first method per key (eth_X before chain_X). */
export function groupMethods(model: Model): Map<string, MethodModel[]> {
  const groups = new Map<string, MethodModel[]>(model.groups.map((g) => [g, []]));
  const ordered = [...model.methods].sort((a, b) => nsRank(a, b) || a.index - b.index);
  for (const m of ordered) {
    const list = groups.get(m.group)!;
    if (!list.some((x) => x.key === m.key)) list.push(m);
  }
  for (const list of groups.values()) list.sort((a, b) => a.index - b.index);
  return groups;
}

/** Within a group, the group's own namespace wins over an alias (eth_X over chain_X). */
function nsRank(a: MethodModel, b: MethodModel): number {
  return Number(a.namespace !== a.group) - Number(b.namespace !== b.group);
}

export function emitHandlers(model: Model): string {
  const ctx = newTsContext();
  const body: string[] = [];
  const groups = groupMethods(model);
  for (const [group, methods] of groups) {
    const namespaces = [...new Set(model.methods.filter((m) => m.group === group).map((m) => `${m.namespace}_*`))];
    body.push(docComment(`Handlers for ${namespaces.join(' and ')} methods.`, ''));
    body.push(`export interface ${groupInterfaceName(group)} {`);
    methods.forEach((m, i) => {
      if (i > 0) body.push('');
      const served = model.methods.filter((x) => x.group === group && x.key === m.key).map((x) => x.name);
      body.push(handlerSignature(m, served, ctx));
    });
    body.push('}', '');
  }
  body.push(docComment('Every handler group, keyed by the group name (the method namespace; chain_ is served by eth).', ''));
  body.push('export interface Handlers {');
  for (const group of groups.keys()) body.push(`  ${group}: ${groupInterfaceName(group)};`);
  body.push('}', '');

  const out = [HEADER];
  const used = [...ctx.used].sort();
  const one = `import type { ${used.join(', ')} } from './types.ts';`;
  if (used.length > 0) out.push(one.length <= 110 ? one : `import type {\n${used.map((u) => `  ${u},`).join('\n')}\n} from './types.ts';`);
  out.push('', PREAMBLE, '', ...body);
  return out.join('\n');
}

function handlerSignature(m: MethodModel, served: readonly string[], ctx: ReturnType<typeof newTsContext>): string {
  const indent = '  ';
  const required = requiredCount(m.params);
  const tags: string[] = [];
  for (const p of m.params) if (p.description) tags.push(`@param ${p.name} ${oneLine(p.description)}`);
  if (m.result?.description) tags.push(`@returns ${oneLine(m.result.description)}`);
  if (m.deprecated) tags.push('@deprecated');
  const summary = m.summary ?? firstParagraph(m.description) ?? m.name;
  const lines = [docComment(`${served.join(', ')}: ${summary}`, indent, tags)];
  const params = m.params.map((p, i) => {
    const t = tsType(p.schema, ctx, indent + '  ');
    return `${p.name}: ${i < required ? t : union([t, 'undefined'], indent + '  ')}`;
  });
  params.push('ctx: CallContext');
  const result = m.result ? tsType(m.result.schema, ctx, indent) : 'void';
  const single = `${indent}${m.key}(${params.join(', ')}): Awaitable<${result}>;`;
  if (single.length <= 110 && !single.includes('\n')) lines.push(single);
  else lines.push(`${indent}${m.key}(\n${params.map((p) => `${indent}  ${p},`).join('\n')}\n${indent}): Awaitable<${result}>;`);
  return lines.join('\n');
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function firstParagraph(s: string | undefined): string | undefined {
  return s?.split(/\n\s*\n/)[0]?.trim();
}
