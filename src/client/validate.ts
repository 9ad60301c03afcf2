// Client-side param validation with the generated validators: the same checks in the same order
// as the node's dispatcher (src/rpc/dispatch.ts), so a call refused here would have been refused
// by the node with -32602 and a message of the same form (worded with the generated pattern labels).
import { INVALID_PARAMS } from '../codec/jsonrpc-errors.ts';
import { explainFailure, runValidator, type PatternLabels } from '../codec/validation-message.ts';
import type { ErrorObject } from './errors.ts';
import type { ParamSpec } from '../../generated/client/param-checks.ts';

/** generated/client/param-checks.ts's `paramChecks` and `patternLabels`. */
export interface MethodTable {
  readonly methods: ReadonlyMap<string, ParamSpec>;
  readonly patternLabels: PatternLabels;
}

/** The error the node would answer for these params, or undefined when they pass. */
export function checkParams(table: MethodTable, method: string, params: readonly unknown[]): ErrorObject | undefined {
  const spec = table.methods.get(method);
  // rpc.discover, and methods a newer node may have, are not in our table: the node decides.
  if (!spec) return undefined;
  const n = spec.params.length;
  if (params.length > n) return { code: INVALID_PARAMS, message: `too many arguments, want at most ${n}` };
  if (params.length < spec.required) return { code: INVALID_PARAMS, message: `missing value for required argument ${params.length} (${spec.params[params.length]})` };
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    if (value === undefined || (value === null && i >= spec.required)) {
      if (i >= spec.required) continue;
      return { code: INVALID_PARAMS, message: `missing value for required argument ${i} (${spec.params[i]})` };
    }
    const validate = spec.validateParams[i]!;
    if (runValidator(validate, value)) continue;
    const { path, message } = explainFailure(validate, table.patternLabels);
    return { code: INVALID_PARAMS, message: `invalid argument ${i} (${spec.params[i]})${path ? ' at ' + path : ''}: ${message}` };
  }
  return undefined;
}
