// secp256k1 signing and recovery. Recovery dominates transaction admission (measured:
// @noble/curves recovers ~0.8k/s, libsecp256k1 ~20k/s), so the native binding is used when it loads and noble is the fallback.
// The binding loads on the first signature: loading it (its context builds tables) costs ~15 ms,
// and a node's start needs only its key's public key, which OpenSSL derives (node:crypto) in ~0.7 ms.
import { createECDH, type ECDH } from 'node:crypto';
import { createRequire } from 'node:module';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { keccak256 } from './keccak.ts';

interface NativeSecp {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(privateKey: Uint8Array, compressed: boolean): Uint8Array;
}

function loadNative(): NativeSecp | undefined {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp;
  } catch {
    return undefined;
  }
}

/** undefined until the first signature asks for it; null when it does not load */
let binding: NativeSecp | null | undefined;
function nativeBinding(): NativeSecp | null {
  if (binding === undefined) binding = loadNative() ?? null;
  return binding;
}

/**
 * The recovery id (0/1) of an Ethereum signature's v: typed transactions (EIP-2930/1559) carry it
 * as v itself (y parity), legacy ones as 27/28 or, under EIP-155, chainId * 2 + 35/36
 * (@ethereumjs's calculateSigRecovery). Undefined when v is none of these.
 */
export function recoveryId(v: bigint, chainId?: bigint): number | undefined {
  const id = v === 0n || v === 1n ? v : chainId === undefined || v === 27n || v === 28n ? v - 27n : v - (chainId * 2n + 35n);
  return id === 0n || id === 1n ? Number(id) : undefined;
}

/** 64-byte uncompressed public key (without the 0x04 prefix) from (r‖s, recovery id 0/1). */
export function recoverPublicKey(hash: Uint8Array, rs: Uint8Array, recid: number): Uint8Array {
  const native = nativeBinding();
  if (native) return native.ecdsaRecover(rs, recid, hash, false).subarray(1);
  const sig = new Uint8Array(65);
  sig[0] = recid;
  sig.set(rs, 1);
  return noble.recoverPublicKey(sig, hash, { prehash: false, format: 'recovered' } as never).subarray(1);
}

/** A signature that recovers no public key. */
export class InvalidSignature extends Error {}

/** recoverPublicKey, whose failure is an InvalidSignature. */
export function recoverHere(digest: Uint8Array, rs: Uint8Array, recid: number): Uint8Array {
  try {
    return recoverPublicKey(digest, rs, recid);
  } catch {
    throw new InvalidSignature('signature recovers no public key');
  }
}

/**
 * 64-byte uncompressed public key of a 32-byte private key; throws for a key that is 0 or not below
 * the group order. Before the binding has loaded, OpenSSL (node:crypto) derives it.
 */
export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  if (privateKey.length !== 32) throw new Error(`a secp256k1 private key is 32 bytes, not ${privateKey.length}`);
  const ecdh = binding ? undefined : openSslSecp256k1();
  if (ecdh) {
    ecdh.setPrivateKey(privateKey);
    return new Uint8Array(ecdh.getPublicKey().subarray(1));
  }
  const native = nativeBinding();
  return native ? native.publicKeyCreate(privateKey, false).subarray(1) : noble.getPublicKey(privateKey, false).subarray(1);
}

/** OpenSSL's secp256k1, or undefined from a system OpenSSL built without the curve (Node's own builds have it). */
function openSslSecp256k1(): ECDH | undefined {
  try {
    return createECDH('secp256k1');
  } catch {
    return undefined;
  }
}

export function addressOfPublicKey(pub64: Uint8Array): Uint8Array {
  return keccak256(pub64).subarray(12);
}

export function addressOf(privateKey: Uint8Array): Uint8Array {
  return addressOfPublicKey(publicKeyOf(privateKey));
}

/** Signs a 32-byte digest; returns r‖s (64 bytes) and the recovery id (0/1). */
export function signHash(hash: Uint8Array, privateKey: Uint8Array): { rs: Uint8Array; recid: number } {
  const native = nativeBinding();
  if (native) {
    const { signature, recid } = native.ecdsaSign(hash, privateKey);
    return { rs: signature, recid };
  }
  const sig = noble.sign(hash, privateKey, { prehash: false, format: 'recovered' } as never) as Uint8Array;
  return { rs: sig.subarray(1), recid: sig[0]! };
}

/** Whether 64 bytes (an uncompressed public key without its 0x04 prefix) are a point of the curve. */
export function isPublicKey(pub64: Uint8Array): boolean {
  if (pub64.length !== 64) return false;
  try {
    const point = new Uint8Array(65);
    point[0] = 4;
    point.set(pub64, 1);
    noble.Point.fromBytes(point);
    return true;
  } catch {
    return false;
  }
}

export function randomPrivateKey(): Uint8Array {
  return noble.utils.randomSecretKey();
}
