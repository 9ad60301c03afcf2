// NodeManagement's JSON as Venachain's Go reads and writes it: the NodeInfo and UpdateNode records
// (common/syscontracts/types.go) through encoding/json. Reading: keys match case-insensitively,
// unknown keys and nulls are ignored, a value of the wrong JSON type fails the call naming the key.
// Writing: the struct's field order, `omitempty` fields left out when zero, and Go's escaping of
// <, >, &, U+2028 and U+2029 — the exact bytes Venachain answers, which clients compare and hash.
import { NativeCallError } from './engine.ts';
import type { NodeRecord } from './system-state.ts';

/** The fields of an update (UpdateNode): each absent one is left as it is. */
export interface NodeUpdate {
  desc?: string;
  type?: number;
  status?: number;
  delayNum?: number;
}

type FieldKind = 'string' | 'uint32' | 'uint64';

/** NodeInfo's fields in struct order, with their kinds and whether Go's json leaves them out when zero. */
const NODE_FIELDS: readonly (readonly [keyof NodeRecord, FieldKind, boolean])[] = [
  ['name', 'string', true],
  ['owner', 'string', false],
  ['desc', 'string', false],
  ['type', 'uint32', false],
  ['status', 'uint32', false],
  ['externalIP', 'string', false],
  ['internalIP', 'string', true],
  ['publicKey', 'string', false],
  ['rpcPort', 'uint32', false],
  ['p2pPort', 'uint32', false],
  ['delayNum', 'uint64', true],
];

const UPDATE_FIELDS: readonly (readonly [keyof NodeUpdate, FieldKind])[] = [
  ['desc', 'string'],
  ['type', 'uint32'],
  ['status', 'uint32'],
  ['delayNum', 'uint64'],
];

function fieldValue(what: string, key: string, kind: FieldKind, v: unknown): string | number {
  if (kind === 'string') {
    if (typeof v !== 'string') throw new NativeCallError(`${what}: "${key}" must be a JSON string, got ${JSON.stringify(v)}`);
    return v;
  }
  // JSON.parse keeps integers exactly up to 2^53: a larger delayNum could not be kept as given
  const max = kind === 'uint32' ? 0xffff_ffff : Number.MAX_SAFE_INTEGER;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
    throw new NativeCallError(`${what}: "${key}" must be a JSON number, an integer from 0 to ${max}, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** The value given for `field`: an exact key, else (as encoding/json does) one equal but for case. */
function lookup(object: Record<string, unknown>, field: string): unknown {
  if (Object.hasOwn(object, field)) return object[field];
  const key = Object.keys(object).find((k) => k.toLowerCase() === field.toLowerCase());
  return key === undefined ? undefined : object[key];
}

function asObject(what: string, value: unknown): Record<string, unknown> {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new NativeCallError(`${what}: must be a JSON object, got ${JSON.stringify(value)?.slice(0, 64)}`);
  return value as Record<string, unknown>;
}

/** A NodeInfo argument (add, getNodes, nodesNum); fields not given are zero, as in Go. */
export function parseNodeInfo(what: string, value: unknown): NodeRecord {
  const object = asObject(what, value);
  const record: Record<string, string | number> = {};
  for (const [field, kind] of NODE_FIELDS) {
    const v = lookup(object, field);
    record[field] = v === undefined || v === null ? (kind === 'string' ? '' : 0) : fieldValue(what, field, kind, v);
  }
  return record as unknown as NodeRecord;
}

/** An UpdateNode argument: only the fields given (null counts as not given, as a nil pointer). */
export function parseNodeUpdate(what: string, value: unknown): NodeUpdate {
  const object = asObject(what, value);
  const update: Record<string, string | number> = {};
  for (const [field, kind] of UPDATE_FIELDS) {
    const v = lookup(object, field);
    if (v !== undefined && v !== null) update[field] = fieldValue(what, field, kind, v);
  }
  return update as NodeUpdate;
}

/** A string as Go's json.Marshal writes it (HTML-safe escaping). */
function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function goValue(v: string | number): string {
  return typeof v === 'string' ? goString(v) : String(v);
}

/** A NodeInfo as Go's json.Marshal writes it. */
export function nodeInfoJson(record: NodeRecord): string {
  const parts: string[] = [];
  for (const [field, kind, omitEmpty] of NODE_FIELDS) {
    const v = record[field] ?? (kind === 'string' ? '' : 0);
    if (omitEmpty && (v === '' || v === 0)) continue;
    parts.push(`"${field}":${goValue(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** An UpdateNode as Go's json.Marshal writes it: the fields given, zero or not (pointers). */
export function nodeUpdateJson(update: NodeUpdate): string {
  const parts = UPDATE_FIELDS.filter(([field]) => update[field] !== undefined).map(([field]) => `"${field}":${goValue(update[field]!)}`);
  return `{${parts.join(',')}}`;
}

/** Venachain's result envelope of NodeManagement's queries: {"code":0,"msg":"success","data":…}. */
export function successResult(dataJson: string): string {
  return `{"code":0,"msg":"success","data":${dataJson}}`;
}
