// Root of a Merkle-Patricia trie keyed by rlp(index) — the transactions and receipts roots.
// Built in one pass over the sorted keys instead of one trie insert per item: @ethereumjs/mpt's
// async put re-encodes and re-hashes the path on every insert, which was a large share of block
// assembly time (measured). Same roots as the MPT (tested against it).
import { RLP, type Input } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { EMPTY_TRIE_ROOT } from './header.ts';

type Node = Input;

function nibbles(key: Uint8Array): number[] {
  const out: number[] = new Array(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

/** Compact (hex-prefix) encoding of a nibble path. */
function hexPrefix(path: number[], leaf: boolean): Uint8Array {
  const odd = path.length % 2;
  const out = new Uint8Array(Math.floor(path.length / 2) + 1);
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = 0;
  if (odd) out[0] = out[0]! | path[i++]!;
  for (let j = 1; i < path.length; j++, i += 2) out[j] = (path[i]! << 4) | path[i + 1]!;
  return out;
}

/** A child reference: the node itself when its encoding is under 32 bytes, else its hash. */
function ref(node: Node): Node {
  const enc = RLP.encode(node);
  return enc.length < 32 ? node : keccak256(enc);
}

function build(keys: number[][], values: Uint8Array[], lo: number, hi: number, depth: number): Node {
  if (hi - lo === 1) return [hexPrefix(keys[lo]!.slice(depth), true), values[lo]!];
  // common prefix of the (sorted) range = common prefix of its first and last key
  const first = keys[lo]!;
  const last = keys[hi - 1]!;
  let d = depth;
  while (d < first.length && d < last.length && first[d] === last[d]) d++;
  if (d > depth) return [hexPrefix(first.slice(depth, d), false), ref(build(keys, values, lo, hi, d))];
  const branch: Node[] = new Array(17).fill(new Uint8Array(0));
  let i = lo;
  while (i < hi) {
    const nib = keys[i]![depth]!;
    let j = i + 1;
    while (j < hi && keys[j]![depth] === nib) j++;
    branch[nib] = ref(build(keys, values, i, j, depth + 1));
    i = j;
  }
  return branch;
}

export function orderedTrieRoot(values: Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY_TRIE_ROOT;
  const entries = values.map((v, i) => ({ key: nibbles(RLP.encode(i)), v }));
  entries.sort((a, b) => {
    const n = Math.min(a.key.length, b.key.length);
    for (let i = 0; i < n; i++) if (a.key[i] !== b.key[i]) return a.key[i]! - b.key[i]!;
    return a.key.length - b.key.length;
  });
  const root = build(entries.map((e) => e.key), entries.map((e) => e.v), 0, entries.length, 0);
  return keccak256(RLP.encode(root));
}
