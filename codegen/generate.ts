// The whole generator as one pure function: document in, generated files (name → text) out, or a
// CodegenError listing every problem found.
import { checkCacheMarks, checkExamples, checkOrigins, checkParams, checkParity, checkProse, checkSchemaRefs, checkSchemaTitles } from './checks.ts';
import { emitClient } from './emit-client.ts';
import { emitHandlers } from './emit-handlers.ts';
import { emitHeadCached } from './emit-head-cached.ts';
import { emitMethods, emitParamChecks } from './emit-methods.ts';
import { emitTypes } from './emit-types.ts';
import { emitValidators } from './emit-validators.ts';
import { CodegenError, metaSchemaProblems, type OpenRPCDocument } from './load.ts';
import { buildModel, type Model } from './model.ts';

export interface Generated {
  /** File path inside generated/ (`client/api.ts` for the SDK) → contents. */
  readonly files: Readonly<Record<string, string>>;
  readonly model: Model;
  /** Number of distinct validator functions. */
  readonly validators: number;
}

/** Runs every check on the document; throws a CodegenError with one line per problem. */
export function checkDocument(doc: OpenRPCDocument): Model {
  const meta = metaSchemaProblems(doc);
  // A document that fails the meta-schema has no trustworthy shape: stop there.
  if (meta.length > 0) throw new CodegenError(meta);
  const problems: string[] = [];
  const refs = checkSchemaRefs(doc);
  problems.push(...checkSchemaTitles(doc), ...refs, ...checkProse(doc));
  const model = buildModel(doc, problems);
  problems.push(...checkParams(model), ...checkParity(model), ...checkCacheMarks(model), ...checkOrigins(model));
  // Example values can only be checked against schemas whose refs resolve.
  if (refs.length === 0) problems.push(...checkExamples(model));
  if (problems.length > 0) throw new CodegenError([...new Set(problems)]);
  return model;
}

export function generate(doc: OpenRPCDocument): Generated {
  const model = checkDocument(doc);
  const validators = emitValidators(model);
  return {
    model,
    validators: validators.distinct,
    files: {
      'types.ts': emitTypes(model),
      'handlers.ts': emitHandlers(model),
      'validators.js': validators.js,
      'validators.d.ts': validators.dts,
      'methods.ts': emitMethods(model, validators.names),
      'client/param-checks.ts': emitParamChecks(model, validators.names),
      'head-cached.ts': emitHeadCached(model),
      ...emitClient(model),
    },
  };
}
