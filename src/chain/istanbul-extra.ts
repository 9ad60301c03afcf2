// Istanbul BFT header extra, as Venachain / quorum lay it out:
//   extraData = 32-byte vanity ‖ RLP([validators[], seal, committedSeals[]])
// Every block carries it from genesis on, so the multi-node BFT adds no format change.
import { RLP } from '@ethereumjs/rlp';
import { concatBytes, padLeft } from '../util/hex.ts';

export const VANITY_BYTES = 32;
/** mixHash of every istanbul block: keccak-free marker "istanbul byzantine fault tolerance". */
export const ISTANBUL_DIGEST = Buffer.from('63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365', 'hex');
/** Message code appended to a block hash before a validator signs its commit (istanbul msgCommit). */
export const COMMIT_MSG_CODE = 2;

export interface IstanbulExtra {
  vanity: Uint8Array;
  validators: Uint8Array[];
  seal: Uint8Array;
  committedSeals: Uint8Array[];
}

export function encodeExtra(e: IstanbulExtra): Uint8Array {
  const vanity = padLeft(e.vanity.subarray(0, VANITY_BYTES), VANITY_BYTES);
  return concatBytes(vanity, RLP.encode([e.validators, e.seal, e.committedSeals]));
}

export function decodeExtra(extra: Uint8Array): IstanbulExtra {
  if (extra.length < VANITY_BYTES) throw new Error('invalid istanbul extra: shorter than the vanity');
  const decoded = RLP.decode(extra.subarray(VANITY_BYTES)) as unknown;
  if (!Array.isArray(decoded) || decoded.length < 3) throw new Error('invalid istanbul extra: not a 3-item list');
  const [validators, seal, committed] = decoded as [Uint8Array[], Uint8Array, Uint8Array[]];
  return { vanity: extra.subarray(0, VANITY_BYTES), validators, seal, committedSeals: committed };
}

/** The extra with committed seals removed (keepSeal) or both seals removed: the istanbul hashing forms. */
export function filteredExtra(extra: Uint8Array, keepSeal: boolean): Uint8Array {
  const e = decodeExtra(extra);
  return encodeExtra({ ...e, seal: keepSeal ? e.seal : new Uint8Array(0), committedSeals: [] });
}
