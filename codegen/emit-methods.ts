// generated/methods.ts: the method table the dispatcher routes by, and the pattern labels it uses
// to phrase validation errors.
import type { ValidatorNames } from './emit-validators.ts';
import { requiredCount, type Model } from './model.ts';
import { patternLabels } from './patterns.ts';
import { HEADER, str } from './text.ts';

const PREAMBLE = `import type { Handlers } from './handlers.ts';
import type { Validate } from './validators.js';
import * as v from './validators.js';

export type { Validate };

/** One JSON-RPC method: where it is served and how its params and result are validated. */
export interface MethodSpec {
  /** Wire name, e.g. \`chain_getBalance\`. */
  readonly name: string;
  /** Handler group serving it (\`chain_\` methods are served by \`eth\`). */
  readonly group: keyof Handlers;
  /** Property of the group's handler interface (the method suffix). */
  readonly key: string;
  /** Param names, in position order. */
  readonly params: readonly string[];
  /** Number of leading required params. */
  readonly required: number;
  readonly validateParams: readonly Validate[];
  readonly validateResult: Validate;
}`;

export function emitMethods(model: Model, validators: ValidatorNames): string {
  const out = [HEADER, PREAMBLE, '', '/** Every method of openrpc.json, by wire name. */'];
  out.push('export const methods: ReadonlyMap<string, MethodSpec> = new Map<string, MethodSpec>([');
  for (const m of model.methods) {
    const params = m.params.map((p) => str(p.name)).join(', ');
    const vp = (validators.params.get(m.name) ?? []).map((n) => `v.${n}`).join(', ');
    const vr = `v.${validators.result.get(m.name)!}`;
    out.push(
      `  [${str(m.name)}, { name: ${str(m.name)}, group: ${str(m.group)}, key: ${str(m.key)}, ` +
        `params: [${params}], required: ${requiredCount(m.params)}, validateParams: [${vp}], validateResult: ${vr} }],`,
    );
  }
  out.push(']);', '');
  out.push('/** Regex `pattern`s of the document → a short human label ("must be a <label>"). */');
  out.push('export const patternLabels: Readonly<Record<string, string>> = {');
  for (const [pattern, label] of patternLabels(model)) out.push(`  ${str(pattern)}: ${str(label)},`);
  out.push('};', '');
  return out.join('\n');
}
