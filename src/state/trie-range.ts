// Reading a stored trie by key order, for the state sync's server (N16): the leaves from a key on,
// and the nodes on the path to a key (its proof). Keys are the trie's own 32-byte keys (hashed
// addresses or slots). Synchronous over `get`; a missing node throws (the caller answers empty).
import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_RLP } from '@ethereumjs/util';
import { equalBytes } from '../util/hex.ts';
import { fromHexPrefix, nibbles } from './trie-nodes.ts';

type Decoded = Uint8Array | Decoded[];

export interface Leaves {
  keys: Uint8Array[];
  values: Uint8Array[];
}

/** `get(hash)`: the encoded node stored under it (throws when missing). */
export type NodeGetter = (hash: Uint8Array) => Uint8Array;

/**
 * Leaves with key ≥ `origin`, in key order, until one past `limit` is taken (so the answer's last
 * proof shows nothing between was left out), or `maxItems` / about `maxBytes` are reached.
 */
export function leavesFrom(get: NodeGetter, root: Uint8Array, origin: Uint8Array, limit: Uint8Array, maxItems: number, maxBytes: number): Leaves {
  const out: Leaves = { keys: [], values: [] };
  if (equalBytes(root, KECCAK256_RLP)) return out;
  const from = nibbles(origin);
  let bytes = 0;
  let done = false;
  const take = (path: number[], value: Uint8Array) => {
    const key = packNibbles(path);
    out.keys.push(key);
    out.values.push(value);
    bytes += key.length + value.length;
    if (out.keys.length >= maxItems || bytes >= maxBytes || Buffer.compare(key, limit) > 0) done = true;
  };
  // edge: whether `path` is still a prefix of `from` (keys below origin are skipped)
  const walk = (item: Decoded, path: number[], edge: boolean): void => {
    if (done) return;
    const node = resolve(get, item);
    if (node === undefined) return;
    if (node.length === 17) {
      const startAt = edge ? from[path.length]! : 0;
      for (let i = startAt; i < 16 && !done; i++) walk(node[i]!, [...path, i], edge && i === startAt);
      return;
    }
    const { path: part, leaf } = fromHexPrefix(node[0] as Uint8Array);
    const full = [...path, ...part];
    if (edge) {
      const c = compareNibbles(full, from.slice(0, full.length));
      if (c < 0) return;
      if (c > 0) edge = false;
    }
    if (leaf) take(full, node[1] as Uint8Array);
    else walk(node[1]!, full, edge);
  };
  walk(root, [], true);
  return out;
}

/** The stored nodes from the root towards `key` (a proof of its presence or absence). */
export function proofOf(get: NodeGetter, root: Uint8Array, key: Uint8Array): Uint8Array[] {
  const proof: Uint8Array[] = [];
  if (equalBytes(root, KECCAK256_RLP)) return proof;
  const path = nibbles(key);
  let item: Decoded | undefined = root;
  let at = 0;
  while (item !== undefined) {
    if (item instanceof Uint8Array) {
      if (item.length === 0) break;
      const encoded = get(item);
      proof.push(encoded);
      item = RLP.decode(encoded) as Decoded[];
    }
    const node = item as Decoded[];
    if (node.length === 17) {
      if (at === path.length) break;
      item = node[path[at++]!];
      continue;
    }
    const { path: part, leaf } = fromHexPrefix(node[0] as Uint8Array);
    if (leaf || compareNibbles(part, path.slice(at, at + part.length)) !== 0) break;
    at += part.length;
    item = node[1];
  }
  return proof;
}

/** The value under `key`, or undefined. */
export function valueAt(get: NodeGetter, root: Uint8Array, key: Uint8Array): Uint8Array | undefined {
  const l = leavesFrom(get, root, key, key, 1, Infinity);
  return l.keys.length === 1 && equalBytes(l.keys[0]!, key) ? l.values[0] : undefined;
}

function resolve(get: NodeGetter, item: Decoded): Decoded[] | undefined {
  if (Array.isArray(item)) return item;
  if (item.length === 0) return undefined;
  return RLP.decode(get(item)) as Decoded[];
}

function compareNibbles(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function packNibbles(path: readonly number[]): Uint8Array {
  const out = new Uint8Array(path.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (path[2 * i]! << 4) | path[2 * i + 1]!;
  return out;
}
