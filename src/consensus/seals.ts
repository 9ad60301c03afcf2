// The istanbul signatures a block carries: the proposer seal and the committed seals (a validator's
// signature of keccak256(blockHash ‖ COMMIT_MSG_CODE)), both 65 bytes [r ‖ s ‖ recid]. The sealer
// and the iris engine make them; block verification and the engine check them.
import { keccak256 } from '../crypto/keccak.ts';
import { addressOfPublicKey, recoverPublicKey, signHash } from '../crypto/secp256k1.ts';
import { concatBytes } from '../util/hex.ts';
import { COMMIT_MSG_CODE } from '../chain/istanbul-extra.ts';

/** 65-byte [r ‖ s ‖ recid] signature of a 32-byte digest, as istanbul lays seals out. */
export function seal65(digest: Uint8Array, key: Uint8Array): Uint8Array {
  const { rs, recid } = signHash(digest, key);
  return concatBytes(rs, new Uint8Array([recid]));
}

/** What a committed seal signs: the block hash followed by the COMMIT message code. */
export function commitDigest(blockHash: Uint8Array): Uint8Array {
  return keccak256(concatBytes(blockHash, new Uint8Array([COMMIT_MSG_CODE])));
}

export function committedSeal(blockHash: Uint8Array, key: Uint8Array): Uint8Array {
  return seal65(commitDigest(blockHash), key);
}

/** The address that made a 65-byte signature of `digest`, or undefined when it is not one. */
export function signerOf(signature: Uint8Array, digest: Uint8Array): Uint8Array | undefined {
  if (signature.length !== 65 || signature[64]! > 1) return undefined;
  try {
    return addressOfPublicKey(recoverPublicKey(digest, signature.subarray(0, 64), signature[64]!));
  } catch {
    return undefined;
  }
}

/** The quorum of a validator set of `n`: N − F with F = ⌊(N − 1) / 3⌋ faulty validators tolerated. */
export function quorum(n: number): number {
  return n - Math.floor((n - 1) / 3);
}
