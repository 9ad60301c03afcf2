// A block's wire form between nodes: RLP([header fields, [signed transactions]]) — the header as it
// is hashed (committed seals included), the transactions as submitted. Senders are not sent: the
// receiver recovers them. Decoding is strict: the bytes come from peers.
import { RLP } from '@ethereumjs/rlp';
import { headerFields, headerFromFields, headerHash, type Header } from './header.ts';

export interface WireBlock {
  header: Header;
  hash: Uint8Array;
  txs: Uint8Array[];
}

export function encodeBlock(header: Header, txs: readonly Uint8Array[]): Uint8Array {
  return RLP.encode([headerFields(header), [...txs]]);
}

/** Decodes a block; throws with the reason when the bytes are not one. */
export function decodeBlock(bytes: Uint8Array): WireBlock {
  let items: unknown;
  try {
    items = RLP.decode(bytes);
  } catch (e) {
    throw new Error(`block is not RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || items.length !== 2) throw new Error('block must be RLP([header, transactions])');
  const [fields, txs] = items as [unknown, unknown];
  const header = headerFromFields(fields);
  if (!Array.isArray(txs) || !txs.every((t) => t instanceof Uint8Array)) throw new Error('block transactions must be a list of byte strings');
  return { header, hash: headerHash(header), txs: txs as Uint8Array[] };
}
