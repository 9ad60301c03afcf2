// The leaves of a stored Merkle-Patricia trie, in key order: each key as the trie holds it (for a
// storage trie the keccak256 of the slot: the slots themselves are not kept) and its value as
// stored (RLP of the value). ContractDataProcessor's migrate copies a storage trie by them.
import { RLP } from '@ethereumjs/rlp';
import { KECCAK256_RLP } from '@ethereumjs/util';
import { equalBytes } from '../util/hex.ts';
import type { NodeStore } from './trie-batch.ts';

type Decoded = Uint8Array | Decoded[];

export interface TrieLeaf {
  /** the full key (32 bytes for a state or storage trie) */
  key: Uint8Array;
  value: Uint8Array;
}

function keyOf(path: readonly number[]): Uint8Array {
  const out = new Uint8Array(path.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (path[2 * i]! << 4) | path[2 * i + 1]!;
  return out;
}

/** Up to `limit` leaves of the trie under `root`; `truncated` when it has more. */
export function trieLeaves(store: NodeStore, root: Uint8Array, limit: number): { leaves: TrieLeaf[]; truncated: boolean } {
  const leaves: TrieLeaf[] = [];
  let truncated = false;
  const found = (path: number[], value: Uint8Array): boolean => {
    if (leaves.length >= limit) {
      truncated = true;
      return false;
    }
    leaves.push({ key: keyOf(path), value });
    return true;
  };
  // false: stop, the limit is reached
  const visit = (ref: Decoded, path: number[]): boolean => {
    let node: Decoded = ref;
    if (ref instanceof Uint8Array) {
      if (ref.length === 0) return true;
      // a child of 32 bytes is a stored node's hash; a shorter node is embedded in its parent
      node = RLP.decode(store.get(ref)) as Decoded;
    }
    if (!Array.isArray(node)) return true;
    if (node.length === 17) {
      const value = node[16] as Uint8Array;
      if (value.length > 0 && !found(path, value)) return false;
      for (let i = 0; i < 16; i++) if (!visit(node[i]!, [...path, i])) return false;
      return true;
    }
    const compact = node[0] as Uint8Array;
    const flag = compact[0]! >> 4;
    const rest = flag & 1 ? [compact[0]! & 15] : [];
    for (let i = 1; i < compact.length; i++) rest.push(compact[i]! >> 4, compact[i]! & 15);
    if (flag >= 2) return found([...path, ...rest], node[1] as Uint8Array);
    return visit(node[1]!, [...path, ...rest]);
  };
  if (!equalBytes(root, KECCAK256_RLP)) visit(root, []);
  return { leaves, truncated };
}
