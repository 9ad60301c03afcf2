// Values for the JSON Schemas of openrpc.json, for the RPC fuzzer (test/helpers/rpc-fuzz.ts):
// `valid` draws a value the schema accepts, `invalid` one it should refuse — a value of another
// type, a string off its pattern, a number out of bounds, a required property missing, an unknown
// one, an array too long — at the top or somewhere inside. Every draw comes from the seeded `rand`,
// so a seed replays the same values. Neither is trusted: the fuzzer asks the generated validators
// which a value is. Covers the keywords the document uses ($ref, allOf/oneOf/anyOf, enum, const,
// type, pattern, minimum/maximum, items/maxItems, properties/required/additionalProperties,
// propertyNames); the patterns are the document's (hex strings, decimals, durations).

type Schema = Record<string, any>;

/** Values worth drawing for a component (its name: `Address`, `Hash32`…) besides random ones: what the node knows. */
export type Dictionary = Map<string, unknown[]>;

/** How deep `valid` builds nested objects and arrays before it keeps to what is required. */
const MAX_DEPTH = 5;

export class SchemaValues {
  private readonly components: Record<string, Schema>;

  constructor(
    doc: { components?: { schemas?: Record<string, Schema> } },
    readonly rand: () => number,
    private readonly dictionary: Dictionary = new Map(),
  ) {
    this.components = doc.components?.schemas ?? {};
  }

  /** What the dictionary holds for a component (empty when nothing). */
  known(name: string): readonly unknown[] {
    return this.dictionary.get(name) ?? [];
  }

  int(below: number): number {
    return Math.floor(this.rand() * below);
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  /** A value `schema` accepts (as far as the generator can tell: patterns and bounds are kept, semantics are not). */
  valid(schema: Schema | boolean, depth = 0): unknown {
    if (schema === true || schema === undefined) return this.anyValue(depth);
    if (schema === false) return null;
    if (schema.$ref) {
      const name = refName(schema.$ref);
      const known = this.dictionary.get(name);
      if (known?.length && this.chance(0.6)) return this.pick(known);
      return this.valid(this.components[name]!, depth);
    }
    if (schema.allOf) return this.valid(this.merged(schema), depth);
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return this.pick(schema.enum);
    const branches = schema.oneOf ?? schema.anyOf;
    if (branches) return this.valid(this.pick(branches), depth);
    const type = Array.isArray(schema.type) ? this.pick(schema.type) : (schema.type ?? (schema.properties || schema.additionalProperties !== undefined ? 'object' : undefined));
    switch (type) {
      case 'string':
        return schema.pattern ? patternString(schema.pattern, this) : this.text();
      case 'integer':
        return this.integer(schema);
      case 'number': {
        const min = schema.minimum ?? 0;
        return this.chance(0.5) ? this.integer(schema) : min + this.rand() * ((schema.maximum ?? min + 1000) - min);
      }
      case 'boolean':
        return this.chance(0.5);
      case 'null':
        return null;
      case 'array': {
        const max = Math.min(schema.maxItems ?? 3, depth >= MAX_DEPTH ? 0 : 3);
        const n = Math.max(schema.minItems ?? 0, this.int(max + 1));
        return Array.from({ length: n }, () => this.valid(schema.items ?? true, depth + 1));
      }
      case 'object':
        return this.object(schema, depth);
      default:
        return this.anyValue(depth);
    }
  }

  /** A value `schema` probably refuses: wrong at the top, or (for objects and arrays) somewhere inside. */
  invalid(schema: Schema | boolean, depth = 0): unknown {
    if (schema === true || schema === undefined) return undefined;
    if (schema === false) return this.anyValue(depth);
    if (schema.$ref) return this.invalid(this.components[refName(schema.$ref)]!, depth);
    if (schema.allOf) return this.invalid(this.merged(schema), depth);
    const branches: Schema[] | undefined = schema.oneOf ?? schema.anyOf;
    // a branch's invalid value may be another branch's valid one: the validator decides
    if (branches) return this.chance(0.3) ? this.otherType(undefined) : this.invalid(this.pick(branches), depth);
    const ways: (() => unknown)[] = [() => this.otherType(schema.type)];
    if (schema.enum || schema.const !== undefined) ways.push(() => this.pick(['', 'LATEST', 'latest ', 'finalized', 'x'.repeat(300), '0x0']));
    if (schema.type === 'string' && schema.pattern) ways.push(() => this.offPattern(patternString(schema.pattern, this)));
    if (schema.type === 'integer' || schema.type === 'number') {
      ways.push(() => this.pick([-1, 1.5, -0.5, 2 ** 53 + 2, 1e308, (schema.minimum ?? 0) - 1, (schema.maximum ?? 2 ** 32) + 1, '1', '0x1']));
    }
    if (schema.type === 'array' || schema.items) {
      ways.push(() => Array.from({ length: (schema.maxItems ?? 40) + 1 + this.int(3) }, () => this.valid(schema.items ?? true, MAX_DEPTH)));
      if (depth < MAX_DEPTH) ways.push(() => [...((this.valid(schema, depth) as unknown[]) ?? []), this.invalid(schema.items ?? {}, depth + 1)]);
    }
    if (schema.type === 'object' || schema.properties) {
      const value = () => ({ ...(this.valid(schema, depth) as object) }) as Record<string, unknown>;
      if (schema.required?.length) {
        ways.push(() => {
          const v = value();
          delete v[this.pick(schema.required as string[])];
          return v;
        });
      }
      if (schema.additionalProperties === false) ways.push(() => ({ ...value(), [this.pick(['extra', 'constructor', '__proto__', 'Blockhash', ''])]: this.anyValue(MAX_DEPTH) }));
      const props = Object.keys(schema.properties ?? {});
      if (props.length && depth < MAX_DEPTH) {
        ways.push(() => {
          const key = this.pick(props);
          return { ...value(), [key]: this.invalid(schema.properties[key], depth + 1) };
        });
      }
      if (schema.propertyNames) ways.push(() => ({ ...value(), [String(this.offPattern(String(this.valid(schema.propertyNames))))]: this.valid(schema.additionalProperties ?? true, MAX_DEPTH) }));
    }
    return this.pick(ways)();
  }

  /** A string that should miss `pattern`, made from one that matches it. */
  private offPattern(good: string): unknown {
    const ways: (() => string)[] = [
      () => good.replace(/^0x/, ''),
      () => good + this.pick(['g', 'z', ' ', '0', '00', '\u00e9', '\n']),
      () => good.slice(0, -1),
      () => '',
      () => '0x',
      () => good + good.slice(2),
      () => (good === good.toLowerCase() ? good.toUpperCase() : good.toLowerCase()),
      () => ' ' + good,
      () => '0X' + good.slice(2),
      () => good.slice(0, 2) + '0'.repeat(70) + good.slice(2),
      () => '0x' + 'f'.repeat(2 + this.int(200)),
    ];
    return this.pick(ways)();
  }

  /** A value of a JSON type other than `type`. */
  private otherType(type: string | string[] | undefined): unknown {
    const types = Array.isArray(type) ? type : type ? [type] : [];
    const all: [string, () => unknown][] = [
      ['string', () => this.pick(['', '0x', 'hello', '0x1', '💥', 'null', '{}', '-1'])],
      ['integer', () => this.pick([0, 1, -1, 2 ** 53, 1e21])],
      ['number', () => this.pick([0.5, -3.25, 1e-7])],
      ['boolean', () => this.chance(0.5)],
      ['null', () => null],
      ['array', () => this.pick([[], [1, 2], [null], [[[]]]])],
      ['object', () => this.pick([{}, { a: 1 }, { '0x': null }, { length: 1e9 }])],
    ];
    const other = all.filter(([t]) => !types.includes(t) && !(t === 'number' && types.includes('integer')) && !(t === 'integer' && types.includes('number')));
    return this.pick(other)[1]();
  }

  private object(schema: Schema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const required = new Set<string>(schema.required ?? []);
    for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) {
      if (required.has(key) || (depth < MAX_DEPTH && this.chance(0.45))) out[key] = this.valid(sub, depth + 1);
    }
    const extra = schema.additionalProperties;
    if (typeof extra === 'object' && depth < MAX_DEPTH) {
      for (let i = this.int(3); i > 0; i--) {
        const key = schema.propertyNames ? String(this.valid(schema.propertyNames, depth + 1)) : this.text();
        out[key] = this.valid(extra, depth + 1);
      }
    }
    return out;
  }

  private integer(schema: Schema): number {
    const min = schema.minimum ?? (this.chance(0.1) ? -100 : 0);
    const max = schema.maximum ?? (this.chance(0.1) ? 2 ** 53 - 1 : min + 100);
    return this.chance(0.2) ? this.pick([min, max]) : min + this.int(Math.min(max - min, 2 ** 31) + 1);
  }

  private text(): string {
    return this.pick(['', 'a', 'callTracer', 'prestateTracer', '4byteTracer', 'ledger://', 'name', 'uint256', 'Mail', 'x'.repeat(1 + this.int(40)), '日本', '0xdeadbeef']);
  }

  private anyValue(depth: number): unknown {
    return depth >= MAX_DEPTH ? null : this.otherType(undefined);
  }

  /** allOf as one schema: properties and required lists joined, the other keywords of the last one that has them. */
  private merged(schema: Schema): Schema {
    const parts = (schema.allOf as Schema[]).map((s) => (s.$ref ? this.components[refName(s.$ref)]! : s));
    const out: Schema = {};
    for (const p of parts) {
      Object.assign(out, p, { properties: { ...out.properties, ...p.properties }, required: [...(out.required ?? []), ...(p.required ?? [])] });
    }
    return out;
  }
}

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

// A string matching one of the document's patterns: anchors, literals, escapes, classes (with
// ranges and negation), groups with alternatives, and the quantifiers ? * + {n} {n,m}.

type Node = { kind: 'chars'; set: string } | { kind: 'seq'; items: [Node, number, number][] } | { kind: 'alt'; options: Node[] };

const patternCache = new Map<string, Node>();

function patternString(pattern: string, g: SchemaValues): string {
  let node = patternCache.get(pattern);
  if (!node) {
    node = parsePattern(pattern);
    patternCache.set(pattern, node);
  }
  return emit(node, g);
}

function emit(node: Node, g: SchemaValues): string {
  if (node.kind === 'chars') return g.pick([...node.set]);
  if (node.kind === 'alt') return emit(g.pick(node.options), g);
  let out = '';
  for (const [item, min, max] of node.items) {
    // open-ended repeats: mostly short, now and then long (a data field of a few hundred bytes)
    const top = max === Infinity ? (g.chance(0.1) ? 200 : 8) : max;
    const n = min + g.int(top - min + 1);
    for (let i = 0; i < n; i++) out += emit(item, g);
  }
  return out;
}

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');

function parsePattern(pattern: string): Node {
  let pos = 0;
  const peek = () => pattern[pos];
  const alternatives = (): Node => {
    const options = [sequence()];
    while (peek() === '|') {
      pos++;
      options.push(sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  };
  const sequence = (): Node => {
    const items: [Node, number, number][] = [];
    while (pos < pattern.length && peek() !== '|' && peek() !== ')') {
      const c = pattern[pos++]!;
      let atom: Node | undefined;
      if (c === '^' || c === '$') continue;
      if (c === '(') {
        atom = alternatives();
        pos++; // ')'
      } else if (c === '[') atom = charClass();
      else if (c === '\\') atom = { kind: 'chars', set: pattern[pos++]! };
      else atom = { kind: 'chars', set: c };
      let [min, max] = [1, 1];
      const q = peek();
      if (q === '?') [min, max] = [0, 1];
      else if (q === '*') [min, max] = [0, Infinity];
      else if (q === '+') [min, max] = [1, Infinity];
      else if (q === '{') {
        const close = pattern.indexOf('}', pos);
        const [a, b] = pattern.slice(pos + 1, close).split(',');
        [min, max] = [Number(a), b === undefined ? Number(a) : b === '' ? Infinity : Number(b)];
        pos = close;
      }
      if (q === '?' || q === '*' || q === '+' || q === '{') pos++;
      items.push([atom, min, max]);
    }
    return { kind: 'seq', items };
  };
  const charClass = (): Node => {
    const negate = peek() === '^';
    if (negate) pos++;
    let set = '';
    while (peek() !== ']') {
      let c = pattern[pos++]!;
      if (c === '\\') c = pattern[pos++]!;
      if (peek() === '-' && pattern[pos + 1] !== ']') {
        const end = pattern[pos + 1]!;
        pos += 2;
        for (let x = c.charCodeAt(0); x <= end.charCodeAt(0); x++) set += String.fromCharCode(x);
      } else set += c;
    }
    pos++; // ']'
    return { kind: 'chars', set: negate ? [...PRINTABLE].filter((ch) => !set.includes(ch)).join('') : set };
  };
  return alternatives();
}
