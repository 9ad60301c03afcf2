// checkResults: a handler's result against its method's result schema. A mismatch is our bug, not
// the client's, so the caller answers -32603 and logs; this module only says what is wrong.
import { explainFailure, runValidator, type PatternLabels } from '../codec/validation-message.ts';
import type { Validate } from './types.ts';

/** Deeper than this, a result is not searched for bigints (our results nest a few levels). */
const MAX_DEPTH = 64;

/**
 * "" when the result matches; else "<path> <what is wrong>". A bigint (D6: exact JSON
 * integers) fails ajv's `integer`, which checks `typeof === 'number'`, so a failing result that
 * holds bigints is checked again with them as numbers: the wire carries them as integers.
 */
export function resultProblem(validate: Validate, result: unknown, labels: PatternLabels): string {
  if (runValidator(validate, result)) return '';
  const { path, message } = explainFailure(validate, labels);
  const asNumbers = bigintsAsNumbers(result, 0);
  if (asNumbers !== result && runValidator(validate, asNumbers)) return '';
  return path ? `${path} ${message}` : message;
}

/** The same value with bigints turned into numbers; the very same object when it holds none. */
function bigintsAsNumbers(v: unknown, depth: number): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'object' || v === null || depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const c = bigintsAsNumbers(v[i], depth + 1);
      if (c !== v[i]) (out ??= v.slice())[i] = c;
    }
    return out ?? v;
  }
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(v)) {
    const before = (v as Record<string, unknown>)[k];
    const c = bigintsAsNumbers(before, depth + 1);
    if (c !== before) (out ??= { ...(v as Record<string, unknown>) })[k] = c;
  }
  return out ?? v;
}
