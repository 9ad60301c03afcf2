// keccak-256. The native binding (`keccak` package, prebuilt) is 1.7x (32 B) to 3x (532 B, a
// trie node) faster than @noble/hashes (measured here); trie hashing dominates block commits.
// @noble/hashes is the fallback when the binding does not load.
import { createRequire } from 'node:module';
import { keccak_256 } from '@noble/hashes/sha3.js';

interface NativeHasher {
  update(data: Buffer): NativeHasher;
  digest(): Buffer;
}

function loadNative(): ((alg: string) => NativeHasher) | undefined {
  try {
    return createRequire(import.meta.url)('keccak/bindings.js') as (alg: string) => NativeHasher;
  } catch {
    return undefined;
  }
}

const native = loadNative();

export const keccak256: (data: Uint8Array) => Uint8Array = native
  ? (data) => {
      const out = native('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
      return new Uint8Array(out.buffer, out.byteOffset, 32);
    }
  : (data) => keccak_256(data);
