// The @ethereumjs Common for our chain: the chain id from genesis, the Prague rule set (D12:
// solc 0.8 output needs Shanghai+; Osaka would cap a transaction's gas at 2^24, below the spec's
// default of 1.5e9), and native secp256k1 recovery for transaction senders.
import { Hardfork, Mainnet, createCustomCommon, type Common, type ParamsDict } from '@ethereumjs/common';
import { paramsTx } from '@ethereumjs/tx';
import { keccak256 } from '../crypto/keccak.ts';
import { padLeft } from '../util/hex.ts';
import { recoverPublicKey, recoveryId } from '../crypto/secp256k1.ts';

/** @ethereumjs's customCrypto.ecrecover: the 64-byte public key; throws on a signature that recovers none. */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recid = recoveryId(v, chainId);
  if (recid === undefined) throw new Error('invalid signature v value');
  const rs = new Uint8Array(64);
  rs.set(padLeft(r, 32), 0);
  rs.set(padLeft(s, 32), 32);
  return recoverPublicKey(msgHash, rs, recid);
}

/**
 * A Common that @ethereumjs objects share instead of copying. @ethereumjs/tx and /block copy the
 * Common and deep-copy its parameter tables (JSON.parse(JSON.stringify)) in every transaction and
 * block header constructor: ~100 µs, more than a signature recovery (measured). They only read it,
 * so all of them share one instance whose copy() returns itself and whose tables are loaded once.
 */
export function shareableCommon(common: Common, params: ParamsDict): Common {
  const shared = common.copy();
  shared.updateParams(params);
  shared.copy = () => shared;
  shared.updateParams = () => shared;
  return shared;
}

/** The Common transactions are decoded and signed with. */
export function makeTxCommon(chainId: bigint): Common {
  return shareableCommon(makeCommon(chainId), paramsTx);
}

export function makeCommon(chainId: bigint): Common {
  return createCustomCommon({ chainId: Number(chainId), name: 'chain-node' }, Mainnet, {
    hardfork: Hardfork.Prague,
    customCrypto: { ecrecover, keccak256 },
  });
}
