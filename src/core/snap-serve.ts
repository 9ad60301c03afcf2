// What a node serves to a state-syncing peer (N16): account and storage leaves of any stored
// state root with the proofs of the range's edges, code by hash, and blocks' consensus receipts.
// Every answer is bounded by the caller (items and bytes); a root or account this node does not
// hold answers empty.
import { RLP } from '@ethereumjs/rlp';
import { encodeReceipt } from '@ethereumjs/vm';
import type { Chain } from '../chain/chain.ts';
import { logsBloom } from '../chain/bloom.ts';
import { CODE_KEY_PREFIX, type OverlayTrieDB } from '../state/trie-db.ts';
import { leavesFrom, proofOf, valueAt, type NodeGetter } from '../state/trie-range.ts';
import type { RangeAnswer } from './chain-door.ts';
import { bytesToHex } from '../util/hex.ts';

const EMPTY: RangeAnswer = { keys: [], values: [], proof: [] };

export class SnapServer {
  private readonly get: NodeGetter;
  constructor(
    private readonly trieDb: OverlayTrieDB,
    private readonly chain: Chain,
  ) {
    this.get = (hash) => trieDb.nodes.get(hash);
  }

  accountRange(root: Uint8Array, origin: Uint8Array, limit: Uint8Array, maxItems: number, maxBytes: number): RangeAnswer {
    return this.range(root, origin, limit, maxItems, maxBytes);
  }

  storageRange(stateRoot: Uint8Array, account: Uint8Array, origin: Uint8Array, limit: Uint8Array, maxItems: number, maxBytes: number): RangeAnswer {
    let value: Uint8Array | undefined;
    try {
      value = valueAt(this.get, stateRoot, account);
    } catch {
      return EMPTY;
    }
    if (value === undefined) return EMPTY;
    const fields = RLP.decode(value) as Uint8Array[];
    return this.range(fields[2]!, origin, limit, maxItems, maxBytes);
  }

  /** The codes this node holds among `hashes`, in their order (one left out is not held), up to about `maxBytes`. */
  codes(hashes: readonly Uint8Array[], maxBytes: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (const h of hashes) {
      if (bytes >= maxBytes) break;
      let code: Uint8Array | undefined;
      try {
        code = this.trieDb.getSync(CODE_KEY_PREFIX + bytesToHex(h).slice(2));
      } catch {
        code = undefined;
      }
      if (code === undefined) continue;
      out.push(code);
      bytes += code.length;
    }
    return out;
  }

  /** Per block from `from` on (at most `count`, about `maxBytes`): RLP of its receipts as its receipts trie holds them. */
  receipts(from: bigint, count: number, maxBytes: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (let n = from; out.length < count && n <= this.chain.headNumber && (out.length === 0 || bytes < maxBytes); n++) {
      const receipts = this.chain.receipts(this.chain.hashByNumber(n)!) ?? [];
      const encoded = RLP.encode(receipts.map((r) => encodeReceipt({ status: r.status, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: logsBloom(r.logs), logs: r.logs }, r.type as 0)));
      out.push(encoded);
      bytes += encoded.length;
    }
    return out;
  }

  private range(root: Uint8Array, origin: Uint8Array, limit: Uint8Array, maxItems: number, maxBytes: number): RangeAnswer {
    try {
      const leaves = leavesFrom(this.get, root, origin, limit, maxItems, maxBytes);
      const proof = proofOf(this.get, root, origin);
      const last = leaves.keys.at(-1);
      if (last !== undefined) {
        const seen = new Set(proof.map((p) => bytesToHex(p)));
        for (const p of proofOf(this.get, root, last)) if (!seen.has(bytesToHex(p))) proof.push(p);
      }
      return { ...leaves, proof };
    } catch {
      // a root this node does not hold (or a missing node under it)
      return EMPTY;
    }
  }
}
