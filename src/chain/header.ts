// Block header: the London field list (16 fields, base fee always 0: D12) with an istanbul
// extra. The block hash follows istanbul: keccak of the header whose extra has its committed seals
// removed, so validators can add commit signatures without changing the hash they signed.
import { RLP } from '@ethereumjs/rlp';
import { keccak256 } from '../crypto/keccak.ts';
import { bigIntToBytes, bytesToBigInt } from '../util/hex.ts';
import { filteredExtra } from './istanbul-extra.ts';

export interface Header {
  parentHash: Uint8Array;
  sha3Uncles: Uint8Array;
  miner: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  baseFeePerGas: bigint;
}

/** keccak256(rlp([])) */
export const EMPTY_UNCLES_HASH = Buffer.from('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347', 'hex');
/** keccak256(rlp('')): root of an empty trie */
export const EMPTY_TRIE_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex');

/** The header's RLP items (a block's wire form nests them, src/chain/block-codec.ts). */
export function headerFields(h: Header, extra: Uint8Array = h.extraData): Uint8Array[] {
  return [
    h.parentHash, h.sha3Uncles, h.miner, h.stateRoot, h.transactionsRoot, h.receiptsRoot, h.logsBloom,
    bigIntToBytes(h.difficulty), bigIntToBytes(h.number), bigIntToBytes(h.gasLimit), bigIntToBytes(h.gasUsed),
    bigIntToBytes(h.timestamp), extra, h.mixHash, h.nonce, bigIntToBytes(h.baseFeePerGas),
  ];
}

export function encodeHeader(h: Header): Uint8Array {
  return RLP.encode(headerFields(h, h.extraData));
}

export function decodeHeader(bytes: Uint8Array): Header {
  return headerFromFields(RLP.decode(bytes) as unknown, false);
}

/** Byte lengths a well-formed header's fields have (undefined: any; integers are at most 32 bytes). */
const FIELD_BYTES = [32, 32, 20, 32, 32, 32, 256, -32, -32, -32, -32, -32, undefined, 32, 8, -32];

/** A header from its RLP items; `strict` (input from peers): throws on anything but 16 byte strings of the right lengths. */
export function headerFromFields(items: unknown, strict = true): Header {
  if (!Array.isArray(items) || items.length !== 16) throw new Error('invalid header encoding: not a list of 16 fields');
  const f = items as Uint8Array[];
  for (let i = 0; strict && i < 16; i++) {
    const item = f[i];
    const want = FIELD_BYTES[i];
    if (!(item instanceof Uint8Array)) throw new Error(`invalid header encoding: field ${i} is a list`);
    if (want !== undefined && (want > 0 ? item.length !== want : item.length > -want)) throw new Error(`invalid header encoding: field ${i} has ${item.length} bytes`);
  }
  return {
    parentHash: f[0]!, sha3Uncles: f[1]!, miner: f[2]!, stateRoot: f[3]!, transactionsRoot: f[4]!,
    receiptsRoot: f[5]!, logsBloom: f[6]!, difficulty: bytesToBigInt(f[7]!), number: bytesToBigInt(f[8]!),
    gasLimit: bytesToBigInt(f[9]!), gasUsed: bytesToBigInt(f[10]!), timestamp: bytesToBigInt(f[11]!),
    extraData: f[12]!, mixHash: f[13]!, nonce: f[14]!, baseFeePerGas: bytesToBigInt(f[15]!),
  };
}

/** Block hash: committed seals excluded (istanbul). */
export function headerHash(h: Header): Uint8Array {
  return keccak256(RLP.encode(headerFields(h, filteredExtra(h.extraData, true))));
}

/** What the proposer signs: both seals excluded. */
export function headerSigHash(h: Header): Uint8Array {
  return keccak256(RLP.encode(headerFields(h, filteredExtra(h.extraData, false))));
}
