// EIP-712 typed structured data: the digest `eth_signTypedData_v4` and `personal_signTypedData`
// sign, keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)). Values are checked as
// strictly as geth's apitypes (every field present, no extra ones, sizes exact): a signature over
// data the signer did not fully see must not come out of a lenient parse.
import { keccak256 } from './keccak.ts';
import { concatBytes, hexToBytes, padLeft } from '../util/hex.ts';

export interface TypedField {
  name: string;
  type: string;
}

export interface TypedData {
  types: Record<string, TypedField[]>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

/** What is wrong with the typed data, starting with where (e.g. `message.to.wallet: …`). */
export class TypedDataError extends Error {}

const DOMAIN = 'EIP712Domain';

/** EIP-712's domain fields in the order wallets infer them when the request has no EIP712Domain type. */
const DOMAIN_FIELDS: readonly TypedField[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
];

const ARRAY_SUFFIX = /^(.*)\[(\d*)\]$/;
const INTEGER = /^(u?)int(\d*)$/;
const FIXED_BYTES = /^bytes(\d+)$/;
const HEX = /^0x[0-9a-fA-F]*$/;
const INTEGER_TEXT = /^-?(0x[0-9a-fA-F]+|[0-9]+)$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? s.slice(0, 60) + '…' : s;
};
function fail(where: string, why: string): never {
  throw new TypedDataError(`${where}: ${why}`);
}

/** Structural checks of the request: the four members, well-formed type lists, every referenced type defined. */
export function parseTypedData(input: unknown): TypedData {
  if (!isObject(input)) fail('typed data', 'must be an object (or its JSON text)');
  const { types, primaryType, domain, message } = input as Record<string, unknown>;
  if (!isObject(types)) fail('types', 'is missing or not an object');
  if (typeof primaryType !== 'string') fail('primaryType', 'is missing or not a string');
  if (!isObject(domain)) fail('domain', 'is missing or not an object');
  if (primaryType !== DOMAIN && !isObject(message)) fail('message', 'is missing or not an object');
  const structs = types as Record<string, unknown>;
  for (const [name, fields] of Object.entries(structs)) {
    if (!Array.isArray(fields)) fail(`types.${name}`, 'must be a list of {name, type}');
    const seen = new Set<string>();
    (fields as unknown[]).forEach((f, i) => {
      if (!isObject(f) || typeof f.name !== 'string' || typeof f.type !== 'string') fail(`types.${name}[${i}]`, 'must be {name, type} with string members');
      const field = f as unknown as TypedField;
      if (seen.has(field.name)) fail(`types.${name}[${i}]`, `repeats the field name "${field.name}"`);
      seen.add(field.name);
      const base = baseType(field.type);
      if (!(base in structs) && !isAtomic(base) && base !== 'bytes' && base !== 'string') fail(`types.${name}[${i}]`, `has the unknown type "${field.type}"`);
    });
  }
  if (primaryType !== DOMAIN && !(primaryType in structs)) fail('primaryType', `"${primaryType}" is not defined in types`);
  return input as unknown as TypedData;
}

/** The type without its array suffixes: `Person[][2]` → `Person`. */
function baseType(type: string): string {
  let t = type;
  for (let m = ARRAY_SUFFIX.exec(t); m; m = ARRAY_SUFFIX.exec(t)) t = m[1]!;
  return t;
}

function isAtomic(type: string): boolean {
  if (type === 'address' || type === 'bool') return true;
  const int = INTEGER.exec(type);
  if (int) return int[2] === '' || (Number(int[2]) >= 8 && Number(int[2]) <= 256 && Number(int[2]) % 8 === 0);
  const bytes = FIXED_BYTES.exec(type);
  return bytes !== null && Number(bytes[1]) >= 1 && Number(bytes[1]) <= 32;
}

class Encoder {
  constructor(private readonly types: Record<string, TypedField[]>) {}

  /** `Name(type1 name1,…)` of the struct followed by those of the structs it references, sorted by name (EIP-712 encodeType). */
  encodeType(name: string): string {
    const deps = new Set<string>();
    const visit = (struct: string) => {
      for (const f of this.types[struct]!) {
        const base = baseType(f.type);
        if (base in this.types && base !== name && !deps.has(base)) {
          deps.add(base);
          visit(base);
        }
      }
    };
    visit(name);
    return [name, ...[...deps].sort()].map((s) => `${s}(${this.types[s]!.map((f) => `${f.type} ${f.name}`).join(',')})`).join('');
  }

  hashStruct(name: string, value: unknown, where: string): Uint8Array {
    if (!isObject(value)) fail(where, `must be an object of type ${name}, got ${shown(value)}`);
    const fields = this.types[name]!;
    const known = new Set(fields.map((f) => f.name));
    for (const key of Object.keys(value as object)) if (!known.has(key)) fail(`${where}.${key}`, `is not a field of ${name}`);
    const obj = value as Record<string, unknown>;
    const parts = [keccak256(new TextEncoder().encode(this.encodeType(name)))];
    for (const f of fields) {
      if (obj[f.name] === undefined) fail(`${where}.${f.name}`, `is missing (${f.type})`);
      parts.push(this.encodeValue(f.type, obj[f.name], `${where}.${f.name}`));
    }
    return keccak256(concatBytes(...parts));
  }

  /** One member as its 32-byte word: atomic values padded, dynamic ones and structs hashed. */
  private encodeValue(type: string, value: unknown, where: string): Uint8Array {
    const array = ARRAY_SUFFIX.exec(type);
    if (array) {
      if (!Array.isArray(value)) fail(where, `must be an array (${type}), got ${shown(value)}`);
      const items = value as unknown[];
      if (array[2] !== '' && items.length !== Number(array[2])) fail(where, `must have ${array[2]} entries (${type}), has ${items.length}`);
      return keccak256(concatBytes(...items.map((v, i) => this.encodeValue(array[1]!, v, `${where}[${i}]`))));
    }
    if (type in this.types) return this.hashStruct(type, value, where);
    if (type === 'string') {
      if (typeof value !== 'string') fail(where, `must be a string, got ${shown(value)}`);
      return keccak256(new TextEncoder().encode(value as string));
    }
    if (type === 'bytes') return keccak256(hexBytes(value, where));
    if (type === 'address') {
      if (typeof value !== 'string' || !HEX.test(value) || value.length !== 42) fail(where, `must be a 20-byte hex address, got ${shown(value)}`);
      return padLeft(hexToBytes(value as string), 32);
    }
    if (type === 'bool') {
      // geth's apitypes also takes the strings "true" and "false"
      if (value !== true && value !== false && value !== 'true' && value !== 'false') fail(where, `must be true or false, got ${shown(value)}`);
      return padLeft(new Uint8Array([value === true || value === 'true' ? 1 : 0]), 32);
    }
    const bytes = FIXED_BYTES.exec(type);
    if (bytes) {
      const b = hexBytes(value, where);
      if (b.length !== Number(bytes[1])) fail(where, `must be exactly ${bytes[1]} bytes (${type}), got ${b.length}`);
      const word = new Uint8Array(32);
      word.set(b);
      return word;
    }
    const int = INTEGER.exec(type)!;
    return integerWord(value, int[1] === '', int[2] === '' ? 256 : Number(int[2]), type, where);
  }
}

function hexBytes(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !HEX.test(value) || value.length % 2 !== 0) fail(where, `must be 0x-prefixed hex bytes, got ${shown(value)}`);
  return hexToBytes(value as string);
}

/** A JSON number, or a decimal or 0x-hex string (wallets send big values as strings), range-checked, two's complement when signed. */
function integerWord(value: unknown, signed: boolean, bits: number, type: string, where: string): Uint8Array {
  let n: bigint;
  if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && INTEGER_TEXT.test(value)) n = value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value);
  else return fail(where, `must be an integer (a number, or a decimal or 0x-hex string), got ${shown(value)}`);
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (n < min || n > max) fail(where, `${n} is out of range for ${type}`);
  const word = n < 0n ? (1n << 256n) + n : n;
  return hexToBytes(word.toString(16).padStart(64, '0'));
}

/** The EIP712Domain fields: as the request declares them, else inferred from the domain's keys. */
function domainFields(data: TypedData): TypedField[] {
  if (data.types[DOMAIN]) return data.types[DOMAIN];
  for (const key of Object.keys(data.domain)) if (!DOMAIN_FIELDS.some((f) => f.name === key)) fail(`domain.${key}`, `is not an EIP-712 domain field and types has no ${DOMAIN} declaring it`);
  return DOMAIN_FIELDS.filter((f) => data.domain[f.name] !== undefined);
}

/** keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct(primaryType, message)); the message part is left out when the primary type is the domain itself. */
export function typedDataDigest(input: unknown): Uint8Array {
  const data = parseTypedData(input);
  const encoder = new Encoder({ ...data.types, [DOMAIN]: domainFields(data) });
  const domainSeparator = encoder.hashStruct(DOMAIN, data.domain, 'domain');
  const parts = [new Uint8Array([0x19, 0x01]), domainSeparator];
  if (data.primaryType !== DOMAIN) parts.push(encoder.hashStruct(data.primaryType, data.message, 'message'));
  return keccak256(concatBytes(...parts));
}
