// Block parameters, resolved against the chain: "block number or TAG" (D9: also a plain JSON
// integer) and, where execution-apis allows a hash (BlockNumberOrTagOrHash), block hashes.
import type { Chain } from '../chain/chain.ts';
import type { Header } from '../chain/header.ts';
import { bytesToHex, hexToBytes } from '../util/hex.ts';
import { invalidParams, serverError } from './errors.ts';

export type BlockParam = string | number | undefined | null;

/**
 * execution-apis' BlockNumberOrTagOrHash (a BlockParam or a block hash) with geth's EIP-1898 objects.
 * requireCanonical changes nothing: every block the node keeps is canonical (istanbul never forks).
 */
export type BlockRef = BlockParam | { blockHash: string; requireCanonical?: boolean } | { blockNumber: BlockParam };

/** The block hash a BlockRef names (geth reads a 32-byte hex string as a hash), else its block number or tag. */
export function blockRefOf(p: BlockRef): { hash: Uint8Array } | { number: BlockParam } {
  if (p !== null && typeof p === 'object') return 'blockHash' in p ? { hash: hexToBytes(p.blockHash) } : { number: p.blockNumber };
  return typeof p === 'string' && p.length === 66 ? { hash: hexToBytes(p) } : { number: p };
}

/** 'pending' or a height; heights beyond the head are returned as-is (callers decide null vs error). */
export function blockNumberOf(chain: Chain, p: BlockParam): bigint | 'pending' {
  if (p === undefined || p === null || p === 'latest') return chain.headNumber;
  if (p === 'earliest') return 0n;
  if (p === 'pending') return 'pending';
  if (typeof p === 'number') return BigInt(p);
  try {
    return BigInt(p);
  } catch {
    throw invalidParams(`invalid block: ${String(p).slice(0, 40)}`);
  }
}

/** The header whose state a query reads ('pending' reads the head state). Error when unknown. */
export function stateHeader(chain: Chain, p: BlockParam): Header {
  const n = blockNumberOf(chain, p);
  const header = chain.headerByNumber(n === 'pending' ? chain.headNumber : n);
  if (!header) throw serverError(`header not found: block ${n} is beyond the head (${chain.headNumber})`);
  return header;
}

/** stateHeader for a BlockRef: an unknown hash is an error, as geth's "header for hash not found". */
export function stateHeaderOf(chain: Chain, p: BlockRef): Header {
  const ref = blockRefOf(p);
  if ('number' in ref) return stateHeader(chain, ref.number);
  const header = chain.headerByHash(ref.hash);
  if (!header) throw serverError(`header for hash not found: ${bytesToHex(ref.hash)}`);
  return header;
}
