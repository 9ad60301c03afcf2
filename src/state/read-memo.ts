// Values a trie returned at its current root, kept until the root changes. A trie's content is a
// function of its root, so a repeated read under the same root can skip the walk (node reads from
// LMDB, RLP decoding, key hashing). The call runner needs this: @ethereumjs's account and storage
// caches forget every read made inside a checkpoint when it is reverted, and every eth_call is a
// reverted checkpoint, so without it each call walks the trie again for the same few accounts
// and slots (measured: a fifth of a varied view call).
import type { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { equalBytes } from '../util/hex.ts';

/** Keys a trie remembers per root; past this the memo starts over (bounds memory per trie). */
const MEMO_KEYS = 16_384;

const memoized = new WeakSet<MerklePatriciaTrie>();

/** Makes `trie.get` answer repeated keys under an unchanged root from memory. Idempotent. */
export function memoizeReads(trie: MerklePatriciaTrie): MerklePatriciaTrie {
  if (memoized.has(trie)) return trie;
  memoized.add(trie);
  const read = trie.get.bind(trie);
  let root = trie.root();
  let values = new Map<string, Uint8Array | null>();
  trie.get = async (key: Uint8Array, throwIfMissing?: boolean): Promise<Uint8Array | null> => {
    const now = trie.root();
    if (now !== root && !equalBytes(now, root)) {
      root = now;
      values = new Map();
    }
    const k = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
    const known = values.get(k);
    if (known !== undefined) return known;
    // the map of the root this read started at: the root may move while the read awaits
    const at = values;
    const value = await read(key, throwIfMissing);
    if (at.size >= MEMO_KEYS) at.clear();
    at.set(k, value);
    return value;
  };
  return trie;
}
