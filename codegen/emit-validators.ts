// generated/validators.js + validators.d.ts: ajv 8 standalone ESM code, one export per method param
// (`p_<method>_<index>`) and per result (`r_<method>`). Identical schemas share one function.
import standaloneModule from 'ajv/dist/standalone/index.js';
import { canonicalJson } from './json.ts';
import { CodegenError, type JSONSchema } from './load.ts';
import type { Model } from './model.ts';
import { anchorRefs, createAjv } from './schema-ajv.ts';
import { HEADER } from './text.ts';

const standaloneCode = standaloneModule.default;

export interface ValidatorNames {
  /** Export names of each method's param validators, in param order. */
  readonly params: ReadonlyMap<string, readonly string[]>;
  /** Export name of each method's result validator. */
  readonly result: ReadonlyMap<string, string>;
}

export interface EmittedValidators {
  readonly js: string;
  readonly dts: string;
  readonly names: ValidatorNames;
  /** Number of distinct validator functions (after deduplication). */
  readonly distinct: number;
}

export function paramExport(method: string, index: number): string {
  return `p_${method}_${index}`;
}

export function resultExport(method: string): string {
  return `r_${method}`;
}

export function emitValidators(model: Model): EmittedValidators {
  const ajv = createAjv(model.doc, { standalone: true, allErrors: false });
  const idOf = new Map<string, string>(); // canonical schema JSON → ajv key
  // ajv's standalone code emits a function twice when two export names map to one schema, so
  // each distinct schema is exported once (under its first name) and the others alias it.
  const primary: Record<string, string> = {}; // export name → ajv key (one per distinct schema)
  const aliases: [string, string][] = []; // [export name, primary export name]
  const primaryOf = new Map<string, string>(); // ajv key → primary export name
  const exportNames: string[] = [];
  const register = (schema: JSONSchema, exportName: string): void => {
    const anchored = anchorRefs(schema);
    const canon = canonicalJson(anchored);
    let id = idOf.get(canon);
    if (id === undefined) {
      id = `v${idOf.size}`;
      idOf.set(canon, id);
      ajv.addSchema(anchored, id);
    }
    exportNames.push(exportName);
    const first = primaryOf.get(id);
    if (first === undefined) {
      primaryOf.set(id, exportName);
      primary[exportName] = id;
    } else {
      aliases.push([exportName, first]);
    }
  };
  const params = new Map<string, string[]>();
  const result = new Map<string, string>();
  for (const m of model.methods) {
    const names = m.params.map((p, i) => {
      const name = paramExport(m.name, i);
      register(p.schema, name);
      return name;
    });
    params.set(m.name, names);
    const r = resultExport(m.name);
    register(m.result ? m.result.schema : true, r);
    result.set(m.name, r);
  }
  let code: string;
  try {
    code = standaloneCode(ajv, primary);
  } catch (e) {
    throw new CodegenError([`validators: ajv standalone code generation failed: ${(e as Error).message}`]);
  }
  const body = esmImports(code);
  const declared = [...body.matchAll(/^function (\w+)\(/gm)].map((m) => m[1]!);
  const twice = declared.filter((n, i) => declared.indexOf(n) !== i);
  if (twice.length > 0) throw new CodegenError([`validators: standalone code declares ${twice.join(', ')} more than once`]);
  const js = [
    HEADER,
    body,
    '',
    '// Methods whose schema is identical to an earlier one share its validator.',
    ...aliases.map(([name, first]) => `export const ${name} = ${first};`),
    '',
  ].join('\n');
  const dts = [
    HEADER,
    "import type { ErrorObject } from 'ajv';",
    '',
    '/** A generated validator: true when `data` matches; otherwise `errors` holds the (first) error. */',
    'export interface Validate {',
    '  (data: unknown): boolean;',
    '  errors?: ErrorObject[] | null;',
    '}',
    '',
    ...exportNames.map((n) => `export declare const ${n}: Validate;`),
    '',
  ].join('\n');
  return { js, dts, names: { params, result }, distinct: idOf.size };
}

/**
 * ajv 8's standalone ESM output still loads its runtime helpers with `require("ajv/dist/runtime/x")`
 * (ajv-validator/ajv#2209), which fails under Node ESM. Hoist them into `import` statements.
 */
export function esmImports(code: string): string {
  const imports: string[] = [];
  const rewritten = code.replace(
    /const (\w+) = require\("([^"]+)"\)\.default;/g,
    (_all, local: string, spec: string) => {
      const path = spec.endsWith('.js') ? spec : `${spec}.js`;
      if (!path.startsWith('ajv/dist/runtime/')) {
        throw new CodegenError([`validators: standalone code requires ${spec}, which is not an ajv runtime helper`]);
      }
      imports.push(`import ${local}_module from ${JSON.stringify(path)};`);
      return `const ${local} = ${local}_module.default;`;
    },
  );
  if (/\brequire\s*\(/.test(rewritten)) {
    const at = /\brequire\s*\([^)]*\)/.exec(rewritten)?.[0];
    throw new CodegenError([`validators: standalone code still calls ${at ?? 'require'} after rewriting runtime imports`]);
  }
  const body = rewritten.replace(/^"use strict";\n?/, '');
  return [...imports, body].join('\n');
}
