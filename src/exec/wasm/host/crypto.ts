// The hashing and signature host functions, as Venachain's life resolver gives them (cplusplus.go),
// on the node's own keccak and secp256k1 (src/crypto):
//   void sha3(src, srcLen, dest, destLen)  keccak-256 of src into dest; nothing written when
//                                          destLen < 32; 1,310 gas whatever the length
//   void ecrecover(hash32, sig65, addr20)  the address that signed hash with sig = r‖s‖v (v the
//                                          recovery id 0–3, not 27/28); nothing written when the
//                                          signature does not recover; 280,738 gas
import { keccak256 } from '../../../crypto/keccak.ts';
import { addressOfPublicKey, recoverPublicKey } from '../../../crypto/secp256k1.ts';
import type { BuiltinsContext } from './compiler-builtins.ts';
import { BuiltinTrap } from './compiler-builtins.ts';

export const SHA3_GAS = 1310n;
export const ECRECOVER_GAS = 280738n;

export function cryptoFunctions(ctx: BuiltinsContext): Record<string, (...args: never[]) => unknown> {
  const bytes = (ptr: number, length: number) => {
    const at = ptr >>> 0;
    const len = length >>> 0;
    const memory = ctx.memory();
    if (at + len > memory.length) throw new BuiltinTrap(`${len} bytes at ${at} are outside the module's memory (${memory.length} bytes)`);
    return memory.subarray(at, at + len);
  };
  return {
    sha3: (src: number, srcLen: number, dest: number, destLen: number) => {
      ctx.useGas(SHA3_GAS);
      const hash = keccak256(bytes(src, srcLen));
      if (destLen >>> 0 >= 32) bytes(dest, 32).set(hash);
    },
    ecrecover: (hash: number, sig: number, addr: number) => {
      ctx.useGas(ECRECOVER_GAS);
      const signature = bytes(sig, 65);
      const recid = signature[64]!;
      if (recid > 3) return;
      let publicKey: Uint8Array;
      try {
        publicKey = recoverPublicKey(bytes(hash, 32).slice(), signature.slice(0, 64), recid);
      } catch {
        return;
      }
      bytes(addr, 20).set(addressOfPublicKey(publicKey));
    },
  };
}
