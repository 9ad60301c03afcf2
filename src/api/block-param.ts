// "block number or TAG" parameters (DESIGN D9: also a plain JSON integer), resolved against the chain.
import type { Chain } from '../chain/chain.ts';
import type { Header } from '../chain/header.ts';
import { hexToBytes } from '../util/hex.ts';
import { invalidParams, serverError } from './errors.ts';

export type BlockParam = string | number | undefined | null;

/**
 * execution-apis' BlockNumberOrTagOrHash: a BlockParam or a block hash. Like geth, a 32-byte hex
 * string (66 characters) is read as a hash, any shorter one as a number.
 */
export function blockHashIn(p: BlockParam): Uint8Array | undefined {
  return typeof p === 'string' && p.length === 66 ? hexToBytes(p) : undefined;
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

/** stateHeader for a number, tag or block hash: an unknown hash is an error, as geth's "header for hash not found". */
export function stateHeaderOrHash(chain: Chain, p: BlockParam): Header {
  const hash = blockHashIn(p);
  if (!hash) return stateHeader(chain, p);
  const header = chain.headerByHash(hash);
  if (!header) throw serverError(`header for hash not found: ${String(p)}`);
  return header;
}
