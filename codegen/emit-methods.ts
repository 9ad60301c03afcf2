// generated/methods.ts: the method table the dispatcher routes by, and the pattern labels it uses
// to phrase validation errors; generated/client/param-checks.ts: its param half, for the client SDK
// and the docs page, which check params before sending and never see a result to validate (the
// param validators are about a quarter of validators.js).
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
  out.push(']);', '', ...patternLabelsBlock(model));
  return out.join('\n');
}

const PARAM_CHECKS_PREAMBLE = `// What the client checks before sending (src/client/validate.ts): each method's params and their
// validators, and the labels of the validation messages — the param half of generated/methods.ts.
import type { Validate } from '../validators.js';
import * as v from '../validators.js';

export interface ParamSpec {
  /** Param names, in position order. */
  readonly params: readonly string[];
  /** Number of leading required params. */
  readonly required: number;
  readonly validateParams: readonly Validate[];
}`;

export function emitParamChecks(model: Model, validators: ValidatorNames): string {
  const out = [HEADER, PARAM_CHECKS_PREAMBLE, '', '/** Every method of openrpc.json, by wire name. */'];
  out.push('export const paramChecks: ReadonlyMap<string, ParamSpec> = new Map<string, ParamSpec>([');
  for (const m of model.methods) {
    const params = m.params.map((p) => str(p.name)).join(', ');
    const vp = (validators.params.get(m.name) ?? []).map((n) => `v.${n}`).join(', ');
    out.push(`  [${str(m.name)}, { params: [${params}], required: ${requiredCount(m.params)}, validateParams: [${vp}] }],`);
  }
  out.push(']);', '', ...patternLabelsBlock(model));
  return out.join('\n');
}

function patternLabelsBlock(model: Model): string[] {
  return [
    '/** Regex `pattern`s of the document → a short human label ("must be a <label>"). */',
    'export const patternLabels: Readonly<Record<string, string>> = {',
    ...patternLabels(model).map(([pattern, label]) => `  ${str(pattern)}: ${str(label)},`),
    '};',
    '',
  ];
}
