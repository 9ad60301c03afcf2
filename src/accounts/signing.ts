// Node-side signatures: transactions (EIP-155 legacy) and messages (the spec's digest rule, D5).
import { createLegacyTx, type LegacyTx } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import { keccak256 } from '../crypto/keccak.ts';
import { recoverPublicKey, addressOfPublicKey, signHash } from '../crypto/secp256k1.ts';
import { concatBytes } from '../util/hex.ts';
import { DECODE_OPTIONS } from '../tx/init-code.ts';

export interface TxFields {
  nonce: bigint;
  gasPrice: bigint;
  gasLimit: bigint;
  to?: Uint8Array;
  value: bigint;
  data: Uint8Array;
}

/**
 * The unsigned EIP-155 legacy transaction (the chain id comes from `common`). Built with
 * @ethereumjs's initcode check off, as every transaction of ours is: a wasm deploy's data is the
 * contract, not initcode, and the pool applies EIP-3860 to the rest (src/tx/init-code.ts).
 */
export function unsignedLegacyTx(f: TxFields, common: Common): LegacyTx {
  return createLegacyTx({ nonce: f.nonce, gasPrice: f.gasPrice, gasLimit: f.gasLimit, to: f.to, value: f.value, data: f.data }, { common, ...DECODE_OPTIONS });
}

export function signLegacyTx(f: TxFields, privateKey: Uint8Array, common: Common): LegacyTx {
  return unsignedLegacyTx(f, common).sign(privateKey);
}

/** RLP of [nonce, gasPrice, gas, to, value, data, chainId, 0, 0]: what an external signer (a Ledger) signs. */
export function signingPayload(tx: LegacyTx): Uint8Array {
  return RLP.encode(tx.getMessageToSign());
}

/** The transaction with an externally made signature (parity 0/1) added. */
export function withSignature(tx: LegacyTx, recid: number, r: Uint8Array, s: Uint8Array): LegacyTx {
  return tx.addSignature(BigInt(recid), r, s, true);
}

const PREFIX = new TextEncoder().encode('\x19Chain Signed Message:\n');

/** keccak256("\x19Chain Signed Message:\n" ‖ decimal length ‖ message) — the spec's rule 1. */
export function messageDigest(message: Uint8Array): Uint8Array {
  return keccak256(concatBytes(PREFIX, new TextEncoder().encode(String(message.length)), message));
}

/** 65-byte R ‖ S ‖ V with V ∈ {27, 28} (rule 2), the form EIP-712 signatures take too. */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { rs, recid } = signHash(digest, privateKey);
  return concatBytes(rs, new Uint8Array([27 + recid]));
}

export function signMessage(message: Uint8Array, privateKey: Uint8Array): Uint8Array {
  return signDigest(messageDigest(message), privateKey);
}

/** Address that produced `signature` over `message` (rule 3); accepts V as 0/1 or 27/28. */
export function recoverMessageSigner(message: Uint8Array, signature: Uint8Array): Uint8Array {
  if (signature.length !== 65) throw new Error('signature must be 65 bytes');
  let v = signature[64]!;
  if (v >= 27) v -= 27;
  if (v !== 0 && v !== 1) throw new Error('invalid signature recovery id (V must be 27 or 28)');
  return addressOfPublicKey(recoverPublicKey(messageDigest(message), signature.subarray(0, 64), v));
}
