// The digest a transaction's sender signed, straight from its raw bytes. @ethereumjs rebuilds it from
// the decoded fields (each field back to bytes, a fresh RLP encoding, then keccak: ~14 µs of the
// event loop a transaction, measured), but the signed fields are one contiguous run of the raw
// encoding: only a new list header (and, under EIP-155, the chain id and two zeros) goes around them.
import { keccak256 } from '../crypto/keccak.ts';
import { rlpHeader, rlpSpan } from '../util/rlp-header.ts';

/** RLP of a non-negative integer */
function rlpInteger(n: bigint): number[] {
  if (n === 0n) return [0x80];
  const bytes: number[] = [];
  for (let x = n; x > 0n; x >>= 8n) bytes.unshift(Number(x & 0xffn));
  return bytes.length === 1 && bytes[0]! < 0x80 ? bytes : [0x80 + bytes.length, ...bytes];
}

/**
 * keccak256 of what the sender of `raw` signed: for a legacy transaction its first six fields
 * (with `eip155ChainId`, then the chain id and two empty fields, EIP-155); for a typed one
 * (EIP-2718) the type byte and every field but the signature's three.
 */
export function signingDigest(raw: Uint8Array, eip155ChainId?: bigint): Uint8Array {
  const typed = raw[0]! < 0xc0;
  const listAt = typed ? 1 : 0;
  const [start, end] = rlpSpan(raw, listAt);
  const ends: number[] = [];
  for (let pos = start; pos < end; ) ends.push((pos = rlpSpan(raw, pos)[1]));
  const signedCount = typed ? ends.length - 3 : 6;
  const signedEnd = signedCount > 0 ? ends[signedCount - 1]! : start;
  const extra = !typed && eip155ChainId !== undefined ? [...rlpInteger(eip155ChainId), 0x80, 0x80] : [];
  const header = rlpHeader(signedEnd - start + extra.length, 0xc0);
  const prefix = typed ? 1 : 0;
  const out = new Uint8Array(prefix + header.length + (signedEnd - start) + extra.length);
  if (typed) out[0] = raw[0]!;
  out.set(header, prefix);
  out.set(raw.subarray(start, signedEnd), prefix + header.length);
  out.set(extra, prefix + header.length + (signedEnd - start));
  return keccak256(out);
}
