// The state sync's messages (`/chain/snap/1`, N16): a request for account leaves, storage leaves,
// codes or blocks' receipts, and its answer. RLP, decoded strictly: a decode error names what was
// wrong and the host penalises the sender.
import { RLP } from '@ethereumjs/rlp';
import { bigIntToBytes, bytesToBigInt } from '../util/hex.ts';
import type { RangeAnswer } from '../core/chain-door.ts';

export const SNAP_PROTOCOL = '/chain/snap/1';
/** Most bytes a state answer holds, about (the server stops adding past it). */
export const SNAP_ANSWER_BYTES = 512 * 1024;
/** Most leaves one range answer holds. */
export const SNAP_MAX_ITEMS = 4096;
/** Most codes asked for at once. */
export const SNAP_MAX_CODES = 64;
/** Most blocks whose receipts are asked for at once. */
export const SNAP_MAX_RECEIPT_BLOCKS = 256;
/** Receipts answers stop adding blocks past this (one block's receipts may exceed it). */
export const RECEIPTS_ANSWER_BYTES = 4 * 1024 * 1024;
/** Largest request frame: a few hashes, or 64 code hashes. */
export const MAX_SNAP_REQUEST = 4 * 1024;
/** Largest answer frame: a range with its proofs, or receipts (one large block's among them). */
export const MAX_SNAP_FRAME = 16 * 1024 * 1024;

export type SnapRequest =
  | { kind: 'accounts'; root: Uint8Array; origin: Uint8Array; limit: Uint8Array; maxItems: number }
  | { kind: 'storage'; root: Uint8Array; account: Uint8Array; origin: Uint8Array; limit: Uint8Array; maxItems: number }
  | { kind: 'codes'; hashes: Uint8Array[] }
  | { kind: 'receipts'; from: bigint; count: number };

const KINDS = ['accounts', 'storage', 'codes', 'receipts'] as const;

export function encodeSnapRequest(r: SnapRequest): Uint8Array {
  const tag = bigIntToBytes(BigInt(KINDS.indexOf(r.kind)));
  switch (r.kind) {
    case 'accounts':
      return RLP.encode([tag, r.root, r.origin, r.limit, bigIntToBytes(BigInt(r.maxItems))]);
    case 'storage':
      return RLP.encode([tag, r.root, r.account, r.origin, r.limit, bigIntToBytes(BigInt(r.maxItems))]);
    case 'codes':
      return RLP.encode([tag, r.hashes]);
    case 'receipts':
      return RLP.encode([tag, bigIntToBytes(r.from), bigIntToBytes(BigInt(r.count))]);
  }
}

export function decodeSnapRequest(bytes: Uint8Array): SnapRequest {
  const items = list(bytes, 'state request');
  const kind = KINDS[Number(integer(items[0], 'state request kind'))];
  const hash = (i: number, what: string) => {
    const b = items[i];
    if (!(b instanceof Uint8Array) || b.length !== 32) throw new Error(`${kind} request: ${what} is not 32 bytes`);
    return b;
  };
  const items32 = (n: number) => {
    if (items.length !== n) throw new Error(`${kind} request must have ${n} items, not ${items.length}`);
  };
  switch (kind) {
    case 'accounts':
      items32(5);
      return { kind, root: hash(1, 'the root'), origin: hash(2, 'the origin'), limit: hash(3, 'the limit'), maxItems: count(items[4], SNAP_MAX_ITEMS, 'accounts request items') };
    case 'storage':
      items32(6);
      return { kind, root: hash(1, 'the root'), account: hash(2, 'the account'), origin: hash(3, 'the origin'), limit: hash(4, 'the limit'), maxItems: count(items[5], SNAP_MAX_ITEMS, 'storage request items') };
    case 'codes': {
      items32(2);
      const hashes = items[1];
      if (!Array.isArray(hashes) || hashes.length < 1 || hashes.length > SNAP_MAX_CODES || !hashes.every((h) => h instanceof Uint8Array && h.length === 32)) throw new Error(`codes request must name 1–${SNAP_MAX_CODES} 32-byte hashes`);
      return { kind, hashes: hashes as Uint8Array[] };
    }
    case 'receipts':
      items32(3);
      return { kind, from: integer(items[1], 'receipts request start'), count: count(items[2], SNAP_MAX_RECEIPT_BLOCKS, 'receipts request count') };
    default:
      throw new Error(`state request kind ${bytesToBigInt(items[0] as Uint8Array)} is unknown`);
  }
}

export function encodeRange(a: RangeAnswer): Uint8Array {
  return RLP.encode([a.keys, a.values, a.proof]);
}

export function decodeRange(bytes: Uint8Array): RangeAnswer {
  const items = list(bytes, 'range answer');
  if (items.length !== 3 || !items.every(byteStrings)) throw new Error('range answer must be RLP([keys, values, proof]), each a list of byte strings');
  const [keys, values, proof] = items as Uint8Array[][];
  return { keys: keys!, values: values!, proof: proof! };
}

/** Codes, or blocks' receipts lists: a list of byte strings. */
export function encodeItems(items: readonly Uint8Array[]): Uint8Array {
  return RLP.encode([...items]);
}

export function decodeItems(bytes: Uint8Array, what: string): Uint8Array[] {
  const items = list(bytes, what);
  if (!byteStrings(items)) throw new Error(`${what} must be a list of byte strings`);
  return items as Uint8Array[];
}

function byteStrings(x: unknown): boolean {
  return Array.isArray(x) && x.every((i) => i instanceof Uint8Array);
}

function list(bytes: Uint8Array, what: string): unknown[] {
  let items: unknown;
  try {
    items = RLP.decode(bytes);
  } catch (e) {
    throw new Error(`${what} is not RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items)) throw new Error(`${what} must be an RLP list`);
  return items;
}

function integer(b: unknown, what: string): bigint {
  if (!(b instanceof Uint8Array) || b.length > 8 || (b.length > 0 && b[0] === 0)) throw new Error(`${what} is not a canonical 64-bit integer`);
  return bytesToBigInt(b);
}

function count(b: unknown, max: number, what: string): number {
  const n = integer(b, what);
  if (n < 1n || n > BigInt(max)) throw new Error(`${what} ${n} is not 1–${max}`);
  return Number(n);
}
