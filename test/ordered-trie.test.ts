// The one-pass ordered trie root equals @ethereumjs/mpt's root for the same items.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { orderedTrieRoot } from '../src/chain/ordered-trie.ts';

async function mptRoot(values: Uint8Array[]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]!);
  return trie.root();
}

for (const n of [0, 1, 2, 3, 15, 16, 17, 127, 128, 129, 130, 255, 256, 300, 1000]) {
  test(`${n} items: same root as the MPT`, async () => {
    // values of varied length: short ones get embedded in their parent, long ones hashed
    const values = Array.from({ length: n }, (_, i) => new Uint8Array((i * 7) % 90 + 1).fill(i % 251));
    assert.equal(Buffer.from(orderedTrieRoot(values)).toString('hex'), Buffer.from(await mptRoot(values)).toString('hex'));
  });
}

test('long values (one- and two-byte length headers): same root as the MPT', async () => {
  const values = Array.from({ length: 40 }, (_, i) => new Uint8Array([55, 56, 255, 256, 300, 70_000][i % 6]!).fill(i));
  assert.equal(Buffer.from(orderedTrieRoot(values)).toString('hex'), Buffer.from(await mptRoot(values)).toString('hex'));
});

test.run();
