// Root of a Merkle-Patricia trie keyed by rlp(index) — the transactions and receipts roots.
// Built in one pass over the sorted keys instead of one trie insert per item: @ethereumjs/mpt's
// async put re-encodes and re-hashes the path on every insert, which was a large share of block
// assembly time (measured). Each node is written straight into one buffer of its RLP encoding
// (src/state/trie-nodes.ts; a generic encoder over nested arrays copied every value twice more and
// was half of the time left, P10's profile). Same roots as the MPT (tested against it).
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { childRef, EMPTY_ITEM, hexPrefix, list, nibbles, pair, stringItem } from '../state/trie-nodes.ts';
import { EMPTY_TRIE_ROOT } from './header.ts';

/** The RLP encoding of the node over keys[lo, hi), all equal in their first `depth` nibbles. */
function build(keys: number[][], values: Uint8Array[], lo: number, hi: number, depth: number): Uint8Array {
  const first = keys[lo]!;
  if (hi - lo === 1) return pair(hexPrefix(first, depth, first.length, true), values[lo]!);
  // common prefix of the (sorted) range = common prefix of its first and last key
  const last = keys[hi - 1]!;
  let d = depth;
  while (d < first.length && d < last.length && first[d] === last[d]) d++;
  if (d > depth) {
    const path = hexPrefix(first, depth, d, false);
    const child = childRef(build(keys, values, lo, hi, d));
    return list([stringItem(path), child]);
  }
  // keys are RLP encodings, so none is a prefix of another: a branch never holds a value
  const branch: Uint8Array[] = new Array(17).fill(EMPTY_ITEM);
  let i = lo;
  while (i < hi) {
    const nib = keys[i]![depth]!;
    let j = i + 1;
    while (j < hi && keys[j]![depth] === nib) j++;
    branch[nib] = childRef(build(keys, values, i, j, depth + 1));
    i = j;
  }
  return list(branch);
}

export function orderedTrieRoot(values: Uint8Array[]): Uint8Array {
  if (values.length === 0) return EMPTY_TRIE_ROOT;
  const entries = values.map((v, i) => ({ key: nibbles(RLP.encode(i)), v }));
  entries.sort((a, b) => {
    const n = Math.min(a.key.length, b.key.length);
    for (let i = 0; i < n; i++) if (a.key[i] !== b.key[i]) return a.key[i]! - b.key[i]!;
    return a.key.length - b.key.length;
  });
  return keccak256(build(entries.map((e) => e.key), entries.map((e) => e.v), 0, entries.length, 0));
}
