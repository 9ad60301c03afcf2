// Who proposes a round (Venachain consensus/iris/validator/default.go). Venachain sorts its set by
// each address's EIP-55 checksummed hex string (Validators.Less compares Address.String()), so digits
// sort before upper-case letters before lower-case ones: an order that differs from the byte order
// the istanbul extra carries. The rules, from the head block's proposer `last` (zero at genesis):
//   round robin (policy 0): index = (idx(last) + round + 1) mod N
//   sticky      (policy 1): index = (idx(last) + round) mod N
// with idx(last) counted as 0 when `last` is not in the set, and index = round mod N when `last` is
// the zero address.
import { toChecksumAddress } from '@ethereumjs/util';
import { bytesToHex, equalBytes } from '../../util/hex.ts';

export const ROUND_ROBIN = 0;
export const STICKY = 1;

/** The set in Venachain's order (by checksummed hex string). */
export function proposerOrder(validators: readonly Uint8Array[]): Uint8Array[] {
  const keyed = validators.map((v) => ({ v, key: toChecksumAddress(bytesToHex(v)) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.v);
}

/** The proposer of `round` in `ordered` (proposerOrder's order) after a block proposed by `last`. */
export function proposerOf(ordered: readonly Uint8Array[], last: Uint8Array, round: number, policy: number): Uint8Array {
  if (ordered.length === 0) throw new Error('an empty validator set has no proposer');
  let seed: number;
  if (last.every((b) => b === 0)) {
    seed = round;
  } else {
    const idx = ordered.findIndex((v) => equalBytes(v, last));
    seed = Math.max(idx, 0) + round + (policy === STICKY ? 0 : 1);
  }
  return ordered[seed % ordered.length]!;
}
