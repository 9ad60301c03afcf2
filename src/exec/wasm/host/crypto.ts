// The hashing and signature host functions, as Venachain's life resolver gives them (cplusplus.go),
// on the node's own keccak and secp256k1 (src/crypto):
//   void sha3(src, srcLen, dest, destLen)  keccak-256 of src into dest; nothing written when
//                                          destLen < 32; 1,310 gas + 6 a word of src (W10)
//   void ecrecover(hash32, sig65, addr20)  the address that signed hash with sig = r‖s‖v (v the
//                                          recovery id 0–3, not 27/28); nothing written when the
//                                          signature does not recover; 280,738 gas
import { keccak256 } from '../../../crypto/keccak.ts';
import { addressOfPublicKey, recoverPublicKey } from '../../../crypto/secp256k1.ts';
import { LENGTH_GAS, u32, words, type HostTable } from './context.ts';

export const SHA3_GAS = 1310n;
export const ECRECOVER_GAS = 280_738n;

export const cryptoHost: HostTable = {
  sha3(ctx, src, srcLen, dest, destLen) {
    ctx.useGas(SHA3_GAS + words(u32(srcLen)) * LENGTH_GAS.hashWord);
    const hash = keccak256(ctx.bytes(u32(src), u32(srcLen)));
    if (u32(destLen) >= 32) ctx.write(u32(dest), hash);
  },
  ecrecover(ctx, hash, sig, addr) {
    ctx.useGas(ECRECOVER_GAS);
    const signature = ctx.bytes(u32(sig), 65).slice();
    const digest = ctx.bytes(u32(hash), 32).slice();
    const recid = signature[64]!;
    if (recid > 3) return;
    let publicKey: Uint8Array;
    try {
      publicKey = recoverPublicKey(digest, signature.subarray(0, 64), recid);
    } catch {
      return;
    }
    ctx.write(u32(addr), addressOfPublicKey(publicKey));
  },
};
