// The method model: every method of the document with its `$ref`s followed, split into namespace,
// handler group and key. The emitters and the example check work on this, not on raw JSON.
import {
  deref,
  type ContentDescriptor,
  type ErrorObject,
  type ExampleObject,
  type ExamplePairing,
  type JSONSchema,
  type MethodObject,
  type OpenRPCDocument,
} from './load.ts';

/** Namespaces whose methods are served by another group's handlers: `chain_X` is `eth_X`. */
export const GROUP_ALIASES: Readonly<Record<string, string>> = { chain: 'eth' };

export const METHOD_NAME = /^([a-z][a-z0-9]*)_([A-Za-z][A-Za-z0-9_]*)$/;

export interface ParamModel {
  readonly name: string;
  readonly description: string | undefined;
  readonly required: boolean;
  readonly schema: JSONSchema;
}

export interface ExampleModel {
  readonly name: string;
  /** Example params as given (name, value), in order. */
  readonly params: readonly { readonly name: string; readonly value: unknown }[];
  /** Absent when the example has no result. */
  readonly result: { readonly name: string; readonly value: unknown } | undefined;
}

export interface MethodModel {
  readonly name: string;
  /** Index in the document's `methods` array. */
  readonly index: number;
  readonly namespace: string;
  /** Handler group: the namespace, except chain → eth. */
  readonly group: string;
  /** Method suffix: the property of the group's handler interface. */
  readonly key: string;
  readonly summary: string | undefined;
  readonly description: string | undefined;
  readonly deprecated: boolean;
  readonly params: readonly ParamModel[];
  readonly result: { readonly name: string; readonly description: string | undefined; readonly schema: JSONSchema } | undefined;
  readonly errors: readonly ErrorObject[];
  readonly examples: readonly ExampleModel[];
  /** The method object after following a `$ref` (for the eth/chain parity check). */
  readonly raw: MethodObject;
}

export interface Model {
  readonly doc: OpenRPCDocument;
  /** `components/schemas` in document order. */
  readonly schemas: readonly (readonly [string, JSONSchema])[];
  readonly methods: readonly MethodModel[];
  /** Handler groups in order of first appearance (eth first when present). */
  readonly groups: readonly string[];
}

/** Builds the model. Structural problems (dangling refs, bad names) go to `problems`. */
export function buildModel(doc: OpenRPCDocument, problems: string[]): Model {
  const schemas = Object.entries(doc.components?.schemas ?? {});
  const methods: MethodModel[] = [];
  const seen = new Set<string>();
  doc.methods.forEach((m, index) => {
    const raw = deref<MethodObject>(doc, m, `methods[${index}]`, problems);
    if (!raw) return;
    const name = raw.name;
    const where = name;
    if (seen.has(name)) {
      problems.push(`${where}: duplicate method name`);
      return;
    }
    seen.add(name);
    const parts = METHOD_NAME.exec(name);
    if (!parts) {
      problems.push(`${where}: method name must be <namespace>_<suffix> (lowercase namespace, identifier suffix)`);
      return;
    }
    const namespace = parts[1]!;
    const key = parts[2]!;
    if (raw.paramStructure === 'by-name') {
      problems.push(`${where}: paramStructure "by-name" is not supported (params are positional)`);
    }
    const params: ParamModel[] = [];
    raw.params.forEach((p, i) => {
      const cd = deref<ContentDescriptor>(doc, p, `${where}: params[${i}]`, problems);
      if (!cd) return;
      params.push({ name: cd.name, description: cd.summary ?? cd.description, required: cd.required === true, schema: cd.schema });
    });
    let result: MethodModel['result'];
    if (raw.result !== undefined) {
      const cd = deref<ContentDescriptor>(doc, raw.result, `${where}: result`, problems);
      if (cd) result = { name: cd.name, description: cd.summary ?? cd.description, schema: cd.schema };
    }
    const errors: ErrorObject[] = [];
    (raw.errors ?? []).forEach((e, i) => {
      const err = deref<ErrorObject>(doc, e, `${where}: errors[${i}]`, problems);
      if (err) errors.push(err);
    });
    const examples: ExampleModel[] = [];
    (raw.examples ?? []).forEach((e, i) => {
      const pairing = deref<ExamplePairing>(doc, e, `${where}: examples[${i}]`, problems);
      if (!pairing) return;
      const label = `${where}: example "${pairing.name}"`;
      const exParams: { name: string; value: unknown }[] = [];
      pairing.params.forEach((ep, j) => {
        const ex = deref<ExampleObject>(doc, ep, `${label}: params[${j}]`, problems);
        if (ex) exParams.push({ name: ex.name, value: ex.value });
      });
      let exResult: ExampleModel['result'];
      if (pairing.result !== undefined) {
        const ex = deref<ExampleObject>(doc, pairing.result, `${label}: result`, problems);
        if (ex) exResult = { name: ex.name, value: ex.value };
      }
      examples.push({ name: pairing.name, params: exParams, result: exResult });
    });
    methods.push({
      name,
      index,
      namespace,
      group: GROUP_ALIASES[namespace] ?? namespace,
      key,
      summary: raw.summary,
      description: raw.description,
      deprecated: raw.deprecated === true,
      params,
      result,
      errors,
      examples,
      raw,
    });
  });
  const groups = [...new Set(methods.map((m) => m.group))];
  const eth = groups.indexOf('eth');
  if (eth > 0) {
    groups.splice(eth, 1);
    groups.unshift('eth');
  }
  return { doc, schemas, methods, groups };
}

/** `personal` → `Personal`: the stem of the handler interface name. */
export function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `eth` → `EthHandlers`. */
export function groupInterfaceName(group: string): string {
  return `${pascal(group)}Handlers`;
}

/** Number of leading required params. */
export function requiredCount(params: readonly ParamModel[]): number {
  let n = 0;
  while (n < params.length && params[n]!.required) n++;
  return n;
}
