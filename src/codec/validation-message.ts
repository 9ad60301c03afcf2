// Turns ajv errors into one short sentence for a -32602 / -32603 message: "must be a 20-byte hex
// address", never a regex or a schema dump. Works on ajv 8 standalone validators compiled with
// allErrors:false: the last error is the one that stopped validation; for oneOf/anyOf the errors
// before it are the failed branches' reasons, which we either narrow to the one branch that
// matched the value's type or list as alternatives ("a quantity, a block tag (…) or an integer").
import type { ErrorObject } from 'ajv';

/** A compiled (ajv 8) validator: true when `data` matches; otherwise `errors` holds why. */
export interface Validate {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

export interface Problem {
  /** Where in the value: '' for the value itself, else like `.to` or `.accessList[0].address`. */
  readonly path: string;
  /** "must …" / "has …" sentence without a trailing period. */
  readonly message: string;
}

export type PatternLabels = Readonly<Record<string, string>>;

const WRONG = 'has the wrong type/format';
const MAX_ENUM_SHOWN = 8;
/** Nested composites are narrowed at most this deep (bounded by the schema, not the input). */
const MAX_DEPTH = 8;

/** `errors` of a validator that ran out of stack (see runValidator). */
const TOO_DEEP: ErrorObject[] = [];

/**
 * Runs a validator that must not throw. A validator of a recursive schema recurses with the data,
 * so deeply nested input throws RangeError out of it: that becomes a plain failure.
 */
export function runValidator(validate: Validate, value: unknown): boolean {
  try {
    return validate(value);
  } catch {
    validate.errors = TOO_DEEP;
    return false;
  }
}

/** Why the last runValidator(validate, …) failed. */
export function explainFailure(validate: Validate, labels: PatternLabels): Problem {
  const errors = validate.errors;
  return errors === TOO_DEEP ? { path: '', message: 'is nested too deeply' } : describeValidation(errors, labels);
}

export function describeValidation(errors: readonly ErrorObject[] | null | undefined, labels: PatternLabels): Problem {
  if (!errors || errors.length === 0) return { path: '', message: 'is invalid' };
  return describeAt(errors, errors.length - 1, labels, 0);
}

/** ".to[0].address" from ajv's JSON-pointer instancePath "/to/0/address". */
export function renderPath(instancePath: string): string {
  if (instancePath === '') return '';
  let out = '';
  for (const raw of instancePath.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out.length > 200 ? out.slice(0, 200) + '…' : out;
}

function describeAt(errors: readonly ErrorObject[], at: number, labels: PatternLabels, depth: number): Problem {
  const err = errors[at]!;
  if ((err.keyword === 'oneOf' || err.keyword === 'anyOf') && depth < MAX_DEPTH) return composite(errors, at, labels, depth);
  // `if`/`then` report their own generic error after the branch's: the branch's says more.
  if (err.keyword === 'if' && at > 0 && depth < MAX_DEPTH) return describeAt(errors, at - 1, labels, depth + 1);
  // `propertyNames` too (generic "property name must be valid"): say which key and why
  if (err.keyword === 'propertyNames' && at > 0) {
    const key = shortJson((err.params as Record<string, unknown>)['propertyName']);
    return { path: renderPath(err.instancePath), message: `has the key ${key}, which ${sentence(errors[at - 1]!, labels)}` };
  }
  return { path: renderPath(err.instancePath), message: sentence(err, labels) };
}

function composite(errors: readonly ErrorObject[], at: number, labels: PatternLabels, depth: number): Problem {
  const top = errors[at]!;
  const base = top.instancePath;
  const path = renderPath(base);
  if (top.keyword === 'oneOf' && Array.isArray(top.params['passingSchemas'])) {
    return { path, message: 'matches more than one of the allowed forms' };
  }
  // A branch error deeper inside the value means the value had that branch's shape (an object,
  // an array) and failed inside it: that inner reason is what the client needs.
  for (let i = at - 1; i >= 0; i--) {
    const p = errors[i]!.instancePath;
    if (p.length > base.length && p.startsWith(base)) return describeAt(errors, i, labels, depth + 1);
  }
  // Group the same-level errors by the branch they came from.
  const groups = new Map<string, ErrorObject[]>();
  for (let i = 0; i < at; i++) {
    const e = errors[i]!;
    if (e.instancePath !== base) continue;
    const key = branchKey(e.schemaPath, top.schemaPath);
    const g = groups.get(key);
    if (g) g.push(e);
    else groups.set(key, [e]);
  }
  // Branches that failed on `type` were not what the client meant; if exactly one branch accepted
  // the type and failed on something else (-1 for "a non-negative integer"), say why that one failed.
  let only: ErrorObject[] | undefined;
  let count = 0;
  for (const g of groups.values()) {
    if (!g.some((e) => e.keyword === 'type')) {
      only = g;
      count++;
    }
  }
  if (count === 1) return { path, message: sentence(only![0]!, labels) };
  const forms: string[] = [];
  for (const g of groups.values()) {
    const f = form(g, labels);
    if (f === undefined) return { path, message: WRONG };
    if (!forms.includes(f)) forms.push(f);
  }
  if (forms.length === 0) return { path, message: WRONG };
  return { path, message: 'must be ' + joinOr(forms) };
}

/** Which oneOf/anyOf branch an error belongs to: its index, or the component it was checked by. */
function branchKey(schemaPath: string, compositePath: string): string {
  if (schemaPath.startsWith(compositePath + '/')) {
    const rest = schemaPath.slice(compositePath.length + 1);
    const slash = rest.indexOf('/');
    return compositePath + '/' + (slash < 0 ? rest : rest.slice(0, slash));
  }
  const slash = schemaPath.lastIndexOf('/');
  return slash < 0 ? schemaPath : schemaPath.slice(0, slash);
}

/** A full "must …" sentence for one error. */
function sentence(e: ErrorObject, labels: PatternLabels): string {
  const comp = componentWords(e.schemaPath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'pattern': {
      const label = labels[String(p['pattern'])];
      if (label) return 'must be ' + article(label);
      return comp ? 'must be ' + article(comp) : 'has the wrong format';
    }
    case 'type':
      return 'must be ' + (comp ? article(comp) : typeNoun(p['type']));
    case 'enum':
      return 'must be ' + enumForm(p['allowedValues'], comp);
    case 'const':
      return 'must be ' + shortJson(p['allowedValue']);
    case 'additionalProperties':
      return `must not have the property ${shortJson(p['additionalProperty'])}`;
    default:
      return e.message ?? 'is invalid';
  }
}

/** A noun phrase for one failed branch ("a block tag (earliest|latest|pending)"). */
function form(group: readonly ErrorObject[], labels: PatternLabels): string | undefined {
  const pick = (k: string) => group.find((e) => e.keyword === k);
  const e = pick('enum') ?? pick('pattern') ?? pick('const') ?? pick('type') ?? group[0]!;
  const comp = componentWords(e.schemaPath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'enum':
      return enumForm(p['allowedValues'], comp);
    case 'pattern': {
      const label = labels[String(p['pattern'])] ?? comp;
      return label ? article(label) : undefined;
    }
    case 'const':
      return shortJson(p['allowedValue']);
    case 'type':
      return comp ? article(comp) : typeNoun(p['type']);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `a number ${String(p['comparison'])} ${String(p['limit'])}`;
    case 'required':
    case 'additionalProperties':
      return comp ? article(comp) : 'an object';
    default:
      return undefined;
  }
}

function enumForm(values: unknown, comp: string | undefined): string {
  const list = Array.isArray(values) ? values : [];
  const shown = list.slice(0, MAX_ENUM_SHOWN).map((v) => (typeof v === 'string' ? v : shortJson(v)));
  const text = shown.join('|') + (list.length > MAX_ENUM_SHOWN ? '|…' : '');
  return comp ? `${article(comp)} (${text})` : `one of ${text}`;
}

const TYPE_NOUNS: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function typeNoun(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return joinOr(types.map((t) => TYPE_NOUNS[String(t)] ?? String(t)));
}

/**
 * "block tag" when the failing keyword sits directly on a component schema
 * (`…#/components/schemas/BlockTag/enum`): the component's name is the best label we have.
 */
function componentWords(schemaPath: string): string | undefined {
  const m = /\/components\/schemas\/([^/]+)\/[^/]+$/.exec(schemaPath);
  if (!m) return undefined;
  return m[1]!
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
}

function article(noun: string): string {
  // "a uint", "a unique id" (a "yoo" sound) but "an unsigned integer", "an address"
  return (/^[aeiou]/i.test(noun) && !/^(uint|uni|use|eu|one)/i.test(noun) ? 'an ' : 'a ') + noun;
}

function joinOr(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return items.slice(0, -1).join(', ') + ' or ' + items[items.length - 1];
}

function shortJson(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 60) + '…' : s;
}
